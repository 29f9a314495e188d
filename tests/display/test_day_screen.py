"""The gaming day's opening on the dealer's screen (1024x600, real Chromium, the emulated
devices): a table whose file requires it holds the first card and takes no bet; a supervisor
signed in as herself confirms the layout against the rules shown, checks the reader and the
shoe, presses every panel key on the panel, counts the opening chips; the day opens, the held
card is burnt and the table deals. Each step is a journal row naming her."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from controller.table.access import pin_policy
from controller.table.config import hash_secret
from controller.table.day import PANEL_KEYS
from controller.table.staff import Person, Staff
from tests.live_pins import LIVE_PEPPER

from .conftest import VIEW_TOKEN, VIEW_TOKEN_HASH, WAIT_S, running_table, screenshot, table_config
from .test_screen import LAYOUT

expect.set_options(timeout=WAIT_S * 1000)
ANA_PIN, BO_PIN = "61803398", "27182818"
STAFF = Staff(
    {
        "1001": Person("1001", "supervisor", "Ana Ruiz", hash_secret(ANA_PIN, pepper=LIVE_PEPPER)),
        "2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN, pepper=LIVE_PEPPER)),
    },
    LIVE_PEPPER,
)
ANA = "Ana Ruiz (supervisor 1001, key and PIN)"


def test_a_supervisor_opens_the_gaming_day_on_the_screen_before_the_table_deals(
    browser: Any,
) -> None:
    loaded = table_config(
        "nz-pontoon", gaming_day={"required": True}, display={"view_token_hash": VIEW_TOKEN_HASH}
    )
    access = pin_policy(loaded.config, pepper=LIVE_PEPPER, staff=STAFF)
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    context.set_default_timeout(WAIT_S * 1000)
    page = context.new_page()
    pit = context.new_page()  # the pit's read-only page, beside the dealer's
    try:
        with running_table(loaded, "2C 9H 7C JD KS", access=access) as table:
            page.goto(table.url)
            pit.goto(f"{table.url}view?token={VIEW_TOKEN}")
            pit_day = pit.locator("#pit-day")
            expect(pit_day).to_have_text(
                "Gaming day 1 CLOSED: no deal until it is opened (5 steps to go)"
            )
            now = page.locator("#day-now")
            expect(now).to_have_text("Gaming day 1: to open (5 steps to go)")
            expect(page.locator("#day-felt")).to_contain_text("Dealer hits soft 17 (H17)")
            table.draw()  # a card before the day is open: held, not burnt
            expect(page.locator("#prompt-bar")).to_contain_text("the gaming day is not open")
            screenshot(page, "day-closed-1024x600")

            said = page.locator("#day-said")
            page.click("#day-layout")  # the key at RUN: nobody may
            expect(said).to_contain_text("Not done: only a supervisor signed in may")
            table.panel.turn_key("SUP")
            page.fill("#pin-staff", "1001")
            page.fill("#pin-input", ANA_PIN)
            page.click("#pin-sign-in")
            expect(page.locator("#signed-in")).to_have_text("Ana Ruiz (1001) signed in:")
            page.click("#day-layout")
            expect(said).to_have_text(f"layout confirmed against the rules by {ANA}")
            page.click("#day-reader")
            expect(said).to_contain_text("hole-card reader checked by")
            page.click("#day-shoe")
            expect(said).to_contain_text("shoe checked by")
            page.click("#day-panel")
            expect(page.locator("#day-felt")).to_contain_text(
                f"Panel test: press each key on the panel once. To go ({len(PANEL_KEYS)})"
            )
            for key in sorted(PANEL_KEYS)[:-1]:
                table.panel.tap(key.value)
            expect(page.locator("#day-felt")).to_contain_text("To go (1)")
            page.fill("#day-count-500", "100")
            page.fill("#day-count-2500", "40")
            layout = page.evaluate(LAYOUT)
            screenshot(page, "day-opening-1024x600", doc="display-opening")
            assert not layout["problems"], layout["problems"]
            table.panel.tap(sorted(PANEL_KEYS)[-1].value)
            expect(now).to_have_text("Gaming day 1: to open (1 step to go)")
            page.click("#day-opening")
            table.wait_for(lambda s: s["day"]["open"], "the day open")
            expect(page.locator("#day")).to_have_count(0)  # its row goes: the table deals
            # the bar says what is left to do now the day is open, no longer that it is shut
            bar = page.locator("#prompt-bar")
            expect(bar).to_contain_text("the gaming day is open now: burn the held card")
            expect(bar).not_to_contain_text("is not open")
            expect(pit_day).to_have_text(
                f"Gaming day 1 OPEN by {ANA}: opening $1,500, fills $0, credits $0"
            )

            page.click("#decide-burn")  # the card drawn before the opening goes
            page.click("#decide-clear_lockup")
            table.wait_for(lambda s: s["state"] == "burn", "the burn card due")
            table.draw()  # the burn card, now the day is open
            table.wait_for(lambda s: s["state"] == "betting", "bets open")
            rows = [r.payload for r in table.service.journaled.journal.iter_rows(kinds=["day"])]
            steps = {r["event"]: r["by"] for r in rows if r["event"] not in ("key", "refused")}
            assert set(steps.values()) == {ANA, ""}  # "" is the day's opening itself
            assert rows[-1]["text"] == "gaming day 1 open: the table deals (opening chips $1,500)"
            assert list(steps) == [
                "layout", "reader", "shoe", "panel_test", "panel", "opening", "open"
            ]  # fmt: skip

            # the open day: a fill with a second person, then the closing
            page.click("#day-open")
            page.fill("#day-count-2500", "20")
            page.fill("#day-count-500", "")
            page.click("#day-fill")  # alone: refused
            expect(said).to_contain_text("Not done: enter a fill needs two people")
            page.fill("#day-witness", "2001")
            page.fill("#day-witness-pin", BO_PIN)
            page.click("#day-fill")
            expect(said).to_have_text(
                f"fill: $500 brought to the table by {ANA} and Bo Chen (dealer 2001)"
            )
            expect(page.locator("#day-witness-pin")).to_have_value("")  # never kept
            expect(now).to_have_text("Gaming day 1 open: opening $1,500, fills $500, credits $0")
            expect(pit_day).to_have_text(
                f"Gaming day 1 OPEN by {ANA}: opening $1,500, fills $500, credits $0"
            )
            pit_layout = pit.evaluate(LAYOUT)
            screenshot(pit, "day-pit-1024x600")
            assert not pit_layout["problems"], pit_layout["problems"]
            layout = page.evaluate(LAYOUT)
            screenshot(page, "day-open-1024x600")
            assert not layout["problems"], layout["problems"]
            page.fill("#day-count-2500", "80")
            page.click("#day-closing")
            expect(said).to_have_text(
                f"gaming day 1 closed by {ANA}: closing chips $2,000; the table's win open "
                "(no drop keyed), the rounds' ledger $0"
            )
            expect(pit_day).to_have_text(
                "Gaming day 2 CLOSED: no deal until it is opened (5 steps to go)"
            )
            expect(pit.locator("#pit-day-last")).to_have_text(
                f"The day before: gaming day 1 closed by {ANA}: closing chips $2,000; the "
                "table's win open (no drop keyed), the rounds' ledger $0"
            )
    finally:
        context.close()
