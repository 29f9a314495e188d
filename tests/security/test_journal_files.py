"""The journal's files through ``croupier run`` (a separate process): a lock file that is not
croupier's own is refused and left as it was, and the journal, its -wal and -shm files, the lock
and the folders the table makes are readable by croupier alone."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

import pytest

from controller.cli.run import EXIT_JOURNAL, EXIT_USAGE
from tests.cli.test_run import croupier
from tests.cli.test_run_start import _start, journal, played
from tests.live_pins import live_pin_sections

__all__ = ["journal", "played"]  # the fixtures, used by name


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == EXIT_JOURNAL, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


def test_a_lock_file_that_is_a_symbolic_link_to_the_journal_is_refused_and_the_journal_kept(
    journal: Path, tmp_path: Path
) -> None:
    before = _digest(journal)
    lock = journal.with_name(journal.name + ".lock")
    lock.symlink_to(journal.name)
    line = _refused(_start(tmp_path, "--rounds", "1"))
    assert _digest(journal) == before  # not emptied, not written
    assert lock.is_symlink()
    assert f"the lock file {journal}.lock is a symbolic link" in line
    assert "croupier never writes through it. Remove it" in line


def test_a_lock_file_that_is_a_hard_link_to_the_journal_is_refused_and_the_journal_kept(
    journal: Path, tmp_path: Path
) -> None:
    before = _digest(journal)
    lock = journal.with_name(journal.name + ".lock")
    lock.hardlink_to(journal)
    line = _refused(_start(tmp_path, "--rounds", "1"))
    assert _digest(journal) == before
    assert "has 2 names (a hard link to another file)" in line


def test_a_debug_log_that_is_a_hard_link_to_the_journal_is_refused_before_a_byte_is_written(
    journal: Path, tmp_path: Path
) -> None:
    """(Found retrying issue 21 point 8 by hand: the refusal came, but only after the log had
    ended the journal's "last line" with a newline.)"""
    before = _digest(journal)
    logs = journal.parent / "log"
    logs.mkdir(mode=0o700)
    (logs / "debug.log").hardlink_to(journal)
    done = _start(tmp_path, "--rounds", "1")
    assert done.returncode == EXIT_USAGE, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert _digest(journal) == before
    assert f"{logs / 'debug.log'} has 2 names (a hard link to another file)" in done.stderr
    assert "croupier never writes through it" in done.stderr


def test_a_lock_file_holding_something_else_than_a_lock_is_never_emptied(
    journal: Path, tmp_path: Path
) -> None:
    lock = journal.with_name(journal.name + ".lock")
    lock.write_bytes(journal.read_bytes())  # a copy of the journal put where the lock goes
    lock.chmod(0o600)
    before = _digest(lock)
    line = _refused(_start(tmp_path, "--rounds", "1"))
    assert _digest(lock) == before
    assert "holds something else than a lock" in line
    assert "croupier never empties a file it did not make" in line


def test_a_journal_that_is_a_symbolic_link_is_refused(journal: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.sqlite3"
    journal.rename(elsewhere)
    journal.symlink_to(elsewhere)
    before = _digest(elsewhere)
    line = _refused(_start(tmp_path, "--rounds", "1"))
    assert _digest(elsewhere) == before
    assert f"the journal {journal} is a symbolic link" in line


def test_a_planted_wal_link_is_refused_before_sqlite_writes_through_it(
    journal: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    journal.with_name(journal.name + "-wal").symlink_to(victim)
    line = _refused(_start(tmp_path, "--rounds", "1"))
    assert victim.read_text() == "precious\n"
    assert f"the journal's file {journal}-wal is a symbolic link" in line


@pytest.mark.usefixtures("restore_umask")
def test_the_journal_its_wal_and_shm_and_the_lock_are_made_readable_by_croupier_alone(
    tmp_path: Path,
) -> None:
    table = tmp_path / "table.toml"
    table.write_text(
        'table_id = "t1"\n[journal]\npath = "records/t1/journal.sqlite3"\n'
        + live_pin_sections(tmp_path)
    )
    table.chmod(0o600)
    with croupier("run", "--port", "0", "--config", str(table), cwd=tmp_path) as (proc, lines):
        lines.wait_for("display: ")
        folder = tmp_path / "records" / "t1"
        assert (_mode(folder.parent), _mode(folder)) == (0o700, 0o700)  # both made by croupier
        for name in ("journal.sqlite3", "journal.sqlite3-wal", "journal.sqlite3-shm"):
            assert _mode(folder / name) == 0o600, name
        assert _mode(folder / "journal.sqlite3.lock") == 0o600
        proc.terminate()
        assert proc.wait(30) == 0


def test_a_journal_that_others_may_read_is_made_readable_by_croupier_alone_at_start(
    journal: Path, tmp_path: Path
) -> None:
    journal.chmod(0o644)
    journal.with_name(journal.name + ".lock").write_text("")
    journal.with_name(journal.name + ".lock").chmod(0o644)
    done = _start(tmp_path, "--rounds", "1", "--demo", "--pace", "0.01")
    assert done.returncode == 0, done.stderr
    assert _mode(journal) == 0o600
    assert _mode(journal.with_name(journal.name + ".lock")) == 0o600


@pytest.fixture
def restore_umask() -> object:
    """The child inherits this process's umask: the usual 022 (0700 and 0600 are croupier's)."""
    old = os.umask(0o022)
    yield
    os.umask(old)
