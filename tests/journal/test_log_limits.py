"""The logs are bounded and croupier's alone: the same line repeated is collapsed into one line
saying how often, both logs are rotated at their size, their files are 0600 (folders 0700) and
never opened through a symbolic link, and a log that cannot be written goes quiet."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import structlog

from controller.game.errors import ConfigError
from controller.journal import logs
from controller.journal.logs import Repeats, configure_logging, log_failures, reset_logging
from controller.table.config import table_from_mapping
from tests.journal.disk import fill, small_disk

pytestmark = pytest.mark.usefixtures("restore_logging")
__all__ = ["small_disk"]  # (the fixture, used by name)

FLOOD = "socket.accept() out of system resource\nsocket: <asyncio.TransportSocket fd=6>"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_same_line_a_thousand_times_is_written_ten_times_then_once_saying_how_often(
    tmp_path: Path,
) -> None:
    audit = tmp_path / "audit.jsonl"
    configure_logging(console=False, json_path=audit)
    for _ in range(1_000):
        logging.getLogger("asyncio").error(FLOOD)
    structlog.get_logger("croupier.table").info("input refused", action="hit")
    reset_logging()

    records = _records(audit)
    assert [r["event"] for r in records[:10]] == [FLOOD] * 10
    assert records[10]["event"] == "input refused"
    (summary,) = records[11:]
    assert summary["event"] == (
        "socket.accept() out of system resource (repeated 990 more times in 10 s, not written)"
    )
    assert (summary["repeated"], summary["logger"], summary["level"]) == (990, "asyncio", "error")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _record(message: str, name: str = "asyncio") -> logging.LogRecord:
    return logging.LogRecord(name, logging.ERROR, "", 0, message, None, None)


def test_a_flood_that_goes_on_gives_its_limit_and_one_summary_per_window() -> None:
    clock = Clock()
    repeats = Repeats(3, 10.0, clock=clock)
    written, summaries = 0, []
    for _ in range(3):  # three windows of 100 records each
        for _ in range(100):
            admitted, ended = repeats.admit(_record("accept() failed"))
            written += admitted
            summaries += ended
            clock.now += 0.1
    summaries += repeats.flush()
    assert written == 9
    assert [s.getMessage() for s in summaries] == [
        "accept() failed (repeated 97 more times in 10 s, not written)"
    ] * 3


def test_a_flood_that_stops_is_summed_up_at_the_next_line_after_its_window() -> None:
    clock = Clock()
    repeats = Repeats(2, 10.0, clock=clock)
    for _ in range(5):
        repeats.admit(_record("port gone"))
    clock.now += 11.0
    admitted, ended = repeats.admit(_record("something else", name="croupier.table"))
    assert admitted
    assert [s.getMessage() for s in ended] == [
        "port gone (repeated 3 more times in 10 s, not written)"
    ]
    assert repeats.flush() == []


def test_lines_that_differ_only_after_their_first_line_are_the_same_line() -> None:
    repeats = Repeats(2, 10.0, clock=Clock())
    admitted = [
        repeats.admit(_record(f"Exception in callback _start_serving()\nhandle: <when={n}>"))[0]
        for n in range(5)
    ]
    assert admitted == [True, True, False, False, False]
    (summary,) = repeats.flush()
    assert summary.getMessage() == (
        "Exception in callback _start_serving() (repeated 3 more times in 10 s, not written)"
    )


def test_different_lines_and_the_wire_bytes_are_never_collapsed() -> None:
    repeats = Repeats(1, 10.0, clock=Clock())
    assert all(repeats.admit(_record(f"card {n}"))[0] for n in range(50))
    assert all(repeats.admit(_record("rx", name="croupier.wire"))[0] for _ in range(50))
    error = _record("same words")
    warning = _record("same words")
    warning.levelno = logging.WARNING
    assert repeats.admit(error)[0]
    assert repeats.admit(warning)[0]


def test_the_audit_log_is_rotated_within_its_bound_and_every_file_is_0600(
    tmp_path: Path,
) -> None:
    audit = tmp_path / "log" / "audit.jsonl"
    configure_logging(console=False, json_path=audit, audit_max_bytes=4_000, audit_backups=2)
    table = structlog.get_logger("croupier.table")
    for number in range(2_000):
        table.info(f"input refused {number}", number=number)
    reset_logging()

    files = sorted(p.name for p in audit.parent.iterdir())
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    for name in files:
        info = (audit.parent / name).stat()
        assert info.st_size <= 4_000
        assert stat.S_IMODE(info.st_mode) == 0o600
    assert _records(audit)[-1]["number"] == 1_999


def test_the_logs_and_their_new_folders_are_croupiers_alone_whatever_the_umask(
    tmp_path: Path,
) -> None:
    old = os.umask(0)
    try:
        configure_logging(
            console=False,
            json_path=tmp_path / "a" / "b" / "audit.jsonl",
            debug_path=tmp_path / "a" / "c" / "debug.log",
        )
    finally:
        os.umask(old)
    modes = {
        str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode)
        for p in sorted(tmp_path.rglob("*"))
    }
    assert modes == {
        "a": 0o700,
        "a/b": 0o700,
        "a/b/audit.jsonl": 0o600,
        "a/c": 0o700,
        "a/c/debug.log": 0o600,
    }


def test_a_log_that_is_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "journal.sqlite3"
    target.write_bytes(b"not to be touched")
    (tmp_path / "audit.jsonl").symlink_to(target)
    with pytest.raises(OSError, match="symbolic links"):
        configure_logging(console=False, json_path=tmp_path / "audit.jsonl")
    assert target.read_bytes() == b"not to be touched"


@pytest.fixture
def retry_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken log is tried again at its next record (instead of 30 s later): the clock."""
    monkeypatch.setattr(logs, "RETRY_S", 0.0)


