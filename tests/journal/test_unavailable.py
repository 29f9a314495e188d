"""A journal that cannot be written says why: read-only, disk full, locked, corrupt."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal
from tests.journal.conftest import FakeClock

NO_ROUND = "no round can start"


@pytest.fixture
def make_read_only() -> Iterator[Callable[[Path], None]]:
    """Make a file or folder read-only, for root too (root ignores permission bits, so the
    immutable attribute is set as well). Undone after the test."""
    done: list[tuple[Path, int, bool]] = []

    def make(path: Path) -> None:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        immutable = False
        if os.geteuid() == 0:
            result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
            if result.returncode != 0:
                path.chmod(mode)
                pytest.skip("running as root without chattr +i: cannot make a file read-only")
            immutable = True
        done.append((path, mode, immutable))

    yield make
    for path, mode, immutable in reversed(done):
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(mode)


def assert_documented(error: JournalUnavailable, cause: str, words: str, path: Path) -> None:
    assert error.cause == cause
    message = str(error)
    assert message.startswith(f"Journal unavailable: {path}")
    assert words in message
    assert NO_ROUND in message


def test_a_read_only_journal_file_refuses_appends_with_the_read_only_message(
    journal_path: Path, clock: FakeClock, make_read_only: Callable[[Path], None]
) -> None:
    with Journal.open(journal_path, table_id="T1", clock=clock) as j:
        j.append("software", {"version": "1"})
    make_read_only(journal_path)

    with Journal.open(journal_path, table_id="T1", clock=clock) as j:
        assert len(j.rows()) == 1  # still readable: history and recovery can read it
        with pytest.raises(JournalUnavailable) as appended:
            j.append("note", {"device": "shoe", "text": "x"})
        with pytest.raises(JournalUnavailable) as checked:
            j.check_writable()

    for error in (appended.value, checked.value):
        assert_documented(
            error,
            "read_only",
            "cannot be written because the file or its folder is read-only",
            journal_path,
        )


def test_a_read_only_folder_refuses_a_new_journal_with_the_read_only_message(
    tmp_path: Path, make_read_only: Callable[[Path], None]
) -> None:
    folder = tmp_path / "var"
    folder.mkdir()
    make_read_only(folder)
    with pytest.raises(JournalUnavailable) as opened:
        Journal.open(folder / "journal.sqlite3", table_id="T1")
    assert_documented(opened.value, "read_only", "read-only", folder / "journal.sqlite3")


def test_a_full_disk_refuses_appends_with_the_disk_full_message_and_loses_nothing(
    journal: Journal,
) -> None:
    journal.append("software", {"version": "1"})
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")
    written = 1
    failure: JournalUnavailable | None = None
    for n in range(5_000):
        try:
            journal.append("note", {"device": "shoe", "text": f"{n:0100d}"})
        except JournalUnavailable as exc:
            failure = exc
            break
        written += 1
    assert failure is not None, "the capped journal never filled up"
    assert_documented(
        failure, "disk_full", "cannot be written because the disk is full", journal.path
    )
    assert "database or disk is full" in str(failure)
    assert len(journal.rows()) == written  # the failed append left nothing half-written
    assert journal.verify().ok


def test_check_writable_reports_a_full_disk_before_a_round_starts(journal: Journal) -> None:
    journal.append("software", {"version": "1"})
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(JournalUnavailable) as full:
        journal.check_writable()
    assert_documented(full.value, "disk_full", "the disk is full", journal.path)


def test_a_locked_journal_gives_up_after_the_short_busy_timeout_with_the_locked_message(
    journal_path: Path, clock: FakeClock
) -> None:
    with Journal.open(journal_path, table_id="T1", clock=clock, busy_timeout_s=0.2) as j:
        j.append("software", {"version": "1"})
        other = sqlite3.connect(journal_path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            started = time.monotonic()
            with pytest.raises(JournalUnavailable) as appended:
                j.append("note", {"device": "shoe", "text": "x"})
            waited = time.monotonic() - started
            with pytest.raises(JournalUnavailable) as checked:
                j.check_writable()
            other.execute("ROLLBACK")
        finally:
            other.close()
        assert 0.15 <= waited < 2.0
        for error in (appended.value, checked.value):
            assert_documented(error, "locked", "is locked by another program", journal_path)
        j.append("note", {"device": "shoe", "text": "after the lock"})  # usable again
        assert j.verify().ok


def test_a_file_that_is_not_a_journal_is_reported_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"this is not a database " * 200)
    with pytest.raises(JournalUnavailable) as opened:
        Journal.open(path, table_id="T1")
    assert_documented(opened.value, "corrupt", "is damaged or not a croupier journal", path)


def test_audit_verify_of_a_corrupt_file_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"\x00garbage" * 500)
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    assert "is damaged or not a croupier journal" in capsys.readouterr().err


def test_an_sqlite_file_without_journal_tables_is_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(JournalUnavailable, match="no journal tables in it"):
        Journal.open(path, readonly=True)


def test_a_journal_whose_head_record_was_deleted_is_not_continued(
    journal_path: Path, clock: FakeClock
) -> None:
    with Journal.open(journal_path, table_id="T1", clock=clock) as j:
        j.append("software", {"version": "1"})
    db = sqlite3.connect(journal_path)
    db.execute("DELETE FROM journal_head")
    db.commit()
    db.close()
    with pytest.raises(JournalUnavailable) as opened:
        Journal.open(journal_path, table_id="T1")
    assert_documented(opened.value, "corrupt", "its head record is missing", journal_path)


def test_a_row_slipped_in_by_hand_stops_appends_as_corrupt(journal: Journal) -> None:
    journal.append("software", {"version": "1"})
    other = sqlite3.connect(journal.path)
    other.execute(
        "INSERT INTO journal (seq, ts, table_id, round_id, kind, payload, prev_hash, hash) "
        "VALUES (2, '2026-01-01T00:00:00.000Z', 'T1', NULL, 'note', '{}', 'x', 'y')"
    )
    other.commit()
    other.close()
    with pytest.raises(JournalUnavailable) as appended:
        journal.append("note", {})
    assert_documented(appended.value, "corrupt", "UNIQUE constraint failed", journal.path)
