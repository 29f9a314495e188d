"""The journal shows what the dealer was told: at each step of a round dealt on the screen, the
prompt bar reads exactly the ``shown`` words of the journal's last prompt row that has them
(issue 23: one voice, recorded as shown)."""

from __future__ import annotations

import time

from playwright.sync_api import Page

from controller.journal.store import Journal
from controller.table.config import LoadedTable

from .conftest import WAIT_S, running_table, table_config
from .test_browser import NZ_ROUND, bet, press, prompt


def journalled_bar(loaded: LoadedTable) -> str:
    """The prompt bar's words as the journal recorded them last."""
    with Journal.open(loaded.journal_path, readonly=True) as journal:
        rows = [r.payload for r in journal.iter_rows(kinds=["prompt"]) if "shown" in r.payload]
    assert rows, "no prompt row records what the bar showed"
    return str(rows[-1]["shown"])


def bar_is_journalled(page: Page, loaded: LoadedTable, then: str | None = None) -> str:
    """The bar, once the page and the journal agree (the page follows the table, which writes
    the journal first), and say ``then`` if given: fails if they never do."""
    deadline = time.monotonic() + WAIT_S
    while True:
        shown, journalled = prompt(page).get_attribute("data-text"), journalled_bar(loaded)
        agree = shown == journalled and then in (None, shown)
        if agree or time.monotonic() > deadline:
            assert (shown, then or shown) == (journalled, journalled)
            return journalled
        time.sleep(0.02)


def test_every_prompt_bar_of_a_round_is_the_journals_prompt_row(page: Page) -> None:
    loaded = table_config("nz-pontoon", boxes=[1, 2, 3])
    with running_table(loaded, NZ_ROUND) as table:
        page.goto(table.url)
        # the table's opening prompt, before any cause, is journalled too (from format 10)
        bar_is_journalled(page, loaded, "Burn 1 card from the new shoe")
        table.draw()
        bar_is_journalled(page, loaded, "Round 1: take the bets, then press DEAL")
        for box, player in ((1, "ann"), (2, "bob"), (3, "cat")):
            bet(page, box, player, "10")
        press(page, "DEA")
        dealt = ["Deal a card to box 1", "Deal a card to box 2", "Deal a card to box 3"]
        for then in (*dealt, "Deal the dealer's first card face up", *dealt):
            bar_is_journalled(page, loaded, then)
            table.draw()
        offers = "Offer insurance and surrender against AH, then press OK"
        bar_is_journalled(page, loaded, offers)
        press(page, "OK_")
        bar_is_journalled(page, loaded, "Box 2: 8C8D 16 - HIT, STAND, DOUBLE or SPLIT")
        press(page, "SPL")
        bar_is_journalled(page, loaded, "Deal a card to box 2, hand 1 (split)")
