"""The dealer's screen of a table stopped for a supervisor at start: one full banner in plain
words, every key dark, the supervisor's sign-in and choices (the real ``croupier run`` process,
its page in Chromium at the kiosk's 1024x600)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from controller.cli.run import EXIT_DISAGREES
from controller.journal.store import Journal
from tests.cli.test_run_halted import (
    _edit_last_ledger_row,
    _halted_run,
    _killed_while_dealing,
    _table_file,
)
from tests.cli.test_run_start import JOURNAL, _rows, journal, played
from tests.security.conftest import SUPERVISOR_PIN

from .conftest import WAIT_S, screenshot

__all__ = ["journal", "played"]  # the fixtures, used by name

IDENTIFIERS = re.compile(r"chain_broken|replay_mismatch|halted|ledger|[a-z]+_[a-z]+")


def test_the_dealer_screen_shows_the_stopped_table_as_one_banner_and_the_supervisor_stops_it(
    journal: Path, tmp_path: Path, browser: Any
) -> None:
    seq = _edit_last_ledger_row(journal)
    rows = _rows(journal)
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    context.set_default_timeout(WAIT_S * 1000)
    expect.set_options(timeout=WAIT_S * 1000)
    try:
        page = context.new_page()
        with _halted_run(tmp_path, _table_file(tmp_path)) as (proc, _, url):
            page.goto(url)
            banner = page.locator("#halted")
            expect(banner).to_be_visible()
            expect(page.locator("#halted-title")).to_have_text("Table stopped: call a supervisor")
            what = page.locator("#halted-what").inner_text()
            todo = page.locator("#halted-todo").inner_text()
            assert f"row {seq} of the journal" in what
            assert "call a supervisor" in todo.lower()
            for text in (what, todo):
                assert not IDENTIFIERS.search(text), text
            expect(page.locator("#halted-facts")).to_contain_text(str(seq))
            keys = page.locator("button.key")
            assert keys.count() > 10
            for index in range(keys.count()):
                expect(keys.nth(index)).to_be_disabled()
            box = banner.bounding_box()
            assert box is not None
            assert box["width"] >= 600  # the whole table area, the keys beside it
            assert box["height"] >= 590
            expect(page.locator("#halted-choices button")).to_have_count(0)
            screenshot(page, "halted-start")

            page.fill("#halted-pin-input", SUPERVISOR_PIN)
            page.click("#halted-sign-in")
            expect(page.locator("#halted-verify")).to_be_visible()
            page.click("#halted-recall")  # the last rounds, read from the journal (issue 25.2)
            expect(page.locator("#recall .recall-badge")).to_have_text("RECALL")
            expect(page.locator("#recall article").first).to_contain_text("RECALL - round")
            expect(page.locator("#recall .step-card [data-card]").first).to_be_visible()
            screenshot(page, "halted-recall")
            page.click("#recall-close")
            expect(page.locator("#recall")).to_have_count(0)
            page.click("#halted-verify")
            expect(page.locator("#halted-answer")).to_contain_text(f"broken at row {seq}")
            screenshot(page, "halted-verified")
            page.click("#halted-stop")
            assert proc.wait(WAIT_S) == EXIT_DISAGREES
    finally:
        context.close()
    assert _rows(journal) == rows


def test_the_supervisor_sees_what_a_void_returns_voids_the_round_and_the_screen_deals_on(
    tmp_path: Path, browser: Any
) -> None:
    config = _table_file(tmp_path)
    _killed_while_dealing(tmp_path, config)
    with Journal.open(tmp_path / JOURNAL, table_id="table-1", sealed=True) as journal:
        forged = journal.append("note", {"device": "shoe", "text": "from another version"}).seq
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    context.set_default_timeout(WAIT_S * 1000)
    expect.set_options(timeout=WAIT_S * 1000)
    try:
        page = context.new_page()
        with _halted_run(tmp_path, config) as (proc, _, url):
            page.goto(url)
            expect(page.locator("#halted")).to_be_visible()
            facts = page.locator("#halted-facts")
            expect(facts).to_contain_text("Void the round")
            expect(facts).to_contain_text(f"to {forged} (")
            void_text = facts.inner_text()
            assert " is void: return $" in void_text
            assert not IDENTIFIERS.search(void_text.replace(str(tmp_path), "")), void_text
            page.fill("#halted-pin-input", SUPERVISOR_PIN)
            page.click("#halted-sign-in")
            expect(page.locator("#halted-void")).to_be_visible()
            screenshot(page, "halted-void-offered")
            page.click("#halted-void")
            expect(page.locator("#halted")).to_be_hidden()
            prompt = page.locator("#prompt")
            expect(prompt).to_contain_text("void")
            screenshot(page, "halted-voided")
            proc.terminate()
            assert proc.wait(WAIT_S) == 0
    finally:
        context.close()
