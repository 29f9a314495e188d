"""The simulator's headless round controller (``prompts=False``) plays exactly the rounds a
prompting one plays: the same state changes, ledger entries and device commands, only no
prompt text."""

from __future__ import annotations

from typing import Any

import pytest

from controller.game.prompts import Prompt
from controller.game.rules import VARIANT_IDS, load_variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.sim_hands import SimHands
from controller.play.simulate import ShoeStream, Tally
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.round.controller import RoundController

ROUNDS = 150


def play(variant: str, *, prompts: bool) -> tuple[list[Any], int]:
    rules = load_variant(variant)
    controller = RoundController(rules, prompts=prompts)
    stream = ShoeStream(
        rules.shoe.deck,
        rules.shoe.decks,
        seed=11,
        cut_after=rules.shoe.decks * rules.shoe.deck.size - rules.shoe.cut_card_reserve,
    )
    hands = SimHands(controller, stream, Tally(), each_round=False)
    seen: list[Any] = []
    script = ScriptedRound([ScriptedBet(box, f"p{box}", 1000) for box in (1, 2, 3)], decisions=[])
    play_rounds(
        controller,
        hands,
        [script] * ROUNDS,
        auto=StrategyPlayer(strategy_for(rules)),
        on_output=seen.extend,
    )
    return seen, controller.round.number


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_a_headless_controller_plays_the_same_rounds_without_prompts(variant: str) -> None:
    with_prompts, rounds_a = play(variant, prompts=True)
    headless, rounds_b = play(variant, prompts=False)
    assert rounds_a == rounds_b == ROUNDS + 1
    assert any(isinstance(item, Prompt) for item in with_prompts)
    assert not any(isinstance(item, Prompt) for item in headless)
    assert [i for i in with_prompts if not isinstance(i, Prompt)] == headless
