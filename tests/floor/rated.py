"""A rated player's round at a journaled pa-blackjack table (real SQLite), for the ratings'
tests: ann (player card 40001234) splits 8-8 against a 7 and stands on 13 against it."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.analysis.theo import Edges
from controller.game.rules import Variant, load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.access import KEY_ONLY
from controller.table.config import hash_secret
from controller.table.staff import Person, Staff
from drivers.tbl21.events import Button
from tests.table_hands import TableHands

PA = load_variant("pa-blackjack")
PIN = "27182818"
STAFF = Staff({"2001": Person("2001", "dealer", "Bo Chen", hash_secret(PIN))})
# the optimum's and the chart's edges, given here (the analysis tests work them out: a walk of
# every hand of six decks takes most of a minute)
EDGES = Edges(Fraction(33, 10000), Fraction(34, 10000))


def config_payload(rules: Variant) -> dict[str, Any]:
    """A start's ``config`` row as a table of journal format 15 writes it: the variant's id and
    the rules it deals by (the files' hashes, which the floor does not rate by, left out)."""
    return {"variant": rules.id, "rules": rules.model_dump(mode="json")}


class PaTable(TableHands):
    """A journaled pa-blackjack table (or ``rules``'), its start's ``config`` row first
    (``config``: that row's payload, :func:`config_payload` by default)."""

    def __init__(
        self, path: Path, tid: str, rules: Variant = PA, config: dict[str, Any] | None = None
    ) -> None:
        self.journal = Journal.open(path, table_id=tid)
        self.journal.append("config", config_payload(rules) if config is None else config)
        access = dataclasses.replace(KEY_ONLY, staff=STAFF)
        self.table = JournaledTable.start(rules, self.journal, access=access)
        self.draw_no = 0
        self.seq = 0


def seat_ann(t: PaTable, player_card: str) -> None:
    """The shoe's burn card, the dealer (2001) signs in, ann (``player_card``) sits at box 1."""
    t.card("2C")  # the burn card
    assert t.table.dealer_sign_in("2001", PIN).accepted
    assert t.table.sit_down(1, player_card, "ann").accepted


def split_eights(t: PaTable, player_card: str) -> None:
    """The dealer signs in, ann (``player_card``) sits at box 1 and bets $10, is dealt 8-8
    against a 7 (the hole card a 9), declines surrender and splits."""
    seat_ann(t, player_card)
    assert t.table.answer(Bet(1, "ann", 1000)).accepted
    t.press(Button.DEAL)
    for text in ("8H", "7C", "8D", "9C"):  # box 1, the dealer's card, box 1, the hole card
        t.card(text)
    t.press(Button.OK)  # no surrender
    t.press(Button.SPLIT)


def play_split_round(t: PaTable) -> None:
    """ann (card 40001234) at box 1 bets $10: 8-8 against a 7, splits; 8-3 hits to 21; 8-5
    stands on 13 against a 7 (a poor play); the dealer's 7-9 draws a ten and busts."""
    split_eights(t, "40001234")
    t.card("3S")
    t.press(Button.HIT)
    t.card("TS")  # 21: the hand is over
    t.card("5S")  # hand 2's second card
    t.press(Button.STAND)
    t.press(Button.OK)  # the hole card turned over
    t.card("TH")
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)
    assert t.table.walk_away(1).accepted
