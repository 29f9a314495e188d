"""Hand evaluation: totals, soft hands, naturals, five-card tricks, bonus hands and ranking.

Pure functions of cards and rules. An ace counts 11 where that does not bust the hand, else 1;
``fixed_aces`` aces count 1 whatever (NZ rule 12.2: on a doubled hand the aces of the initial
two cards count 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

from controller.game.rule_enums import BONUS_DESCRIPTIONS, BonusHand, Ties
from drivers.tbl21.cards import Card, Rank, Suit

if TYPE_CHECKING:
    from controller.game.rules import Variant


class HandEnd(StrEnum):
    """Why a hand is over (the round's ``end_of_hand``, or the dealer's stand), as a code:
    :func:`controller.game.words.hand_end_words` says it (the display's status, the analysis'
    "hand ends: ..." counts). Nothing compares its words."""

    BUST = "bust"
    NATURAL = "natural"
    TWENTY_ONE = "twenty_one"  # a 21 that ends the hand (hands.twenty_one_ends_hand)
    SPLIT_ACES = "split_aces"  # split aces take one card
    ONE_AFTER_DOUBLE = "one_after_double"  # double.cards_after = 'one'
    CARD_LIMIT = "card_limit"  # hands.max_cards reached
    STAND = "stand"  # the player stood
    RESCUED = "rescued"  # a doubled hand rescued (the analysis' count of how hands end)


@dataclass(frozen=True, slots=True)
class HandValue:
    total: int  # the best total: with one ace as 11 where that stays at 21 or below
    hard_total: int  # every ace as 1
    soft: bool  # an ace is counted as 11 in ``total``
    cards: int

    @property
    def bust(self) -> bool:
        return self.total > 21

    def describe(self) -> str:
        if self.bust:
            return f"bust ({self.total})"
        return f"soft {self.total}" if self.soft else str(self.total)


_RANK_POINTS = {rank: rank.points for rank in Rank}


def hand_value(cards: Sequence[Card], fixed_aces: int = 0) -> HandValue:
    """Value a hand. ``fixed_aces`` of its aces must count 1."""
    # One plain loop over a rank table: this runs about 24 times a simulated round.
    hard = 0
    free_aces = -fixed_aces
    for card in cards:
        rank = card.rank
        hard += _RANK_POINTS[rank]
        if rank is Rank.ACE:
            free_aces += 1
    if free_aces > 0 and hard + 10 <= 21:
        return HandValue(hard + 10, hard, True, len(cards))
    return HandValue(hard, hard, False, len(cards))


def initial_aces(cards: Sequence[Card]) -> int:
    """Aces among the first two cards (those NZ rule 12.2 fixes at 1 on a doubled hand)."""
    return sum(1 for c in cards[:2] if c.is_ace)


def is_two_card_21(cards: Sequence[Card]) -> bool:
    return len(cards) == 2 and hand_value(cards).total == 21


def is_natural(rules: Variant, cards: Sequence[Card], from_split: bool) -> bool:
    """A pontoon / blackjack: two cards totalling 21, on a split hand only where allowed."""
    if from_split and not rules.hands.natural_after_split:
        return False
    return is_two_card_21(cards)


def is_five_card_trick(cards: Sequence[Card], value: HandValue) -> bool:
    return len(cards) == 5 and not value.bust


_SUITED_ROW = {
    "678": (
        BonusHand.SIX_SEVEN_EIGHT_MIXED,
        BonusHand.SIX_SEVEN_EIGHT_SUITED,
        BonusHand.SIX_SEVEN_EIGHT_SPADES,
    ),
    "777": (
        BonusHand.SEVEN_SEVEN_SEVEN_MIXED,
        BonusHand.SEVEN_SEVEN_SEVEN_SUITED,
        BonusHand.SEVEN_SEVEN_SEVEN_SPADES,
    ),
}


def bonus_hands(cards: Sequence[Card], value: HandValue) -> list[BonusHand]:
    """Every bonus row the hand qualifies for (a 21 of 3 or more cards)."""
    if value.total != 21 or len(cards) < 3:
        return []
    rows: list[BonusHand] = []
    if len(cards) == 5:
        rows.append(BonusHand.FIVE_CARD_21)
    elif len(cards) == 6:
        rows.append(BonusHand.SIX_CARD_21)
    elif len(cards) >= 7:
        rows.append(BonusHand.SEVEN_PLUS_CARD_21)
    if len(cards) == 3:
        ranks = "".join(sorted(c.rank.value for c in cards))
        if ranks in _SUITED_ROW:
            mixed, suited, spades = _SUITED_ROW[ranks]
            suits = {c.suit for c in cards}
            if len(suits) > 1:
                rows.append(mixed)
            elif suits == {Suit.SPADES}:
                rows.append(spades)
            else:
                rows.append(suited)
    return rows


def is_suited_777(cards: Sequence[Card]) -> bool:
    """Three sevens of one suit (spades included): the Super Bonus hand."""
    return (
        len(cards) == 3
        and all(c.rank is Rank.SEVEN for c in cards)
        and len({c.suit for c in cards}) == 1
    )


class Tier(IntEnum):
    """How a hand ranks before totals are compared."""

    BUST = 0
    TOTAL = 1
    FIVE_CARD_TRICK = 2
    NATURAL = 3


class Result(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


@dataclass(frozen=True, slots=True)
class HandRank:
    tier: Tier
    total: int

    def describe(self) -> str:
        return {
            Tier.BUST: f"bust ({self.total})",
            Tier.TOTAL: str(self.total),
            Tier.FIVE_CARD_TRICK: f"five-card trick ({self.total})",
            Tier.NATURAL: "natural",
        }[self.tier]


def player_rank(
    rules: Variant, cards: Sequence[Card], from_split: bool, fixed_aces: int = 0
) -> HandRank:
    value = hand_value(cards, fixed_aces)
    if value.bust:
        return HandRank(Tier.BUST, value.total)
    if is_natural(rules, cards, from_split) and fixed_aces == 0:
        return HandRank(Tier.NATURAL, 21)
    if rules.hands.five_card_trick and is_five_card_trick(cards, value):
        return HandRank(Tier.FIVE_CARD_TRICK, value.total)
    return HandRank(Tier.TOTAL, value.total)


def dealer_rank(rules: Variant, cards: Sequence[Card]) -> HandRank:
    value = hand_value(cards)
    if value.bust:
        return HandRank(Tier.BUST, value.total)
    if is_two_card_21(cards):
        return HandRank(Tier.NATURAL, 21)
    if rules.hands.dealer_five_card_trick and is_five_card_trick(cards, value):
        return HandRank(Tier.FIVE_CARD_TRICK, value.total)
    return HandRank(Tier.TOTAL, value.total)


def compare(rules: Variant, player: HandRank, dealer: HandRank) -> Result:
    """Result of a finished player hand against the dealer's finished hand."""
    if player.tier is Tier.BUST:
        return Result.LOSE
    if dealer.tier is Tier.BUST:
        return Result.WIN
    mine = (player.tier, player.total if player.tier is Tier.TOTAL else 0)
    theirs = (dealer.tier, dealer.total if dealer.tier is Tier.TOTAL else 0)
    if mine > theirs:
        return Result.WIN
    if mine < theirs:
        return Result.LOSE
    return Result.PUSH if rules.hands.ties is Ties.PUSH else Result.LOSE


