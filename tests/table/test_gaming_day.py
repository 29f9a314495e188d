"""The gaming day (controller.table.day), on a journaled table (real SQLite): a table that
requires it deals nothing until a supervisor has confirmed the layout, checked each device and
counted the opening chips; fills and credits take two people; the closing gives the day's win
beside the house's win of the rounds' ledger; and a restart that replays the journal finds the
same day."""

from __future__ import annotations

import dataclasses
import functools
import itertools
from pathlib import Path
from typing import Any

import pytest

from controller.display.errors import BadMessage
from controller.display.messages import parse_message
from controller.display.words import instruction
from controller.game.holds import HoldCause
from controller.game.refusals import Why, WhyNot
from controller.game.rules import load_variant
from controller.game.words import plain, refusal_words
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.access import KEY_ONLY
from controller.table.config import hash_secret
from controller.table.day import (
    MAX_CHIPS,
    PANEL_KEYS,
    DayAct,
    DayCall,
    DayRequest,
    GamingDay,
    chips_cents,
    chips_problem,
    day_win,
)
from controller.table.staff import Person, Staff
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    CardDrawn,
    DeviceIdentified,
    DeviceIdentity,
    KeyPosition,
)
from tests.round.walk import PEEK, SHOE
from tests.table_hands import TableHands

NZ = load_variant("nz-pontoon")
ANA_PIN, BO_PIN = "61803398", "27182818"
STAFF = Staff(
    {
        "1001": Person("1001", "supervisor", "Ana Ruiz", hash_secret(ANA_PIN)),
        "2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN)),
    }
)
# a clock that moves on each reading: a replay at another time must make the same rows
ACCESS = dataclasses.replace(
    KEY_ONLY, staff=STAFF, clock=functools.partial(next, itertools.count(1_800_000_000.0))
)
CHIPS = ((100, 200), (500, 100), (2500, 40))  # $2 + $5 + $25: 200 + 500 + 1,000 dollars
# one round (tests/table/test_people.py's): ann (box 1) 10.00 and bob (box 2) 5.00 stand
ROUND = ["9H", "5D", "7C", "JD", "9S", "KS"]


# --- the day's arithmetic (integer cents) -----------------------------------------------------


def test_the_days_win_is_closing_less_opening_plus_credits_less_fills_plus_the_drop() -> None:
    assert (
        day_win(170_000, 150_000, 50_000, 20_000, 45_000)
        == 150_000 - 170_000 + 20_000 - 50_000 + 45_000
    )
    assert day_win(170_000, 150_000, 50_000, 20_000, 45_000) == -5_000
    assert day_win(100, 101, 0, 0, 0) == 1  # cents, never rounded
    assert day_win(170_000, 150_000, 0, 0, None) is None  # the drop left open: no win yet


def test_chips_are_worth_denomination_times_count_and_a_bad_count_says_why() -> None:
    assert chips_cents(CHIPS) == 200 * 100 + 100 * 500 + 40 * 2500 == 170_000
    assert chips_cents(()) == 0
    assert chips_problem(CHIPS) is None
    assert chips_problem(((0, 5),)) == WhyNot(Why.DAY_BAD_DENOMINATION, cents=0)
    assert chips_problem(((500, 1), (500, 2))) == WhyNot(Why.DAY_CHIPS_TWICE, cents=500)
    assert chips_problem(((500, -1),)) == WhyNot(Why.DAY_BAD_COUNT, number=-1, high=MAX_CHIPS)
    said = refusal_words(WhyNot(Why.DAY_BAD_DENOMINATION, cents=0))
    assert said == "$0 is no chip: a denomination is a whole positive amount"
    assert "counted twice" in refusal_words(WhyNot(Why.DAY_CHIPS_TWICE, cents=500))
    assert "is no number of chips" in refusal_words(WhyNot(Why.DAY_BAD_COUNT, number=-1))


def test_opening_steps_out_of_order_or_twice_are_refused_and_change_nothing() -> None:
    day = GamingDay(required=True)

    after, events = day.apply(DayCall(DayAct.FILL, "sup", 1.0, CHIPS, witness="bo"))
    assert after is day
    assert not events[0].accepted
    assert events[0].text == "no gaming day is open: open the table before you enter a fill"
    after, events = day.apply(DayCall(DayAct.OPENING, "sup", 1.0))
    assert after is day
    assert events[0].text == "count the chips first: a denomination and how many"


# --- on a journaled table ---------------------------------------------------------------------


