"""The floor report's gaming days (real PostgreSQL): a table's day - opened, a round dealt, a
fill, a credit, the drop, closed - shipped to the floor; ``croupier.gaming_days`` (migration
0008) and the report show the table's win beside the house win the floor works out from the
rounds' ledger rows, and their difference."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

from controller.floor.cluster import Cluster
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.shipper import Shipper
from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.access import KEY_ONLY
from controller.table.config import hash_secret
from controller.table.day import PANEL_KEYS, DayAct, DayRequest
from controller.table.staff import Person, Staff
from drivers.tbl21.events import (
    Button,
    DeviceIdentified,
    DeviceIdentity,
    KeyPosition,
)
from tests.floor.conftest import drained, link, table_id, wait_until
from tests.round.walk import PEEK, SHOE
from tests.table_hands import TableHands

NZ = load_variant("nz-pontoon")
BO_PIN = "27182818"
STAFF = Staff({"2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN))})
ACCESS = dataclasses.replace(KEY_ONLY, staff=STAFF)


class Day(TableHands):
    """A journaled table (real SQLite) whose day is played by hand."""

    def __init__(self, path: Path, tid: str) -> None:
        self.journal = Journal.open(path, table_id=tid)
        self.table = JournaledTable.start(NZ, self.journal, access=ACCESS)
        self.table.require_opening(True)
        self.seq = self.draw_no = 0

    def handle(self, event: object) -> None:
        assert self.table.handle(event)  # type: ignore[arg-type]

    def step(self, act: DayAct, **fields: object) -> None:
        done = self.table.day_request(DayRequest(act, **fields))  # type: ignore[arg-type]
        assert done.accepted, done.text

    def play(self) -> None:
        for ref in (SHOE, PEEK):
            identity = DeviceIdentity("M", "SN1", "1.0", "ab" * 16, 1, NZ.shoe.deck)
            self.handle(DeviceIdentified(device=ref, at=0.0, identity=identity))
        self.key(KeyPosition.SUPERVISOR)
        for act in (DayAct.LAYOUT, DayAct.READER, DayAct.SHOE, DayAct.PANEL):
            self.step(act)
        for button in sorted(PANEL_KEYS):
            self.press(button)
        self.step(DayAct.OPENING, chips=((500, 100), (2500, 40)))  # $1,500
        self.key(KeyPosition.RUN)
        self.card("2C")  # the burn card
        assert self.table.answer(Bet(1, "ann", 1000)).accepted
        assert self.table.answer(Bet(2, "bob", 500)).accepted
        self.press(Button.DEAL)
        for text in ("9H", "5D", "7C", "JD", "9S"):
            self.card(text)
        self.press(Button.STAND)
        self.press(Button.STAND)
        self.card("KS")
        assert self.table.controller.state is State.SETTLING
        self.press(Button.OK)
        self.key(KeyPosition.SUPERVISOR)
        self.step(DayAct.FILL, chips=((2500, 20),), witness="2001", witness_pin=BO_PIN)  # $500
        self.step(DayAct.CREDIT, chips=((500, 40),), witness="2001", witness_pin=BO_PIN)  # $200
        self.step(DayAct.DROP, cents=30_000)
        self.step(DayAct.CLOSING, chips=((500, 100), (2500, 60)))  # $2,000

    def house_win(self) -> int:
        return -sum(
            int(r.payload["amount_cents"]) for r in self.journal.iter_rows(kinds=["ledger"])
        )


def test_the_floor_report_shows_the_days_win_beside_the_ledgers_house_win_and_the_difference(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("day")
    path = tmp_path / f"{tid}.sqlite3"
    start = datetime.now(UTC) - timedelta(minutes=5)
    day = Day(path, tid)
    day.play()
    house = day.house_win()
    assert house != 0
    day.journal.close()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "the day's rows on the floor")
    with psycopg.connect(cluster.conninfo("floor")) as db:
        report = build_report(db, start, datetime.now(UTC) + timedelta(minutes=5))
    mine = [d for d in report.days if d.table_id == tid]
    assert len(mine) == 1
    (figures,) = mine
    # 2,000 - 1,500 + 200 - 500 + 300 = 500 (the table's count)
    assert figures.as_json() | {"opened": "", "closed": ""} == {
        "table_id": tid,
        "day": 1,
        "opened": "",
        "closed": "",
        "closed_by": "supervisor (key)",
        "opening_cents": 150_000,
        "fills_cents": 50_000,
        "credits_cents": 20_000,
        "drop_cents": 30_000,
        "closing_cents": 200_000,
        "table_win_cents": 50_000,
        "ledger_house_win_cents": house,
        "difference_cents": 50_000 - house,
    }
    assert f"gaming day 1 of table {tid} (closed by supervisor (key)): table's win $500" in (
        report.text()
    )
    page = render(report)
    assert 'id="gaming-days"' in page
    assert "$1,500" in page
