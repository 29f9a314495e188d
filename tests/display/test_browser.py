"""The dealer's screen and the pit's page in a real Chromium: rounds played by clicking."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.round.inputs import Bet
from controller.service.service import Press
from controller.table.app import InputResult
from controller.table.config import hash_secret
from drivers.tbl21.events import Button
from sim_hardware.faults import Misread

from .conftest import (
    VIEW_TOKEN,
    VIEW_TOKEN_HASH,
    WAIT_S,
    Table,
    running_table,
    screenshot,
    table_config,
)
from .test_screen import LAYOUT, axe_problems

expect.set_options(timeout=WAIT_S * 1000)
DECISION_KEYS = ("DEA", "HIT", "STD", "DBL", "SPL", "SUR", "INS", "RES", "OK_", "UND", "SHF")


def key(page: Page, name: str) -> Any:
    return page.locator(f"#key-{name}")


def press(page: Page, name: str) -> None:
    button = key(page, name)
    expect(button).to_be_enabled()
    button.click()


def bet(page: Page, box: int, player: str, dollars: str) -> None:
    page.select_option("#bet-box", str(box))
    page.fill("#bet-player", player)
    page.fill("#bet-amount", dollars)
    page.click("#bet-place")
    expect(page.locator(f"#box-{box}-stake")).to_have_text(f"${dollars} {player}")


def prompt(page: Page) -> Any:
    return page.locator("#prompt")


def inputs(table: Table) -> tuple[int, int, str]:
    """What a dealer's input would change: the inputs seen, and where the table is."""
    app = table.service.app
    assert app is not None
    results = sum(1 for o in app.outputs if isinstance(o, InputResult))
    return results, app.inputs_handled, app.controller.state.value


def enabled_decisions(page: Page) -> set[str]:
    return {k for k in DECISION_KEYS if key(page, k).is_enabled()}


def dealer_page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1024, "height": 600}, bypass_csp=True)
    context.set_default_timeout(WAIT_S * 1000)
    return context


# burn, then box 1 A K (pontoon), box 2 8 8 (split), box 3 9 7, the dealer's ace; the split
# hands draw K and Q, the dealer's second card is a 9 (soft 20). Box 5 is empty: a strip.
NZ_ROUND = "2C AS 8C 9H AH KD 8D 7S KC QH 9C 3S 4S 5S 6S"


