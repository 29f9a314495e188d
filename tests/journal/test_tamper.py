"""Tampering with the file (editing, deleting or reordering any row) makes ``croupier audit
verify`` fail and name the first broken row."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.journal.store import Journal

ROWS = 6
COLUMNS = ("seq", "ts", "table_id", "round_id", "kind", "payload", "prev_hash", "hash")


def tamper(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Edit the file as a person with sqlite3 would: drop the guards, then change rows."""
    db = sqlite3.connect(path)
    try:
        db.execute("DROP TRIGGER IF EXISTS journal_no_update")
        db.execute("DROP TRIGGER IF EXISTS journal_no_delete")
        for sql, params in statements:
            db.execute(sql, params)
        db.commit()
    finally:
        db.close()


def changed(column: str, value: object) -> object:
    """A different value of the same shape for ``column``."""
    if column == "seq":
        assert isinstance(value, int)
        return value + 1000
    if column == "round_id":
        return 99 if value != 99 else 98
    if column == "ts":
        assert isinstance(value, str)
        return value.replace("2026", "2025")
    if column in ("prev_hash", "hash"):
        assert isinstance(value, str)
        return ("1" if value[0] != "1" else "2") + value[1:]
    if column == "kind":
        return "note" if value != "note" else "prompt"
    if column == "payload":
        assert isinstance(value, str)
        return value.replace("}", ',"x":1}', 1)
    return f"{value}X"


def verify_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["audit", "verify", "--journal", str(path)])
    return status, capsys.readouterr().out


def test_an_untouched_journal_verifies(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = filled(ROWS)
    status, out = verify_cli(path, capsys)
    assert status == 0
    assert f"chain intact: {ROWS} rows verified" in out


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("seq", range(1, ROWS + 1))
def test_editing_any_column_of_any_row_is_named(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str], seq: int, column: str
) -> None:
    path = filled(ROWS)
    db = sqlite3.connect(path)
    (value,) = db.execute(f"SELECT {column} FROM journal WHERE seq = ?", (seq,)).fetchone()
    db.close()
    tamper(path, (f"UPDATE journal SET {column} = ? WHERE seq = ?", (changed(column, value), seq)))

    status, out = verify_cli(path, capsys)

    assert status == 1
    assert f"\nrow {seq}: " in out


@pytest.mark.parametrize("seq", range(1, ROWS + 1))
def test_deleting_any_row_is_named(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str], seq: int
) -> None:
    path = filled(ROWS)
    tamper(path, ("DELETE FROM journal WHERE seq = ?", (seq,)))

    status, out = verify_cli(path, capsys)

    assert status == 1
    assert f"\nrow {seq}: missing" in out


@pytest.mark.parametrize(
    ("first", "second"), [(a, b) for a in range(1, ROWS + 1) for b in range(a + 1, ROWS + 1)]
)
def test_swapping_two_rows_seq_names_the_earlier(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str], first: int, second: int
) -> None:
    path = filled(ROWS)
    tamper(
        path,
        ("UPDATE journal SET seq = -1 WHERE seq = ?", (first,)),
        ("UPDATE journal SET seq = ? WHERE seq = ?", (first, second)),
        ("UPDATE journal SET seq = ? WHERE seq = -1", (second,)),
    )

    status, out = verify_cli(path, capsys)

    assert status == 1
    assert f"\nrow {first}: " in out


def test_deleting_the_newest_rows_is_caught_by_the_journal_head(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = filled(ROWS)
    tamper(path, ("DELETE FROM journal WHERE seq >= ?", (ROWS - 1,)))

    status, out = verify_cli(path, capsys)

    assert status == 1
    assert f"row {ROWS - 1}: missing: rows {ROWS - 1}..{ROWS} deleted from the end" in out


def test_deleting_every_row_is_caught(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = filled(ROWS)
    tamper(path, ("DELETE FROM journal", ()))
    status, out = verify_cli(path, capsys)
    assert status == 1
    assert "row 1: missing" in out


def test_a_row_added_by_hand_with_a_correct_hash_is_still_caught(
    filled: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = filled(ROWS)
    with Journal.open(path, readonly=True) as j:
        last = j.last_row()
    assert last is not None
    from controller.journal.store import row_hash  # noqa: PLC0415

    seq, payload = last.seq + 1, '{"text":"forged"}'
    digest = row_hash(seq, last.ts, "T1", None, "note", payload, last.hash)
    tamper(
        path,
        (
            "INSERT INTO journal (seq, ts, table_id, round_id, kind, payload, prev_hash, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, last.ts, "T1", None, "note", payload, last.hash, digest),
        ),
    )
    status, out = verify_cli(path, capsys)
    assert status == 1
    assert f"row {seq}: added outside the journal" in out


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), count=st.integers(min_value=1, max_value=25))
def test_any_single_edit_of_any_journal_is_named(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, count: int
) -> None:
    path = tmp_path_factory.mktemp("hyp") / "journal.sqlite3"
    rows = [
        (
            data.draw(st.none() | st.integers(0, 3)),
            data.draw(st.sampled_from(["note", "prompt", "input", "ledger"])),
            {"n": n, "text": data.draw(st.text(max_size=8))},
        )
        for n in range(count)
    ]
    with Journal.open(path, table_id="T1") as j:
        for round_id, group in itertools.groupby(rows, key=lambda row: row[0]):
            j.append_many([(kind, payload) for _, kind, payload in group], round_id=round_id)
    seq = data.draw(st.integers(1, count), label="seq")
    how = data.draw(st.sampled_from([*COLUMNS, "delete"]), label="how")
    if how == "delete":
        tamper(path, ("DELETE FROM journal WHERE seq = ?", (seq,)))
    else:
        db = sqlite3.connect(path)
        (value,) = db.execute(f"SELECT {how} FROM journal WHERE seq = ?", (seq,)).fetchone()
        db.close()
        tamper(path, (f"UPDATE journal SET {how} = ? WHERE seq = ?", (changed(how, value), seq)))

    with Journal.open(path, readonly=True) as j:
        result = j.verify()

    assert not result.ok
    assert result.first_bad_seq == seq