@pytest.mark.usefixtures("retry_at_once")
def test_a_log_on_a_full_disk_says_so_once_and_says_when_it_can_be_written_again(
    small_disk: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    audit = small_disk / "audit.jsonl"
    configure_logging(console=False, json_path=audit)
    table = structlog.get_logger("croupier.table")
    table.info("before", n=0)
    fill(small_disk)
    for number in range(500):
        table.info(f"while the disk is full {number}", padding="x" * 200)
    (small_disk / "filler").unlink()
    table.info("after")
    reset_logging()

    err = capfd.readouterr().err
    assert "Logging error" not in err
    lines = err.splitlines()
    assert lines[0] == (
        f"croupier: the audit log {audit} cannot be written (no space left on device): nothing "
        "more is written to it until it can be (tried again every 0 s)"
    )
    assert lines[1].startswith(f"croupier: the audit log {audit} can be written again (")
    assert lines[1].endswith(" records were lost)")
    assert len(lines) == 2
    lines = audit.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["event"] == "before"
    assert json.loads(lines[-1])["event"] == "after"  # on a line of its own
    damaged = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            damaged.append(line)
    assert len(damaged) <= 1, damaged  # (the one cut short when the disk filled)
    assert log_failures() == [f"the audit log {audit} cannot be written (no space left on device)"]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("repeat_limit", 0, "logs.repeat_limit = 0: must be a whole number from 1 to 10000"),
        ("audit_max_bytes", 1000, "logs.audit_max_bytes = 1000: must be a whole number from"),
        ("debug_backups", 0, "logs.debug_backups = 0: must be a whole number from 1 to 1000"),
        ("wire_cards", "yes", 'logs.wire_cards = "yes": must be true or false, without quotes'),
    ],
)
def test_a_log_setting_out_of_its_range_is_refused_naming_the_key(
    key: str, value: object, words: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        table_from_mapping({"logs": {key: value}}, "table.toml", Path.cwd())
    assert any(problem.startswith(words) for problem in refused.value.problems), refused.value


def test_a_record_that_cannot_be_rendered_is_left_out_alone_and_the_log_goes_on(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest's own capturing handler re-raises a record it cannot render unless this is off
    # (as the logging module's handlers do not): only croupier's handlers are under test
    monkeypatch.setattr(logging, "raiseExceptions", False)
    audit = tmp_path / "audit.jsonl"
    configure_logging(console=False, json_path=audit)
    for _ in range(3):
        logging.getLogger("croupier.bad").warning("%s and %s", "one argument")  # noqa: PLE1206 - the mistake
    structlog.get_logger("croupier.table").info("after the mistake")
    reset_logging()

    assert [r["event"] for r in _records(audit)] == ["after the mistake"]
    err = capfd.readouterr().err
    assert err.splitlines() == [
        f"croupier: a record of croupier.bad could not be rendered for the audit log {audit} "
        "(TypeError: not enough arguments for format string): such records are left out"
    ]
    assert log_failures() == []
