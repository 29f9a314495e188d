"""Properties over random hands: whatever the hand and situation, the answer is legal."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.hands import hand_value
from controller.game.refusals import WhyNot
from controller.game.rules import VARIANT_IDS, CardsAfterDouble, load_variant
from controller.play.strategy import load_strategy
from controller.round.model import (
    end_of_hand,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_split,
    why_not_stand,
    why_not_surrender,
)
from controller.round.spec import Action
from drivers.tbl21.cards import Card, DeckType, Rank, Suit
from tests.strategy.helpers import box_with

RULES = {v: load_variant(v) for v in VARIANT_IDS}
STRATEGIES = {v: load_strategy(v) for v in VARIANT_IDS}
PLAYS = {Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER}


def card(deck: DeckType) -> st.SearchStrategy[Card]:
    ranks = [r for r in Rank if not (deck is DeckType.SPANISH_48 and r is Rank.TEN)]
    return st.builds(Card, st.sampled_from(ranks), st.sampled_from(list(Suit)))


@st.composite
def situations(draw: st.DrawFn) -> tuple[str, list[Card], Card, bool, bool, int]:
    variant_id = draw(st.sampled_from(VARIANT_IDS))
    deck = RULES[variant_id].shoe.deck
    cards = draw(st.lists(card(deck), min_size=2, max_size=7))
    up = draw(card(deck))
    window = draw(st.booleans())
    doubled = draw(st.booleans())
    hands_on_box = draw(st.integers(1, RULES[variant_id].split.max_hands))
    return variant_id, cards, up, window, doubled, hands_on_box


@settings(max_examples=1500, deadline=None)
@given(situations())
def test_the_decision_for_any_live_hand_is_allowed_by_the_round(
    case: tuple[str, list[Card], Card, bool, bool, int],
) -> None:
    variant_id, cards, up, window, doubled, hands_on_box = case
    rules = RULES[variant_id]
    if doubled and rules.double.cards_after is CardsAfterDouble.ONE:
        return  # the hand ended with its one card
    box, hand = box_with(cards, hands_on_box=hands_on_box, doubled=doubled)
    if end_of_hand(rules, hand) is not None:
        return  # bust, 21, five cards where they end the hand...: no decision
    dealer = up if rules.dealer.first_card_face_up else None
    action = STRATEGIES[variant_id].decide_hand(rules, box, hand, dealer, surrender_window=window)
    assert action in PLAYS
    reasons: dict[Action, Callable[[], WhyNot | str | None]] = {
        Action.HIT: lambda: why_not_hit(rules, hand),
        Action.STAND: lambda: why_not_stand(rules, hand),
        Action.DOUBLE: lambda: why_not_double(rules, box, hand, None, ["ann"]),
        Action.SPLIT: lambda: why_not_split(rules, box, hand),
        Action.SURRENDER: lambda: (
            (None if window and surrender_offered(rules, dealer) else "not offered")
            or why_not_surrender(rules, box)
        ),
    }
    reason = reasons[action]()
    assert reason is None, f"{variant_id} {cards} vs {dealer}: {action.value}: {reason}"
    if action is Action.STAND and rules.hands.stand_minimum:
        assert hand_value(cards).total >= rules.hands.stand_minimum or len(cards) >= 5


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(["uk-pontoon", "pontoon-blackjack"]), st.data())
def test_pontoon_never_stands_below_15_with_fewer_than_five_cards(
    variant_id: str, data: st.DataObject
) -> None:
    rules = RULES[variant_id]
    cards = data.draw(st.lists(card(rules.shoe.deck), min_size=2, max_size=4))
    if hand_value(cards).total >= 15:
        return
    for can_double in (False, True):
        for can_split in (False, True):
            action = STRATEGIES[variant_id].decide(
                rules, cards, None, can_double=can_double, can_split=can_split
            )
            assert action is not Action.STAND
