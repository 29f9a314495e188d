"""Whole rounds through the round controller with every decision taken from the strategy:
the controller refuses none of them, and the options each variant offers do get used."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping

import pytest

from controller.game.rules import VARIANT_IDS, load_variant
from controller.play.autoplay import DirectHands, ScriptedBet, ScriptedRound, play_rounds
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.round.controller import RoundController, StateChanged
from controller.round.spec import Action
from drivers.tbl21.cards import Card, shoe_cards

ROUNDS = 150


def play(
    variant_id: str, seed: int, overrides: Mapping[str, object] | None = None
) -> Counter[Action]:
    rules = load_variant(variant_id, overrides)
    controller = RoundController(rules)
    rng = random.Random(seed)

    def shoes() -> Iterator[Card]:  # shuffled shoes, one after another
        while True:
            cards = shoe_cards(rules.shoe.deck, rules.shoe.decks)
            rng.shuffle(cards)
            yield from cards

    bets = [ScriptedBet(box, f"p{box}", 1000) for box in range(1, 6)]
    if rules.table.wagers_per_box > 1:
        bets.append(ScriptedBet(1, "q1", 500))  # a second player on box 1
    actions: Counter[Action] = Counter()

    def seen(out: list[object]) -> None:
        for item in out:
            if isinstance(item, StateChanged):
                actions[item.action] += 1

    records, rejected = play_rounds(
        controller,
        DirectHands(controller, shoes()),
        [ScriptedRound(bets, []) for _ in range(ROUNDS)],
        on_output=seen,
        auto=StrategyPlayer(strategy_for(rules)),
    )
    assert not rejected, rejected[:3]
    assert len(records) == ROUNDS
    return actions


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_no_strategy_decision_is_refused_by_the_round(variant_id: str) -> None:
    actions = play(variant_id, seed=11)
    assert actions[Action.HIT] > 0
    assert actions[Action.STAND] > 0
    assert actions[Action.DOUBLE] > 0
    assert actions[Action.INSURANCE] == 0


def test_pa_surrenders_and_splits_in_real_rounds() -> None:
    actions = play("pa-blackjack", seed=5)
    assert actions[Action.SURRENDER] > 0
    assert actions[Action.SPLIT] > 0


def test_nz_rescues_poor_doubles_in_real_rounds() -> None:
    actions = play("nz-pontoon", seed=5)
    assert actions[Action.RESCUE] > 0
    assert actions[Action.SURRENDER] == 0  # derived: never worth it with no hole card


def test_pa_with_the_dealer_hitting_soft_17_plays_its_own_chart_without_refusals() -> None:
    actions = play("pa-blackjack", seed=5, overrides={"dealer.hits_soft_17": True})
    assert actions[Action.SURRENDER] > 0
