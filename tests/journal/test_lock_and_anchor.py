"""One running table per journal (the lock file), and the start's chain check from the last
verified point (real files, real ``flock``, real SQLite)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.journal.lock import JournalInUse, JournalLock, lock_path
from controller.journal.store import Journal
from tests.journal.test_tamper import tamper


def test_a_held_lock_refuses_a_second_holder_naming_the_first(journal_path: Path) -> None:
    with JournalLock.acquire(journal_path, table_id="T1") as first:
        first.update(display="http://127.0.0.1:8321/")
        with pytest.raises(JournalInUse) as refused:
            JournalLock.acquire(journal_path, table_id="T1")
    assert refused.value.cause == "in_use"
    assert refused.value.holder["pid"] == os.getpid()
    text = str(refused.value)
    assert f"process {os.getpid()}, table T1, display http://127.0.0.1:8321/" in text
    assert f"`kill {os.getpid()}`" in text


def test_a_released_lock_is_free_and_a_leftover_file_is_taken_over(journal_path: Path) -> None:
    JournalLock.acquire(journal_path, table_id="T1").release()
    lock_path(journal_path).write_text('{"pid": 1, "table_id": "old"}')  # nobody holds it
    with JournalLock.acquire(journal_path, table_id="T2") as taken:
        held = json.loads(lock_path(journal_path).read_text())
        assert held["table_id"] == "T2"
        assert held["pid"] == taken.info["pid"] == os.getpid()


def test_a_start_verifies_from_the_last_verified_point_and_records_the_new_one(
    filled: Callable[[int], Path],
) -> None:
    path = filled(40)
    with Journal.open(path, table_id="T1") as journal:
        first = journal.verify_from_anchor()
        assert (first.ok, first.rows_checked, first.last_seq) == (True, 40, 40)
        journal.append("note", {"device": "shoe", "text": "after"})
        again = journal.verify_from_anchor()
    # the verified row, then the one row after it: not the 40 before
    assert (again.ok, again.rows_checked, again.last_seq) == (True, 2, 41)


def test_an_edit_after_the_verified_point_is_named(filled: Callable[[int], Path]) -> None:
    path = filled(20)
    with Journal.open(path, table_id="T1") as journal:
        assert journal.verify_from_anchor().ok
        journal.append("note", {"device": "shoe", "text": "after"})
    tamper(path, ("UPDATE journal SET payload = '{\"edited\":1}' WHERE seq = 21", ()))
    with Journal.open(path, table_id="T1") as journal:
        result = journal.verify_from_anchor()
    assert (result.ok, result.first_bad_seq) == (False, 21)
    assert "edited" in result.reason


def test_a_verified_row_changed_since_falls_back_to_the_whole_chain(
    filled: Callable[[int], Path],
) -> None:
    path = filled(20)
    with Journal.open(path, table_id="T1") as journal:
        assert journal.verify_from_anchor().ok
    tamper(path, ("UPDATE journal SET ts = '2020-01-01T00:00:00.000Z' WHERE seq = 20", ()))
    with Journal.open(path, table_id="T1") as journal:
        result = journal.verify_from_anchor()
    assert (result.ok, result.first_bad_seq) == (False, 20)
