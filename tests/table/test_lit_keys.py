"""The panel lights what the rules allow at this moment, and a dark key says why (issue 13.7).

Over many random rounds of every variant: a lit decision key, pressed (after a box key and a
wager key where the decision names them), is accepted for some box - the one the random dealer
presses at every step, on the table itself, and one more chosen at random, on a copy (a copy of
the table is too dear to try them all at every step); every dark key is refused with a reason a
dealer reads (no state, action or key identifier) and carries it as a code (issue 23), and
changes nothing.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.rules import load_variant
from controller.game.words import refusal_words
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.keypad import DECISION_KEYS
from drivers.tbl21.cards import Card
from drivers.tbl21.events import Button
from tests.round.jargon import jargon
from tests.round.walk import Walk

VARIANTS = ("nz-pontoon", "uk-pontoon", "pa-blackjack", "pontoon-blackjack")


def check_keys(walk: Walk) -> None:
    """Every dark key says why; every lit entry key is taken; one lit decision key (besides the
    one the walk presses next, which must be accepted too) is tried on a copy of the table."""
    app = walk.app
    lit = app.lit
    decisions = sorted(b for b in lit if b in DECISION_KEYS)
    if decisions:
        tried = walk.rng.choice(decisions)
        state = app.controller.state
        assert walk.accepted_somewhere(tried) is not None, f"{tried} lit in {state}, refused"
    for button in Button:
        if button in lit:
            if button not in DECISION_KEYS:  # an entry key, CAN or CAL: taken, never refused
                assert all(a.accepted for a in walk.press(button)), button
                # an entry key is kept for the decision; CAN clears, CAL is noted on its own
                kept = button.value in app.entry.keys
                assert kept or button in (Button.CANCEL, Button.CALL), button
                assert not (kept and button is Button.CALL)
                walk.press(Button.CANCEL)
            continue
        before = (app.controller.state, len(app.controller.round.ledger), app.lit)
        (answer,) = walk.press(button)
        assert not answer.accepted, button
        assert answer.reason, button
        # typed (issue 23): a code and fields, said by the words module alone
        assert answer.why is not None, (button, answer.reason)
        assert answer.reason == refusal_words(answer.why), button
        assert jargon(answer.reason) == [], (button, answer.reason)
        assert (app.controller.state, len(app.controller.round.ledger), app.lit) == before


@settings(max_examples=15, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_every_lit_key_is_accepted_for_some_box_and_every_dark_key_says_why(
    variant: str, seed: int
) -> None:
    walk = Walk(load_variant(variant), random.Random(seed))
    while walk.rounds < 3:
        if walk.app.controller.state is not State.HOLD:
            check_keys(walk)
        walk.step()


def test_nz_insurance_is_dark_against_a_jack_and_says_it_is_offered_only_against_an_ace() -> None:
    walk = Walk(load_variant("nz-pontoon"), random.Random(0))
    walk.deck = [Card.parse("2C")]
    walk.step()  # the burn card
    walk.app.answer(Bet(1, "ann", 1000))
    walk.press(Button.DEAL)
    for text in ("9H", "JD", "6S"):  # box 1 9-6, the dealer's jack: the surrender window
        walk.deck = [Card.parse(text)]
        walk.card()
    assert walk.app.controller.state is State.OFFERS
    assert Button.SURRENDER in walk.app.lit
    assert Button.INSURANCE not in walk.app.lit
    (answer,) = walk.press(Button.INSURANCE)
    assert answer.reason == "insurance is offered only against an ace"
    walk.press(Button.BOX1)
    (answer,) = walk.press(Button.INSURANCE)  # with the box named: the same rule
    assert answer.reason == "insurance is offered only against an ace"
