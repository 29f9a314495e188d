"""Shoe receipts on the floor (issue 24, point 5): a table's receipts ship with its other rows, a
shoe that ended short of cards raises a ``shoe`` alert a pit user may acknowledge, and the
floor report lists the receipts per table for the shift."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from controller.floor.chain import ROW_COLUMNS, row_from_values
from controller.floor.cluster import Cluster
from controller.floor.live import TableView
from controller.floor.report import build_report
from controller.floor.shipper import Shipper
from controller.game.rules import load_variant
from controller.journal.store import Journal
from tests.floor.conftest import drained, link, table_id, wait_until
from tests.journal.test_shoe_receipts import ShoeWalk

pytestmark = pytest.mark.pg


def test_a_shoe_short_of_a_card_is_an_alert_and_in_the_shift_report(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("shoe")
    path = tmp_path / f"{tid}.sqlite3"
    rules = load_variant("pa-blackjack")
    begun = datetime.now(UTC) - timedelta(minutes=1)
    with Journal.open(path, table_id=tid) as journal:
        walk = ShoeWalk(rules, journal, seed=9)
        walk.play(2)
        walk.load(missing=1)  # changed for a shoe a card short
        walk.play(2)
        walk.load()  # its receipt: a shortfall of one
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
        view = TableView(tid, begun)
        for row in rows:
            view.feed(row)
        (alert,) = [a for a in view.alerts(datetime.now(UTC)) if a.kind == "shoe"]
        assert alert.text.startswith("a shoe ended 1 card short (round ")
        assert "the decks must still hold " in alert.text
        # a pit user acknowledges it like any other (migration 0009 knows the kind)
        db.execute(
            "SELECT croupier.ack_alert(%s, 'shoe', %s, %s, 'pat')", (tid, alert.text, alert.since)
        )
        report = build_report(db, begun, datetime.now(UTC) + timedelta(minutes=1))
    mine = [r for r in report.receipts if r.table_id == tid]
    assert [r.reason for r in mine] == ["changed", "changed"]
    assert [r.shortfall for r in mine] == [0, 1]
    (figures,) = [f for f in report.tables if f.table_id == tid]
    assert (figures.shoes, figures.shoe_shortfall, figures.shoe_surplus) == (2, 1, 0)
    assert figures.shoe_cards_dealt == sum(r.dealt for r in mine) > 0
    text = report.text()
    assert f"shoes table {tid}: 2 ended" in text
    assert f"table {tid} round {mine[1].round_id} (changed): shortfall 1, surplus 0" in text
    assert report.as_json()["receipts"][-1]["left"] == mine[-1].left
