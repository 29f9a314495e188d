"""Logging: one structlog pipeline for our loggers and the libraries', JSON file and console."""

from __future__ import annotations

import io
import json
import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest
import structlog

from controller.journal.logs import (
    bind_round,
    configure_logging,
    reset_logging,
)
from tests.faults.harness import croupier_command

pytestmark = pytest.mark.usefixtures("restore_logging")


def lines(path: Path) -> list[dict[str, Any]]:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_transitions_warning_reaches_the_json_file_with_the_bound_round(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "audit.jsonl"
    configure_logging(console=False, json_path=path)
    bind_round(table_id="T1", shoe_id="S7", round_id=12)

    logging.getLogger("transitions.core").warning("%sCannot trigger %s", "", "deal")

    (record,) = lines(path)
    assert record["event"] == "Cannot trigger deal"
    assert record["logger"] == "transitions.core"
    assert record["level"] == "warning"
    assert (record["table_id"], record["shoe_id"], record["round_id"]) == ("T1", "S7", 12)
    assert record["timestamp"].endswith("Z")


def test_library_chatter_goes_to_the_debug_log_only_and_ours_to_both(tmp_path: Path) -> None:
    audit, debug = tmp_path / "audit.jsonl", tmp_path / "log" / "debug.log"
    configure_logging(console=False, json_path=audit, level="INFO", debug_path=debug)
    bind_round(table_id="T1", round_id=4)
    chatter = logging.getLogger("transitions.core")
    chatter.info("Executed callback '%s'", "<bound method RoundController._on_enter>")
    chatter.debug("Finished processing state %s", "dealing")
    structlog.get_logger("croupier.table").info("input refused", action="hit")
    structlog.get_logger("croupier.wire").debug("rx", hex="02 53 03")
    logging.getLogger("serial").warning("port %s gone", "/dev/ttyUSB0")

    assert [(r["logger"], r["event"]) for r in lines(audit)] == [
        ("croupier.table", "input refused"),
        ("serial", "port /dev/ttyUSB0 gone"),
    ]
    text = debug.read_text(encoding="utf-8")
    for words in (
        "Executed callback '<bound method RoundController._on_enter>'",
        "Finished processing state dealing",
        "input refused",
        "hex='02 53 03'",
        "port /dev/ttyUSB0 gone",
        "round_id=4",
    ):
        assert words in text
    assert not text.lstrip().startswith("{")  # for a person, like the console


def test_the_debug_log_is_rotated_and_stays_within_its_bound(tmp_path: Path) -> None:
    debug = tmp_path / "debug.log"
    configure_logging(
        console=False, debug_path=debug, debug_max_bytes=4_000, debug_backups=2, level="INFO"
    )
    chatter = logging.getLogger("transitions.core")
    for number in range(2_000):
        chatter.debug("Executed callback %d of a long round", number)

    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["debug.log", "debug.log.1", "debug.log.2"]
    assert all((tmp_path / name).stat().st_size <= 4_000 for name in files)
    assert "Executed callback 1999 " in debug.read_text(encoding="utf-8")


def test_our_structlog_events_and_pyserial_records_share_the_pipeline(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    configure_logging(console=False, json_path=path)
    bind_round(table_id="T1", round_id=3)
    structlog.get_logger("croupier.table").info("input refused", action="hit", box=2)
    logging.getLogger("pySerial.loop").warning("port %s gone", "loop://")
    structlog.contextvars.clear_contextvars()

    ours, theirs = lines(path)
    assert ours["event"] == "input refused"
    assert (ours["action"], ours["box"], ours["round_id"]) == ("hit", 2, 3)
    assert ours["logger"] == "croupier.table"
    assert theirs["event"] == "port loop:// gone"
    assert (theirs["logger"], theirs["level"], theirs["round_id"]) == (
        "pySerial.loop",
        "warning",
        3,
    )


def test_the_console_is_rendered_for_a_person_not_as_json(tmp_path: Path) -> None:
    stream = io.StringIO()
    configure_logging(console=True, stream=stream)
    bind_round(round_id=5)
    structlog.get_logger("croupier.table").warning("shoe lost", port="/dev/ttyUSB0")
    logging.getLogger("transitions").info("entered %s", "dealing")

    text = stream.getvalue()
    assert "shoe lost" in text
    assert "round_id=5" in text
    assert "entered dealing" in text
    assert not text.lstrip().startswith("{")


def test_raw_bytes_on_the_wire_logger_appear_only_at_debug(tmp_path: Path) -> None:
    quiet, loud = tmp_path / "info.jsonl", tmp_path / "debug.jsonl"
    wire = structlog.get_logger("croupier.wire")

    configure_logging(console=False, json_path=quiet, level="INFO")
    wire.debug("rx", hex="02 53 03")
    structlog.get_logger("croupier.drivers").info("port opened")
    assert [r["event"] for r in lines(quiet)] == ["port opened"]

    configure_logging(console=False, json_path=loud, level="DEBUG")
    wire.debug("rx", hex="02 53 03")
    (record,) = lines(loud)
    assert (record["logger"], record["event"], record["hex"]) == ("croupier.wire", "rx", "02 53 03")


def test_configuring_twice_adds_no_second_handler(tmp_path: Path) -> None:
    before = len(logging.getLogger().handlers)
    path = tmp_path / "audit.jsonl"
    configure_logging(console=True, json_path=path)
    configure_logging(console=True, json_path=path)
    assert len(logging.getLogger().handlers) == before + 2
    structlog.get_logger("croupier").info("once")
    assert [r["event"] for r in lines(path)] == ["once"]


def test_configuring_with_other_arguments_replaces_the_previous_set_up(tmp_path: Path) -> None:
    before = len(logging.getLogger().handlers)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    configure_logging(console=False, json_path=first)
    configure_logging(console=False, json_path=second)
    assert len(logging.getLogger().handlers) == before + 1
    structlog.get_logger("croupier").info("to b")
    assert lines(first) == []
    assert [r["event"] for r in lines(second)] == ["to b"]


def test_reset_removes_the_handlers_and_restores_the_root_level(tmp_path: Path) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    configure_logging(console=True, json_path=tmp_path / "x.jsonl", level="DEBUG")
    reset_logging()
    assert root.handlers == handlers
    assert root.level == level


def test_an_exception_is_logged_as_text_in_the_json_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    configure_logging(console=False, json_path=path)
    try:
        raise RuntimeError("shoe jammed")
    except RuntimeError:
        structlog.get_logger("croupier").exception("device failed")
    (record,) = lines(path)
    assert record["level"] == "error"
    assert "RuntimeError: shoe jammed" in record["exception"]


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="log level 'LOUD' is not one of DEBUG, INFO"):
        configure_logging(level="LOUD")


def test_croupier_run_keeps_the_chatter_in_the_debug_log_and_the_rounds_in_the_audit_log(
    tmp_path: Path,
) -> None:
    """Through the real command: the table file's ``[logs] debug`` is written, the audit log
    has the rounds and no ``transitions`` chatter."""
    table = tmp_path / "table.toml"
    table.write_text(
        'table_id = "t-logs"\nboxes = [1, 2]\n[display]\nport = 0\n'
        f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
        f'[logs]\naudit = "{tmp_path / "a" / "audit.jsonl"}"\n'
        f'debug = "{tmp_path / "d" / "debug.log"}"\n'
    )
    done = subprocess.run(
        [*croupier_command(), "run", "--config", str(table), "--demo", "--pace", "0", "--rounds=2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"debug log: {tmp_path / 'd' / 'debug.log'}" in done.stdout

    audit = [json.loads(line) for line in (tmp_path / "a" / "audit.jsonl").read_text().splitlines()]
    assert not [r for r in audit if not r["logger"].startswith("croupier")]
    over = [r for r in audit if r["event"] == "round over"]
    assert [(r["round"], r["round_id"], r["table_id"]) for r in over][:2] == [
        (1, 1, "t-logs"),
        (2, 2, "t-logs"),
    ]
    debug = (tmp_path / "d" / "debug.log").read_text(encoding="utf-8")
    assert "[transitions.core]" in debug
    assert "Executed callback" in debug
    assert "[croupier.wire]" in debug
