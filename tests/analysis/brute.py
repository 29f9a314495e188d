"""Brute force for tiny shoes: every order of the cards, each round played through the table's
own round controller (the simulator's headless wiring) by a strategy, the nets averaged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from controller.game.rules import Variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.sim_hands import SimHands
from controller.play.simulate import ShoeStream, Tally
from controller.play.strategy import Strategy, StrategyPlayer
from controller.round.controller import RoundController
from drivers.tbl21.cards import Card

_controllers: dict[int, RoundController] = {}


def play_one(
    rules: Variant, strategy: Strategy, order: Sequence[Card], wager: int
) -> tuple[int, int]:
    """The box's net (cents) of one round dealt from ``order``, and how many cards it drew."""
    controller = _controllers.get(id(rules))
    if controller is None:
        controller = _controllers[id(rules)] = RoundController(rules, prompts=False)
    stream = ShoeStream(rules.shoe.deck, rules.shoe.decks, cards=list(order))
    tally = Tally()
    hands = SimHands(controller, stream, tally, each_round=True)
    script = ScriptedRound([ScriptedBet(1, "p1", wager)], [])

    def drain() -> list[object]:
        controller.outbox.clear()
        return []

    _records, rejected = play_rounds(
        controller, hands, [script], auto=StrategyPlayer(strategy), drain=drain
    )
    assert not rejected, rejected
    assert tally.rounds == 1
    return tally.net_cents, stream.drawn


def brute_force_ev(rules: Variant, strategy: Strategy, cards: Sequence[Card], wager: int) -> float:
    """The exact expected net per wager of one round from a shuffled ``cards``: every order of
    the cards the round can tell apart (orders are branched only as far as the round draws),
    each weighted by its chance."""
    total = Fraction(0)
    plays = 0

    def walk(prefix: list[Card], left: Counter[Card], weight: Fraction) -> None:
        nonlocal total, plays
        rest = sorted(left.elements())
        net, used = play_one(rules, strategy, prefix + rest, wager)
        plays += 1
        if used <= len(prefix):
            total += weight * net
            return
        remaining = sum(left.values())
        for card in sorted(c for c, n in left.items() if n):
            share = Fraction(left[card], remaining)
            left[card] -= 1
            walk([*prefix, card], left, weight * share)
            left[card] += 1

    walk([], Counter(cards), Fraction(1))
    return float(total / wager)