class Table(TableHands):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal = Journal.open(path, table_id="T1")
        self.table = JournaledTable.start(NZ, self.journal, access=ACCESS)
        self.table.require_opening(True)
        self.draw_no = self.table.app.shoe.last_draw_no or 0
        self.seq = 0

    def identify(self) -> None:
        for ref, model in ((SHOE, "SHOE-8"), (PEEK, "PEEK-2")):
            deck = NZ.shoe.deck if ref is SHOE else None
            identity = DeviceIdentity(model, "SN1", "1.0", "ab" * 16, 1, deck)
            assert self.table.handle(DeviceIdentified(device=ref, at=0.0, identity=identity))

    def day(self, act: DayAct, **fields: Any) -> Any:
        return self.table.day_request(DayRequest(act, **fields))

    def open_day(self) -> None:
        self.identify()
        self.key(KeyPosition.SUPERVISOR)
        assert self.day(DayAct.LAYOUT).accepted
        assert self.day(DayAct.READER).accepted
        assert self.day(DayAct.SHOE).accepted
        assert self.day(DayAct.PANEL).accepted
        for button in sorted(PANEL_KEYS):
            self.press(button)
        assert self.day(DayAct.OPENING, chips=CHIPS).text == (
            "gaming day 1 open: the table deals (opening chips $1,700)"
        )
        self.key(KeyPosition.RUN)

    def rows(self, kind: str) -> list[dict[str, Any]]:
        return [r.payload for r in self.journal.iter_rows(kinds=[kind])]


def test_a_table_that_requires_the_day_takes_no_bet_and_holds_a_card_until_it_is_open(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path / "j.sqlite3")
    refused = t.table.answer(Bet(1, "ann", 1000))
    assert not refused.accepted
    assert refused.reason == (
        "the gaming day is not open: a supervisor opens the table on the display first"
    )
    t.card("2C")  # the burn card: held, not burnt
    app = t.table.app
    assert app.controller.state is State.HOLD
    assert next(h.cause for h in app.controller.hold_reasons) is HoldCause.DAY_NOT_OPEN
    assert plain(instruction(app, [])["parts"]).startswith("Stop: the gaming day is not open")
    t.key(KeyPosition.SUPERVISOR)
    assert "clear_lockup" not in app.supervisor_choices()  # not before the day is open
    t.open_day()  # (the opening's steps may be taken while the table holds)
    t.key(KeyPosition.SUPERVISOR)
    assert {"burn", "clear_lockup"} <= set(app.supervisor_choices())


def test_once_the_day_is_open_the_bar_says_to_burn_the_held_card_not_that_the_day_is_shut(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path / "j.sqlite3")
    t.card("2C")  # drawn before the day: held
    t.open_day()
    app = t.table.app
    assert app.controller.state is State.HOLD  # the lockup stands until the supervisor clears it
    told = instruction(app, [])
    assert plain(told["parts"]) == (
        "Stop: the gaming day is open now: burn the held card and clear the lockup"
    )
    assert "burns the card and clears the lockup" in plain(told["detail"])


def test_the_opening_names_who_did_each_step_and_the_day_survives_a_restart(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path / "j.sqlite3")
    assert not t.day(DayAct.LAYOUT).accepted  # the key at RUN: nobody may
    t.open_day()
    day = t.table.app.day
    assert day.is_open
    assert day.number == 1
    assert day.opening_cents == 170_000
    rows = t.rows("day")
    steps = {r["event"]: r["by"] for r in rows if r["accepted"] and r["event"] != "key"}
    assert steps == {
        "layout": "supervisor (key)",
        "reader": "supervisor (key)",
        "shoe": "supervisor (key)",
        "panel_test": "supervisor (key)",
        "panel": "supervisor (key)",
        "opening": "supervisor (key)",
        "open": "",
    }
    assert sum(1 for r in rows if r["event"] == "key") == len(PANEL_KEYS)
    reader = next(r for r in rows if r["event"] == "reader")
    assert "PEEK-2 serial SN1" in reader["text"]

    t.card("2C")  # the burn card
    assert t.table.answer(Bet(1, "ann", 1000)).accepted
    assert t.table.answer(Bet(2, "bob", 500)).accepted
    t.press(Button.DEAL)
    for text in ROUND[:5]:
        t.card(text)
    t.press(Button.STAND)
    t.press(Button.STAND)
    for text in ROUND[5:]:
        t.card(text)
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)
    house = -sum(r["amount_cents"] for r in t.rows("ledger"))
    assert house != 0
    assert t.table.app.day.house_cents == house

    t.journal.close()
    again = Journal.open(t.path, table_id="T1")
    back = JournaledTable.start(NZ, again, access=ACCESS)
    assert back.app.day == day.settled(house)
    assert back.app.day.deals()
    again.close()


