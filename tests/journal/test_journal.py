"""The journal: appends are committed at once, survive a reopen, chain by hash, stay append-only."""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from controller.journal.errors import JournalUnavailable
from controller.journal.store import (
    DEFAULT_JOURNAL_PATH,
    DEFAULT_RETENTION,
    GENESIS_HASH,
    Journal,
    canonical_json,
    format_ts,
    row_hash,
)
from tests.journal.conftest import START, FakeClock


def test_an_appended_row_is_committed_before_append_returns(
    journal: Journal, journal_path: Path
) -> None:
    row = journal.append("software", {"version": "0.1.0"})
    other = sqlite3.connect(journal_path)
    try:
        seen = other.execute("SELECT seq, kind, payload FROM journal").fetchall()
    finally:
        other.close()
    assert seen == [(row.seq, "software", '{"version":"0.1.0"}')]


def test_rows_survive_a_reopen_and_the_chain_continues(
    journal_path: Path, clock: FakeClock
) -> None:
    with Journal.open(journal_path, table_id="T1", clock=clock) as j:
        first = j.append("software", {"version": "0.1.0"})
    with Journal.open(journal_path, table_id="T1", clock=clock) as j:
        second = j.append("config", {"variant": "nz-pontoon", "path": "v.yaml", "sha256": "ab"})
        assert [r.seq for r in j.rows()] == [1, 2]
        assert second.prev_hash == first.hash
        assert j.verify().ok


def test_the_first_row_chains_from_the_genesis_hash_and_each_row_from_the_previous(
    journal: Journal,
) -> None:
    rows = [journal.append("note", {"device": "shoe", "text": str(n)}) for n in range(3)]
    assert rows[0].prev_hash == GENESIS_HASH
    assert [r.prev_hash for r in rows[1:]] == [r.hash for r in rows[:-1]]


def test_the_hash_is_sha256_of_the_canonical_json_of_the_columns(journal: Journal) -> None:
    row = journal.append("round_start", {"variant": "nz-pontoon", "round": 7}, round_id=7)
    payload = '{"round":7,"variant":"nz-pontoon"}'
    assert row.payload_json == payload
    assert row.hash == row_hash(row.seq, row.ts, "T1", 7, "round_start", payload, GENESIS_HASH)
    assert len(row.hash) == 64


def test_timestamps_are_utc_iso_with_milliseconds_from_the_injected_clock(
    journal_path: Path,
) -> None:
    moments = iter([datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=UTC)])
    with Journal.open(journal_path, table_id="T1", clock=lambda: next(moments)) as j:
        row = j.append("note", {"device": "panel", "text": "x"})
    assert row.ts == "2026-03-04T05:06:07.891Z"
    assert row.at == datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)


def test_a_naive_clock_time_is_refused() -> None:
    with pytest.raises(ValueError, match="time zone"):
        format_ts(datetime(2026, 1, 1))


def test_append_many_writes_every_row_in_one_transaction(journal: Journal) -> None:
    rows = journal.append_many(
        [("round_start", {"round": 2, "variant": "nz"}), ("prompt", {"code": "DEAL", "text": "d"})],
        round_id=2,
    )
    assert [(r.seq, r.kind, r.round_id) for r in rows] == [
        (1, "round_start", 2),
        (2, "prompt", 2),
    ]
    assert rows[1].prev_hash == rows[0].hash
    assert journal.verify().ok


def test_append_many_writes_nothing_when_one_payload_is_not_json(journal: Journal) -> None:
    with pytest.raises(TypeError, match="'ledger' row's payload is not plain JSON"):
        journal.append_many(
            [("note", {"device": "shoe", "text": "ok"}), ("ledger", {"amount": object()})]
        )
    assert journal.rows() == []


@pytest.mark.parametrize(
    "payload",
    [{"at": float("nan")}, {"text": "\ud800"}, {"card": object()}],
    ids=["nan", "lone surrogate", "object"],
)
def test_a_payload_that_is_not_plain_json_is_refused_before_anything_is_written(
    journal: Journal, payload: dict[str, object]
) -> None:
    with pytest.raises(TypeError, match="'note' row's payload is not plain JSON"):
        journal.append("note", payload)
    assert journal.rows() == []
    assert journal.append("note", {"text": "fine"}).seq == 1


def test_an_unknown_row_kind_is_refused(journal: Journal) -> None:
    with pytest.raises(ValueError, match="unknown journal row kind 'nots'"):
        journal.append("nots", {})


def test_a_non_integer_round_id_is_refused(journal: Journal) -> None:
    with pytest.raises(TypeError, match="round_id"):
        journal.append("note", {}, round_id="7")  # type: ignore[arg-type]


