"""Re-pricing (controller/analysis/reprice.py): a rule that changes only what finished hands are
paid (or whether a doubled hand is rescued) gives, from the shipped game's reach, the same
house edge as walking the changed game again, and as the brute force of tiny shoes (every
order played through the round controller); a rule that changes the play is not re-priced."""

from __future__ import annotations

from typing import Any

import pytest

from controller.analysis.engine import Analysis
from controller.analysis.outcomes import Outcomes
from controller.analysis.parsheet import shipped_strategy
from controller.analysis.reprice import Reach
from controller.analysis.shoe import Shoe
from controller.game.rules import Variant, load_variant
from controller.play.strategy import Strategy, strategy_from_mapping
from drivers.tbl21.cards import parse_cards
from tests.analysis.brute import brute_force_ev
from tests.analysis.test_tiny_shoes import UP, up_card_strategy

WAGER = 1000
TINY = {
    "split.allowed": False,
    "shoe.burn_cards": 0,
    "shoe.decks": 1,
    "shoe.cut_card_reserve": 1,
}


def _reached(rules: Variant, shoe: Shoe, strategy: Strategy) -> tuple[Analysis, float, Reach]:
    base = Analysis(rules, shoe, WAGER, strategy)
    edge = base.house_edge()
    reach = Reach()
    Outcomes(base, reach=reach).run()
    return base, edge, reach


def _tiny_strategy(variant: str, rules: Variant) -> Strategy:
    cols = {"T", "A"} if rules.surrender.allowed else set()
    if rules.surrender.allowed and variant == "pa-blackjack":
        cols = set(UP)
    data: dict[str, Any] = up_card_strategy(variant, cols, rules.double.rescue)
    return strategy_from_mapping(data, "test strategy", rules)


# (variant, cards, rules, a payout-only change)
PAYOUT_CHANGES: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "nz-ties": (
        "nz-pontoon",
        "KS KH AS 7S 7S 7S 7H 4D",
        {},
        {"hands.ties": "dealer-wins"},
    ),
    "nz-natural-2:1": ("nz-pontoon", "KS KH AS 7S 7S 7S 7H 4D", {}, {"payouts.natural": "2:1"}),
    "nz-21-not-at-once": (
        "nz-pontoon",
        "KS KH AS 7S 7S 7S 7H 4D",
        {},
        {"payouts.twenty_one_paid_at_once": False},
    ),
    "nz-no-bonus": ("nz-pontoon", "KS KS KS AS 6D 7S 8S 4D", {}, {"payouts.bonus": []}),
    "nz-no-super-bonus": (
        "nz-pontoon",
        "KS KH AS 7S 7S 7S 7H 4D",
        {},
        {"super_bonus.enabled": False},
    ),
    "nz-dealer-natural-takes-all": (
        "nz-pontoon",
        "KS KH AS 7S 7S 7S 7H 4D",
        {},
        {"dealer_natural.against_doubles": "all", "dealer_natural.against_splits": "all"},
    ),
    # a rescued hand is reached all the same, and kept now
    "nz-no-rescue": ("nz-pontoon", "KS KH AS 7S 7S 7S 7H 4D", {}, {"double.rescue": False}),
    "pa-natural-6:5": ("pa-blackjack", "KS KS KS AH 9D 7C 6H 5S", {}, {"payouts.natural": "6:5"}),
    "pa-h17-ties": (
        "pa-blackjack",
        "KS KS KS AH AH 6H 5S 4D",
        {"dealer.hits_soft_17": True},
        {"hands.ties": "dealer-wins"},
    ),
}


@pytest.mark.parametrize("case", sorted(PAYOUT_CHANGES))
def test_a_payout_only_change_re_priced_equals_the_brute_force_of_the_changed_rules(
    case: str,
) -> None:
    variant, cards_text, extra, change = PAYOUT_CHANGES[case]
    cards = parse_cards(cards_text)
    rules = load_variant(variant, {**TINY, **extra})
    changed_rules = load_variant(variant, {**TINY, **extra, **change})
    strategy = _tiny_strategy(variant, rules)
    base, edge, reach = _reached(rules, Shoe.of_cards(cards), strategy)
    changed = Analysis(changed_rules, Shoe.of_cards(cards), WAGER, strategy)
    assert changed.plays_as(base)
    repriced = edge - reach.delta(base, changed)
    # independently: every order of the cards played through the round under the changed rules
    expected = -brute_force_ev(changed_rules, strategy, cards, WAGER)
    assert repriced == pytest.approx(expected, abs=1e-12)
    walked = Analysis(changed_rules, Shoe.of_cards(cards), WAGER, strategy).house_edge()
    assert repriced == pytest.approx(walked, abs=1e-12)
    # the change does change the edge in these shoes (else the test could not fail)
    assert abs(repriced - edge) > 1e-4


