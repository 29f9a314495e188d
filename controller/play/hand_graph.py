"""Hands as integers, with everything the rules say about them in tables built from the rules.

The kernel (:mod:`controller.play.kernel`) never evaluates a rule itself. A hand is a *node*, an
integer; a card is a *code*, ``rank * 4 + suit`` over :data:`CARDS`; drawing a card is one list
lookup, ``step[node * 52 + code]``. Each node keeps a *representative*: the cards of the first
hand that reached it. Whatever the kernel needs to know of a node (does the hand end here and
why, what does basic strategy play, what does a showdown against this dealer hand pay, what does
the simulator count) is found once, the first time it is needed, by calling the round model,
the hand evaluation, the settlement and the strategy (``controller.round.model``,
``controller.game.hands``, ``controller.game.settlement``, ``controller.play.strategy``) on
the representative, and kept.

That is exact when two hands that reach one node are the same hand to every rule. The node
key (:func:`node_key`) keeps the cards exactly while a rule may still look at them one by one:

* the first two cards exactly, rank and suit, in order (a pair, the card a split takes away, a
  natural, the suits of a three-card bonus hand to come);
* the third card's rank and the suits of the first three (6-7-8 and 7-7-7 rows and the Super
  Bonus look at the ranks and suits of three-card hands), the three ranks sorted;
* from the fourth card on, only what the totals read: the hard total, the aces (counted up to
  three), the aces among the first two cards (NZ 12.2 counts those as 1 on a doubled hand)
  and the number of cards;
* and the hand's own flags: from a split, split aces, doubles.

Rules that read cards by rank only (the totals, end of hand, the ``why_not_*`` checks and the
strategy) are asked per *shape*, the node key without suits, so a decision is worked out once
for all the suits of a hand. Settlement is asked per *signature*: the values of every
hand-evaluation function that settlement and the tally read (``Hand.rank``, ``Hand.total``,
``bonus_hands``, ``is_natural``, ``is_suited_777``...), so a showdown is worked out once per
kind of hand against each kind of dealer hand. ``tests/simulate/test_hand_graph.py`` checks
these abstractions against the functions themselves on every hand of up to three cards and on
random longer ones; the differential test (``tests/simulate/test_kernel_differential.py``)
holds the whole kernel to the round controller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from controller.game.hands import (
    HandValue,
    bonus_hands,
    dealer_must_draw,
    dealer_rank,
    hand_value,
    is_natural,
    is_suited_777,
    is_two_card_21,
    player_rank,
)
from controller.game.rules import Variant
from controller.game.settlement import (
    Box,
    Hand,
    LedgerEntry,
    Stake,
    Wager,
    is_super_bonus_hand,
    settle_bust,
    settle_natural,
    settle_rescue,
    settle_showdown,
    settle_surrender,
    settle_twenty_one,
)
from controller.play.strategy import Strategy
from controller.play.tally import (
    LedgerCounts,
    dealer_category,
    dealer_column,
    dealer_needs_cards,
    hand_counts,
    is_counted_natural,
    ledger_counts,
)
from controller.round.model import (
    BoxState,
    HandState,
    StakeState,
    end_of_hand,
    why_not_surrender,
)
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Rank, Suit

__all__ = [
    "CARDS",
    "CODES",
    "DECISIONS",
    "END_BUST",
    "END_NONE",
    "END_ONE_AFTER_DOUBLE",
    "END_OTHER",
    "END_TWENTY_ONE",
    "NO_UP",
    "HandGraph",
    "HandTally",
    "node_key",
]

CARDS: Final = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
CODES: Final = {card: code for code, card in enumerate(CARDS)}
_RANKS: Final = tuple(Rank)
_SUITS: Final = tuple(Suit)
NCODES: Final = len(CARDS)
NO_UP: Final = len(_RANKS)  # "no dealer card seen": the strategy's column for face-down games

# What end_of_hand says, as the round controller reads it (controller.round.controller,
# _player_card and _find_turn): None, "bust", "21" or "natural", "one card after a double"
# (the rescue window where the variant has one), anything else.
END_NONE, END_BUST, END_TWENTY_ONE, END_ONE_AFTER_DOUBLE, END_OTHER = range(5)

# Decisions as small integers, in the order of the round's actions.
DECISIONS: Final = (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER)
_DECISION_CODE: Final = {action: code for code, action in enumerate(DECISIONS)}

PLAYER = "p"  # the representative hands' player (one wager per box, as the simulator bets)

Key = tuple[int, int, int, int, tuple[int, ...], int, bool, bool, int]


def node_key(cards: Sequence[Card], from_split: bool, split_aces: bool, doubles: int) -> Key:
    """What tells a hand apart from another for the rules (see the module's docstring)."""
    n = len(cards)
    hard = aces = first_aces = suits = 0
    for i, card in enumerate(cards):
        hard += card.points
        if card.is_ace:
            aces += 1
            if i < 2:
                first_aces += 1
    prefix: tuple[int, ...]
    if n <= 2:
        prefix = tuple(CODES[c] for c in cards)
    elif n == 3:
        prefix = tuple(sorted(_RANKS.index(c.rank) for c in cards))
        for card in cards:
            suits |= 1 << _SUITS.index(card.suit)
    else:
        prefix = ()
    return (n, hard, min(aces, 3), first_aces, prefix, suits, from_split, split_aces, doubles)


def shape_of(key: Key) -> Key:
    """The key without suits: what the rules that read ranks only see."""
    n, hard, aces, first_aces, prefix, _, from_split, split_aces, doubles = key
    if n <= 2:
        prefix = tuple(code // len(_SUITS) for code in prefix)
    return (n, hard, aces, first_aces, prefix, 0, from_split, split_aces, doubles)


@dataclass(frozen=True, slots=True)
class HandTally:
    """What the simulator counts of a final player hand (see controller.play.tally)."""

    natural: bool  # counted as a natural dealt where it is the box's only hand
    bonus: tuple[str, ...]  # bonus combinations made
    five_card_trick: bool


_END_CODES: Final[dict[str | None, int]] = {
    None: END_NONE,
    "bust": END_BUST,
    "21": END_TWENTY_ONE,
    "natural": END_TWENTY_ONE,
    "one card after a double": END_ONE_AFTER_DOUBLE,
}

Counts = tuple[int, int, int, int, int]  # LedgerCounts as a tuple, for the kernel's hot path


def _counts(entries: Sequence[LedgerEntry]) -> Counts:
    c: LedgerCounts = ledger_counts(entries)
    return (c.net_cents, c.net_no_sb_cents, c.super_bonuses, c.rescues, c.hand_losses_cents)


class HandGraph:
    """The nodes of one variant's hands and what the rules say about them, built as needed.

    ``wager_cents``: every box's one wager (the simulator's bet); the settlement tables are in
    cents of it.
    """

    def __init__(self, rules: Variant, strategy: Strategy, wager_cents: int) -> None:
        self.rules = rules
        self.strategy = strategy
        self.wager_cents = wager_cents
        self._keys: dict[Key, int] = {}
        # per node
        self.step: list[int] = []  # node * NCODES + code -> the node after that card, -1 unknown
        self.cards: list[tuple[Card, ...]] = []  # representative cards
        self.flags: list[tuple[bool, bool, int]] = []  # from_split, split_aces, doubles
        self.size: list[int] = []  # number of cards
        self.end: list[int] = []  # END_* after the hand's latest card
        self.must_draw: list[bool] = []  # dealer_must_draw: a dealer hand of these cards draws
        self.needs: list[bool] = []  # the tally's dealer_needs_cards (< 2 cards, or draws)
        self.shape: list[int] = []
        self.signature: list[int] = []  # -1 until asked
        self.doubled: list[int] = []  # the node once doubled, -1 until asked
        self.dealer_rank: list[int] = []  # -1 until asked
        # per shape / signature
        self._shapes: dict[Key, int] = {}
        self._shape_cards: list[tuple[Card, ...]] = []
        self._shape_end: list[int] = []
        self._shape_draws: list[tuple[bool, bool]] = []
        self._signatures: dict[tuple[object, ...], int] = {}
        self._signature_cards: list[tuple[Card, ...]] = []
        self._signature_flags: list[tuple[bool, bool, int]] = []
        self._dealer_ranks: dict[tuple[object, ...], int] = {}
        self._dealer_rank_cards: list[tuple[Card, ...]] = []
        # lazily filled tables (int keys; see the methods that fill them)
        self.decisions: dict[int, int] = {}
        self.surrenders: dict[int, bool] = {}
        self.rescues: dict[int, bool] = {}
        self.settle: dict[int, Counts] = {}
        self.super_bonus: dict[int, bool] = {}
        self.tally: list[HandTally | None] = []
        self.dealer_tally: list[int] = []  # -1 until asked: index of dealer_category's answer
        self.naturals: list[int] = []  # -1 until asked: is_natural(cards, from_split=False)
        self.two_card_21: list[int] = []  # -1 until asked
        self.splits: dict[int, tuple[int, int]] = {}
        self.start = self._node((), False, False, 0)

    # --- nodes -----------------------------------------------------------------------------

    def _node(
        self, cards: tuple[Card, ...], from_split: bool, split_aces: bool, doubles: int
    ) -> int:
        key = node_key(cards, from_split, split_aces, doubles)
        node = self._keys.get(key)
        if node is not None:
            return node
        node = len(self.cards)
        self._keys[key] = node
        self.cards.append(cards)
        self.flags.append((from_split, split_aces, doubles))
        self.size.append(len(cards))
        self.step.extend([-1] * NCODES)
        shape = self._shape(shape_of(key), cards, from_split, split_aces, doubles)
        self.shape.append(shape)
        self.end.append(self._shape_end[shape])
        must_draw, needs = self._shape_draws[shape]
        self.must_draw.append(must_draw)
        self.needs.append(needs)
        self.signature.append(-1)
        self.doubled.append(-1)
        self.dealer_rank.append(-1)
        self.tally.append(None)
        self.dealer_tally.append(-1)
        self.naturals.append(-1)
        self.two_card_21.append(-1)
        return node

    def add(self, node: int, code: int) -> int:
        """The node after one more card (the kernel calls it where ``step`` says -1)."""
        from_split, split_aces, doubles = self.flags[node]
        child = self._node((*self.cards[node], CARDS[code]), from_split, split_aces, doubles)
        self.step[node * NCODES + code] = child
        return child

    def double(self, node: int) -> int:
        """The node of the same cards once doubled."""
        child = self.doubled[node]
        if child < 0:
            from_split, split_aces, doubles = self.flags[node]
            child = self._node(self.cards[node], from_split, split_aces, doubles + 1)
            self.doubled[node] = child
        return child

    def split(self, node: int) -> tuple[int, int]:
        """The two one-card hands of a split pair, as the round controller makes them
        (``RoundController._split``): the first keeps the first card, the second takes the
        other; both come from a split, split aces where the first card is an ace."""
        pair = self.splits.get(node)
        if pair is None:
            first, second = self.cards[node]
            aces = first.is_ace
            pair = (self._node((first,), True, aces, 0), self._node((second,), True, aces, 0))
            self.splits[node] = pair
        return pair

    def play(self, node: int, *codes: int) -> int:
        """The node after these cards (for tests and the slow paths)."""
        for code in codes:
            nxt = self.step[node * NCODES + code]
            node = nxt if nxt >= 0 else self.add(node, code)
        return node

    # --- representatives for the rule functions ----------------------------------------------

    def hand_state(self, node: int) -> HandState:
        """The round model's hand for a node: one stake, doubled as often as the hand was."""
        from_split, split_aces, doubles = self.flags[node]
        return _hand_state(self.cards[node], from_split, split_aces, doubles, self.wager_cents)

    def frozen_hand(self, node: int, rescued: bool = False) -> Hand:
        from_split, split_aces, doubles = self.flags[node]
        w = self.wager_cents
        stake = Stake(PLAYER, w, doubles * w, rescued)
        return Hand(self.cards[node], (stake,), from_split, split_aces, doubles > 0)

    # --- what the rules say per shape (ranks only) -------------------------------------------

    def _shape(
        self,
        key: Key,
        cards: tuple[Card, ...],
        from_split: bool,
        split_aces: bool,
        doubles: int,
    ) -> int:
        shape = self._shapes.get(key)
        if shape is not None:
            return shape
        shape = len(self._shape_cards)
        self._shapes[key] = shape
        self._shape_cards.append(cards)
        hand = _hand_state(cards, from_split, split_aces, doubles, self.wager_cents)
        reason = end_of_hand(self.rules, hand)
        self._shape_end.append(_END_CODES.get(reason, END_OTHER))
        self._shape_draws.append(
            (dealer_must_draw(self.rules, cards), dealer_needs_cards(self.rules, cards))
        )
        return shape

    def decision(self, node: int, up: int, hands: int) -> int:
        """Basic strategy's play (an index of DECISIONS) for the hand of ``node`` in play, the
        dealer's first card of rank index ``up`` (NO_UP where it is face down), the box
        holding ``hands`` hands: ``Strategy.decide_hand`` on the representative."""
        key = (self.shape[node] * (NO_UP + 1) + up) * 8 + hands
        answer = self.decisions.get(key)
        if answer is None:
            hand = self.hand_state(node)
            box = _box_state(hand, hands, self.wager_cents)
            seen = None if up == NO_UP else Card(_RANKS[up], Suit.SPADES)
            action = self.strategy.decide_hand(self.rules, box, hand, seen)
            answer = self.decisions[key] = _DECISION_CODE[action]
        return answer

    def surrenders_now(self, node: int, up: int) -> bool:
        """In a surrender window: does basic strategy surrender this box's only hand? What
        ``StrategyPlayer`` asks: ``why_not_surrender`` and ``decide_hand`` in the window."""
        key = self.shape[node] * (NO_UP + 1) + up
        answer = self.surrenders.get(key)
        if answer is None:
            hand = self.hand_state(node)
            box = _box_state(hand, 1, self.wager_cents)
            seen = None if up == NO_UP else Card(_RANKS[up], Suit.SPADES)
            answer = self.surrenders[key] = _strategy_surrenders(self, box, hand, seen)
        return answer

    def rescues_now(self, node: int, up: int) -> bool:
        """In the rescue window: does basic strategy rescue the doubled stake
        (``Strategy.rescue_hand``)?"""
        key = self.shape[node] * (NO_UP + 1) + up
        answer = self.rescues.get(key)
        if answer is None:
            hand = self.hand_state(node)
            seen = Card(_RANKS[up], Suit.SPADES)
            answer = self.strategy.rescue_hand(self.rules, hand, PLAYER, seen)
            self.rescues[key] = answer
        return answer

    # --- what settlement says, per signature --------------------------------------------------

    def signature_of(self, node: int) -> int:
        """The settlement class of a node: equal values of every hand-evaluation function that
        settlement and the tally read."""
        sig = self.signature[node]
        if sig >= 0:
            return sig
        rules = self.rules
        cards = self.cards[node]
        from_split, split_aces, doubles = self.flags[node]
        hand = self.frozen_hand(node)
        value: HandValue = hand_value(cards)
        key = (
            len(cards),
            value,
            hand.total(rules),
            hand.rank(rules),
            player_rank(rules, cards, from_split),
            tuple(bonus_hands(cards, value)),
            is_natural(rules, cards, from_split),
            is_natural(rules, cards, False),
            is_suited_777(cards),
            from_split,
            split_aces,
            doubles,
        )
        sig = self._signatures.get(key, -1)
        if sig < 0:
            sig = self._signatures[key] = len(self._signature_cards)
            self._signature_cards.append(cards)
            self._signature_flags.append((from_split, split_aces, doubles))
        self.signature[node] = sig
        return sig

    def _signature_box(self, sig: int, rescued: bool = False) -> Box:
        from_split, split_aces, doubles = self._signature_flags[sig]
        w = self.wager_cents
        hand = Hand(
            self._signature_cards[sig],
            (Stake(PLAYER, w, doubles * w, rescued),),
            from_split,
            split_aces,
            doubles > 0,
        )
        return Box(1, (Wager(PLAYER, w),), (hand,))

    def dealer_rank_of(self, node: int) -> int:
        """The class of a dealer hand for a showdown: the value of ``dealer_rank``."""
        rank = self.dealer_rank[node]
        if rank < 0:
            cards = self.cards[node]
            key = (dealer_rank(self.rules, cards),)
            rank = self._dealer_ranks.get(key, -1)
            if rank < 0:
                rank = self._dealer_ranks[key] = len(self._dealer_rank_cards)
                self._dealer_rank_cards.append(cards)
            self.dealer_rank[node] = rank
        return rank

    # Settlement tables: the counts of the entries the settlement function gives for a box of
    # one hand of the signature (index 0: the amounts do not depend on the box or the hand's
    # place, which the entries name; the kernel's trace mode makes the real entries).
    _BUST, _TWENTY_ONE, _NATURAL, _RESCUE, _SURRENDER, _SHOWDOWN = range(6)

    def _settled(self, key: int, make: Callable[[], list[LedgerEntry]]) -> Counts:
        counts = self.settle.get(key)
        if counts is None:
            counts = self.settle[key] = _counts(make())
        return counts

    def bust(self, node: int) -> Counts:
        sig = self.signature_of(node)
        return self._settled(
            sig * 8 + self._BUST, lambda: settle_bust(self.rules, self._signature_box(sig), 0)
        )

    def twenty_one(self, node: int) -> Counts:
        sig = self.signature_of(node)
        return self._settled(
            sig * 8 + self._TWENTY_ONE,
            lambda: settle_twenty_one(self.rules, self._signature_box(sig), 0),
        )

    def natural(self, node: int) -> Counts:
        sig = self.signature_of(node)
        return self._settled(
            sig * 8 + self._NATURAL,
            lambda: settle_natural(self.rules, self._signature_box(sig), 0),
        )

    def rescue(self, node: int) -> Counts:
        sig = self.signature_of(node)
        return self._settled(
            sig * 8 + self._RESCUE,
            lambda: settle_rescue(self.rules, self._signature_box(sig), 0, PLAYER),
        )

    def surrender(self, dealer_natural: bool) -> Counts:
        def make() -> list[LedgerEntry]:
            box = Box(1, (Wager(PLAYER, self.wager_cents),), (), surrendered=True)
            return settle_surrender(self.rules, box, dealer_natural)

        return self._settled(-1 - dealer_natural, make)

    def showdown(self, node: int, dealer: int) -> Counts:
        """An open hand against the dealer's finished hand (node ``dealer``)."""
        sig = self.signature_of(node)
        rank = self.dealer_rank_of(dealer)
        key = (rank * 1_000_000 + sig) * 8 + self._SHOWDOWN
        counts = self.settle.get(key)
        if counts is None:
            box = self._signature_box(sig)
            dealer_cards = self._dealer_rank_cards[rank]
            counts = self.settle[key] = _counts(settle_showdown(self.rules, box, 0, dealer_cards))
        return counts

    def is_super_bonus(self, node: int, dealer_first: int) -> bool:
        """``is_super_bonus_hand`` for the node's hand against the dealer's first card."""
        sig = self.signature_of(node)
        key = sig * NCODES + dealer_first
        answer = self.super_bonus.get(key)
        if answer is None:
            hand = self._signature_box(sig).hands[0]
            answer = is_super_bonus_hand(self.rules, hand, CARDS[dealer_first])
            self.super_bonus[key] = answer
        return answer

    # --- what the simulator counts ----------------------------------------------------------

    def hand_tally(self, node: int) -> HandTally:
        counted = self.tally[node]
        if counted is None:
            cards = self.cards[node]
            from_split, _, doubles = self.flags[node]
            rows, trick = hand_counts(self.rules, cards, from_split)
            counted = HandTally(
                is_counted_natural(self.rules, cards, doubles > 0),
                tuple(row.value for row in rows),
                trick,
            )
            self.tally[node] = counted
        return counted

    def is_natural(self, node: int) -> bool:
        """``is_natural(rules, cards, from_split=False)``: how the round controller asks about
        a box's first hand after the deal and about the dealer's first two cards."""
        answer = self.naturals[node]
        if answer < 0:
            answer = self.naturals[node] = is_natural(self.rules, self.cards[node], False)
        return answer > 0

    def is_two_card_21(self, node: int) -> bool:
        answer = self.two_card_21[node]
        if answer < 0:
            answer = self.two_card_21[node] = is_two_card_21(self.cards[node])
        return answer > 0

    def dealer_category(self, node: int, natural: bool, categories: Sequence[str]) -> int:
        """The index in ``categories`` of the finished dealer hand's row."""
        if natural:
            return categories.index(dealer_category(True, self.cards[node]))
        answer = self.dealer_tally[node]
        if answer < 0:
            answer = categories.index(dealer_category(False, self.cards[node]))
            self.dealer_tally[node] = answer
        return answer

    @staticmethod
    def column(code: int) -> str:
        return dealer_column(CARDS[code])

    def stats(self) -> dict[str, int]:
        """How much was built (for the benchmarks)."""
        return {
            "nodes": len(self.cards),
            "shapes": len(self._shape_cards),
            "signatures": len(self._signature_cards),
            "decisions": len(self.decisions),
            "settlements": len(self.settle),
        }


def _hand_state(
    cards: Sequence[Card], from_split: bool, split_aces: bool, doubles: int, wager: int
) -> HandState:
    stake = StakeState(PLAYER, wager, doubles * wager)
    return HandState(
        list(cards), [stake], from_split=from_split, split_aces=split_aces, doubles=doubles
    )


def _box_state(hand: HandState, hands: int, wager: int) -> BoxState:
    others = [HandState([], [StakeState(PLAYER, wager)]) for _ in range(hands - 1)]
    return BoxState(1, [Wager(PLAYER, wager)], [hand, *others])


def _strategy_surrenders(
    graph: HandGraph, box: BoxState, hand: HandState, seen: Card | None
) -> bool:
    rules = graph.rules
    if why_not_surrender(rules, box) is not None:
        return False
    action = graph.strategy.decide_hand(rules, box, hand, seen, surrender_window=True)
    return action is Action.SURRENDER