def test_a_full_nz_round_dealt_by_clicking_the_dealers_screen(browser: Any) -> None:
    loaded = table_config("nz-pontoon", boxes=[1, 2, 3, 4, 5])
    context = dealer_page(browser)
    page = context.new_page()
    try:
        with running_table(loaded, NZ_ROUND, cut=10) as table:
            page.goto(table.url)
            expect(prompt(page)).to_have_attribute("data-text", "Burn 1 card from the new shoe")
            expect(page.locator("#box-5")).to_have_class("box strip")
            table.draw()
            expect(prompt(page)).to_have_attribute(
                "data-text", "Round 1: take the bets, then press DEAL"
            )
            assert enabled_decisions(page) == {"SHF"}  # no DEAL before a bet, nothing to undo

            page.click("#bet-on-2")  # the empty box's strip takes the bet
            expect(page.locator("#bet-box")).to_have_value("2")
            bet(page, 1, "ann", "10")
            bet(page, 2, "bob", "10")
            bet(page, 3, "cat", "10")
            expect(prompt(page)).to_have_attribute(
                "data-text", "Round 1: take the bets, then press DEAL"
            )
            expect(page.locator("#step-total")).to_contain_text("$30 staked")
            # a dark key pressed on the panel: why it did nothing shows beside CALL, in the
            # keys' grid where the dealer looks, not in small type under the keys
            table.panel.tap("HIT")
            entry = page.locator("#entry.refused")
            expect(entry).to_contain_text("Not done: ")
            call = page.locator("#key-CAL").bounding_box()
            said = entry.bounding_box()
            assert call is not None
            assert said is not None
            assert said["x"] >= call["x"] + call["width"]
            assert abs(said["y"] - call["y"]) < 2
            assert said["width"] > 2 * call["width"]  # room for the reason, not a key's width
            screenshot(page, "refused-beside-call")
            press(page, "DEA")
            expect(prompt(page)).to_have_attribute("data-text", "Deal a card to box 1")
            for card, where in [("AS", "#box-1"), ("8C", "#box-2"), ("9H", "#box-3")]:
                table.draw()
                expect(page.locator(f'{where} [data-card="{card}"]')).to_be_visible()
            table.draw()
            expect(page.locator('#dealer-cards [data-card="AH"]')).to_be_visible()
            for _ in range(3):
                table.draw()

            # the pontoon is paid at once, with its chips; the offers against the ace
            expect(page.locator("#box-1-step .amount.pay")).to_have_text("PAYat 3:2$15")
            expect(page.locator("#box-1-step .chip")).to_have_attribute("data-count", "3")
            expect(page.locator("#step-total")).to_contain_text("Pay $15")
            expect(prompt(page)).to_have_attribute(
                "data-text", "Offer insurance and surrender against AH, then press OK"
            )
            expect(prompt(page).locator('[data-card="AH"]')).to_be_visible()  # a picture
            assert {"INS", "SUR", "OK_"} <= enabled_decisions(page)
            assert not {"HIT", "STD", "SPL", "DEA"} & enabled_decisions(page)

            press(page, "B3_")
            expect(page.locator("#entry")).to_have_text("Keyed: box 3")
            press(page, "INS")
            expect(page.locator("#box-3-flags")).to_have_text("insured $5")
            press(page, "OK_")

            expect(prompt(page)).to_have_attribute(
                "data-text", "Box 2: 8C8D 16 - HIT, STAND, DOUBLE or SPLIT"
            )
            expect(page.locator("#box-2")).to_have_class("box turn")
            expect(page.locator("#box-1-step .earlier")).to_have_text("done earlier: Pay $15")
            press(page, "SPL")
            expect(prompt(page)).to_have_attribute(
                "data-text", "Deal a card to box 2, hand 1 (split)"
            )
            assert not {"HIT", "STD", "SPL", "OK_"} & enabled_decisions(page)  # a card is due
            table.draw()
            expect(page.locator("#box-2-hand-1 .total")).to_have_text("hand 1: 18")
            expect(page.locator("#box-2-stake")).to_have_text("$20 bob")
            expect(page.locator("#box-2-flags")).to_have_text("split")
            press(page, "STD")
            # the press reaches the table before the card does (as the dealer waits for the prompt)
            expect(prompt(page)).to_have_attribute(
                "data-text", "Deal a card to box 2, hand 2 (split)"
            )
            table.draw()  # the tenth card: the cut card follows it
            expect(page.locator("#box-2-hand-2 .total")).to_have_text("hand 2: 18")
            expect(page.locator("#status .marker.shuffle")).to_have_text("SHUFFLE DUE")
            press(page, "STD")
            press(page, "STD")
            expect(prompt(page)).to_have_attribute(
                "data-text", "Deal the dealer's second card face up"
            )
            table.draw()

            expect(prompt(page)).to_have_attribute(
                "data-text", "Round 1 is over: pay and collect as shown, then press OK"
            )
            expect(page.locator("#prompt-detail")).to_have_text("Dealer stands on soft 20")
            expect(page.locator("#dealer-total")).to_have_text("soft 20")
            expect(page.locator("#box-2-step .amount.collect .value")).to_have_text("$20")
            expect(page.locator("#box-3-step .amount.collect .value")).to_have_text("$15")
            expect(page.locator("#step-total")).to_contain_text("Collect $35")
            screenshot(page, "click-nz-settled")
            press(page, "OK_")

            expect(prompt(page)).to_have_attribute(
                "data-text", "Load a new shoe, then press SHUFFLE"
            )
            round_1 = page.locator('#history .round[data-round="1"]')
            expect(round_1).to_contain_text(
                "dealer soft 20 · ann won $15, bob lost $20, cat lost $15"
            )
            expect(round_1.locator("[data-card]")).to_have_count(2)  # the dealer's, as pictures
            assert table.service.rounds_completed == 1
            press(page, "SHF")
            expect(prompt(page)).to_have_attribute("data-text", "Burn 1 card from the new shoe")
            expect(page.locator("#status .marker.shuffle")).to_have_count(0)
    finally:
        context.close()


# burn, box 1 T 8, the dealer's 9 up and the 8 of diamonds in the hole
PA_ROUND = "2C TC 9S 8H 8D 4S 5S 6S"
HOLE = "8D"