def test_rows_filter_by_time_round_and_kind(journal: Journal, clock: FakeClock) -> None:
    journal.append("software", {"version": "1"})
    journal.append_many([("round_start", {"round": 1}), ("prompt", {"code": "DEAL"})], round_id=1)
    clock.advance(timedelta(hours=1))
    late = journal.append_many(
        [("round_start", {"round": 2}), ("ledger", {"amount_cents": 5})], round_id=2
    )
    assert journal.rows(since=START + timedelta(minutes=30)) == late
    assert [r.seq for r in journal.rows(round_id=1)] == [2, 3]
    assert [r.kind for r in journal.rows(kinds=["round_start"])] == ["round_start"] * 2
    assert [r.seq for r in journal.rows(round_id=2, kinds={"ledger"})] == [5]
    assert journal.rows(kinds=[]) == []
    assert [r.seq for r in journal.rows(after_seq=3)] == [4, 5]
    assert [r.seq for r in journal.rows(round_id=2, after_seq=4)] == [5]
    assert journal.round_ids() == [1, 2]


def test_iter_rows_reads_a_journal_larger_than_one_chunk_in_order(journal: Journal) -> None:
    journal.append_many([("note", {"n": n}) for n in range(2_100)])
    assert [r.seq for r in journal.iter_rows()] == list(range(1, 2_101))


def test_last_row_is_the_newest_or_none(journal: Journal) -> None:
    assert journal.last_row() is None
    journal.append("note", {"n": 1})
    newest = journal.append("note", {"n": 2})
    assert journal.last_row() == newest


def test_payloads_are_stored_as_canonical_json(journal: Journal, journal_path: Path) -> None:
    journal.append("input", {"keys": ("B1_", "HIT"), "action": "hit", "by": None, "é": 1})
    other = sqlite3.connect(journal_path)
    try:
        (text,) = other.execute("SELECT payload FROM journal").fetchone()
    finally:
        other.close()
    assert text == '{"action":"hit","by":null,"keys":["B1_","HIT"],"é":1}'
    assert text == canonical_json(json.loads(text))


@pytest.mark.parametrize(
    ("statement", "word"),
    [
        ("UPDATE journal SET kind = 'note' WHERE seq = 1", "UPDATE refused"),
        ("DELETE FROM journal WHERE seq = 1", "DELETE refused"),
    ],
)
def test_the_file_itself_refuses_updates_and_deletes(
    journal: Journal, journal_path: Path, statement: str, word: str
) -> None:
    journal.append("software", {"version": "1"})
    other = sqlite3.connect(journal_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match=word):
            other.execute(statement)
    finally:
        other.close()
    assert len(journal.rows()) == 1


def test_the_journal_is_in_wal_mode_with_full_sync(journal: Journal) -> None:
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_journal_belongs_to_one_table(journal_path: Path, clock: FakeClock) -> None:
    Journal.open(journal_path, table_id="T1", clock=clock).close()
    with pytest.raises(JournalUnavailable, match="journal of table 'T1', not of table 'T2'") as e:
        Journal.open(journal_path, table_id="T2")
    assert e.value.cause == "wrong_table"
    with Journal.open(journal_path) as j:
        assert j.table_id == "T1"


def test_a_new_journal_needs_a_table_id(journal_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a table_id"):
        Journal.open(journal_path)


def test_a_read_only_opening_reads_but_refuses_to_write(
    journal: Journal, journal_path: Path
) -> None:
    journal.append("software", {"version": "1"})
    with Journal.open(journal_path, readonly=True) as reader:
        assert [r.kind for r in reader.rows()] == ["software"]
        assert reader.verify().ok
        with pytest.raises(JournalUnavailable, match="read-only") as e:
            reader.append("note", {})
    assert e.value.cause == "read_only"


def test_a_read_only_opening_of_a_missing_file_says_there_is_no_journal(tmp_path: Path) -> None:
    with pytest.raises(JournalUnavailable, match="there is no journal at"):
        Journal.open(tmp_path / "none.sqlite3", readonly=True)
    assert not (tmp_path / "none.sqlite3").exists()


def test_the_defaults_are_var_journal_and_90_days() -> None:
    assert Path("var/journal.sqlite3") == DEFAULT_JOURNAL_PATH
    assert timedelta(days=90) == DEFAULT_RETENTION


def test_check_writable_passes_on_a_healthy_journal_and_leaves_no_row(journal: Journal) -> None:
    journal.append("software", {"version": "1"})
    journal.check_writable()
    assert len(journal.rows()) == 1
    assert journal.verify().ok


def test_appends_from_several_threads_keep_one_unbroken_chain(journal: Journal) -> None:
    def work(name: str) -> None:
        for n in range(40):
            journal.append("note", {"device": name, "text": str(n)})

    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.seq for r in journal.rows()] == list(range(1, 161))
    assert journal.verify().ok


def test_two_openings_of_one_file_append_to_the_same_chain(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    with Journal.open(journal_path, table_id="T1", clock=clock) as second:
        for n in range(5):
            journal.append("note", {"text": f"first {n}"})
            second.append("note", {"text": f"second {n}"})
    result = journal.verify()
    assert result.ok, result.describe()
    assert result.rows_checked == 10
