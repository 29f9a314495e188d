"""The local journal's retention: a start prunes only rows the floor has confirmed holding.

A table with a ``[floor]`` section prunes rows older than ``[journal] retention_days`` (90 by
default) and only up to the last row the floor committed, as its shipper recorded beside the
journal (:mod:`controller.floor.confirmed`) and only while that row is still this journal's (its
hash): an unshipped row is never pruned, whatever its age. A table without a floor keeps every
row: its journal is the only record (``croupier audit export`` archives it).
"""

from __future__ import annotations

from datetime import timedelta

import structlog

from controller.floor import confirmed
from controller.journal.store import Journal, PruneResult
from controller.table.config import LoadedTable

log = structlog.get_logger("croupier.retention")


def prune_confirmed(journal: Journal, table: LoadedTable) -> PruneResult | None:
    """Prune what the retention and the floor allow; None when nothing may be (and why is
    logged)."""
    config = table.config
    if config.floor is None:
        log.debug("journal kept whole: no floor holds a copy of its rows")
        return None
    found = confirmed.read(table.journal_path, config.table_id)
    if found is None:
        log.info("nothing pruned: the floor has not confirmed any row of this journal yet")
        return None
    mine = next(iter(journal.iter_rows(after_seq=found.seq - 1)), None)
    if mine is None or mine.seq != found.seq or mine.hash != found.hash:
        # (already pruned up to it, or a confirmation that is not this journal's)
        log.info("nothing pruned: the floor's confirmed row is not in this journal", seq=found.seq)
        return None
    result = journal.prune(timedelta(days=config.journal.retention_days), through_seq=found.seq)
    if result.pruned_rows:
        log.info("journal pruned", rows=result.pruned_rows, through_confirmed=found.seq)
    return result
