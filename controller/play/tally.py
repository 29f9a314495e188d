"""What the simulator counts of a finished round, for both of its engines.

:class:`Tally` holds exact integer totals of a number of rounds. :meth:`Tally.count_round`
counts a round of the round controller (``--engine controller``); the kernel
(:mod:`controller.play.kernel`) counts its rounds from tables built with the same pieces:
:func:`ledger_counts` for a list of ledger entries, :func:`hand_counts` and
:func:`is_counted_natural` for a player hand, :func:`dealer_column`, :func:`dealer_needs_cards`
and :func:`dealer_category` for the dealer's hand. So "what is counted" is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.game.hands import (
    Tier,
    bonus_hands,
    dealer_must_draw,
    hand_value,
    is_natural,
    is_two_card_21,
    player_rank,
)
from controller.game.rule_enums import BonusHand
from controller.game.settlement import EntryKind, LedgerEntry
from controller.round.model import RoundState
from drivers.tbl21.cards import Card

if TYPE_CHECKING:
    from controller.game.rules import Variant

__all__ = [
    "BONUS_KINDS",
    "DEALER_CATEGORIES",
    "UP_CARDS",
    "LedgerCounts",
    "Tally",
    "dealer_category",
    "dealer_column",
    "dealer_needs_cards",
    "hand_counts",
    "is_counted_natural",
    "ledger_counts",
]

DEALER_CATEGORIES = ("bust", "17", "18", "19", "20", "21", "natural", "other")
UP_CARDS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
BONUS_KINDS = (EntryKind.SUPER_BONUS, EntryKind.TABLE_BONUS)


def _counter(keys: Sequence[str]) -> dict[str, int]:
    return dict.fromkeys(keys, 0)


@dataclass(frozen=True, slots=True)
class LedgerCounts:
    """What a list of ledger entries adds to the totals."""

    net_cents: int  # + the players won
    net_no_sb_cents: int  # without the Super Bonus and the table bonus
    super_bonuses: int
    rescues: int
    hand_losses_cents: int  # collected from hands (entries with a hand), as a positive amount


def ledger_counts(entries: Sequence[LedgerEntry]) -> LedgerCounts:
    net = net_no_sb = super_bonuses = rescues = losses = 0
    for entry in entries:
        amount = entry.amount_cents
        net += amount
        kind = entry.kind
        if kind in BONUS_KINDS:
            if kind is EntryKind.SUPER_BONUS:
                super_bonuses += 1
        else:
            net_no_sb += amount
        if kind is EntryKind.RESCUE:
            rescues += 1
        if entry.hand is not None and amount < 0:
            losses -= amount
    return LedgerCounts(net, net_no_sb, super_bonuses, rescues, losses)


def is_counted_natural(rules: Variant, cards: Sequence[Card], doubled: bool) -> bool:
    """A box's only hand is counted as a natural dealt (the box never split)."""
    return len(cards) == 2 and not doubled and is_natural(rules, cards, False)


def hand_counts(
    rules: Variant, cards: Sequence[Card], from_split: bool
) -> tuple[tuple[BonusHand, ...], bool]:
    """The bonus combinations a final hand makes and whether it is a five-card trick."""
    if len(cards) < 3:
        return (), False
    value = hand_value(cards)
    if value.total > 21:
        return (), False
    rows = tuple(bonus_hands(cards, value))
    trick = False
    if rules.hands.five_card_trick and len(cards) == 5:
        trick = player_rank(rules, cards, from_split).tier is Tier.FIVE_CARD_TRICK
    return rows, trick


def dealer_column(up: Card) -> str:
    """The column of the dealer's first card in the report (``UP_CARDS``)."""
    return "A" if up.is_ace else ("T" if up.points == 10 else str(up.points))


def dealer_needs_cards(rules: Variant, cards: Sequence[Card]) -> bool:
    """The dealer's hand is not finished: fewer than two cards, or the drawing rule draws."""
    return len(cards) < 2 or dealer_must_draw(rules, cards)


def dealer_category(natural: bool, cards: Sequence[Card]) -> str:
    """A finished dealer hand's row in the report; ``natural``: its first two cards make 21."""
    if natural:
        return "natural"
    value = hand_value(cards)
    if value.total > 21:
        return "bust"
    if value.total >= 17:
        return str(value.total)
    return "other"  # a five-card hand under 17 where the dealer stands on five cards


