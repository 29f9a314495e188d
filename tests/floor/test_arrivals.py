"""The floor's insert trigger, one pass over a batch since migration 0007: each refusal in the same
words, a batch sent again written once, and the tables' commits notifying nothing (a shipper's
report only when its status or problem changes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from controller.floor.cluster import Cluster
from controller.floor.errors import ShipRefused
from controller.floor.shipper import Backlog, connect_floor, send_batch, send_report
from controller.journal.store import GENESIS_HASH, Row, format_ts, row_hash
from tests.floor.conftest import link, table_id


def _rows(tid: str, first: int, count: int, prev: str) -> list[Row]:
    ts = format_ts(datetime.now(UTC))
    rows = []
    for seq in range(first, first + count):
        payload = f'{{"n":{seq}}}'
        digest = row_hash(seq, ts, tid, None, "note", payload, prev)
        rows.append(Row(seq, ts, tid, None, "note", {"n": seq}, prev, digest, payload))
        prev = digest
    return rows


def _connect(cluster: Cluster, tid: str) -> psycopg.Connection[Any]:
    settings = link(cluster, tid)
    return connect_floor(settings.conninfo(), tid, settings)


def _head(cluster: Cluster, tid: str) -> tuple[int, str]:
    with psycopg.connect(cluster.conninfo("floor")) as db:
        found = db.execute(
            "SELECT seq, hash FROM croupier.tables WHERE table_id = %s", (tid,)
        ).fetchone()
    assert found is not None
    return int(found[0]), str(found[1])


def test_batches_that_follow_on_move_the_head_and_one_sent_again_is_written_once(
    cluster: Cluster,
) -> None:
    tid = table_id("arrive")
    first = _rows(tid, 1, 3, GENESIS_HASH)
    second = _rows(tid, 4, 2, first[-1].hash)
    with _connect(cluster, tid) as db:
        send_batch(db, first)
        send_batch(db, second)
        send_batch(db, second)  # the reply was lost: sent again
    assert _head(cluster, tid) == (5, second[-1].hash)
    with psycopg.connect(cluster.conninfo("floor")) as db:
        found = db.execute(
            "SELECT count(*), count(DISTINCT seq) FROM croupier.journal_rows WHERE table_id = %s",
            (tid,),
        ).fetchone()
    assert found == (5, 5)


def _spoiled(spoil: str, tid: str, head: list[Row]) -> list[Row]:
    """A batch after rows 1-3 (``head``) that does not follow on, in the way named."""
    if spoil == "gap":
        return [r for r in _rows(tid, 4, 4, head[-1].hash) if r.seq != 5]
    if spoil == "unchained":
        return _rows(tid, 4, 1, head[-1].hash) + _rows(tid, 5, 2, "f" * 64)
    if spoil == "missing":
        return _rows(tid, 5, 2, "e" * 64)
    if spoil == "not_the_heads":
        return _rows(tid, 4, 2, "d" * 64)
    # row 3 again, at another time: another journal's row 3
    later = format_ts(datetime.now(UTC) + timedelta(seconds=1))
    prev, text = head[1].hash, head[2].payload_json
    return [
        Row(
            3,
            later,
            tid,
            None,
            "note",
            {},
            prev,
            row_hash(3, later, tid, None, "note", text, prev),
            text,
        )
    ]


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        ("gap", "rows 4 to 7 arrive with a gap (3 rows)"),
        ("unchained", "row 5 does not chain to row 4 (its prev_hash is not that row's hash)"),
        ("missing", "rows 4 to 4 are missing before row 5"),
        ("not_the_heads", "row 4 does not chain to row 3 on the floor"),
        ("already", "row 3 is already on the floor with other contents"),
    ],
)
def test_a_batch_that_does_not_follow_on_is_refused_whole_with_the_reason(
    cluster: Cluster, spoil: str, reason: str
) -> None:
    tid = table_id("refuse")
    head = _rows(tid, 1, 3, GENESIS_HASH)
    batch = _spoiled(spoil, tid, head)
    with _connect(cluster, tid) as db:
        send_batch(db, head)
        with pytest.raises(ShipRefused) as refused:
            send_batch(db, batch)
    assert reason in str(refused.value)
    assert _head(cluster, tid) == (3, head[-1].hash)  # nothing of the batch was written


def test_a_row_whose_time_is_not_its_ts_is_refused(cluster: Cluster) -> None:
    tid = table_id("mistime")
    (row,) = _rows(tid, 1, 1, GENESIS_HASH)
    with _connect(cluster, tid) as db, pytest.raises(psycopg.errors.RaiseException) as refused:
        db.execute(
            "INSERT INTO croupier.journal_rows (table_id, seq, ts, at, round_id, kind, payload, "
            "prev_hash, hash) VALUES (%s, 1, %s, now() - interval '1 hour', NULL, 'note', %s, "
            "%s, %s)",
            (tid, row.ts, row.payload_json, row.prev_hash, row.hash),
        )
    assert "row 1's time does not match its ts" in str(refused.value)


def test_rows_notify_nothing_and_a_report_notifies_only_a_change_of_status(
    cluster: Cluster,
) -> None:
    tid = table_id("quiet")
    with psycopg.connect(cluster.conninfo("floor"), autocommit=True) as watch:
        watch.execute("LISTEN croupier_rows")
        watch.execute("LISTEN croupier_status")
        with _connect(cluster, tid) as db:
            rows = _rows(tid, 1, 4, GENESIS_HASH)
            send_batch(db, rows)
            backlog = Backlog(4, 4, None, 0.0)
            for status in ("connected", "connected", "connected", "lost"):
                send_report(db, tid, backlog, status, "" if status == "connected" else "gone", {})
        heard = [(n.channel, n.payload) for n in watch.notifies(timeout=0.5)]
    assert heard == [("croupier_status", tid), ("croupier_status", tid)]  # first, then lost
