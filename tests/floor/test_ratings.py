"""Ratings on the floor (controller.floor.ratings, controller.analysis.theo): a rated player's
round at a journaled pa-blackjack table (real SQLite), shipped to a real PostgreSQL, read back
as a session with its rounds, bets, dealer and every decision on the cards it was made on (a
split hand's too), and rated: skill theo = the optimum's edge x wagers + each decision's exact
cost; book theo = average bet x rounds x the chart's edge; the report shows the rating table."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import psycopg
import pytest

from controller.analysis.theo import Edges, Spot, rate, values_for
from controller.floor.cluster import Cluster
from controller.floor.ratings import SeenDecision, rated_sessions
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.shipper import Shipper
from controller.game.rules import Variant, load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.access import KEY_ONLY
from controller.table.config import hash_secret
from controller.table.staff import Person, Staff
from drivers.tbl21.cards import Card, parse_cards
from drivers.tbl21.events import Button, ButtonPressed, CardDrawn, DeviceRef, DeviceType
from tests.floor.conftest import drained, link, table_id, wait_until

pytestmark = pytest.mark.pg

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")
PA = load_variant("pa-blackjack")
PIN = "27182818"
STAFF = Staff({"2001": Person("2001", "dealer", "Bo Chen", hash_secret(PIN))})
# the optimum's and the chart's edges, given here (the analysis tests work them out: a walk of
# every hand of six decks takes most of a minute)
EDGES = Edges(Fraction(33, 10000), Fraction(34, 10000))


class PaTable:
    def __init__(self, path: Path, tid: str) -> None:
        self.journal = Journal.open(path, table_id=tid)
        access = dataclasses.replace(KEY_ONLY, staff=STAFF)
        self.table = JournaledTable.start(PA, self.journal, access=access)
        self.draw_no = 0
        self.seq = 0

    def card(self, text: str) -> None:
        self.draw_no += 1
        assert self.table.handle(
            CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=Card.parse(text),
                      draw_no=self.draw_no, remaining=300 - self.draw_no, quality=99)
        )  # fmt: skip

    def press(self, button: Button) -> None:
        self.seq += 1
        assert self.table.handle(
            ButtonPressed(device=PANEL, at=0.0, seq=self.seq, button=button, held_ms=0)
        )


def _play(t: PaTable) -> None:
    """ann (card 40001234) at box 1 bets $10: 8-8 against a 7, splits; 8-3 hits to 21; 8-5
    stands on 13 against a 7 (a poor play); the dealer's 7-9 draws a ten and busts."""
    t.card("2C")  # the burn card
    assert t.table.dealer_sign_in("2001", PIN).accepted
    assert t.table.sit_down(1, "40001234", "ann").accepted
    assert t.table.answer(Bet(1, "ann", 1000)).accepted
    t.press(Button.DEAL)
    for text in ("8H", "7C", "8D", "9C"):  # box 1, the dealer's card, box 1, the hole card
        t.card(text)
    t.press(Button.OK)  # no surrender
    t.press(Button.SPLIT)
    t.card("3S")
    t.press(Button.HIT)
    t.card("TS")  # 21: the hand is over
    t.card("5S")  # hand 2's second card
    t.press(Button.STAND)
    t.press(Button.OK)  # the hole card turned over
    t.card("TH")
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)
    assert t.table.walk_away(1).accepted


def _variant(name: str) -> Variant:
    assert name == "pa-blackjack"
    return PA


def test_a_rated_session_shipped_to_the_floor_is_rated_from_its_rows_to_the_cent(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("rate")
    path = tmp_path / "rated.sqlite3"
    start = datetime.now(UTC) - timedelta(minutes=1)
    t = PaTable(path, tid)
    _play(t)
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

    (rating,) = rate(sessions, _variant, lambda _rules: EDGES)
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
