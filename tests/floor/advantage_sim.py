"""Rated sessions played by the simulator's round controller (no PostgreSQL, no devices): each
round's true count before the deal, from the cards the shoe actually gave, and the bet a
player's betting makes of it; the box rounds :mod:`controller.floor.advantage` judges."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from controller.floor.advantage import BoxRound, ShoeCount
from controller.game.rules import load_variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.sim_hands import SimHands
from controller.play.simulate import ShoeStream
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.play.tally import Tally
from controller.round.controller import RoundController
from controller.round.spec import Action, State

UNIT_CENTS = 1_000
Betting = Callable[[Fraction, random.Random], int]  # true count -> bet in cents


def flat(true: Fraction, rng: random.Random) -> int:
    return UNIT_CENTS


def random_bets(true: Fraction, rng: random.Random) -> int:
    """1 to 8 units at random, whatever the count."""
    return UNIT_CENTS * rng.randint(1, 8)


def counter(true: Fraction, rng: random.Random) -> int:
    """A card counter's ramp: 1 unit below +1, then 2 more a true count, at most 8 units."""
    return UNIT_CENTS * max(1, min(8, 1 + 2 * int(true)))


class _CountingHands(SimHands):
    """The simulator's dealer, the cards also counted (the burn card removed unseen)."""

    def __init__(self, controller: RoundController, stream: ShoeStream, shoe: ShoeCount) -> None:
        super().__init__(controller, stream, Tally(), each_round=False)
        self.shoe = shoe

    def draw(self) -> None:
        burn = self.controller.state is State.BURN
        super().draw()
        card = self.stream.peek(-1)  # the card just drawn
        assert card is not None
        self.shoe.dealt(str(card), seen=not burn)

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        super().enter(action, data)
        if action is Action.SHUFFLE:
            self.shoe.shuffle()


def play_sessions(
    variant: str, betting: Betting, sessions: int, seed: int, rounds: tuple[int, int] = (30, 120)
) -> list[list[BoxRound]]:
    """``sessions`` rated sessions of one player at box 1 playing the variant's basic strategy,
    each of a random number of rounds in ``rounds``, one after the other on one table."""
    rules = load_variant(variant)
    controller = RoundController(rules, prompts=False)
    stream = ShoeStream(
        rules.shoe.deck,
        rules.shoe.decks,
        seed=seed,
        cut_after=rules.shoe.decks * rules.shoe.deck.size - rules.shoe.cut_card_reserve,
    )
    shoe = ShoeCount(rules.shoe.decks, rules.shoe.deck.size)
    hands = _CountingHands(controller, stream, shoe)
    player = StrategyPlayer(strategy_for(rules))
    rng = random.Random(seed)

    def drain() -> list[Any]:
        controller.outbox.clear()
        return []

    out: list[list[BoxRound]] = []
    number = 0
    for _ in range(sessions):
        played: list[BoxRound] = []
        for _ in range(rng.randint(*rounds)):
            number += 1
            if controller.state is State.SHUFFLE:  # (the count of a new shoe starts at 0)
                hands.enter(Action.SHUFFLE, {})
            while controller.state is State.BURN:
                hands.draw()
            count = shoe.now()
            cents = betting(count.true, rng)
            play_rounds(
                controller,
                hands,
                [ScriptedRound([ScriptedBet(1, "ann", cents)], [])],
                auto=player,
                drain=drain,
            )
            played.append(BoxRound("sim", number, 1, "ann", cents, count, session=f"s{len(out)}"))
        out.append(played)
    return out
