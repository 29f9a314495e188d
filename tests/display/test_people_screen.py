"""The dealer signs in and a rated player sits down on the dealer's screen (1024x600, real
Chromium): the people row, its answers, the status bar and the pit's page say who."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from controller.table.access import pin_policy
from controller.table.config import hash_secret
from controller.table.staff import Person, Staff
from tests.live_pins import LIVE_PEPPER

from .conftest import VIEW_TOKEN, VIEW_TOKEN_HASH, WAIT_S, running_table, screenshot, table_config
from .test_screen import LAYOUT

expect.set_options(timeout=WAIT_S * 1000)
BO_PIN = "27182818"
ANA_PIN = "61803398"
STAFF = Staff(
    {
        "2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN, pepper=LIVE_PEPPER)),
        "1001": Person("1001", "supervisor", "Ana Ruiz", hash_secret(ANA_PIN, pepper=LIVE_PEPPER)),
    },
    LIVE_PEPPER,
)


def test_a_dealer_signs_in_and_a_rated_player_sits_down_and_walks_away_on_the_screen(
    browser: Any,
) -> None:
    loaded = table_config("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    access = pin_policy(loaded.config, pepper=LIVE_PEPPER, staff=STAFF)
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    context.set_default_timeout(WAIT_S * 1000)
    page = context.new_page()
    try:
        with running_table(loaded, "2C 9H 7C JD KS", access=access) as table:
            table.draw()  # the burn card: bets are open
            page.goto(table.url)
            expect(page.locator("#status-dealer")).to_have_count(0)
            page.click("#people-open")
            expect(page.locator("#people-dealer")).to_have_text("No dealer signed in")
            page.fill("#dealer-staff", "2001")
            page.fill("#dealer-pin", "11111111")
            page.click("#dealer-sign-in")
            said = page.locator("#people-said")
            expect(said).to_have_text(
                "Not done: wrong staff number or dealer PIN: 4 more in a row lock dealer sign-in "
                "for 5 min"
            )
            expect(page.locator("#dealer-pin")).to_have_value("")  # never kept on the page
            page.fill("#dealer-pin", BO_PIN)
            page.click("#dealer-sign-in")
            expect(said).to_have_text("dealer Bo Chen (2001) signed in: the next rounds are theirs")
            expect(page.locator("#status-dealer")).to_have_text("Dealer Bo Chen (2001)")

            page.select_option("#seat-box", "2")
            page.fill("#seat-card", "40123")
            page.fill("#seat-player", "ann")
            page.click("#seat-sit")
            expect(said).to_have_text("player card 40123 (ann) sits at box 2: rated from now on")
            layout = page.evaluate(LAYOUT)
            screenshot(page, "people-1024x600")
            assert not layout["problems"], layout["problems"]
            expect(said).to_have_text("Rated: box 2 ann (card 40123)", timeout=8000)

            page.select_option("#bet-box", "2")
            page.fill("#bet-player", "ann")
            page.fill("#bet-amount", "10")
            page.click("#bet-place")
            expect(page.locator("#box-2-stake")).to_have_text("$10 ann")
            journal = table.service.journaled.journal
            people = [r.payload for r in journal.iter_rows(kinds=["people"])]
            session = people[-2]["session"]
            assert (people[-1]["event"], people[-1]["session"]) == ("bet", session)
            assert BO_PIN not in "".join(r.payload_json for r in journal.iter_rows())

            pit = context.new_page()
            pit.goto(f"{table.url}view?token={VIEW_TOKEN}")
            expect(pit.locator("#pit-dealer")).to_have_text("dealer Bo Chen (2001)")
            expect(pit.locator("#pit-rated")).to_have_text("rated: box 2 ann (card 40123)")

            page.click("#seat-leave")
            expect(said).to_have_text("player card 40123 (ann) left box 2: session over")

            table.panel.turn_key("SUP")  # the supervisor signs in as herself
            expect(page.locator("#access-status")).to_have_text(
                "Key at SUP: supervisor staff number and PIN"
            )
            page.fill("#pin-staff", "1001")
            page.fill("#pin-input", ANA_PIN)
            page.click("#pin-sign-in")
            expect(page.locator("#signed-in")).to_have_text("Ana Ruiz (1001) signed in")
            screenshot(page, "people-supervisor-1024x600")
    finally:
        context.close()
