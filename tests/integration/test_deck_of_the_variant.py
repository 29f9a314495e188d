"""Issue 13 point 6: a table deals only from its variant's decks. The shoe says which decks it
holds in its identity reply; a 52-card shoe at a Spanish 48-card game locks the table up, and a
card the variant's shoe cannot hold (a ten) is an irregularity, never dealt or settled. Real
drivers and an emulated shoe over ``sim://`` and a real pty (one body, two backends)."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

import pytest

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.game.words import hold_words
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import TableApp
from drivers.table import TableDevices, open_table
from drivers.tbl21.cards import Card
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe

from .conftest import Backend

WAIT_S = 10.0


def pump(table: TableDevices, app: TableApp, done: Callable[[], bool], what: str) -> None:
    """Hand the drivers' events to the table until ``done``."""
    end = time.monotonic() + WAIT_S
    while not done():
        left = end - time.monotonic()
        if left <= 0:
            pytest.fail(f"not seen within {WAIT_S} s: {what}")
        try:
            app.handle(table.events.get(timeout=left))
        except queue.Empty:
            continue


def nz_table_with(backend: Backend, shoe: EmulatedShoe) -> tuple[TableApp, list[str]]:
    urls = [backend.serve(d) for d in (shoe, EmulatedPeekReader(), EmulatedPanel())]
    return TableApp(load_variant("nz-pontoon")), urls


def test_a_52_card_shoe_at_a_spanish_48_game_locks_the_table_up(backend: Backend) -> None:
    app, urls = nz_table_with(backend, EmulatedShoe(cards="2C TS 9H", deck_type="52"))
    with open_table(*urls) as table:
        pump(table, app, lambda: app.controller.state is State.HOLD, "the table holding")
    [hold] = app.controller.hold_reasons
    assert hold.kind is HoldKind.LOCKUP
    assert hold.detail.startswith(
        "WRONG_DECK: the shoe holds standard 52-card decks but nz-pontoon deals from Spanish "
        "48-card decks, no tens: load this game's cards in the shoe"
    )
    assert Action.BET not in app.controller.allowed_actions()  # nothing deals until cleared
    assert hold_words(hold)["what"] == [{"text": "the shoe holds another game's decks: no deal"}]


def test_a_48_card_shoe_at_a_spanish_48_game_deals(backend: Backend) -> None:
    shoe = EmulatedShoe(cards="2C 9H", deck_type="48")
    app, urls = nz_table_with(backend, shoe)
    with open_table(*urls) as table:
        for driver in table.drivers:
            driver.wait_identified(WAIT_S)
        shoe.draw()
        pump(table, app, lambda: app.controller.state is State.BETTING, "the burn card applied")
    assert app.controller.hold_reasons == []


class SilentShoe(EmulatedShoe):
    """A shoe whose identity does not say which decks it holds (the 5-field ``i`` reply)."""

    def _identity_extra(self) -> str:
        return ""


def test_a_ten_at_a_spanish_48_game_is_an_irregularity_never_dealt_or_settled(
    backend: Backend,
) -> None:
    # Issue 13: a 52-card shoe that does not say so, at the default nz-pontoon table: the ten
    # is held as an irregularity; it goes to no hand and no money moves.
    shoe = SilentShoe(cards="2C TS 9H", deck_type="52")
    app, urls = nz_table_with(backend, shoe)
    with open_table(*urls) as table:
        for driver in table.drivers:
            driver.wait_identified(WAIT_S)
        assert app.controller.hold_reasons == []  # nothing said, nothing refused yet
        shoe.draw()
        pump(table, app, lambda: app.controller.state is State.BETTING, "the burn card applied")
        app.answer(Bet(1, "ann", 1000))
        app.controller.perform(Action.DEAL)
        shoe.draw()
        pump(table, app, lambda: app.controller.state is State.HOLD, "the table holding")
    [hold] = app.controller.hold_reasons
    assert (hold.kind, hold.card) == (HoldKind.UNEXPECTED_CARD, Card.parse("TS"))
    assert "cannot be in this game's shoe (Spanish 48-card decks, no tens)" in hold.detail
    assert app.controller.round.boxes[1].hands[0].cards == []
    assert app.controller.round.ledger == []