@dataclass
class Tally:
    """Exact integer totals of a number of rounds (chunks add up in any order)."""

    rounds: int = 0
    initial_hands: int = 0
    net_cents: int = 0  # player's side: + the players won
    net_sq: int = 0  # sum of squared per-round nets (cents^2)
    net_no_sb_cents: int = 0  # without the Super Bonus and the table bonus
    net_no_sb_sq: int = 0
    wagered_cents: int = 0  # initial wagers
    naturals: int = 0
    surrenders: int = 0
    insurances: int = 0
    rescues: int = 0
    super_bonuses: int = 0
    five_card_tricks: int = 0
    bonus: dict[str, int] = field(default_factory=lambda: _counter([b.value for b in BonusHand]))
    dealer: dict[str, dict[str, int]] = field(
        default_factory=lambda: {up: _counter(DEALER_CATEGORIES) for up in UP_CARDS}
    )
    dealer_completed: int = 0  # dealer hands completed from the shoe (the round had ended)
    dealer_unknown: int = 0  # ... where the recorded card order ended first
    cards_drawn: int = 0
    shoes: int = 0
    shoe_exhausted: bool = False

    def add(self, other: Tally) -> None:
        for name in (
            "rounds", "initial_hands", "net_cents", "net_sq", "net_no_sb_cents", "net_no_sb_sq",
            "wagered_cents", "naturals", "surrenders", "insurances", "rescues", "super_bonuses",
            "five_card_tricks", "dealer_completed", "dealer_unknown", "cards_drawn", "shoes",
        ):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, count in other.bonus.items():
            self.bonus[key] += count
        for up, row in other.dealer.items():
            for key, count in row.items():
                self.dealer[up][key] += count
        self.shoe_exhausted = self.shoe_exhausted or other.shoe_exhausted

    def count_round(
        self, rules: Variant, state: RoundState, peek: Callable[[int], Card | None]
    ) -> None:
        """Add a finished round. ``peek(i)``: the i-th card still in the shoe (for the dealer's
        hand where the round ended before the dealer drew: every box was already settled)."""
        self.rounds += 1
        counts = ledger_counts(state.ledger)
        net, net_no_sb = counts.net_cents, counts.net_no_sb_cents
        self.super_bonuses += counts.super_bonuses
        self.rescues += counts.rescues
        self.net_cents += net
        self.net_sq += net * net
        self.net_no_sb_cents += net_no_sb
        self.net_no_sb_sq += net_no_sb * net_no_sb
        for box in state.boxes.values():
            self.initial_hands += 1
            self.wagered_cents += sum(w.amount_cents for w in box.wagers)
            if box.surrendered:
                self.surrenders += 1
            if box.insurance:
                self.insurances += 1
            hands = box.hands
            first = hands[0]
            if len(hands) == 1 and is_counted_natural(rules, first.cards, first.doubles > 0):
                self.naturals += 1
            if box.surrendered:
                continue
            for hand in hands:
                rows, trick = hand_counts(rules, hand.cards, hand.from_split)
                for row in rows:
                    self.bonus[row.value] += 1
                self.five_card_tricks += trick
        self._count_dealer(rules, state, peek)

    def _count_dealer(
        self, rules: Variant, state: RoundState, peek: Callable[[int], Card | None]
    ) -> None:
        cards = list(state.dealer.cards)
        if not cards:
            return
        column = dealer_column(cards[0])
        natural = len(cards) >= 2 and is_two_card_21(cards[:2])
        if not natural and dealer_needs_cards(rules, cards):
            # The round was over before the dealer finished: complete the hand by the drawing
            # rule from the cards the dealer would have drawn next.
            self.dealer_completed += 1
            ahead = 0
            while dealer_needs_cards(rules, cards):
                card = peek(ahead)
                if card is None:  # a recording that ends here
                    self.dealer_unknown += 1
                    return
                cards.append(card)
                ahead += 1
            natural = len(cards) == 2 and is_two_card_21(cards)
        self.dealer[column][dealer_category(natural, cards)] += 1
