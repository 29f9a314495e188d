"""Recall (issue 25, point 2): the last rounds, card by card with every decision and payment,
read from the journal, on the dealer's screen for a signed-in supervisor during a hold (marked
RECALL all over), and on the pit's page."""

from __future__ import annotations

import sqlite3
from typing import Any

from playwright.sync_api import expect

from controller.round.inputs import Bet
from controller.service.service import Press
from controller.table.config import hash_secret
from drivers.tbl21.events import Button

from .conftest import (
    VIEW_TOKEN,
    VIEW_TOKEN_HASH,
    WAIT_S,
    Table,
    running_table,
    screenshot,
    table_config,
)

expect.set_options(timeout=WAIT_S * 1000)
PIN = "73915084"
# the burn card; box 1 a king, the dealer a seven, box 1 a nine (19, stands); the dealer a king
ROUND = "2C KH 7S 9D KC 4S 5S 6S"


def _press(table: Table, *keys: Button) -> None:
    for key in keys:
        assert table.service.submit(Press(key)).result(WAIT_S).accepted, key


def _played_round(table: Table) -> None:
    table.draw()  # the burn card
    table.wait_for(lambda s: s["state"] == "betting", "bets open")
    assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
    _press(table, Button.DEAL)
    for _ in range(3):
        table.draw()
    table.wait_for(lambda s: s["state"] == "playing", "box 1 to play")
    _press(table, Button.BOX1, Button.STAND)
    table.draw()  # the dealer's king: 17, stands
    table.wait_for(lambda s: s["state"] == "settling", "the round settled")
    _press(table, Button.OK)
    table.wait_for(lambda s: s["state"] == "betting", "the next round's bets")


def test_a_signed_in_supervisor_recalls_the_last_round_during_a_hold_and_the_pit_too(
    pages: list[Any],
) -> None:
    small = pages[0]  # 1024x600, the smallest kiosk
    loaded = table_config(
        "nz-pontoon",
        supervisor={"pin_hash": hash_secret(PIN)},
        display={"view_token_hash": VIEW_TOKEN_HASH, "recall_rounds": 3},
        integrity={"check_ms": 100},
    )
    with running_table(loaded, ROUND) as table:
        _played_round(table)
        small.goto(table.url)
        # a row changed behind the table's back holds it (issue 25, point 3)
        with sqlite3.connect(table.service.table.journal_path) as db:
            db.execute("DROP TRIGGER IF EXISTS journal_no_update")
            db.execute(
                "UPDATE journal SET payload = replace(payload, 'ann', 'eve') WHERE seq = (SELECT "
                "MIN(seq) FROM journal WHERE kind = 'call' AND payload LIKE '%ann%')"
            )
        db.close()
        table.wait_for(lambda s: s["state"] == "hold", "the integrity hold")
        expect(small.locator("#prompt")).to_contain_text("changed behind the table's back")
        screenshot(small, "integrity-hold-1024x600")
        # nobody signed in: no recall (and the server refuses it: see the unit test)
        expect(small.locator("#recall-open")).to_have_count(0)
        table.panel.turn_key("SUP")
        small.fill("#pin-input", PIN)
        small.click("#pin-sign-in")
        expect(small.locator("#signed-in")).to_contain_text("supervisor signed in")
        small.click("#recall-open")
        recall = small.locator("#recall")
        expect(recall.locator(".recall-badge")).to_have_text("RECALL")
        expect(recall.locator(".recall-mark")).to_have_text(
            "RECALL: recorded rounds from the journal, not the live round"
        )
        first = recall.locator('article[data-round="1"]')
        expect(first.locator("h3")).to_contain_text("RECALL - round 1 (nz-pontoon)")
        steps = first.locator("li")
        expect(steps.filter(has_text="Bet $10 on box 1 for")).to_have_count(1)
        # card by card: the burn card, then the four dealt
        expect(first.locator(".step-card [data-card]")).to_have_count(5)
        expect(steps.filter(has_text="deal to box 1:")).to_have_count(2)
        expect(steps.filter(has_text="Stand - box 1")).to_have_count(1)
        expect(first.locator(".step-money")).to_contain_text(
            "pay box 1 hand 1 (ann) $10 at 1:1: win"
        )
        expect(steps.filter(has_text="Round over: net to players +$10")).to_have_count(1)
        # it covers the live table, and says so, at the smallest size
        box = recall.bounding_box()
        assert box is not None
        assert box["width"] > 600
        assert box["height"] >= 590
        screenshot(small, "recall-during-hold-1024x600")
        small.click("#recall-close")
        expect(small.locator("#recall")).to_have_count(0)
        expect(small.locator("#prompt")).to_contain_text("changed behind the table's back")

        # the pit's page shows the same
        pit = pages[1]
        pit.goto(f"{table.url}view?token={VIEW_TOKEN}")
        pit.click("#recall-open")
        expect(pit.locator(".recall-badge")).to_have_text("RECALL")
        expect(pit.locator('#recall article[data-round="1"] .step-card [data-card]')).to_have_count(
            5
        )
        screenshot(pit, "recall-pit")
