"""A dealer sign-in lockout on the floor (issue 24): wrong staff numbers or PINs in a row that
lock dealer sign-in at a table raise a ``dealer_lockout`` alert (from the sign-in ``call`` rows
the table shipped, counted as the table counts them), which a pit user acknowledges like any
other (migration 0010 knows the kind); wrong PINs short of the limit raise none."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from controller.floor.chain import ROW_COLUMNS, row_from_values
from controller.floor.cluster import Cluster
from controller.floor.live import TableView
from controller.floor.shipper import Shipper
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from tests.floor.conftest import drained, link, table_id, wait_until
from tests.table.test_people import ACCESS, BO_PIN, CY_PIN, NZ

pytestmark = pytest.mark.pg


def test_dealer_sign_in_locked_by_wrong_pins_is_an_alert_a_pit_user_acknowledges(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("dlock")
    path = tmp_path / f"{tid}.sqlite3"
    at = time.time()
    access = dataclasses.replace(ACCESS, clock=lambda: at, max_wrong_pins=3, lockout_seconds=120)
    begun = datetime.now(UTC) - timedelta(minutes=1)
    with Journal.open(path, table_id=tid) as journal:
        table = JournaledTable.start(NZ, journal, access=access)
        for _ in range(2):  # two wrong: not locked yet
            assert not table.dealer_sign_in("2001", CY_PIN).accepted
        assert table.dealer_sign_in("2001", BO_PIN).accepted  # the count starts again
        for _ in range(3):  # three wrong in a row: locked
            assert not table.dealer_sign_in("2001", CY_PIN).accepted
        assert not table.dealer_sign_in("2001", BO_PIN).accepted  # locked: refused unchecked
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "shipped")
    with psycopg.connect(cluster.conninfo("floor")) as db:
        rows = [
            row_from_values(v)
            for v in db.execute(
                f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows WHERE table_id = %s ORDER BY seq",
                (tid,),
            )
        ]
        view = TableView(tid, begun.astimezone(UTC))
        for row in rows:
            view.feed(row)
        (alert,) = [a for a in view.alerts(datetime.now(UTC)) if a.kind == "dealer_lockout"]
        until = datetime.fromtimestamp(at + 120, UTC).strftime("%H:%M:%S")
        assert alert.text == (
            f"dealer sign-in locked until {until} after 3 wrong staff numbers or PINs in a row "
            "(the last for 2001)"
        )
        assert alert.acked is None
        db.execute(
            "SELECT croupier.ack_alert(%s, 'dealer_lockout', %s, %s, 'pat')",
            (tid, alert.text, alert.since),
        )
        (acked,) = db.execute(
            "SELECT acked_by FROM croupier.alert_acks WHERE table_id = %s AND kind = %s",
            (tid, "dealer_lockout"),
        ).fetchall()
    assert acked == ("pat",)
