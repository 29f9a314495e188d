"""``croupier run`` on a disk that fills up (a real, small tmpfs): its logs go quiet after saying
once that they cannot be written, and SIGTERM stops it with status 6 naming what was not written,
journalling the stop where the journal can still take it."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from controller.journal.store import Journal
from tests.faults.harness import croupier_command
from tests.journal.disk import fill, small_disk

__all__ = ["small_disk"]  # (the fixture, used by name)

WAIT_S = 30.0
EXIT_UNWRITTEN = 6


def _table_file(folder: Path, journal: Path, logs: Path) -> Path:
    config = folder / "table.toml"
    config.write_text(
        "[display]\nport = 0\n"
        f'[journal]\npath = "{journal}"\n'
        f'[logs]\naudit = "{logs / "audit.jsonl"}"\ndebug = "{logs / "debug.log"}"\n'
    )
    return config


def _run_until_the_disk_is_full(tmp_path: Path, disk: Path, config: Path) -> tuple[int, str, str]:
    """``croupier run --demo`` until it has played on a full disk for a while, then SIGTERM:
    its status, stdout and stderr."""
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen(
            [*croupier_command(), "run", "--demo", "--pace", "0.02", "--config", str(config)],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
        try:
            deadline = time.monotonic() + WAIT_S
            while "round 1 over" not in out.read_text():
                assert proc.poll() is None, err.read_text()
                assert time.monotonic() < deadline, out.read_text() + err.read_text()
                time.sleep(0.1)
            fill(disk)
            time.sleep(3.0)  # rounds go on: every log line and journal row meets a full disk
            proc.send_signal(signal.SIGTERM)
            status = proc.wait(WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return status, out.read_text(), err.read_text()


def _stop_reasons(journal: Path) -> list[str]:
    with Journal.open(journal, readonly=True) as opened:
        return [str(r.payload["reason"]) for r in opened.iter_rows(kinds=["stop"])]


def test_logs_on_a_full_disk_say_so_once_and_sigterm_journals_the_stop_and_exits_6(
    tmp_path: Path, small_disk: Path
) -> None:
    journal = tmp_path / "journal.sqlite3"  # the journal has room; the logs' disk fills up
    config = _table_file(tmp_path, journal, small_disk / "log")

    status, out, err = _run_until_the_disk_is_full(tmp_path, small_disk, config)

    assert "Logging error" not in err
    assert "Traceback" not in err
    debug = f"the debug log {small_disk / 'log' / 'debug.log'} cannot be written"
    assert err.count(f"croupier: {debug} (no space left on device): nothing more") == 1
    assert len(err.splitlines()) <= 8, err
    assert status == EXIT_UNWRITTEN, err
    assert "croupier run: stopped, but not everything was written" in err
    assert f"  {debug} (no space left on device)" in err.splitlines()
    assert "stopped cleanly" not in out
    assert _stop_reasons(journal) == ["the table was stopped (SIGTERM)"]


def test_a_journal_on_a_full_disk_exits_6_on_sigterm_saying_the_stop_was_not_journalled(
    tmp_path: Path, small_disk: Path
) -> None:
    journal = small_disk / "journal.sqlite3"
    config = _table_file(tmp_path, journal, small_disk / "log")

    status, _out, err = _run_until_the_disk_is_full(tmp_path, small_disk, config)

    assert "Logging error" not in err
    assert "Traceback" not in err
    assert status == EXIT_UNWRITTEN, err
    lines = err.splitlines()
    assert len(lines) <= 10, err
    (stop,) = [line for line in lines if line.startswith("  the stop was not journalled: ")]
    assert "the disk is full" in stop
    assert _stop_reasons(journal) == []
