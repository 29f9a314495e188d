"""The last rounds the table finished, for the display's "last rounds" list (a restarted table
summarizes the rounds its journal's replay finished: :attr:`PreparedTable.finished
<controller.journal.journaled.PreparedTable.finished>`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.game.hands import hand_value
from controller.game.prompts import money
from controller.game.settlement import net_by_player
from controller.round.model import RoundState


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """A finished round: the dealer's cards and each player's net."""

    number: int
    dealer: tuple[str, ...]
    dealer_total: str
    net: tuple[tuple[str, int], ...]
    void: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "dealer": list(self.dealer),
            "dealer_total": self.dealer_total,
            "net": [{"player": p, "cents": c, "text": money(c)} for p, c in self.net],
            "void": self.void,
        }


def summarize(state: RoundState) -> RoundSummary:
    """A finished round (every card is public by then)."""
    net = net_by_player(state.ledger, state.players())
    cards = state.dealer.cards
    return RoundSummary(
        state.number,
        tuple(str(c) for c in cards),
        hand_value(cards).describe() if cards else "",
        tuple(net.items()),
        state.voided,
    )
