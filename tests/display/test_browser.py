"""The dealer display in a real Chromium: rounds played through the on-screen buttons."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.table.app import InputResult
from controller.table.config import hash_secret
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
    expect(page.locator(f"#box-{box} .wager").first).to_have_text(f"{player} ${dollars}")


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


# burn, then box 1 A K (pontoon), box 2 8 8 (split), box 3 9 7, the dealer's ace; the split
# hands draw K and Q, the dealer's second card is a 9 (soft 20).
NZ_ROUND = "2C AS 8C 9H AH KD 8D 7S KC QH 9C 3S 4S 5S 6S"


def test_a_full_nz_round_with_a_pontoon_insurance_and_a_split_through_the_buttons(
    page: Page,
) -> None:
    with running_table(table_config("nz-pontoon"), NZ_ROUND, cut=10) as table:
        page.goto(table.url)
        expect(page.locator("#role")).to_have_text("dealer")
        expect(page.locator("#shuffle")).to_be_hidden()
        expect(prompt(page)).to_have_text("burn 1 card(s)")
        table.draw()
        expect(prompt(page)).to_have_text("round 1: place your bets")
        # the panel's lit keys: no DEAL (no more bets) before there is a bet
        assert enabled_decisions(page) == {"UND", "SHF"}

        bet(page, 1, "ann", "10")
        bet(page, 2, "bob", "10")
        bet(page, 3, "cat", "10")
        screenshot(page, "nz-1-bets")
        press(page, "DEA")
        expect(prompt(page)).to_have_text("deal to box 1")

        for card, where in [("AS", "#box-1"), ("8C", "#box-2"), ("9H", "#box-3")]:
            table.draw()
            expect(page.locator(f'{where} [data-card="{card}"]')).to_be_visible()
        table.draw()
        expect(page.locator('#dealer-cards [data-card="AH"]')).to_be_visible()
        for _ in range(3):
            table.draw()

        # The pontoon is paid at once; insurance and surrender are offered against the ace.
        expect(page.locator("#box-1-settle .pay").first).to_have_text("PAY $15")
        expect(page.locator("#box-1-hand-1 .total")).to_contain_text("natural")
        expect(prompt(page)).to_have_text("surrender offered against AH")
        assert {"INS", "SUR", "OK_"} <= enabled_decisions(page)
        assert not {"HIT", "STD", "SPL", "DEA"} & enabled_decisions(page)
        screenshot(page, "nz-2-offers")

        press(page, "B3_")
        expect(page.locator("#entry-text")).to_have_text("B3_")
        press(page, "INS")
        expect(page.locator("#box-3 .insurance")).to_have_text("insurance cat $5")
        press(page, "OK_")

        expect(prompt(page)).to_have_text("box 2 hand 1: 8C 8D (16) - hit, stand, double, split")
        expect(page.locator("#box-2")).to_have_class("box turn")
        assert {"HIT", "STD", "DBL", "SPL"} <= enabled_decisions(page)
        press(page, "SPL")
        expect(prompt(page)).to_have_text("split: deal to box 2 hand 1")
        assert not {"HIT", "STD", "SPL", "OK_"} & enabled_decisions(page)  # a card is due
        table.draw()
        expect(page.locator("#box-2-hand-1 .total")).to_have_text("18")
        expect(page.locator("#box-2-hand-2 [data-card]")).to_have_count(1)
        screenshot(page, "nz-3-split")
        press(page, "STD")
        expect(prompt(page)).to_have_text("deal to box 2 hand 2")
        table.draw()  # the tenth card: the cut card follows it
        expect(page.locator("#box-2-hand-2 .total")).to_have_text("18")
        expect(page.locator("#shuffle")).to_have_text("SHUFFLE DUE")
        press(page, "STD")
        expect(prompt(page)).to_contain_text("box 3 hand 1: 9H 7S (16)")
        press(page, "STD")
        expect(prompt(page)).to_have_text("deal the dealer's second card")
        table.draw()

        expect(prompt(page)).to_have_text("round 1 over (ann $15, cat -$15, bob -$20): OK")
        expect(page.locator("#dealer-total")).to_have_text("soft 20")
        expect(page.locator("#box-2-settle .collect")).to_have_text("COLLECT $20")
        expect(page.locator("#box-3-settle .collect")).to_have_text("COLLECT $15")
        expect(page.locator("#box-3-settle")).to_contain_text("collect $5 - cat")
        screenshot(page, "nz-4-settled")
        press(page, "OK_")

        expect(prompt(page)).to_have_text("shuffle: load a new shoe, then press SHF")
        expect(page.locator("#history-rows tr")).to_have_text(
            "1AH 9C (soft 20)ann $15, bob -$20, cat -$15"
        )
        assert table.service.rounds_completed == 1
        press(page, "SHF")  # the shoe loads a new shoe, then the table asks for the burn card
        expect(prompt(page)).to_have_text("burn 1 card(s)")
        expect(page.locator("#shuffle")).to_be_hidden()


# burn, box 1 T 8, the dealer's 9 up and the 8 of diamonds in the hole
PA_ROUND = "2C TC 9S 8H 8D 4S 5S 6S"
HOLE = "8D"


def test_the_hole_card_is_not_in_the_page_before_the_reveal(page: Page) -> None:
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        page.goto(table.url)
        expect(prompt(page)).to_have_text("burn 1 card(s)")
        table.draw()
        bet(page, 1, "ann", "10")
        press(page, "DEA")
        expect(prompt(page)).to_have_text("deal to box 1")
        for _ in range(4):
            table.draw()
        expect(prompt(page)).to_have_text("surrender: any box may surrender now")
        expect(page.locator('#dealer-cards [data-card="9S"]')).to_be_visible()
        expect(page.locator('#dealer-cards [data-card="face-down"]')).to_have_count(1)
        for step in ("surrender window", "play", "reveal prompt"):
            html = page.content()
            assert HOLE not in html, step
            assert "8\u2666" not in html, step
            assert HOLE not in table.api_state_text(), step
            if step == "surrender window":
                press(page, "OK_")
                expect(prompt(page)).to_contain_text("box 1 hand 1: TC 8H (18)")
                screenshot(page, "pa-1-hole-card-down")
            elif step == "play":
                press(page, "STD")
                expect(prompt(page)).to_have_text("turn the hole card over, then press OK")
        press(page, "OK_")
        expect(page.locator(f'#dealer-cards [data-card="{HOLE}"]')).to_be_visible()
        expect(page.locator('#dealer-cards [data-card="face-down"]')).to_have_count(0)
        expect(page.locator("#box-1-settle .pay")).to_have_text("PAY $10")
        screenshot(page, "pa-2-revealed")


def test_the_read_only_view_needs_its_token_and_cannot_act(page: Page) -> None:
    loaded = table_config("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    with running_table(loaded, NZ_ROUND) as table:
        for query in ("", "?token=wrong"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"{table.url}view{query}", timeout=WAIT_S)
            assert refused.value.code == 403
            refused.value.close()

        page.goto(f"{table.url}view?token={VIEW_TOKEN}")
        expect(page.locator("#role")).to_have_text("read-only view")
        table.draw()
        expect(prompt(page)).to_have_text("round 1: place your bets")
        assert "CAL" in table.state()["lit"]  # lit for the dealer...
        expect(page.locator("button.key:enabled")).to_have_count(0)  # ...never for the pit
        expect(page.locator("#bet-form")).to_be_hidden()
        for form in ("#pin-form", "#supervisor-decisions", "#key-card-form"):
            expect(page.locator(form)).to_be_hidden()  # no sign-in, decision or key-in here
        screenshot(page, "view-read-only")

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
                    }
                    if (msg.type === "error") { answers.push(msg); }
                    if (answers.length === 5) { ws.close(); done(); }
                  };
                });
                return answers;
            }""",
            VIEW_TOKEN,
        )
        assert [a["id"] for a in answers] == [1, 2, 3, 4, 5]
        assert all("read-only view: it cannot act" in a["error"] for a in answers)
        assert inputs(table) == before
        assert table.state()["boxes"][0]["wagers"] == []