def test_the_hole_card_is_not_in_the_page_before_the_reveal(page: Page) -> None:
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        page.goto(table.url)
        expect(prompt(page)).to_have_attribute("data-text", "Burn 1 card from the new shoe")
        table.draw()
        bet(page, 1, "ann", "10")
        press(page, "DEA")
        expect(prompt(page)).to_have_attribute("data-text", "Deal a card to box 1")
        for _ in range(4):
            table.draw()
        expect(prompt(page)).to_have_attribute(
            "data-text", "Offer surrender against 9S, then press OK"
        )
        expect(page.locator('#dealer-cards [data-card="9S"]')).to_be_visible()
        expect(page.locator('#dealer-cards [data-card="face-down"]')).to_have_count(1)
        for step in ("surrender window", "play", "reveal prompt"):
            html = page.content()
            assert HOLE not in html, step
            assert "8\u2666" not in html, step
            assert "8 of diamonds" not in html, step
            assert HOLE not in table.api_state_text(), step
            if step == "surrender window":
                press(page, "OK_")
                expect(prompt(page)).to_have_attribute(
                    "data-text", "Box 1: TC8H 18 - HIT, STAND or DOUBLE"
                )
            elif step == "play":
                press(page, "STD")
                expect(prompt(page)).to_have_attribute(
                    "data-text", "Turn the hole card over, then press OK"
                )
        press(page, "OK_")
        expect(page.locator(f'#dealer-cards [data-card="{HOLE}"]')).to_be_visible()
        expect(page.locator('#dealer-cards [data-card="face-down"]')).to_have_count(0)
        expect(page.locator("#box-1-step .amount.pay .value")).to_have_text("$10")


# burn; box 1 9 8 (17) against the dealer's 7, whose 9 and K bust
PIT_ROUND = "2C 9H 7C 8D 9S KS 3S 4S"


def test_the_pit_page_is_read_only_shows_the_shift_and_refuses_a_wrong_token(
    browser: Any,
) -> None:
    loaded = table_config(
        "nz-pontoon",
        display={"view_token_hash": VIEW_TOKEN_HASH},
        supervisor={"pin_hash": hash_secret(SUPERVISOR_PIN)},
    )
    context = dealer_page(browser)
    page = context.new_page()
    try:
        with running_table(loaded, PIT_ROUND) as table:
            for query, title in (("", "This view needs its token"), ("?token=no", "Wrong view")):
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(f"{table.url}view{query}", timeout=WAIT_S)
                assert refused.value.code == 403
                assert title in refused.value.read().decode()
                refused.value.close()
            page.goto(f"{table.url}view?token=no")
            expect(page.locator("h1")).to_have_text("Wrong view token")

            page.goto(f"{table.url}view?token={VIEW_TOKEN}")
            expect(page.locator("#pit-table")).to_have_text("t-test")
            table.draw()
            expect(page.locator("#pit-instruction")).to_have_text(
                "Round 1: take the bets, then press DEAL"
            )
            assert "CAL" in table.state()["lit"]  # lit for the dealer, nothing to press here
            controls = (
                "button:not(#recall-open), input, select, textarea, form, a[href], "
                "[contenteditable], [onclick]"
            )
            expect(page.locator(controls)).to_have_count(0)  # (RECALL only reads the journal)
            expect(page.locator("#shift")).to_have_text("house even")
            expect(page.locator("#pit-access")).to_have_text("nobody · key at RUN")

            before = inputs(table)
            answers = page.evaluate(
                """async (token) => {
                    const ws = new WebSocket(`ws://${location.host}/ws?token=${token}`);
                    const answers = [];
                    await new Promise((done) => {
                      ws.onmessage = (ev) => {
                        const msg = JSON.parse(ev.data);
                        if (msg.type === "hello") {
                          ws.send(JSON.stringify({type: "press", key: "CAL", id: 1}));
                          ws.send(JSON.stringify({type: "bet", box: 1, player: "ann",
                                                  amount_cents: 1000, id: 2}));
                          ws.send(JSON.stringify({type: "pin", pin: "73915084", id: 3}));
                          ws.send(JSON.stringify({type: "supervisor", decision: "void", id: 4}));
                          ws.send(JSON.stringify({type: "key_card", card: "8S", id: 5}));
                          ws.send(JSON.stringify({type: "ack", notice: 1, id: 6}));
                        }
                        if (msg.type === "error") { answers.push(msg); }
                        if (answers.length === 6) { ws.close(); done(); }
                      };
                    });
                    return answers;
                }""",
                VIEW_TOKEN,
            )
            assert [a["id"] for a in answers] == [1, 2, 3, 4, 5, 6]
            assert all("read-only view: it cannot act" in a["error"] for a in answers)
            assert inputs(table) == before
            assert table.state()["boxes"][0]["wagers"] == []

            # a round by the dealer: box 1 stands on 17, the dealer's 7 9 K busts
            dealer = context.new_page()
            dealer.goto(table.url)
            bet(dealer, 1, "ann", "10")
            press(dealer, "DEA")
            # the press reaches the table before the cards do (a loaded machine may be slow)
            table.wait_for(lambda s: s["state"] == "dealing", "the deal")
            for _ in range(3):
                table.draw()
            expect(page.locator("#boxes [data-card]")).to_have_count(2)
            press(dealer, "STD")
            # the press reaches the table before the card does (as the dealer waits for the prompt)
            expect(page.locator("#pit-instruction")).not_to_have_text(re.compile("Box 1"))
            table.draw()
            table.draw()
            expect(page.locator("#pit-instruction")).to_have_text(
                "Round 1 is over: pay and collect as shown, then press OK"
            )
            expect(page.locator("#step-total")).to_have_text("This step: Pay $10")
            press(dealer, "OK_")
            expect(page.locator("#history-rows tr td:first-child")).to_have_text(["1"])
            expect(page.locator("#history-rows [data-card]")).to_have_count(3)
            # whose total and whose result, in words; the devices by the dealer page's names
            expect(page.locator("#history-rows tr td:nth-child(2)")).to_contain_text(
                "dealer bust (26)"
            )
            expect(page.locator("#history-rows tr td:nth-child(3)")).to_have_text("ann won $10")
            expect(page.locator("#device-peek")).to_have_text("reader: connected")
            expect(page.locator("#shift")).to_have_text("house down $10")
            expect(page.locator("#shift")).to_have_attribute("data-cents", "-1000")
            expect(page.locator("#shift-detail")).to_contain_text("1 round since the table started")
            table.panel.turn_key("SUP")
            expect(dealer.locator("#access-status")).to_have_text("Key at SUP: supervisor PIN")
            dealer.fill("#pin-input", SUPERVISOR_PIN)
            dealer.click("#pin-sign-in")
            expect(page.locator("#pit-access")).to_have_text("supervisor · key at SUP")
            screenshot(page, "pit-view")
            assert axe_problems(page) == []
    finally:
        context.close()


