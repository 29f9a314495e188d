"""Small builders for settlement tests."""

from __future__ import annotations

from controller.game.settlement import Box, Hand, InsuranceBet, Stake, Wager
from drivers.tbl21.cards import Card, parse_cards


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def one_hand_box(
    text: str,
    *,
    box: int = 1,
    player: str = "ann",
    cents: int = 1000,
    double: int = 0,
    rescued: bool = False,
    surrendered: bool = False,
    insurance: int = 0,
) -> Box:
    hand = Hand(cards(text), (Stake(player, cents, double, rescued),), doubled=bool(double))
    bets = (InsuranceBet(player, insurance),) if insurance else ()
    return Box(box, (Wager(player, cents),), (hand,), surrendered, bets)
