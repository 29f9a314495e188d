"""What the controller tells the dealer: structured prompts.

A prompt has a code (closed set), the sentence it is (:class:`Say`), the box/hand/player it
concerns, an amount in cents and odds where money moves, and the cards and values its words are
made of; :mod:`controller.game.words` says it. The hole card never appears in a prompt
before the reveal: prompts are built from the public view of the round only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from controller.game.holds import HoldReason
from drivers.tbl21.cards import Card


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


class Say(StrEnum):
    """Which sentence of its code a prompt is: :func:`controller.game.words.line` says it from
    the prompt's fields."""

    LOAD_SHOE = "load_shoe"
    CUT_CARD = "cut_card"
    BURN = "burn"  # ``count``: the cards to burn
    TAKE_BETS = "take_bets"  # ``count``: the round
    DEAL_TO_BOX = "deal_to_box"  # the deal's next card goes to ``box``
    DEALER_CARD = "dealer_card"  # the deal's card for the dealer: ``count`` 1 or 2, ``face_down``
    DEALER_SECOND = "dealer_second"  # no hole card: the dealer's second card, after the boxes
    HIT = "hit"
    DOUBLED = "doubled"
    SPLIT = "split"
    NEXT_HAND = "next_hand"  # a hand's second card (after a split)
    TURN = "turn"  # ``cards``, ``total``, ``soft`` and the ``options`` of the hand in play
    INSURANCE_FIRST = "insurance_first"  # no hole card: against the dealer's first card
    INSURANCE_UP = "insurance_up"
    SURRENDER_AGAINST = "surrender_against"  # ``cards``: the dealer's first card
    SURRENDER_NOW = "surrender_now"
    PEEK = "peek"
    PEEK_UNREAD = "peek_unread"  # the reader could not read the card
    PEEK_EMPTY = "peek_empty"  # the reader has no card
    RESCUE = "rescue"
    TURN_OVER = "turn_over"
    SHOWS = "shows"  # ``cards``: the dealer's, turned over
    NATURAL_TURN_OVER = "natural_turn_over"
    PONTOON = "pontoon"
    NATURAL = "natural"
    DRAWS = "draws"  # ``cards``: the dealer's
    BUSTS = "busts"
    STANDS = "stands"
    ROUND_OVER = "round_over"  # ``count``: the round, ``net``: each player's result
    MONEY = "money"  # a ledger entry to pay, collect, push or return (``detail``: its reason)
    HOLD = "hold"  # a stop (``hold``: what stopped the table)
    OUT_OF_TURN = "out_of_turn"  # ``hold``: the card that came out when none was due
    KEPT_OUT = "kept_out"  # ``hold``: the card the round never takes, and why
    PEEK_MISMATCH = "peek_mismatch"  # ``hold``: the reader disagrees with the hole card
    DEVICE_BACK = "device_back"  # back from a hold: ``device`` reconnected (``state``: where)
    REDRAWN = "redrawn"
    ASSIGNED = "assigned"
    BURNED = "burned"
    KEYED_HOLE = "keyed_hole"  # the keyed-in card was the dealer's face-down one
    KEYED = "keyed"
    KEYED_WAITS = "keyed_waits"  # ``hold``: the keyed-in card waits for the supervisor
    VOID = "void"  # ``count``: the round
    RECOVERED = "recovered"  # the table was rebuilt from its journal: ``count``, ``state``
    JOURNAL = "journal"  # nothing can be recorded (``detail``: the journal's own words)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the dealer is told, as a code, the sentence it is and its typed fields: never
    words (:func:`controller.game.words.line` makes them)."""

    code: PromptCode
    say: Say
    box: int | None = None
    hand: int | None = None
    player: str | None = None
    amount_cents: int | None = None
    odds: Fraction | None = None
    count: int | None = None  # cards to burn, a round, the dealer's 1st or 2nd card, a box's hands
    cards: tuple[Card, ...] = ()
    total: int | None = None
    soft: bool = False
    face_down: bool = False
    options: tuple[str, ...] = ()  # what the hand in play may decide, the offers open (actions)
    device: str | None = None
    hold: HoldReason | None = None  # the hold a stop is about, as it was then
    state: str | None = None  # where the round goes on (a state's value)
    net: tuple[tuple[str, int], ...] = ()  # (player, cents) of a finished round
    detail: str = ""  # words made elsewhere: a ledger entry's reason, the journal's trouble


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
