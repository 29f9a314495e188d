"""Live integrity through the real process (issue 25, point 3): a journal row edited with
sqlite3 while ``croupier run`` deals holds the table for a supervisor, saying what changed."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from tests.cli.test_run import WAIT_S, _poll, croupier


def test_a_row_edited_with_sqlite3_while_the_table_runs_holds_it_for_a_supervisor(
    tmp_path: Path,
) -> None:
    with croupier("run", "--demo", "--pace", "0.02", "--port", "0", cwd=tmp_path) as (
        proc,
        lines,
    ):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        assert lines.wait_for("round 1 over: dealer ")
        (journal,) = tmp_path.rglob("journal.sqlite3")
        with sqlite3.connect(journal) as db:  # someone with the file, behind the table's back
            db.execute("DROP TRIGGER IF EXISTS journal_no_update")
            db.execute("UPDATE journal SET ts = '2020-01-01T00:00:00.000Z' WHERE seq = 5")
        db.close()
        state = _poll(url, lambda s: s["state"] == "hold", "the integrity hold")
        said = str(state["instruction"])
        assert "the record of play was changed behind the table's back: row 5 was edited" in said
        assert "the supervisor (key at SUP, signed in) finds out who changed it" in said
        (record,) = state["holds"]  # the technician's record: which row, how it was found
        assert record.startswith(
            "row 5 of the journal was edited: its stored hash does not match its contents ("
        )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT_S) == 0
