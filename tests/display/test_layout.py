"""Glance, bets and the pit's page in a real Chromium (issue 22, items 8, 9 and 11).

- In a player's turn only the hand's decisions are lit; the other keys that may be pressed (the
  digits, the box and wager keys, CANCEL, CALL) are shown another way, and neither looks like
  a dark key. The prompt's cards are as tall as its lines, the boxes' cards as large as the box
  allows.
- A touchscreen places a bet with the chip buttons alone; a refused bet says why at the form.
- The pit's page after eight rounds of seven boxes, at 1024x600 and 1280x800: nothing cut, the
  last rounds as many as fit, the latest first.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.play.demo import DemoDealer, DemoOptions, demo_dealer
from controller.service.service import TableService

from .conftest import (
    SIZES,
    VIEW_TOKEN,
    VIEW_TOKEN_HASH,
    WAIT_S,
    Table,
    running_table,
    screenshot,
    table_config,
)
from .test_screen import CHECKS, LAYOUT, NZ, Dealer, wait_rendered

expect.set_options(timeout=WAIT_S * 1000)
CLIPPED = f"() => {CHECKS}.clipped()"
GLANCE = f"() => {CHECKS}.glance()"
HAND_DECISIONS = {"HIT", "STD", "DBL", "SPL"}
# what makes a key look lit, ready or dark (not colour alone: the outline and the raised bar too)
KEY_LOOK = """k => { const s = getComputedStyle(k);
  return [s.backgroundColor, s.borderTopStyle, s.borderTopColor, s.boxShadow].join(" | "); }"""


def test_in_a_players_turn_only_the_hands_decisions_are_lit_and_the_cards_fill_their_room(
    pages: list[Page],
) -> None:
    with running_table(table_config("nz-pontoon", boxes=[1, 2, 3, 4, 5, 6, 7]), NZ.cards) as t:
        for page in pages:
            page.goto(t.url)
        dealer = Dealer(t, NZ)
        for _ in dealer.play():
            # the round's own state, not the published one (that may still show a turn the
            # table has left while it publishes the next)
            if dealer.state() == "playing":
                break
        wait_rendered(t, pages)
        state = t.state()
        assert len(state["lit"]) > 20  # the panel lights every key that may be pressed
        for (width, height), page in zip(SIZES, pages, strict=True):
            layout = page.evaluate(LAYOUT)
            assert layout["problems"] == [], width
            lit, ready = set(layout["lit"]), set(layout["ready"])
            assert lit == set(state["wanted"])
            assert 1 <= len(lit) <= 4, lit
            assert lit <= HAND_DECISIONS
            assert {"D0_", "D9_", "B1_", "B3_", "W1_", "CAN", "CAL"} <= ready
            assert lit | ready == set(state["lit"])  # every key that may be pressed, pressable
            looks = {
                page.locator(f"#key-{key}").evaluate(KEY_LOOK) for key in ("HIT", "D5_", "SUR")
            }
            assert len(looks) == 3, looks  # lit, ready and dark: three looks
            glance = page.evaluate(GLANCE)
            for card in glance["prompt"]:  # "Box 1: 5H 6D 11 - HIT, ..."
                assert card["card"] >= card["line"], card
                assert card["rank"] >= 0.55 * card["size"], card
            assert len(glance["prompt"]) == 2
            for box in glance["boxes"]:
                assert not box["largerFits"], box
                # three boxes in play: each box's two cards take most of its width
                assert box["width"] * 1.42 >= 0.9 * box["most"] * 1.42, box
                assert box["width"] >= 0.4 * box["boxWidth"], box
            screenshot(page, f"glance-turn-{width}x{height}")


def test_a_touchscreen_places_a_bet_with_chips_and_a_refused_bet_says_why_at_the_form(
    browser: Any,
) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 600}, has_touch=True)
    context.set_default_timeout(WAIT_S * 1000)
    page = context.new_page()
    try:
        # limits $5 - $500 in $1 steps: chips $1, $5, $25, $100, $500 (not 50c, not $1,000)
        with running_table(table_config("nz-pontoon", boxes=[1, 2, 3]), "2C 9H 7C") as t:
            page.goto(t.url)
            t.draw()
            expect(page.locator("#bet-form")).to_be_visible()
            chips = page.locator("#bet-chips .bet-chip")
            expect(chips).to_have_count(5)
            assert [int(c) for c in chips.evaluate_all("cs => cs.map(c => c.dataset.cents)")] == [
                100,
                500,
                2500,
                10000,
                50000,
            ]
            amount = page.locator("#bet-amount")
            page.locator("#bet-on-2").tap()
            expect(page.locator("#bet-box")).to_have_value("2")
            page.locator("#bet-chip-2500").tap()
            page.locator("#bet-chip-500").tap()
            expect(amount).to_have_value("30")
            page.locator("#bet-clear").tap()
            expect(amount).to_have_value("")
            for chip in ("500", "500", "100"):
                page.locator(f"#bet-chip-{chip}").tap()
            expect(amount).to_have_value("11")
            page.locator("#bet-place").tap()
            expect(page.locator("#box-2-stake")).to_have_text("$11 ann")
            expect(amount).to_have_value("")  # placed: the next bet starts from nothing
            assert t.state()["boxes"][1]["wagers"][0]["cents"] == 1100

            # over the maximum: refused, and the reason is at the form, not under the keys
            page.locator("#bet-on-3").tap()
            for _ in range(2):
                page.locator("#bet-chip-50000").tap()
            expect(amount).to_have_value("1000")
            page.locator("#bet-place").tap()
            refusal = page.locator("#bet-refusal")
            expect(refusal).to_be_visible()
            # the table's reason (the limits and the amount), as its answer said it
            expect(refusal).to_have_text(re.compile(r"^Not placed: .*\$500.*\$1,000"))
            expect(page.locator("#entry")).to_have_text("")
            assert t.state()["boxes"][2]["wagers"] == []
            form = page.locator("#bet-form").bounding_box()
            said = refusal.bounding_box()
            assert form is not None
            assert said is not None
            assert form["y"] <= said["y"]
            assert said["y"] + said["height"] <= form["y"] + form["height"]
            assert said["height"] >= 14  # not small type
            layout = page.evaluate(LAYOUT)
            assert layout["problems"] == []
            screenshot(page, "bet-refused-1024x600")

            # no amount: said at the form too; a chip tapped clears it
            page.locator("#bet-clear").tap()
            page.locator("#bet-place").tap()
            expect(refusal).to_contain_text("Amount: dollars")
            page.locator("#bet-chip-500").tap()
            expect(refusal).to_be_hidden()
    finally:
        context.close()


def standing_still(t: Table) -> int:
    """Once the table has taken nothing for 0.2 s (an act under way when the demo's hands
    stopped has landed): the rounds it has completed."""
    app = t.service.app
    assert app is not None
    seen: tuple[int, ...] = ()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        now = (app.inputs_handled, app.cards_handled, t.service.rounds_completed)
        if now == seen:
            return t.service.rounds_completed
        seen = now
        time.sleep(0.2)
    pytest.fail("the table did not stand still")


def test_the_pit_page_after_eight_rounds_cuts_nothing_and_shows_the_last_rounds_that_fit(
    pages: list[Page],
) -> None:
    loaded = table_config(
        "pa-blackjack",
        boxes=[1, 2, 3, 4, 5, 6, 7],
        display={"view_token_hash": VIEW_TOKEN_HASH, "last_rounds": 20},
    )
    seated: list[DemoDealer] = []

    def demo(service: TableService) -> DemoDealer:
        dealer = demo_dealer(DemoOptions(pace_s=0.0, boxes=(1, 2, 3, 4, 5, 6, 7), seed=11))(service)
        assert isinstance(dealer, DemoDealer)
        seated.append(dealer)
        return dealer

    with running_table(loaded, actors=[demo]) as t:
        deadline = time.monotonic() + 60
        while t.service.rounds_completed < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert t.service.rounds_completed >= 8
        seated[0].stalled = "the test reads the pit's page"  # the demo's hands stop
        done = standing_still(t)
        state = t.wait_for(lambda s: s["rounds_completed"] == done, "the last round published")
        finished = [r["round"] for r in state["last_rounds"]]
        assert len(finished) == done
        for (width, height), page in zip(SIZES, pages, strict=True):
            page.goto(f"{t.url}view?token={VIEW_TOKEN}")
            expect(page.locator("#pit-table")).to_have_text("t-test")
            expect(page.locator("#shift-detail")).to_contain_text(
                f"{done} rounds since the table started"
            )
            assert page.evaluate(CLIPPED) == [], width
            shown = [
                int(r) for r in page.locator("#history-rows tr td:first-child").all_text_contents()
            ]
            assert shown == finished[: len(shown)], (shown, finished)  # the latest first
            assert 2 <= len(shown) < len(finished), shown
            # as many as fit: one more would not
            assert page.evaluate(
                """() => { const rows = document.getElementById("history-rows");
                  const extra = rows.lastElementChild.cloneNode(true);
                  rows.appendChild(extra);
                  const panel = document.getElementById("history");
                  const over = panel.scrollHeight > panel.clientHeight;
                  extra.remove();
                  return over; }"""
            )
            doc = "display-pit" if width == SIZES[0][0] else None
            screenshot(page, f"pit-rounds-{width}x{height}", doc)
