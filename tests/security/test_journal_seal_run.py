"""The attacks of issue 21 point 4 through the real ``croupier run`` and ``croupier audit``
processes: an older copy of the journal put back in its place, and a ledger row rewritten with
every row after it hashed again, are refused; so is a sealed journal without its key."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from websockets.sync.client import connect

from controller.cli.run import EXIT_DISAGREES, EXIT_JOURNAL
from controller.journal.seal import head_path_for, key_path_for
from tests.cli.test_run import CROUPIER, _state
from tests.cli.test_run_halted import _ask, _halted_run, _table_file
from tests.cli.test_run_start import _rows, _start, copy_journal, journal, played
from tests.journal.test_seal import _ledger_seq, _rechain_from
from tests.security.conftest import SUPERVISOR_PIN

__all__ = ["journal", "played"]  # the fixtures, used by name


def _put_back(older: Path, journal: Path) -> None:
    """The older copy over the journal, as a person would restore a file (no -wal left)."""
    for suffix in ("-wal", "-shm"):
        journal.with_name(journal.name + suffix).unlink(missing_ok=True)
    journal.write_bytes(older.read_bytes())


def test_an_older_copy_of_the_journal_put_back_stops_the_table_as_rolled_back(
    journal: Path, tmp_path: Path
) -> None:
    older = tmp_path / "older.sqlite3"
    copy_journal(journal, older, sealing=False)
    went_on = _start(tmp_path, "--demo", "--pace", "0", "--rounds", "2")
    assert went_on.returncode == 0, went_on.stderr
    head = json.loads(head_path_for(journal).read_text())
    assert head["seq"] > _rows(older), "the head record saw the rounds dealt since"
    _put_back(older, journal)
    rows = _rows(journal)

    with _halted_run(tmp_path, _table_file(tmp_path)) as (proc, _lines, url):
        halted = _state(url)["halted"]
        assert halted["found"].startswith(f"rolled back: the journal ends at row {rows}")
        assert "older copy of the journal" in halted["found"]
        assert [c["choice"] for c in halted["choices"]] == ["verify", "stop"], "no void"
        with connect(url.replace("http", "ws") + "ws", open_timeout=30) as ws:
            assert _ask(ws, {"type": "pin", "pin": SUPERVISOR_PIN})["accepted"] is True
            assert _ask(ws, {"type": "halted", "choice": "stop"})["accepted"] is True
        assert proc.wait(30) == EXIT_DISAGREES
    assert _rows(journal) == rows, "nothing was written to the older copy"
    assert json.loads(head_path_for(journal).read_text()) == head, "the head record stays"


def test_a_ledger_row_rewritten_and_the_chain_hashed_again_is_named_by_run_and_audit(
    journal: Path, tmp_path: Path
) -> None:
    seq = _ledger_seq(journal)
    _rechain_from(journal, seq, 5_000_000)
    audit = subprocess.run(
        [*CROUPIER, "audit", "verify", "--journal", str(journal)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert audit.returncode == 1
    assert f"row {seq}: forged: its MAC is not the table key's (ledger row)" in audit.stdout
    with _halted_run(tmp_path, _table_file(tmp_path)) as (proc, _lines, url):
        halted = _state(url)["halted"]
        assert halted["row"] == seq
        assert halted["found"].startswith("forged:")
        proc.terminate()
        assert proc.wait(30) == EXIT_DISAGREES


def test_a_sealed_journal_without_its_key_is_refused_at_start(
    journal: Path, tmp_path: Path
) -> None:
    key_path_for(journal).unlink()
    rows = _rows(journal)
    done = _start(tmp_path, "--demo", "--pace", "0", "--rounds", "1")
    assert done.returncode == EXIT_JOURNAL
    assert "Traceback" not in done.stderr
    assert "are sealed with a table key, but there is no key at" in done.stderr
    assert _rows(journal) == rows
    assert not key_path_for(journal).exists()
