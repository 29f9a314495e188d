"""Spot checks of the shipped strategies against the charts their files cite."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from controller.game.rules import load_variant
from controller.play.strategy import load_strategy, strategy_for
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Rank, parse_cards
from tests.strategy.helpers import box_with


def play(
    variant_id: str,
    cards: str,
    up: str | None,
    *,
    window: bool = False,
    doubled: bool = False,
    hands_on_box: int = 1,
    overrides: Mapping[str, object] | None = None,
) -> Action:
    rules = load_variant(variant_id, overrides)
    box, hand = box_with(parse_cards(cards), hands_on_box=hands_on_box, doubled=doubled)
    dealer = Card.parse(up) if up else None
    strategy = strategy_for(rules)
    return strategy.decide_hand(rules, box, hand, dealer, surrender_window=window)


# pa-blackjack: 6 decks, S17, DAS, late surrender -------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "up", "window", "action"),
    [
        ("TS 6H", "TC", True, Action.SURRENDER),  # hard 16 vs T: Rh
        ("TS 6H", "TC", False, Action.HIT),  # ... hit once surrender has passed
        ("9S 7H", "9C", True, Action.SURRENDER),  # 16 vs 9: Rh
        ("9S 6H", "TC", True, Action.SURRENDER),  # 15 vs T: Rh
        ("9S 6H", "AC", True, Action.HIT),  # 15 vs A: surrender only where H17
        ("8S 8H", "AC", True, Action.SPLIT),  # 8-8 vs A: split (Rp only where H17)
        ("8S 8H", "TC", True, Action.SPLIT),  # 8-8 is not surrendered as a 16
        ("6S 5H", "AC", False, Action.HIT),  # 11 vs A: hit with S17
        ("6S 5H", "TC", False, Action.DOUBLE),
        ("6S 4H", "TC", False, Action.HIT),  # 10 vs T: hit
        ("5S 4H", "2C", False, Action.HIT),  # 9 vs 2: hit
        ("5S 4H", "3C", False, Action.DOUBLE),
        ("TS 2H", "3C", False, Action.HIT),  # 12 vs 3: hit
        ("TS 2H", "4C", False, Action.STAND),
        ("AS 7H", "2C", False, Action.STAND),  # soft 18 vs 2: stand with S17
        ("AS 7H", "3C", False, Action.DOUBLE),
        ("AS 7H", "9C", False, Action.HIT),
        ("AS 8H", "6C", False, Action.STAND),  # soft 19 vs 6: stand with S17
        ("9S 9H", "7C", False, Action.STAND),
        ("9S 9H", "8C", False, Action.SPLIT),
        ("4S 4H", "5C", False, Action.SPLIT),  # split 4s vs 5-6 with DAS
        ("TS TH", "6C", False, Action.STAND),
        ("AS AH", "AC", False, Action.SPLIT),
    ],
)
def test_pa_plays_the_s17_das_late_surrender_chart(
    cards: str, up: str, window: bool, action: Action
) -> None:
    assert play("pa-blackjack", cards, up, window=window) is action


@pytest.mark.parametrize(
    ("cards", "up", "action"),
    [
        ("6S 5H", "AC", Action.DOUBLE),  # 11 vs A: double when the dealer hits soft 17
        ("9S 6H", "AC", Action.SURRENDER),  # 15 vs A: Rh
        ("TS 7H", "AC", Action.SURRENDER),  # 17 vs A: Rs
        ("8S 8H", "AC", Action.SURRENDER),  # 8-8 vs A: Rp
        ("AS 7H", "2C", Action.DOUBLE),  # soft 18 vs 2: Ds
        ("AS 8H", "6C", Action.DOUBLE),  # soft 19 vs 6: Ds
        ("TS 6H", "TC", Action.SURRENDER),  # unchanged from S17
    ],
)
def test_pa_with_the_dealer_hitting_soft_17_plays_the_h17_chart(
    cards: str, up: str, action: Action
) -> None:
    h17 = {"dealer.hits_soft_17": True}
    assert play("pa-blackjack", cards, up, window=True, overrides=h17) is action


def test_pa_h17_falls_back_once_surrender_has_passed() -> None:
    h17 = {"dealer.hits_soft_17": True}
    assert play("pa-blackjack", "TS 7H", "AC", overrides=h17) is Action.STAND  # Rs
    assert play("pa-blackjack", "8S 8H", "AC", overrides=h17) is Action.SPLIT  # Rp


def test_pa_soft_18_of_three_cards_stands_where_the_chart_doubles_two() -> None:
    assert play("pa-blackjack", "AS 2H 5D", "4C") is Action.STAND  # Ds, no double on 3 cards


def test_pa_a_pair_on_a_full_box_is_played_as_its_total() -> None:
    assert play("pa-blackjack", "8S 8H", "TC", hands_on_box=4) is Action.HIT  # hard 16 vs T
    assert play("pa-blackjack", "5S 5H", "6C") is Action.DOUBLE  # 5-5 is a 10, never split


# uk-pontoon and pontoon-blackjack: Wizard of Odds' online Pontoon, columns by card count ------


@pytest.mark.parametrize("variant_id", ["uk-pontoon", "pontoon-blackjack"])
@pytest.mark.parametrize(
    ("cards", "doubled", "action"),
    [
        ("5S 4H", False, Action.HIT),  # two-card 9: hit
        ("3S 2H 4D", False, Action.DOUBLE),  # three-card 9: double
        ("6S 4H", False, Action.DOUBLE),  # two-card 10
        ("9S 5H", False, Action.HIT),  # 14: hit (stand only from 15)
        ("9S 6H", False, Action.STAND),  # two-card 15
        ("4S 5H 7D", False, Action.STAND),  # three-card 16
        ("2S 3H 4D 6C", False, Action.DOUBLE),  # four-card 15: double for the trick
        ("2S 3H 4D 8C", False, Action.HIT),  # four-card 17: hit for the five-card trick
        ("2S 3H 4D 9C", False, Action.STAND),  # four-card 18
        ("AS 8H", False, Action.STAND),  # two-card soft 19
        ("AS 3H 5D", False, Action.DOUBLE),  # three-card soft 19
        ("AS 3H 5D", True, Action.HIT),  # ... already doubled: hit, it cannot bust
        ("AS 2H 2D 2C", False, Action.DOUBLE),  # four-card soft 17
        ("AS AH", False, Action.SPLIT),
        ("8S 8H", False, Action.SPLIT),
        ("9S 9H", False, Action.STAND),
        ("7S 7H", False, Action.HIT),
        ("5S 5H", False, Action.DOUBLE),
    ],
)
def test_pontoon_plays_the_online_pontoon_chart(
    variant_id: str, cards: str, doubled: bool, action: Action
) -> None:
    assert play(variant_id, cards, None, doubled=doubled) is action


def test_pontoon_ignores_the_dealer_card_it_cannot_see() -> None:
    assert play("uk-pontoon", "TS 6H", "AC") is play("uk-pontoon", "TS 6H", None)


def test_pontoon_blackjack_stands_on_a_five_card_trick() -> None:
    assert play("pontoon-blackjack", "2S 2H 3D 3C 4S", None) is Action.STAND


# nz-pontoon: Spanish 21 family, derived for no hole card --------------------------------------


@pytest.mark.parametrize(
    ("cards", "up", "window", "action"),
    [
        ("KS 2H", "6C", False, Action.HIT),  # always hit hard 12 (Spanish deck)
        ("KS 3H", "6C", False, Action.STAND),  # 13 vs 6: stand
        ("KS 3H", "5C", False, Action.HIT),  # ... but hit vs 5
        ("6S 7H", "6C", False, Action.STAND),  # two-card 13 vs 6
        ("3S 4H 6D", "6C", False, Action.STAND),  # three-card 13 vs 6 still stands
        ("2S 3H 4D 4C", "6C", False, Action.HIT),  # four-card 13: hit for the 21 bonuses
        ("KS 6H", "AC", True, Action.HIT),  # 16 vs A: hit, not surrender (21 beats pontoon)
        ("KS 7H", "AC", False, Action.HIT),  # hard 17 vs A: hit
        ("KS 7H", "KC", False, Action.STAND),
        ("5S 4H", "6C", False, Action.DOUBLE),  # two-card 9 vs 6
        ("2S 3H 4D", "6C", False, Action.HIT),  # three-card 9: hit
        ("6S 5H", "AC", False, Action.DOUBLE),  # two-card 11 doubles against everything
        ("AS 7H", "5C", False, Action.STAND),  # no double, the ace would count 1
        ("2S 5H AD", "5C", False, Action.DOUBLE),  # 2-5-A: the ace came later, double
        ("AS 2H 5D", "5C", False, Action.STAND),  # A-2-5: the first ace would count 1: Ds->S
        ("8S 8H", "AC", True, Action.SPLIT),
        ("KS QH", "6C", False, Action.STAND),  # K-Q is a pair by value, never split
    ],
)
def test_nz_plays_its_derived_chart(cards: str, up: str, window: bool, action: Action) -> None:
    assert play("nz-pontoon", cards, up, window=window) is action


@pytest.mark.parametrize(
    ("cards", "up", "rescue"),
    [
        ("6S 4H 6D", "KC", True),  # 16 after the double vs K: rescue
        ("6S 4H 6D", "8C", True),
        ("6S 4H 6D", "7C", False),  # vs 7 the dealer busts often enough
        ("6S 4H 6D", "6C", False),
        ("6S 4H 7D", "AC", True),  # 17 vs A: rescue
        ("6S 4H 7D", "KC", False),
        ("6S 4H 8D", "AC", False),  # 18 keeps the double
        ("AS 2H 2D", "KC", True),  # A-2 doubled is a hard 5 (rule 12.2): rescue vs K
    ],
)
def test_nz_rescues_a_poor_double_against_a_strong_card(cards: str, up: str, rescue: bool) -> None:
    rules = load_variant("nz-pontoon")
    _, hand = box_with(parse_cards(cards), doubled=True)
    strategy = load_strategy("nz-pontoon")
    assert strategy.rescue_hand(rules, hand, "ann", Card.parse(up)) is rescue


def test_rescue_is_never_taken_where_the_variant_has_none() -> None:
    rules = load_variant("pa-blackjack")
    strategy = load_strategy("pa-blackjack")
    assert strategy.rescue(rules, parse_cards("6S 4H 6D"), Rank.KING) is False


def test_a_player_who_did_not_join_the_double_is_not_rescued() -> None:
    rules = load_variant("nz-pontoon")
    _, hand = box_with(parse_cards("6S 4H 6D"), doubled=True)
    assert load_strategy("nz-pontoon").rescue_hand(rules, hand, "bob", Card.parse("KC")) is False