def dealer_must_draw(rules: Variant, cards: Sequence[Card]) -> bool:
    """The dealer's drawing rule: draw to 17, hitting soft 17 where the rules say so."""
    value = hand_value(cards)
    if value.bust:
        return False
    if rules.dealer.stands_on_five_cards and len(cards) >= 5:
        return False
    if value.total < 17:
        return True
    return value.total == 17 and value.soft and rules.dealer.hits_soft_17


@dataclass(frozen=True, slots=True)
class WinOdds:
    odds: Fraction
    reason: str


def win_odds(rules: Variant, cards: Sequence[Card], rank: HandRank, doubled_stake: bool) -> WinOdds:
    """The odds a winning stake on this hand is paid at, with the rule that gives them.

    ``doubled_stake``: this player's stake on the hand was doubled. Where the variant restricts
    doubled hands to even money (NZ 12.5), such a stake gets ``payouts.win`` whatever the hand.
    """
    if rank.tier is Tier.NATURAL:
        return WinOdds(rules.payouts.natural, "natural")
    if doubled_stake and not rules.double.bonus_odds_on_doubled:
        return WinOdds(rules.payouts.win, "doubled hand: even money only")
    best = WinOdds(rules.payouts.win, "win")
    if rank.tier is Tier.FIVE_CARD_TRICK and rules.payouts.five_card_trick is not None:
        best = WinOdds(rules.payouts.five_card_trick, "five-card trick")
    for row in bonus_hands(cards, hand_value(cards)):
        odds = rules.bonus_odds(row)
        if odds is not None and odds > best.odds:
            best = WinOdds(odds, BONUS_DESCRIPTIONS[row])
    return best
