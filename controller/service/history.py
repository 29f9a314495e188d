"""The last rounds the table finished, for the display's "last rounds" list."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from controller.game.hands import hand_value
from controller.game.prompts import PromptCode, money
from controller.game.settlement import net_by_player
from controller.journal.store import Row
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


# The prompts that say how the dealer's hand ended, and the words before the total.
_DEALER_ENDS = {
    PromptCode.DEALER_STANDS.value: "dealer stands on ",
    PromptCode.DEALER_BUST.value: "dealer busts with ",
}


def rebuild(rows: Iterable[Row], current_round: int, keep: int) -> tuple[list[RoundSummary], int]:
    """The last ``keep`` finished rounds and how many rounds were finished, from the journal's
    ``round_end`` and ``prompt`` rows (a restarted table shows what it showed before): every
    round before ``current_round`` with a ``round_end`` row. The dealer's cards are those the
    reveal prompt named (a game without a hole card names none: the list shows the total)."""
    ends: dict[int, dict[str, Any]] = {}
    dealer: dict[int, tuple[tuple[str, ...], str]] = {}
    void: set[int] = set()
    for row in rows:
        number = row.round_id
        if number is None or number >= current_round:
            continue
        payload = row.payload
        if row.kind == "round_end":
            ends[number] = payload
            continue
        code, text = str(payload.get("code")), str(payload.get("text", ""))
        if code == PromptCode.VOID.value:
            void.add(number)
        elif code == PromptCode.REVEAL.value and text.startswith("dealer shows "):
            shown, _, total = text.removeprefix("dealer shows ").partition(" (")
            dealer[number] = (tuple(shown.split()), total.rstrip(")"))
        elif code in _DEALER_ENDS and text.startswith(_DEALER_ENDS[code]):
            cards = dealer.get(number, ((), ""))[0]
            dealer[number] = (cards, text.removeprefix(_DEALER_ENDS[code]))
        elif code == PromptCode.DEALER_NATURAL.value:
            dealer[number] = (dealer.get(number, ((), ""))[0], text.removeprefix("dealer has "))
    summaries = [
        RoundSummary(
            number,
            *dealer.get(number, ((), "")),
            tuple((str(p), int(c)) for p, c in dict(end.get("net_by_player", {})).items()),
            number in void,
        )
        for number, end in sorted(ends.items())
    ]
    return summaries[-keep:] if keep > 0 else [], len(summaries)