@pytest.mark.parametrize(
    ("change", "cards_text"),
    [
        ({"double.cards_after": "any"}, "KS KH AS 7S 7S 7S 7H 4D"),
        ({"dealer.hits_soft_17": False}, "KS KH AS 7S 7S 7S 7H 4D"),
        ({}, "KS KH AS 7S 7S 7S 7H 5D"),  # another shoe
    ],
)
def test_a_change_of_play_is_not_re_priced(change: dict[str, Any], cards_text: str) -> None:
    rules = load_variant("nz-pontoon", TINY)
    changed_rules = load_variant("nz-pontoon", {**TINY, **change})
    strategy = _tiny_strategy("nz-pontoon", rules)
    base, _edge, _reach = _reached(
        rules, Shoe.of_cards(parse_cards("KS KH AS 7S 7S 7S 7H 4D")), strategy
    )
    shoe = Shoe.of_cards(parse_cards(cards_text))
    changed = Analysis(changed_rules, shoe, WAGER, _tiny_strategy("nz-pontoon", changed_rules))
    assert not changed.plays_as(base)


_ONE_DECK: dict[str, tuple[Analysis, float, Reach]] = {}


def _one_deck(variant: str) -> tuple[Analysis, float, Reach]:
    got = _ONE_DECK.get(variant)
    if got is None:
        rules = load_variant(variant, {"shoe.decks": 1, "shoe.cut_card_reserve": 10})
        strategy, _ = shipped_strategy(rules)
        got = _ONE_DECK[variant] = _reached(rules, Shoe.of_variant(rules), strategy)
    return got


@pytest.mark.parametrize(
    ("variant", "change", "same_play"),
    [
        ("nz-pontoon", {"hands.ties": "dealer-wins"}, True),
        ("nz-pontoon", {"hands.natural_after_split": True}, True),
        # the NZ chart never surrenders, so without surrender every hand is played the same
        ("nz-pontoon", {"surrender.allowed": False}, True),
        ("pa-blackjack", {"payouts.natural": "6:5"}, True),
        # pa-blackjack's chart surrenders: without surrender it plays those hands on
        ("pa-blackjack", {"surrender.allowed": False}, False),
    ],
)
def test_one_deck_with_splits_re_priced_equals_the_walk(
    variant: str, change: dict[str, Any], same_play: bool
) -> None:
    """With splits and the shipped charts (one deck, so that the walk is quick): the re-priced
    edge is the changed game's walked edge, whether or not it moves."""
    base, edge, reach = _one_deck(variant)
    changed_rules = load_variant(variant, {"shoe.decks": 1, "shoe.cut_card_reserve": 10, **change})
    chart, _ = shipped_strategy(changed_rules, base.rules)
    changed = Analysis(changed_rules, Shoe.of_variant(changed_rules), WAGER, chart)
    walked = Analysis(changed_rules, Shoe.of_variant(changed_rules), WAGER, chart).house_edge()
    assert changed.plays_as(base) is same_play
    if same_play:
        assert edge - reach.delta(base, changed) == pytest.approx(walked, abs=1e-13)
    else:
        assert walked != pytest.approx(edge, abs=1e-6)


@pytest.mark.parametrize(
    ("change", "reused"),
    [
        ({"split.max_hands": 2}, "all"),  # every hand's value stays, only the splits change
        # split hands may not double now, but for split aces, which take one card anyway
        ({"double.after_split": False}, "unsplit"),
        ({"hands.ties": "dealer-wins"}, "none"),  # every family pays otherwise
    ],
)
def test_hand_values_taken_over_give_the_walk_of_the_changed_rules(
    change: dict[str, Any], reused: str
) -> None:
    """:meth:`Analysis.reuse` takes over the shipped game's hand values only where the changed
    rules leave them alone: the walk with them is the walk without, to the last bit."""
    base, _edge, _reach = _one_deck("nz-pontoon")
    changed_rules = load_variant(
        "nz-pontoon", {"shoe.decks": 1, "shoe.cut_card_reserve": 10, **change}
    )
    chart, _ = shipped_strategy(changed_rules, base.rules)
    changed = Analysis(changed_rules, Shoe.of_variant(changed_rules), WAGER, chart)
    taken = changed.reuse(base)
    unsplit = sum(1 for key in base._memo if not key[0].from_split or key[0].split_aces)
    expected = {"all": len(base._memo), "unsplit": unsplit, "none": 0}[reused]
    assert taken == expected
    walked = Analysis(changed_rules, Shoe.of_variant(changed_rules), WAGER, chart).house_edge()
    assert changed.house_edge() == walked
