"""Ratings on the floor (controller.floor.ratings, controller.analysis.theo): a rated player's
round at a journaled pa-blackjack table (real SQLite), shipped to a real PostgreSQL, read back
as a session with its rounds, bets, dealer and every decision on the cards it was made on (a
split hand's too), and rated: skill theo = the optimum's edge x wagers + each decision's exact
cost; book theo = average bet x rounds x the chart's edge; the report shows the rating table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import psycopg
import pytest

from controller.analysis.theo import Spot, rate, values_for
from controller.floor.cluster import Cluster
from controller.floor.ratings import SeenDecision, rated_sessions
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.shipper import Shipper
from controller.round.spec import Action
from drivers.tbl21.cards import Card, parse_cards
from tests.floor.conftest import drained, link, table_id, wait_until
from tests.floor.rated import EDGES, PA, PaTable, pa_variant, play_split_round

pytestmark = pytest.mark.pg


def test_a_rated_session_shipped_to_the_floor_is_rated_from_its_rows_to_the_cent(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("rate")
    path = tmp_path / "rated.sqlite3"
    start = datetime.now(UTC) - timedelta(minutes=1)
    t = PaTable(path, tid)
    play_split_round(t)
    t.journal.close()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "the rated table's rows shipped")
    end = datetime.now(UTC) + timedelta(minutes=1)
    with psycopg.connect(cluster.conninfo("floor")) as db:
        sessions = [s for s in rated_sessions(db, start, end) if s.table_id == tid]
        report = build_report(db, start, end)
    assert len(sessions) == 1
    play = sessions[0]
    assert (play.card, play.player, play.box, play.rounds, play.wagers_cents) == (
        "40001234",
        "ann",
        1,
        1,
        1000,
    )
    assert play.dealers == ["Bo Chen"]
    assert play.end is not None
    assert play.variant == "pa-blackjack"
    assert play.decisions == [
        SeenDecision(1, 1, 1, "7C", ("8H", "8D"), 1, "split", 1000),
        SeenDecision(1, 1, 1, "7C", ("8H", "3S"), 2, "hit", 1000),
        SeenDecision(1, 1, 2, "7C", ("8D", "5S"), 2, "stand", 1000),
    ]

    (rating,) = rate(sessions, pa_variant, lambda _rules: EDGES)
    values = values_for(PA)
    up = Card.parse("7C")
    costs = [
        values.cost(Spot(up, tuple(parse_cards("8H 8D"))), Action.SPLIT),
        values.cost(Spot(up, tuple(parse_cards("8H 3S")), 2), Action.HIT),
        values.cost(Spot(up, tuple(parse_cards("8D 5S")), 2), Action.STAND),
    ]
    assert all(c is not None for c in costs)
    cost = sum((c for c in costs if c is not None), Fraction(0)) * 1000
    assert costs[2] is not None
    assert costs[2] > Fraction(1, 100)  # standing on 13 against a 7 costs over a cent a dollar
    assert rating.cost_cents == cost
    assert rating.skill_cents == EDGES.optimal * 1000 + cost
    assert rating.book_cents == EDGES.chart * 1000
    assert rating.decisions == 3
    assert rating.unvalued == 0
    assert rating.worst[0].startswith("stand on 8D 5S against 7C: $")

    report.ratings = [rating]
    cells = rating.shown()
    assert cells["average_bet"] == "$10"
    assert cells["book_theo"] == "$0.03"  # 0.34 % of $10, to the cent only when shown
    text = report.text()
    assert "rated 40001234 (ann) table " + tid in text
    assert f"skill theo {cells['skill_theo']}" in text
    assert report.as_json()["ratings"][0]["skill_theo_cents"] == str(rating.skill_cents)
    page = render(report)
    assert '<table id="ratings">' in page
    assert f'data-session="{play.session}"' in page
