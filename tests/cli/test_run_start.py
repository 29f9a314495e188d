"""``croupier run`` at start: one running table per journal, and every start-up failure a user
can cause is one message and a documented exit status, with no row written (the real command,
as a separate process)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import structlog
from pytest_mock import MockerFixture

from controller.cli.main import main
from controller.cli.run import EXIT_BUG, EXIT_DISAGREES, EXIT_IN_USE, EXIT_JOURNAL, EXIT_USAGE
from controller.service.service import TableService
from tests.cli.test_run import CROUPIER, WAIT_S, _state, croupier
from tests.journal.test_unavailable import make_read_only
from tests.live_pins import live_pin_sections

__all__ = ["make_read_only"]  # the fixture, used by name

JOURNAL = Path("var/journal.sqlite3")


def _rows(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])
    finally:
        db.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of two demo rounds, played by ``croupier run`` and stopped cleanly."""
    where = tmp_path_factory.mktemp("played")
    state = tmp_path_factory.mktemp("played-state")  # (each module that uses it makes its own)
    done = subprocess.run(
        [*CROUPIER, "run", "--demo", "--pace", "0.01", "--port", "0", "--rounds", "2"],
        cwd=where,
        env={**os.environ, "CROUPIER_STATE_DIR": str(state)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return where / JOURNAL


@pytest.fixture
def journal(played: Path, tmp_path: Path) -> Path:
    """A copy of the played journal (with its table key and head record) where this test's
    ``croupier run`` finds it."""
    target = tmp_path / JOURNAL
    target.parent.mkdir(parents=True, mode=0o700)
    copy_journal(played, target)
    return target


def copy_journal(source: Path, target: Path, *, sealing: bool = True) -> None:
    """``source``'s journal to ``target`` (a consistent copy, 0600), and with ``sealing`` its
    table key and head record beside it."""
    target.touch(mode=0o600)
    into = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        into.backup(copy)
    finally:
        copy.close()
        into.close()
    for suffix in (".key", ".head") if sealing else ():
        kept = source.with_name(source.name + suffix)
        if kept.exists():
            beside = target.with_name(target.name + suffix)
            beside.write_bytes(kept.read_bytes())
            beside.chmod(0o600)


def _start(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CROUPIER, "run", "--port", "0", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _one_message(done: subprocess.CompletedProcess[str]) -> str:
    """The start failed with one ``croupier run:`` message and no traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("croupier run: "), done.stderr
    assert done.stderr.count("croupier run: ") == 1, done.stderr
    assert "display: " not in done.stdout, "a failed start serves no display"
    return done.stderr


def test_a_second_run_on_a_journal_in_use_is_refused_naming_the_first_which_plays_on(
    tmp_path: Path,
) -> None:
    with croupier("run", "--demo", "--pace", "0.05", "--port", "0", cwd=tmp_path) as (
        first,
        lines,
    ):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        lines.wait_for("round 1 over: ")
        rounds_before = _state(url)["rounds_completed"]
        second = _start(tmp_path, "--demo", "--pace", "0.05")
        assert second.returncode == EXIT_IN_USE
        message = _one_message(second)
        assert f"process {first.pid}" in message
        assert f"display {url}" in message
        assert f"`kill {first.pid}`" in message
        assert "Ctrl-C" in message
        assert str(tmp_path / JOURNAL) in message
        assert "round " not in second.stdout, "the refused table dealt nothing"
        # the first table is untouched: it serves its display and plays on
        lines.wait_for(f"round {rounds_before + 1} over: ")
        state = _state(url)
        assert state["rounds_completed"] > rounds_before
        assert [d["status"] for d in state["devices"]] == ["connected"] * 3
        first.send_signal(signal.SIGTERM)
        assert first.wait(WAIT_S) == 0
    # the lock went with the first process: the journal starts again, and its chain holds
    again = _start(tmp_path, "--demo", "--pace", "0.01", "--rounds", "1")
    assert again.returncode == 0, again.stderr
    assert "stopped cleanly" in again.stdout


def test_a_crashed_table_leaves_no_lock_behind(tmp_path: Path) -> None:
    with croupier("run", "--demo", "--pace", "0.05", "--port", "0", cwd=tmp_path) as (
        first,
        lines,
    ):
        lines.wait_for("display: ")
        holder = json.loads((tmp_path / "var" / "journal.sqlite3.lock").read_text())
        assert holder["pid"] == first.pid
        assert holder["table_id"] == "table-1"
        first.kill()  # SIGKILL: no clean-up of any kind
        first.wait(WAIT_S)
    again = _start(tmp_path, "--demo", "--pace", "0.01", "--rounds", "1")
    assert again.returncode == 0, again.stderr


def test_a_variant_flag_that_names_no_variant_blames_the_flag_and_writes_nothing(
    journal: Path, tmp_path: Path
) -> None:
    rows = _rows(journal)
    done = _start(tmp_path, "--variant", "blackjack")
    assert done.returncode == EXIT_USAGE
    message = _one_message(done)
    assert message.startswith(
        "croupier run: --variant blackjack: no variant has the id 'blackjack' (did you mean "
        "pa-blackjack?)"
    )
    assert "pa-blackjack" in message  # what is allowed
    assert "table.toml" not in message  # the value came from the flag, not the file
    assert _rows(journal) == rows


def test_a_variant_flag_on_a_journal_of_another_variant_is_refused_and_writes_nothing(
    journal: Path, tmp_path: Path
) -> None:
    rows = _rows(journal)
    done = _start(tmp_path, "--variant", "pa-blackjack")
    assert done.returncode == EXIT_DISAGREES
    message = _one_message(done)
    assert "is a nz-pontoon table's journal" in message
    assert "would deal pa-blackjack" in message
    assert "--variant nz-pontoon" in message
    assert "journal.path" in message
    assert _rows(journal) == rows


# states a round is in once its cards are out and before the dealer's own play, so that at the
# demo's pace the round is seconds from its end (not a shuffle, a hold, the dealer's play or the
# settlement, where the round may be over or not yet begun)
DEALT: tuple[str, ...] = ("dealing", "offers", "insurance", "surrender", "peek", "playing")


def _open_round(path: Path) -> int | None:
    """The round the journal shows started and not ended, if any."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT round_id FROM journal WHERE kind = 'round_start' AND round_id NOT IN "
            "(SELECT round_id FROM journal WHERE kind = 'round_end' AND round_id IS NOT NULL) "
            "ORDER BY seq DESC LIMIT 1"
        ).fetchone()
    finally:
        db.close()
    return None if row is None else int(row[0])


def test_an_open_round_of_another_variant_is_named(journal: Path, tmp_path: Path) -> None:
    # a third round started: its round_start, no round_end
    with croupier("run", "--demo", "--pace", "0.3", "--port", "0", cwd=tmp_path) as (
        proc,
        lines,
    ):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        state = ""
        deadline = time.monotonic() + WAIT_S
        while state not in DEALT and time.monotonic() < deadline:
            state = _state(url)["state"]
            time.sleep(0.05)
        proc.kill()  # mid-round, as a crash would
        proc.wait(WAIT_S)
    assert state in DEALT, "a round was dealt before the crash"
    # the round the journal holds open (the third, unless a loaded machine let the display run on)
    open_round = _open_round(journal)
    assert open_round is not None, "the crash left a dealt round open"
    assert open_round >= 3
    rows = _rows(journal)
    done = _start(tmp_path, "--variant", "uk-pontoon")
    assert done.returncode == EXIT_DISAGREES
    message = _one_message(done)
    assert f"round {open_round} of nz-pontoon is open in it" in message, message
    assert _rows(journal) == rows


def test_a_file_that_is_not_a_journal_is_refused_as_damaged(tmp_path: Path) -> None:
    (tmp_path / "var").mkdir()
    (tmp_path / JOURNAL).write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    done = _start(tmp_path)
    assert done.returncode == EXIT_JOURNAL
    message = _one_message(done)
    assert "is damaged or not a croupier journal" in message
    assert "Keep the file for investigation" in message
    assert (tmp_path / JOURNAL).read_bytes()[16:20] == b"\xff" * 4, "the file is left as it was"


def test_a_journal_in_a_read_only_folder_is_refused_and_writes_nothing(
    journal: Path, tmp_path: Path, make_read_only: Callable[[Path], None]
) -> None:
    rows = _rows(journal)
    (journal.parent / "log").mkdir()  # the audit log's folder stays writable
    make_read_only(journal.parent)
    done = _start(tmp_path)
    assert done.returncode == EXIT_JOURNAL
    message = _one_message(done)
    assert "read-only" in message
    assert str(journal.parent) in message
    assert "write access" in message
    assert _rows(journal) == rows


@pytest.fixture
def keep_logging() -> Iterator[None]:
    """``croupier run`` points structlog at this test's captured stderr: put it back."""
    saved = structlog.get_config()
    yield
    structlog.reset_defaults()
    structlog.configure(**saved)


@pytest.mark.usefixtures("keep_logging")
def test_a_bug_at_start_prints_its_traceback_and_says_it_is_a_bug(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    mocker: MockerFixture,
) -> None:
    monkeypatch.chdir(tmp_path)
    mocker.patch.object(TableService, "start", side_effect=RuntimeError("a bug on purpose"))
    assert main(["run", "--port", "0"]) == EXIT_BUG
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert "RuntimeError: a bug on purpose" in err
    assert "this is a bug in croupier" in err


def test_a_second_run_on_serial_devices_in_use_is_refused_and_the_first_keeps_them(
    tmp_path: Path,
) -> None:
    with croupier("emulate", "--seed", "3", "--variant-deck", "48", cwd=tmp_path) as (_, devices):
        ptys = dict(devices.wait_for(name).split(" ") for name in ("shoe", "peek", "panel"))
        for name in ("a", "b"):  # two tables, two journals, the same three devices
            (tmp_path / f"{name}.toml").write_text(
                f'table_id = "table-{name}"\n[journal]\npath = "{name}/journal.sqlite3"\n'
                "[display]\nport = 0\n[devices]\n"
                + "".join(f'{role} = "{path}"\n' for role, path in ptys.items())
                + live_pin_sections(tmp_path)
            )
            (tmp_path / f"{name}.toml").chmod(0o600)
        with croupier("run", "--config", "a.toml", cwd=tmp_path) as (first, lines):
            url = lines.wait_for("display: ").split(" ", 1)[1]
            second = _start(tmp_path, "--config", "b.toml")
            assert second.returncode == 1
            message = _one_message(second)
            assert message.startswith("croupier run: cannot open the devices: ")
            assert "another program holds the port" in message
            assert (
                not (tmp_path / "b" / "journal.sqlite3").exists()
                or _rows(tmp_path / "b" / "journal.sqlite3") == 0
            )
            state = _state(url)
            assert state["table"]["id"] == "table-a"
            assert [d["status"] for d in state["devices"]] == ["connected"] * 3
            first.send_signal(signal.SIGTERM)
            assert first.wait(WAIT_S) == 0


def test_a_display_address_in_use_is_refused_before_the_journal_gets_a_row(
    journal: Path, tmp_path: Path
) -> None:
    rows = _rows(journal)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = _start(tmp_path, "--port", str(port))
    assert done.returncode == 1
    message = _one_message(done)
    assert f"cannot serve the display on 127.0.0.1:{port}" in message
    assert "--port" in message
    assert _rows(journal) == rows


@pytest.mark.parametrize("kind", ["folder", "fifo", "unreadable", "empty variant"])
def test_a_table_file_that_is_not_a_readable_file_is_refused_with_a_message_and_exit_2(
    tmp_path: Path, kind: str
) -> None:
    """``--config`` naming a folder, a FIFO (never opened: the start does not hang), a file
    croupier may not read, or a file whose variant is empty: one message, exit 2, no traceback
    (a folder printed a traceback and exited 70)."""
    if kind == "unreadable":  # a folder others may pass through (tmp_path's parents are 0700)
        tmp_path = Path(tempfile.mkdtemp(dir="/tmp"))
        tmp_path.chmod(0o711)
    config = tmp_path / "table.toml"
    if kind == "folder":
        config.mkdir()
    elif kind == "fifo":
        os.mkfifo(config, 0o600)
    else:
        config.write_text('table_id = "t1"\nvariant = ""\n' if kind == "empty variant" else "")
        config.chmod(0o000 if kind == "unreadable" else 0o600)
    if kind == "unreadable" and os.getuid() == 0:
        # root reads any file: drop to nobody for this one start, as a table's user would be
        done = subprocess.run(
            [
                "setpriv",
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                *CROUPIER,
                "run",
                "--port",
                "0",
                "--config",
                str(config),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
    else:
        done = _start(tmp_path, "--config", str(config))
    assert done.returncode == EXIT_USAGE, done.stderr
    message = _one_message(done)
    expected = {
        "folder": "is a folder, not a table file",
        "fifo": "not a regular file",
        "unreadable": "may not read this table file",
        "empty variant": "no variant named",
    }[kind]
    assert expected in message
    assert not (tmp_path / "var").exists()  # nothing was written
    if kind == "unreadable":
        shutil.rmtree(tmp_path)


def test_a_port_flag_out_of_range_is_the_flags_mistake_not_the_table_files(
    tmp_path: Path,
) -> None:
    """``--port 99999`` was blamed on the table file ("table.toml: display.port = 99999")."""
    done = _start(tmp_path, "--port", "99999")
    assert done.returncode == EXIT_USAGE
    assert "Traceback" not in done.stderr
    assert "argument --port: 99999 is not a port: give a number from 1 to 65535" in done.stderr
    assert "table.toml" not in done.stderr
