"""Play rounds on a RoundController directly (no devices) for the round tests."""

from __future__ import annotations

from typing import Any

from controller.game.rules import load_variant
from controller.play.autoplay import (
    Decision,
    DirectHands,
    RefusedDecision,
    RoundRecord,
    ScriptedBet,
    ScriptedRound,
    play_rounds,
)
from controller.round.controller import RoundController
from controller.round.spec import Action
from drivers.tbl21.cards import parse_cards


def decide(action: str, **data: Any) -> Decision:
    return Decision(Action(action), data)


def bet(box: int, player: str, dollars: float) -> ScriptedBet:
    return ScriptedBet(box, player, round(dollars * 100))


def play(
    variant: str,
    shoe: str,
    *rounds: tuple[list[ScriptedBet], list[Decision]],
    overrides: dict[str, Any] | None = None,
) -> tuple[RoundController, list[RoundRecord], list[RefusedDecision]]:
    rules = load_variant(variant, overrides)
    controller = RoundController(rules)
    hands = DirectHands(controller, iter(parse_cards(shoe)))
    records, rejected = play_rounds(controller, hands, [ScriptedRound(b, d) for b, d in rounds])
    return controller, records, rejected


def net(record: RoundRecord) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in record.ledger:
        out[e.player] = out.get(e.player, 0) + e.amount_cents
    return out


def codes(record: RoundRecord) -> list[str]:
    return [p.code.value for p in record.prompts]
