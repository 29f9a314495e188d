"""Dealer performance (issue 24, point 4): per dealer, the rounds dealt, rounds per hour, seconds
per step of the round from the journal's times, voids, overrides, misreads keyed, holds and the
house win while they dealt; the same fold for the floor page and for ``floor report``."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.floor.cluster import Cluster
from controller.floor.dealers import DealerTally
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.shipper import Shipper
from controller.game.rules import load_variant
from controller.journal.store import Journal, Row, parse_ts
from controller.table.people import DealerSignIn, DealerSignOut
from tests.floor.conftest import drained, link, table_id, wait_until
from tests.journal.test_shoe_receipts import ShoeWalk

T0 = datetime(2026, 12, 4, 1, 0, tzinfo=UTC)


class Timed:
    """A table's rows at the seconds given (after 01:00:00 UTC)."""

    def __init__(self, table: str = "t1") -> None:
        self.seq = 0
        self.table = table

    def __call__(self, second: float, round_id: int, kind: str, **payload: Any) -> Row:
        self.seq += 1
        ts = (T0 + timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        return Row(self.seq, ts, self.table, round_id, kind, payload, "", "")


def state(row: Timed, second: float, round_id: int, source: str, dest: str) -> Row:
    return row(second, round_id, "state", source=source, dest=dest, action="x")


def test_each_step_is_timed_from_its_state_row_to_the_next_and_counts_for_its_round() -> None:
    row = Timed()
    rows = [
        state(row, 0, 1, "burn", "betting"),  # round 1: 10 s of betting
        state(row, 10, 1, "betting", "dealing"),
        row(10, 1, "round_start", round=1, dealer="D7", dealer_name="Dana"),
        state(row, 15, 1, "dealing", "playing"),  # 5 s dealing
        state(row, 35, 1, "playing", "hold"),  # 20 s of play, then a hold of 30 s
        row(40, 1, "input", action="key_card", accepted=True, data={"card": "AS"}),
        row(41, 1, "input", action="key_card", accepted=False, data={"card": "AS"}),
        row(60, 1, "supervisor", action="void", by="sue", detail=""),
        state(row, 65, 1, "hold", "settling"),
        row(65, 1, "round_end", round=1, net_cents=-1500, net_by_player={}),
        state(row, 69, 2, "settling", "betting"),  # 4 s settling; round 2 opens
        state(row, 79, 2, "betting", "dealing"),
        row(79, 2, "round_start", round=2, dealer="D9", dealer_name="Lee"),
        state(row, 82, 2, "dealing", "settling"),
        row(82, 2, "round_end", round=2, net_cents=500, net_by_player={}),
        state(row, 90, 3, "settling", "betting"),
    ]
    tally = DealerTally()
    for r in rows:
        tally.feed(r)
    dana, lee = tally.figures()
    assert (dana.dealer, dana.name, lee.dealer) == ("D7", "Dana", "D9")
    assert dana.step_ms == {
        "betting": 10_000,
        "dealing": 5_000,
        "play": 20_000,
        "hold": 30_000,
        "settlement": 4_000,
    }
    assert (dana.rounds, dana.voids, dana.overrides, dana.misreads_keyed, dana.holds) == (
        1,
        1,
        1,
        1,
        1,
    )
    assert dana.house_win_cents == 1500
    assert dana.rounds_per_hour == "52.2"  # 1 round in 69 s
    assert dana.seconds_per_round("hold") == "30.0"
    assert lee.step_ms == {"betting": 10_000, "dealing": 3_000, "settlement": 8_000}
    assert lee.house_win_cents == -500


def test_a_period_counts_the_rounds_that_ended_in_it() -> None:
    row = Timed()
    rows = [
        state(row, 0, 1, "burn", "betting"),
        row(1, 1, "round_start", round=1, dealer="D7", dealer_name="Dana"),
        row(5, 1, "round_end", round=1, net_cents=-100, net_by_player={}),
        state(row, 6, 2, "settling", "betting"),
        row(7, 2, "round_start", round=2, dealer="D7", dealer_name="Dana"),
        row(20, 2, "round_end", round=2, net_cents=-300, net_by_player={}),
        state(row, 21, 3, "settling", "betting"),
    ]
    tally = DealerTally(T0 + timedelta(seconds=10), T0 + timedelta(hours=1))
    for r in rows:
        tally.feed(r)
    (dana,) = tally.figures()
    assert (dana.rounds, dana.house_win_cents) == (1, 300)


@pytest.mark.pg
def test_the_shift_report_gives_each_dealer_their_rounds_and_times(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("dealers")
    path = tmp_path / f"{tid}.sqlite3"
    begun = datetime.now(UTC) - timedelta(minutes=1)
    with Journal.open(path, table_id=tid) as journal:
        walk = ShoeWalk(load_variant("pa-blackjack"), journal, seed=4)
        walk.table.apply(DealerSignIn("D7", "Dana", True, time.time()))
        walk.play(3)
        walk.table.apply(DealerSignOut(time.time()))
        walk.table.apply(DealerSignIn("D9", "Lee", True, time.time()))
        walk.play(2)
        local = journal.rows()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "shipped")
    with psycopg.connect(cluster.conninfo("floor")) as db:
        report = build_report(db, begun, datetime.now(UTC) + timedelta(minutes=1))
    mine = {d.dealer: d for d in report.dealers if tid in d.tables}
    assert set(mine) == {"D7", "D9"}
    dealer_of = {
        int(r.round_id or 0): r.payload.get("dealer") for r in local if r.kind == "round_start"
    }
    for dealer, rounds in (("D7", 3), ("D9", 2)):
        figures = mine[dealer]
        assert figures.rounds == rounds
        theirs = sorted(n for n, d in dealer_of.items() if d == dealer)
        ends = [r for r in local if r.kind == "round_end" and r.round_id in theirs]
        assert figures.house_win_cents == -sum(int(r.payload["net_cents"]) for r in ends)
        # their steps add up to the time from their first round's first state row to the
        # first state row of the round after their last
        states = [
            r for r in local if r.kind == "state" and r.payload["source"] != r.payload["dest"]
        ]
        first = min(parse_ts(r.ts) for r in states if r.round_id == theirs[0])
        after = min(parse_ts(r.ts) for r in states if r.round_id == theirs[-1] + 1)
        span_ms = round((after - first).total_seconds() * 1000)
        assert figures.dealing_ms == span_ms
    text = report.text()
    assert "Dana (D7)" in text
    page = render(report)
    assert "<td>Dana (D7)</td>" in page
    assert 'id="receipts"' in page
    assert report.as_json()["dealers"][0]["seconds_per_round"]["betting"] != "-"
