"""The table key and the head record (controller.journal.seal): a journal whose rows were
rewritten and hashed again, whose MACs were stripped, or that was put back as an older copy is
named, where the key-less chain alone lets each of them pass."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.journal.errors import JournalUnavailable
from controller.journal.seal import TableKey, head_path_for, key_path_for
from controller.journal.store import Journal, canonical_json, row_hash
from tests.journal.test_old_journals import FIXTURES
from tests.journal.test_tamper import tamper


def _filled(path: Path, rounds: int = 3) -> None:
    """A sealed journal of a few rounds, its head kept as a running table keeps it."""
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        assert journal.verify_from_anchor().ok
        for number in range(1, rounds + 1):
            journal.append("round_start", {"round": number, "variant": "nz-pontoon"}, number)
            journal.append(
                "ledger",
                {"box": 1, "player": "ann", "amount_cents": 500, "kind": "win"},
                number,
            )
            journal.append("round_end", {"round": number, "net_cents": 500}, number)


@pytest.fixture
def sealed(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    _filled(path)
    return path


def _verify(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    status = main(["audit", "verify", "--journal", str(path), *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _rechain_from(path: Path, seq: int, amount: int) -> None:
    """The attack: one ledger row rewritten, then every row from it hashed again (no key)."""
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT seq, ts, table_id, round_id, kind, payload, prev_hash FROM journal "
        "WHERE seq >= ? ORDER BY seq",
        (seq,),
    ).fetchall()
    db.close()
    statements: list[tuple[str, tuple[object, ...]]] = []
    prev = rows[0][6]
    for number, ts, table_id, round_id, kind, stored, _ in rows:
        payload = stored
        if number == seq:
            payload = canonical_json({**json.loads(stored), "amount_cents": amount})
        digest = row_hash(number, ts, table_id, round_id, kind, payload, prev)
        statements.append(
            (
                "UPDATE journal SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (payload, prev, digest, number),
            )
        )
        prev = digest
    statements.append(("UPDATE journal_head SET hash = ?", (prev,)))
    tamper(path, *statements)


def _ledger_seq(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT MIN(seq) FROM journal WHERE kind = 'ledger'").fetchone()[0])
    finally:
        db.close()


def test_a_sealed_journal_has_a_private_key_and_head_and_every_row_a_mac(sealed: Path) -> None:
    key = key_path_for(sealed)
    head = head_path_for(sealed)
    for made in (key, head):
        assert stat.S_IMODE(made.stat().st_mode) == 0o600
    with Journal.open(sealed, readonly=True, sealed=True) as journal:
        rows = journal.rows()
        assert journal.key is not None
        assert all(r.mac == journal.key.row_mac(r.hash) for r in rows)
    recorded = json.loads(head.read_text())
    assert recorded["seq"] == rows[-1].seq
    assert recorded["hash"] == rows[-1].hash
    assert recorded["rows"] == len(rows)


def test_a_row_rewritten_and_hashed_again_passes_without_the_key_and_is_forged_with_it(
    sealed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seq = _ledger_seq(sealed)
    _rechain_from(sealed, seq, 5_000_000)
    with Journal.open(sealed, readonly=True) as bare:
        assert bare.verify().ok, "the key-less chain holds: this is why the key is needed"
    status, out = _verify(sealed, capsys)
    assert status == 1
    assert f"row {seq}: forged: its MAC is not the table key's (ledger row)" in out
    with Journal.open(sealed, table_id="T1", sealed=True) as journal:
        result = journal.verify_from_anchor()
    assert not result.ok
    assert result.first_bad_seq == seq
    assert result.reason.startswith("forged")


def test_macs_stripped_from_the_rows_are_named_unsealed(
    sealed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper(sealed, ("UPDATE journal SET mac = NULL WHERE seq >= 4", ()))
    status, out = _verify(sealed, capsys)
    assert status == 1
    assert "row 4: unsealed: it has no MAC, but the table key seals every row from row 1" in out


def _copied_then_dealt_on(tmp_path: Path) -> tuple[Path, Path]:
    """A sealed journal of two rounds, copied, then a third round dealt: (journal, copy)."""
    path = tmp_path / "journal.sqlite3"
    _filled(path, rounds=2)
    older = tmp_path / "older.sqlite3"
    shutil.copy(path, older)
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        assert journal.verify_from_anchor().ok
        journal.append("round_start", {"round": 3, "variant": "nz-pontoon"}, 3)
        journal.append("round_end", {"round": 3, "net_cents": 0}, 3)
    return path, older


def test_an_older_copy_put_back_is_refused_as_rolled_back(tmp_path: Path) -> None:
    path, older = _copied_then_dealt_on(tmp_path)
    shutil.copy(older, path)
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        result = journal.verify_from_anchor()
        assert not result.ok
        assert result.reason.startswith("rolled back: the journal ends at row ")
        assert "this is an older copy of the journal" in result.reason
        assert journal.head_problem() is not None
    # refused, the head record still names the rows the older copy lacks
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        assert not journal.verify_from_anchor().ok


def test_an_older_copy_dealt_on_does_not_extend_the_head(tmp_path: Path) -> None:
    path, older = _copied_then_dealt_on(tmp_path)
    head = json.loads(head_path_for(path).read_text())
    shutil.copy(older, path)
    # rounds re-dealt on the older copy with the key (as a table given that copy would)
    with Journal.open(path, table_id="T1", readonly=True, sealed=True) as journal:
        key = journal.key
    assert key is not None
    redealt = Journal.open(path, table_id="T1", sealed=True)
    with redealt:
        for _ in range(3):
            redealt.append("note", {"device": "shoe", "text": "re-dealt"})
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        result = journal.verify_from_anchor()
    assert not result.ok
    assert result.first_bad_seq == head["seq"]
    assert result.reason.startswith(f"does not extend its head record: row {head['seq']}")


def test_a_head_record_edited_by_hand_is_refused(sealed: Path) -> None:
    head = head_path_for(sealed)
    recorded = json.loads(head.read_text())
    head.write_text(json.dumps({**recorded, "seq": recorded["seq"] - 3}))
    with Journal.open(sealed, table_id="T1", sealed=True) as journal:
        result = journal.verify_from_anchor()
    assert not result.ok
    assert "was not written with the table key" in result.reason


def test_a_missing_head_record_of_a_sealed_journal_is_refused_until_sealed_again(
    sealed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head_path_for(sealed).unlink()
    with Journal.open(sealed, table_id="T1", sealed=True) as journal:
        result = journal.verify_from_anchor()
    assert not result.ok
    assert "head record" in result.reason
    assert "is missing" in result.reason
    assert "croupier audit seal" in result.reason
    with Journal.open(sealed, readonly=True) as before:
        rows = len(before.rows())
    assert main(["audit", "seal", "--journal", str(sealed)]) == 0
    assert f"head recorded at row {rows} " in capsys.readouterr().out
    with Journal.open(sealed, table_id="T1", sealed=True) as journal:
        assert journal.verify_from_anchor().ok
        assert len(journal.rows()) == rows, "no row the table did not write (it would not replay)"


def test_a_sealed_journal_without_its_key_is_never_written(sealed: Path) -> None:
    key_path_for(sealed).unlink()
    with pytest.raises(JournalUnavailable) as refused:
        Journal.open(sealed, table_id="T1", sealed=True)
    assert "are sealed with a table key, but there is no key at" in str(refused.value)
    with pytest.raises(JournalUnavailable) as unsealed:
        Journal.open(sealed, table_id="T1")
    assert "it is written only with its key" in str(unsealed.value)
    assert not key_path_for(sealed).exists(), "no new key is made for a sealed journal"


def test_a_key_others_may_read_is_refused_with_the_chmod(sealed: Path) -> None:
    key = key_path_for(sealed)
    key.chmod(0o644)
    with pytest.raises(JournalUnavailable) as refused:
        Journal.open(sealed, table_id="T1", sealed=True)
    assert f"chmod 600 {key}" in str(refused.value)


def test_another_tables_key_is_refused(sealed: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.key"
    TableKey.make(other, "T2", 1)
    with pytest.raises(JournalUnavailable) as refused:
        Journal.open(sealed, table_id="T1", sealed=True, key_path=other)
    assert "is table 'T2''s, not table 'T1''s" in str(refused.value)


def test_a_journal_from_before_keys_is_sealed_from_its_next_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / "format1-pins.sqlite", path)
    with Journal.open(path, readonly=True) as old:
        last = old.rows()[-1].seq
        assert old.verify().ok
    with Journal.open(path, table_id="T1", sealed=True) as journal:
        assert journal.key is not None
        assert journal.key.sealed_from == last + 1
        assert journal.verify_from_anchor().ok
        journal.append("note", {"device": "shoe", "text": "sealed from here"})
    status, out = _verify(path, capsys)
    assert status == 0, out
    assert "1 of them sealed under the table key" in out
    # an unsealed row slipped in after the first sealed one is named
    tamper(path, ("UPDATE journal SET mac = NULL WHERE seq = ?", (last + 1,)))
    status, out = _verify(path, capsys)
    assert status == 1
    assert f"row {last + 1}: unsealed" in out


def test_audit_verify_without_the_key_says_the_chain_is_not_proven(
    sealed: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    moved = tmp_path / "elsewhere.key"
    key_path_for(sealed).rename(moved)
    status, out = _verify(sealed, capsys)
    assert status == 0
    assert "MACs not checked (no table key given)" in out
    assert "not proven" in out
    status, out = _verify(sealed, capsys, "--key", str(moved))
    assert status == 0
    assert f"sealed under the table key {moved}" in out
    status, out = _verify(sealed, capsys, "--key", str(tmp_path / "nothing.key"))
    assert status == 2
    assert "there is no table key at" in out
