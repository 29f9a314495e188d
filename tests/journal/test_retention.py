"""The local journal's retention: a start prunes only rows the floor has confirmed holding and
that are past the retention; an unshipped row is never pruned, whatever its age, and a table
without a floor keeps every row."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from controller.floor import confirmed
from controller.journal.store import Journal
from controller.service.retention import prune_confirmed
from controller.table.config import LoadedTable, table_from_mapping
from tests.journal.conftest import FakeClock, fill

DAY = timedelta(days=1)


def _table(journal_path: Path, *, floor: bool = True) -> LoadedTable:
    data = {
        "table_id": "T1",
        "journal": {"path": str(journal_path), "retention_days": 90},
        **({"floor": {"dsn": "host=floor.example dbname=croupier"}} if floor else {}),
    }
    return table_from_mapping(data, "<test>", journal_path.parent)


def _old_rows(journal: Journal, clock: FakeClock) -> None:
    fill(journal, 6)  # rows 1-6, 100 days old by the time of the prune
    clock.advance(100 * DAY)
    fill(journal, 2)  # rows 7-8, new


def test_only_old_rows_the_floor_confirmed_are_pruned(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    _old_rows(journal, clock)
    fourth = journal.rows()[3]
    confirmed.record(journal_path, "T1", fourth.seq, fourth.hash)  # the floor holds rows 1-4
    result = prune_confirmed(journal, _table(journal_path))
    assert result is not None
    assert result.pruned_rows == 4
    # rows 5 and 6 are as old, but not on the floor yet: kept; the chain still verifies
    assert [r.seq for r in journal.rows()][:4] == [5, 6, 7, 8]
    assert journal.verify().ok


def test_without_a_confirmation_or_a_floor_no_row_is_pruned_however_old(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    _old_rows(journal, clock)
    assert prune_confirmed(journal, _table(journal_path)) is None
    assert prune_confirmed(journal, _table(journal_path, floor=False)) is None
    last = journal.rows()[-1]
    confirmed.record(journal_path, "T1", last.seq, last.hash)
    assert prune_confirmed(journal, _table(journal_path, floor=False)) is None  # no floor
    assert [r.seq for r in journal.rows()] == list(range(1, 9))


def test_a_confirmation_that_is_not_this_journal_s_prunes_nothing(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    _old_rows(journal, clock)
    confirmed.record(journal_path, "T1", 6, "0" * 64)  # another journal's row 6
    assert prune_confirmed(journal, _table(journal_path)) is None
    confirmed.record(journal_path, "T2", 6, journal.rows()[5].hash)  # another table's
    assert prune_confirmed(journal, _table(journal_path)) is None
    assert len(journal.rows()) == 8


def test_rows_the_floor_holds_inside_the_retention_are_kept(
    journal: Journal, journal_path: Path, clock: FakeClock
) -> None:
    fill(journal, 5)
    clock.advance(30 * DAY)
    last = journal.rows()[-1]
    confirmed.record(journal_path, "T1", last.seq, last.hash)
    result = prune_confirmed(journal, _table(journal_path))
    assert result is not None
    assert result.pruned_rows == 0
    assert len(journal.rows()) == 5
