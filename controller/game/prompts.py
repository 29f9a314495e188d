"""What the controller tells the dealer: structured prompts.

A prompt has a code (closed set), the box/hand/player it concerns, an amount in cents and odds
where money moves, and a short text for the dealer. The hole card never appears in a prompt
before the reveal: prompts are built from the public view of the round only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from controller.game.rules import format_odds


class PromptCode(StrEnum):
    SHUFFLE = "SHUFFLE"  # shuffle / load a new shoe
    BURN = "BURN"  # burn a card from the new shoe
    PLACE_BETS = "PLACE_BETS"
    DEAL = "DEAL"  # deal a card to a box or to the dealer
    OFFER_INSURANCE = "OFFER_INSURANCE"
    OFFER_SURRENDER = "OFFER_SURRENDER"
    OFFER_RESCUE = "OFFER_RESCUE"
    PEEK = "PEEK"  # put the hole card in the reader
    PLAYER_TURN = "PLAYER_TURN"  # a hand is waiting for its decision
    REVEAL = "REVEAL"  # turn the hole card over
    DEALER_DRAWS = "DEALER_DRAWS"
    DEALER_STANDS = "DEALER_STANDS"
    DEALER_BUST = "DEALER_BUST"
    DEALER_NATURAL = "DEALER_NATURAL"
    PAY = "PAY"
    COLLECT = "COLLECT"
    PUSH = "PUSH"
    RETURN = "RETURN"  # hand a stake back without a result
    ROUND_OVER = "ROUND_OVER"
    HOLD = "HOLD"
    RESUMED = "RESUMED"
    SUPERVISOR = "SUPERVISOR"  # a supervisor decision is needed
    KEY_IN_CARD = "KEY_IN_CARD"  # the shoe could not read a card: the dealer keys it in
    LOCKUP = "LOCKUP"
    VOID = "VOID"
    JOURNAL_UNAVAILABLE = "JOURNAL_UNAVAILABLE"  # nothing can be recorded: nothing goes on


@dataclass(frozen=True, slots=True)
class Prompt:
    code: PromptCode
    text: str
    box: int | None = None
    hand: int | None = None
    player: str | None = None
    amount_cents: int | None = None
    odds: Fraction | None = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code.value}
        if self.box is not None:
            out["box"] = self.box
        if self.hand is not None:
            out["hand"] = self.hand
        if self.player is not None:
            out["player"] = self.player
        if self.amount_cents is not None:
            out["amount_cents"] = self.amount_cents
        if self.odds is not None:
            out["odds"] = format_odds(self.odds)
        out["text"] = self.text
        return out


def money(cents: int) -> str:
    """$1,234.50 style (whole dollars without decimals)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    whole = f"{sign}${cents // 100:,}"
    return whole if cents % 100 == 0 else f"{whole}.{cents % 100:02d}"


_RANK_WORDS = {
    "A": "an ace",
    "2": "a two",
    "3": "a three",
    "4": "a four",
    "5": "a five",
    "6": "a six",
    "7": "a seven",
    "8": "an eight",
    "9": "a nine",
    "T": "a ten",
    "J": "a jack",
    "Q": "a queen",
    "K": "a king",
}


def rank_words(ranks: Iterable[str]) -> str:
    """Up cards as a dealer says them: 'an ace', 'an ace, a king, a queen or a jack'."""
    said = [_RANK_WORDS.get(str(r), str(r)) for r in ranks]
    if len(set(said)) == len(_RANK_WORDS):
        return "any card"
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + " or " + said[-1]
