"""The technician's view of what the table runs: signed in with the key at TEC, the dealer's
screen shows the software's identity and the rules files' hashes (Chromium at 1024x600)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from controller.table.config import hash_secret
from tests.security.conftest import TECHNICIAN_PIN

from .conftest import WAIT_S, running_table, screenshot, table_config
from .test_browser import dealer_page


def test_a_technician_signed_in_sees_the_software_and_rules_files_the_table_runs(
    browser: Any,
) -> None:
    loaded = table_config("nz-pontoon", technician={"pin_hash": hash_secret(TECHNICIAN_PIN)})
    context = dealer_page(browser)
    page = context.new_page()
    try:
        with running_table(loaded) as table:
            software = table.service.software
            assert software is not None
            page.goto(table.url)
            expect(page.locator("#identity")).to_have_count(0)  # not for the dealer
            table.panel.turn_key("TEC")
            table.wait_for(lambda s: s["key"] == "TEC", "the key at TEC")
            page.fill("#pin-input", TECHNICIAN_PIN)
            page.click("#pin-sign-in")
            identity = page.locator("#identity")
            expect(identity).to_be_visible(timeout=WAIT_S * 1000)
            expect(identity).to_contain_text(f"Software: croupier {software.version}")
            expect(identity).to_contain_text(software.sha256[:16])
            variant = table.service.config_row["variant_sha256"]
            expect(identity).to_contain_text(f"variant {variant[:16]}")
            screenshot(page, "technician-identity")
    finally:
        context.close()