def test_the_pit_page_says_when_the_view_is_off(page: Page) -> None:
    with running_table(table_config("nz-pontoon")) as table:
        page.goto(f"{table.url}view?token=anything")
        expect(page.locator("h1")).to_have_text("The pit view is off at this table")
        expect(page.locator("main p")).to_contain_text("croupier passwd --token")


# burn, box 1 9 7 (16) against the dealer's 5: no offers, box 1 plays
UNPLUG_ROUND = "2C 9H 5S 7C 4S 5D 6S"


def test_an_unplugged_device_holds_the_table_and_darkens_the_decisions(page: Page) -> None:
    with running_table(table_config("nz-pontoon"), UNPLUG_ROUND) as table:
        page.goto(table.url)
        expect(page.locator("#device-shoe")).to_have_text("shoe")
        table.draw()
        bet(page, 1, "ann", "10")
        press(page, "DEA")
        expect(prompt(page)).to_have_attribute("data-text", "Deal a card to box 1")
        for _ in range(3):
            table.draw()
        expect(prompt(page)).to_have_attribute("data-text", "Box 1: 9H7C 16 - HIT, STAND or DOUBLE")
        assert {"HIT", "STD"} <= enabled_decisions(page)

        table.shoe.unplug()
        expect(page.locator("#device-shoe")).to_have_attribute("data-status", "lost")
        expect(page.locator("#device-shoe")).to_have_text("shoe LINK LOST")
        expect(prompt(page)).to_have_attribute("data-text", "Stop: the shoe is not answering")
        expect(page.locator("#prompt-detail")).to_contain_text("Check the shoe's cable and power")
        expect(page.locator("#keys button:enabled")).to_have_text(["CANCEL", "CALL"])

        table.shoe.replug()
        expect(page.locator("#device-shoe")).to_have_attribute("data-status", "connected")
        expect(prompt(page)).to_have_attribute("data-text", "Box 1: 9H7C 16 - HIT, STAND or DOUBLE")
        press(page, "STD")
        expect(prompt(page)).to_have_attribute("data-text", "Deal the dealer's second card face up")


# burn, box 1 9H 3D against the dealer's 7C; box 1 hits and the shoe cannot read the 8S
KEY_IN_ROUND = "2C 9H 7C 3D 8S 4S 5S 6S"
SUPERVISOR_PIN = "73915084"