def test_fills_and_credits_take_two_people_and_the_closing_reconciles_with_the_ledger(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path / "j.sqlite3")
    t.open_day()
    t.key(KeyPosition.SUPERVISOR)
    fill = ((2500, 20),)  # $500 brought to the table
    alone = t.day(DayAct.FILL, chips=fill)
    assert alone.text == (
        "enter a fill needs two people: the supervisor signed in and a second person's staff "
        "number and PIN"
    )
    wrong = t.day(DayAct.FILL, chips=fill, witness="2001", witness_pin="11111111")
    assert wrong.text == "wrong staff number or PIN for the second person"
    assert t.table.app.day.fills_cents == 0  # nothing changed on a refusal
    done = t.day(DayAct.FILL, chips=fill, witness="2001", witness_pin=BO_PIN)
    assert done.text == (
        "fill: $500 brought to the table by supervisor (key) and Bo Chen (dealer 2001)"
    )
    credit = t.day(DayAct.CREDIT, chips=((500, 40),), witness="2001", witness_pin=BO_PIN)
    assert credit.accepted  # $200 taken from the table
    assert t.day(DayAct.DROP, cents=30_000).accepted
    closing = ((100, 200), (500, 60), (2500, 60))  # $200 + $300 + $1,500 = $2,000
    closed = t.day(DayAct.CLOSING, chips=closing)
    # 2,000 - 1,700 + 200 - 500 + 300 = 300
    assert closed.win_cents == 30_000
    assert closed.house_cents == 0  # no round was dealt: the ledger won nothing
    assert closed.text == (
        "gaming day 1 closed by supervisor (key): closing chips $2,000; the table's win $300, "
        "the rounds' ledger $0"
    )
    day = t.table.app.day
    assert not day.is_open
    assert day.number == 1
    assert not day.deals()
    refused = t.table.answer(Bet(1, "ann", 1000))
    assert not refused.accepted  # closed: the next day must be opened
    last = t.rows("day")[-1]
    assert (last["event"], last["win_cents"], last["cents"]) == ("closed", 30_000, 200_000)


def test_a_table_that_does_not_require_the_day_deals_at_once(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    table = JournaledTable.start(NZ, journal, access=ACCESS)
    table.require_opening(False)  # (the default: no row for it)
    assert not [r for r in journal.iter_rows(kinds=["call"]) if "required" in r.payload]
    assert table.app.day.deals()
    assert table.handle(
        CardDrawn(device=SHOE, at=0.0, seq=1, card=Card.parse("2C"), draw_no=1, remaining=300,
                  quality=99)
    )  # fmt: skip
    assert table.app.controller.state is State.BETTING  # burnt, not held
    assert table.answer(Bet(1, "ann", 1000)).accepted
    journal.close()


def test_a_demo_table_opens_its_day_itself_and_the_display_cannot_ask_it(tmp_path: Path) -> None:
    t = Table(tmp_path / "j.sqlite3")
    asked = t.day(DayAct.DEMO)
    assert asked.text == "only a demo table opens itself: a supervisor takes the opening's steps"
    assert not t.table.app.day.deals()
    t.table.demo_opening()
    day = t.table.app.day
    assert day.is_open
    assert day.number == 1
    opened = t.rows("day")[-1]
    assert opened["event"] == "open"
    assert set(day.done.values()) == {
        "the demo (opened at its start; a live table is opened by a supervisor)"
    }
    with pytest.raises(BadMessage, match="a demo table opens itself"):
        parse_message('{"type": "day", "act": "demo"}')
    request, _ = parse_message('{"type": "day", "act": "opening", "chips": {"2500": 4, "500": 2}}')
    assert request == DayRequest(DayAct.OPENING, ((500, 2), (2500, 4)))


def test_the_day_is_not_closed_with_bets_on_the_table(tmp_path: Path) -> None:
    t = Table(tmp_path / "j.sqlite3")
    t.open_day()
    t.card("2C")  # the burn card
    assert t.table.answer(Bet(1, "ann", 1000)).accepted
    t.key(KeyPosition.SUPERVISOR)
    refused = t.day(DayAct.CLOSING, chips=CHIPS)
    assert refused.text == (
        "a round is on the table: settle it (or take the bets back) before the closing"
    )
    assert t.table.app.day.is_open
