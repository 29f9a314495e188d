"""Retention: pruning deletes old rows, and an anchor row keeps the rest verifiable."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.journal.store import Journal
from tests.journal.conftest import FakeClock, fill
from tests.journal.test_tamper import tamper

DAY = timedelta(days=1)


def old_and_new(journal: Journal, clock: FakeClock, *, old: int = 5, new: int = 3) -> None:
    fill(journal, old)
    clock.advance(100 * DAY)
    fill(journal, new)


def test_prune_deletes_rows_older_than_the_retention_and_keeps_the_rest(
    journal: Journal, clock: FakeClock
) -> None:
    old_and_new(journal, clock)
    result = journal.prune(timedelta(days=90))
    assert result.pruned_rows == 5
    assert [r.seq for r in journal.rows()] == [6, 7, 8, 9]
    assert result.anchor is not None
    assert result.anchor.seq == 9


def test_the_anchor_names_the_last_pruned_row_and_the_chain_verifies_from_it(
    journal: Journal, clock: FakeClock
) -> None:
    old_and_new(journal, clock)
    fifth = journal.rows()[4]
    anchor = journal.prune(timedelta(days=90)).anchor
    assert anchor is not None
    assert anchor.kind == "anchor"
    assert anchor.payload == {"seq": 5, "hash": fifth.hash, "ts": fifth.ts, "pruned_rows": 5}
    assert journal.rows()[0].prev_hash == fifth.hash
    result = journal.verify()
    assert result.ok, result.describe()
    assert result.rows_checked == 4


def test_pruning_twice_keeps_verifiability(journal: Journal, clock: FakeClock) -> None:
    old_and_new(journal, clock)
    journal.prune(timedelta(days=90))
    clock.advance(100 * DAY)
    fill(journal, 2)
    second = journal.prune(timedelta(days=90))
    assert second.pruned_rows == 4  # the three newer notes and the first anchor
    assert journal.verify().ok
    assert [r.kind for r in journal.rows()] == ["note", "note", "anchor"]


def test_nothing_to_prune_writes_no_anchor(journal: Journal, clock: FakeClock) -> None:
    fill(journal, 3)
    result = journal.prune(timedelta(days=90))
    assert result.pruned_rows == 0
    assert result.anchor is None
    assert len(journal.rows()) == 3


def test_pruning_an_empty_journal_does_nothing(journal: Journal) -> None:
    assert journal.prune().pruned_rows == 0
    assert journal.rows() == []


def test_pruning_never_splits_a_round(journal: Journal, clock: FakeClock) -> None:
    fill(journal, 2)
    journal.append("round_start", {"round": 4}, round_id=4)
    journal.append("note", {"text": "old part of round 4"}, round_id=4)
    clock.advance(100 * DAY)
    journal.append("round_end", {"round": 4, "net_cents": 0}, round_id=4)
    result = journal.prune(timedelta(days=90))
    assert result.pruned_rows == 2
    assert [r.kind for r in journal.rows(round_id=4)] == ["round_start", "note", "round_end"]
    assert journal.verify().ok


def test_retention_must_be_positive(journal: Journal) -> None:
    with pytest.raises(ValueError, match="retention must be positive"):
        journal.prune(timedelta(0))


def test_deleting_the_first_row_after_a_prune_is_named(
    journal: Journal, journal_path: Path, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    old_and_new(journal, clock)
    journal.prune(timedelta(days=90))
    tamper(journal_path, ("DELETE FROM journal WHERE seq = 6", ()))
    assert main(["audit", "verify", "--journal", str(journal_path)]) == 1
    assert "row 6: missing" in capsys.readouterr().out


def test_editing_the_anchor_is_named(
    journal: Journal, journal_path: Path, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    old_and_new(journal, clock)
    anchor = journal.prune(timedelta(days=90)).anchor
    assert anchor is not None
    tamper(
        journal_path,
        (
            "UPDATE journal SET payload = replace(payload, '\"seq\":5', '\"seq\":4') WHERE seq = 9",
            (),
        ),
    )
    assert main(["audit", "verify", "--journal", str(journal_path)]) == 1
    assert "row 9: edited" in capsys.readouterr().out


def test_a_prune_by_hand_without_an_anchor_is_named(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    old_and_new(journal, clock)
    tamper(journal_path, ("DELETE FROM journal WHERE seq <= 5", ()))
    result = journal.verify()
    assert not result.ok
    assert result.first_bad_seq == 1
    assert result.reason == "missing: rows 1..5 deleted and no anchor row accounts for them"


def test_prune_restores_the_delete_guard(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    old_and_new(journal, clock)
    journal.prune(timedelta(days=90))
    other = sqlite3.connect(journal_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="DELETE refused"):
            other.execute("DELETE FROM journal")
    finally:
        other.close()