def test_an_unreadable_card_is_keyed_in_by_the_dealer_and_confirmed_by_the_signed_in_supervisor(
    page: Page,
) -> None:
    loaded = table_config("nz-pontoon", supervisor={"pin_hash": hash_secret(SUPERVISOR_PIN)})
    with running_table(loaded, KEY_IN_ROUND) as table:
        page.goto(table.url)
        table.draw()
        bet(page, 1, "ann", "10")
        press(page, "DEA")
        expect(prompt(page)).to_have_attribute("data-text", "Deal a card to box 1")
        for _ in range(3):
            table.draw()
        expect(prompt(page)).to_have_attribute("data-text", "Box 1: 9H3D 12 - HIT, STAND or DOUBLE")
        expect(page.locator("#key-card-form")).to_have_count(0)  # not needed: not shown
        press(page, "HIT")
        expect(prompt(page)).to_have_attribute("data-text", "Deal a card to box 1")
        table.shoe.inject(Misread(table.shoe.draw_no + 1))
        table.shoe.draw()  # the 8S leaves the shoe unread
        expect(prompt(page)).to_have_attribute("data-text", "Stop: the shoe could not read a card")

        # the dealer keys it in...
        page.select_option("#key-card-rank", "8")
        page.select_option("#key-card-suit", "S")
        page.click("#key-card-send")
        expect(prompt(page)).to_have_attribute(
            "data-text", "Stop: the keyed-in card 8S waits for the supervisor"
        )
        expect(page.locator("#decide-confirm")).to_have_count(0)

        # ...and the supervisor, key at SUP, signs in and confirms it
        table.panel.turn_key("SUP")
        expect(page.locator("#access-status")).to_have_text("Key at SUP: supervisor PIN")
        page.fill("#pin-input", "11112222")
        page.click("#pin-sign-in")
        expect(page.locator("#entry")).to_contain_text("wrong supervisor PIN")
        page.fill("#pin-input", SUPERVISOR_PIN)
        page.click("#pin-sign-in")
        expect(page.locator("#signed-in")).to_have_text("supervisor signed in:")
        expect(page.locator("#pin-form")).to_have_count(0)
        assert SUPERVISOR_PIN not in page.content()
        expect(page.locator("#decide-void")).to_be_visible()
        screenshot(page, "key-in-signed-in")
        page.click("#decide-confirm")
        expect(page.locator('#box-1-hand-1 [data-card="8S"]')).to_be_visible()
        expect(page.locator("#box-1-hand-1 .total")).to_have_text("20")
        table.panel.turn_key("RUN")
        expect(page.locator("#supervisor-decisions")).to_have_count(0)
        overrides = table.service.journaled.journal.rows(kinds=["supervisor"])
        assert [(o.payload["action"], o.payload["by"]) for o in overrides] == [
            ("confirm_card", "supervisor (key and PIN)")
        ]


def test_a_recovered_round_is_a_banner_until_the_dealer_acknowledges_it(browser: Any) -> None:
    context = dealer_page(browser)
    try:
        recovered_round_acknowledged(context.new_page())
    finally:
        context.close()


def recovered_round_acknowledged(page: Page) -> None:
    loaded = table_config("nz-pontoon")  # one journal for both starts
    with running_table(loaded, UNPLUG_ROUND) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
        assert table.service.submit(Press(Button.DEAL)).result(WAIT_S).accepted
        table.draw()
    with running_table(loaded, UNPLUG_ROUND) as table:  # the table restarts mid-round
        page.goto(table.url)
        banner = page.locator("#tools .banner.notice")
        expect(banner).to_have_count(1)
        expect(banner.locator(".what")).to_have_text(
            "The table restarted: round 1 was rebuilt from the table's record and goes on where it "
            "stopped (dealing)."
        )
        expect(banner.locator(".todo")).to_have_text(
            "Check the table against the screen, then acknowledge."
        )
        expect(prompt(page)).to_have_attribute("data-text", "Deal the dealer's first card face up")
        layout = page.evaluate(LAYOUT)
        assert not layout["problems"]
        screenshot(page, "notice-recovered")
        banner.locator("button").click()
        expect(banner).to_have_count(0)
        assert table.state()["notices"] == []
        rows = table.service.journaled.journal.rows(kinds=["notice"])
        assert [r.payload["event"] for r in rows][-1] == "acknowledged"
