"""The floor's watcher looks at the new rows with Python's cycle collector paused (at 1,000
tables its full passes over the look's rows stalled the floor page: issue 26). That costs no
memory only because a look makes no reference cycle, which this shows on a real PostgreSQL: a
table's rows shipped after the watcher started reach its view in one look, the collector is
as it was after, and nothing the look made is left for the collector to find."""

from __future__ import annotations

import gc
from datetime import time as dtime
from functools import partial
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from controller.floor.cluster import Cluster
from controller.floor.shifts import Shifts
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher, WatchSettings
from controller.service.service import TableService
from tests.cycles import cycles_made
from tests.floor.conftest import demo, drained, link, local_rows, table, table_id, wait_until

pytestmark = pytest.mark.pg


def test_a_look_at_new_rows_leaves_no_reference_cycle_and_the_collector_as_it_was(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("cycles")
    loaded = table(tmp_path, tid)
    path = Path(loaded.config.journal.path)
    watcher = FloorWatcher(
        cluster.conninfo("floor"),
        Shifts((dtime(0, 0),), ZoneInfo("UTC")),
        WatchSettings(history_hours=1, recheck_s=3600),
    )
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: service.rounds_completed >= 2, "2 rounds dealt")
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(partial(drained, shipper, path), "shipped")
    watcher._connect()  # (the thread's start, without the thread: each look by hand)
    try:
        before = watcher.views[tid].last_seq
        with TableService(loaded, actors=demo()) as service:
            wait_until(lambda: service.rounds_completed >= 2, "2 more rounds dealt")
        with Shipper(path, tid, link(cluster, tid)) as shipper:
            wait_until(partial(drained, shipper, path), "shipped again")
        last = local_rows(path)[-1].seq
        assert last > before
        with cycles_made() as made:
            watcher._look()  # the heads are due: the table's new rows read, checked, shown
            assert not gc.isenabled()  # (paused inside, and as it was after)
        assert made.found == 0, made.garbage[:20]
        view = watcher.views[tid]
        assert view.last_seq == last
        assert view.chain.rows_checked == last
        assert not view.breaks
        # with the collector on, it is paused through the look (seen where the views are
        # published) and on again after
        seen: list[bool] = []
        publish = watcher._publish

        def watched(dirty: set[str]) -> None:
            seen.append(gc.isenabled())
            publish(dirty)

        watcher._publish = watched  # type: ignore[method-assign]
        watcher._last_tick = 0.0  # (a tick is due: every view published)
        watcher._look()
        assert seen == [False]
        assert gc.isenabled()
    finally:
        watcher.close()
