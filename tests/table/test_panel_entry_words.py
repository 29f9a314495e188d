"""What the panel answers when a decision's keys do not make one (issue 21, smaller): the
answer says what is actually wrong, in the panel's printed words, never "box is missing"."""

from __future__ import annotations

import random

from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import State
from drivers.tbl21.cards import Card
from drivers.tbl21.events import Button
from tests.round.jargon import jargon
from tests.round.walk import Walk

# PA: burn, box 1 T 8 and box 2 9 7 against the dealer's ace (hole 5D): the insurance window
DEAL = ("TC", "9H", "AS", "8H", "7D", "5D")


def _insurance_window(variant: str = "pa-blackjack") -> Walk:
    walk = Walk(load_variant(variant), random.Random(0))
    walk.deck = [Card.parse("2C")]
    walk.step()  # the burn card
    assert walk.app.answer(Bet(1, "ann", 1000)).accepted
    assert walk.app.answer(Bet(2, "bob", 1000)).accepted
    walk.press(Button.DEAL)
    for text in DEAL:
        walk.deck = [Card.parse(text)]
        walk.card()
    assert walk.app.controller.state is State.INSURANCE
    return walk


def _answers(walk: Walk, *keys: str) -> list[str]:
    return [a.reason for key in keys for a in walk.press(Button(key)) if not a.accepted]


def test_box_2_wager_3_insure_at_a_one_wager_table_says_the_wager_was_refused_and_insure_needs_a_box() -> (  # noqa: E501
    None
):
    walk = _insurance_window()
    before = (walk.app.controller.state, len(walk.app.controller.round.ledger))
    answers = _answers(walk, "B2_", "W3_", "INS")
    assert answers == [
        "a box takes at most 1 wager at this table",
        "insurance needs its box: press BOX 1 to BOX 7 first, then the decision (no box is in "
        "play now; the keys before were cleared when WAGER 3 was refused)",
    ]
    assert all(jargon(a) == [] for a in answers)
    assert "missing" not in " ".join(answers)
    assert (walk.app.controller.state, len(walk.app.controller.round.ledger)) == before
    # keyed again as the answer says: box 2 is insured
    walk.press(Button.BOX2)
    (insured,) = walk.press(Button.INSURANCE)
    assert insured.accepted, insured.reason


def test_insure_without_a_box_says_which_keys_to_press_first() -> None:
    walk = _insurance_window()
    assert _answers(walk, "INS") == [
        "insurance needs its box: press BOX 1 to BOX 7 first, then the decision (no box is in "
        "play now)"
    ]


def test_a_wager_position_the_box_does_not_have_says_how_many_wagers_it_has() -> None:
    walk = Walk(load_variant("nz-pontoon"), random.Random(0))
    assert walk.app.rules.table.wagers_per_box == 3
    walk.deck = [Card.parse("2C")]
    walk.step()
    assert walk.app.answer(Bet(1, "ann", 1000)).accepted
    walk.press(Button.DEAL)
    for text in ("9H", "7C", "3D"):  # box 1 9 3 against the dealer's 7: box 1 in play
        walk.deck = [Card.parse(text)]
        walk.card()
    assert walk.app.controller.state is State.PLAYING
    (answer,) = _answers(walk, "W2_", "DBL")
    assert answer == "box 1 has no WAGER 2: 1 wager on it"
    assert jargon(answer) == []