# burn, box 1 9 7 (16) against the dealer's 5: no offers, box 1 plays
UNPLUG_ROUND = "2C 9H 5S 7C 4S 5D 6S"


def test_an_unplugged_device_shows_as_lost_and_the_buttons_disable(page: Page) -> None:
    with running_table(table_config("nz-pontoon"), UNPLUG_ROUND) as table:
        page.goto(table.url)
        expect(page.locator("#device-shoe")).to_have_text("shoe: connected")
        table.draw()
        bet(page, 1, "ann", "10")
        press(page, "DEA")
        expect(prompt(page)).to_have_text("deal to box 1")
        for _ in range(3):
            table.draw()
        expect(prompt(page)).to_contain_text("box 1 hand 1: 9H 7C (16)")
        assert {"HIT", "STD"} <= enabled_decisions(page)

        table.shoe.unplug()
        expect(page.locator("#device-shoe")).to_have_attribute("data-status", "lost")
        expect(page.locator("#device-shoe")).to_contain_text("shoe: LINK LOST")
        expect(page.locator("#hold")).to_contain_text("HOLD: shoe link lost")
        expect(page.locator("#decisions button:enabled")).to_have_text(["CANCEL", "CALL"])
        screenshot(page, "unplugged-shoe")

        table.shoe.replug()
        expect(page.locator("#device-shoe")).to_have_attribute("data-status", "connected")
        expect(page.locator("#hold")).to_be_hidden()
        expect(key(page, "HIT")).to_be_enabled()
        press(page, "STD")
        expect(prompt(page)).to_have_text("deal the dealer's second card")


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
        expect(prompt(page)).to_have_text("deal to box 1")
        for _ in range(3):
            table.draw()
        expect(prompt(page)).to_contain_text("box 1 hand 1: 9H 3D (12)")
        expect(page.locator("#key-card-send")).to_be_disabled()
        press(page, "HIT")
        expect(prompt(page)).to_contain_text("deal to box 1")
        table.shoe.inject(Misread(table.shoe.draw_no + 1))
        table.shoe.draw()  # the 8S leaves the shoe unread
        expect(page.locator("#hold")).to_contain_text("the shoe could not read a card")

        # the dealer keys it in...
        page.select_option("#key-card-rank", "8")
        page.select_option("#key-card-suit", "S")
        page.click("#key-card-send")
        expect(prompt(page)).to_have_text("supervisor: confirm the keyed card")
        expect(page.locator("#decide-confirm")).to_be_disabled()

        # ...and the supervisor, key at SUP, signs in and confirms it
        table.panel.turn_key("SUP")
        expect(page.locator("#access-status")).to_contain_text("enter the supervisor PIN")
        page.fill("#pin-input", "11112222")
        page.click("#pin-sign-in")
        expect(page.locator("#access-message")).to_contain_text("wrong supervisor PIN")
        expect(page.locator("#decide-confirm")).to_be_disabled()
        page.fill("#pin-input", SUPERVISOR_PIN)
        page.click("#pin-sign-in")
        expect(page.locator("#access-status")).to_contain_text("supervisor signed in")
        expect(page.locator("#pin-input")).to_have_value("")
        assert SUPERVISOR_PIN not in page.content()
        screenshot(page, "key-in-signed-in")
        page.click("#decide-confirm")
        expect(page.locator("#hold")).to_be_hidden()
        expect(page.locator('#box-1-hand-1 [data-card="8S"]')).to_be_visible()
        expect(page.locator("#box-1-hand-1 .total")).to_have_text("20")
        table.panel.turn_key("RUN")
        expect(page.locator("#access-status")).to_have_text("key at RUN")
        expect(page.locator("#access-message")).to_have_text(
            "supervisor signed out: the key turned to RUN"
        )
        overrides = table.service.journaled.journal.rows(kinds=["supervisor"])
        assert [(o.payload["action"], o.payload["by"]) for o in overrides] == [
            ("confirm_card", "supervisor (key and PIN)")
        ]
        screenshot(page, "key-in-confirmed")
