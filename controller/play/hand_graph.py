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

That is exact when two hands that reach one node are the same hand to every rule. The node key
keeps of the cards what a rule may still look at:

* up to three cards: their ranks (the first two in order: a pair, the card a split takes away;
  three sorted), and a card's suit where its rank can make a hand whose value depends on suits;
  which hands those are is found, not assumed: :meth:`HandGraph._reads_suits` evaluates the
  functions settlement and the tally call (:func:`hand_facts`) on cards that note every read of
  their suit, for every combination of one, two and three ranks (in the shipped variants, the
  6-7-8 and 7-7-7 bonus rows and the Super Bonus: ranks 6, 7 and 8);
* from the fourth card on, only what the totals read: the hard total, the aces (counted up to
  three), the aces among the first two cards (NZ 12.2 counts those as 1 on a doubled hand)
  and the number of cards;
* and the hand's own flags: from a split, split aces, doubles.

Rules that read cards by rank only (end of hand, the ``why_not_*`` checks, the dealer's drawing
rule, the strategy) are asked per *shape*, the node key without suits, so a decision is worked
out once for all the suits of a hand. Settlement is asked per *signature*: the values of
:func:`hand_facts`, every hand-evaluation function that settlement and the tally read, so a
showdown is worked out once per kind of hand against each kind of dealer hand.
``tests/simulate/test_hand_graph.py`` checks these abstractions against the functions on every
hand of up to three cards and on random longer ones; the differential test
(``tests/simulate/test_kernel_differential.py``) holds the whole kernel to the round
controller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Final, cast

from controller.game.hands import (
    HandEnd,
    bonus_hands,
    dealer_must_draw,
    dealer_rank,
    hand_value,
    is_natural,
    is_suited_777,
    is_two_card_21,
    player_rank,
)
from controller.game.settlement import (
    Box,
    Hand,
    LedgerEntry,
    Stake,
    Wager,
    is_super_bonus_hand,
    settle_bust,
    settle_dealer_natural,
    settle_natural,
    settle_rescue,
    settle_showdown,
    settle_surrender,
    settle_twenty_one,
)
from controller.play.strategy import Strategy
from controller.play.tally import (
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

if TYPE_CHECKING:
    from controller.game.rules import Variant

__all__ = [
    "CARDS",
    "CODES",
    "DECISIONS",
    "END_BUST",
    "END_NONE",
    "END_ONE_AFTER_DOUBLE",
    "END_OTHER",
    "END_TWENTY_ONE",
    "NCODES",
    "NO_UP",
    "TALLY_NATURAL",
    "TALLY_OTHER",
    "Counts",
    "HandGraph",
    "HandTally",
    "hand_facts",
]

CARDS: Final = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
CODES: Final = {card: code for code, card in enumerate(CARDS)}
_RANKS: Final = tuple(Rank)
_SUITS: Final = tuple(Suit)
_NSUITS: Final = len(_SUITS)
_POINTS: Final = tuple(rank.points for rank in _RANKS)  # the cards' own data (ace 1)
_ACE: Final = _RANKS.index(Rank.ACE)
NCODES: Final = len(CARDS)
NO_UP: Final = len(_RANKS)  # "no dealer card seen": the strategy's column for face-down games

# What end_of_hand says, as the round's procedure reads it (controller.round.procedure,
# _player_card and _find_turn): None, a bust, a 21 (or a natural), the one card after a double
# (the rescue window where the variant has one), anything else.
END_NONE, END_BUST, END_TWENTY_ONE, END_ONE_AFTER_DOUBLE, END_OTHER = range(5)
_END_CODES: Final[dict[HandEnd | None, int]] = {
    None: END_NONE,
    HandEnd.BUST: END_BUST,
    HandEnd.TWENTY_ONE: END_TWENTY_ONE,
    HandEnd.NATURAL: END_TWENTY_ONE,
    HandEnd.ONE_AFTER_DOUBLE: END_ONE_AFTER_DOUBLE,
}

# Decisions as small integers, in the order of the round's actions.
DECISIONS: Final = (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER)
_DECISION_CODE: Final = {action: code for code, action in enumerate(DECISIONS)}

# What the tally counts of a final hand, as bits (the kernel's quick test; HandTally in full).
TALLY_NATURAL = 1  # a natural dealt, where it is the box's only hand
TALLY_OTHER = 2  # a bonus combination or a five-card trick

PLAYER = "p"  # the representative hands' player (one wager per box, as the simulator bets)

# A node key: cards, hard total, aces (up to 3), aces among the first two, ranks (and suits,
# see _card_key) of up to three cards, suit mask of three, from a split, split aces, doubles.
Key = tuple[int, int, int, int, tuple[int, ...], int, bool, bool, int]
Counts = tuple[int, int, int, int, int]  # controller.play.tally.LedgerCounts as a tuple


def hand_facts(
    rules: Variant, cards: Sequence[Card], from_split: bool, split_aces: bool, doubles: int
) -> tuple[object, ...]:
    """Every hand-evaluation value that settlement and the tally read of a hand: two hands
    with equal facts settle and count alike."""
    stake = Stake(PLAYER, 100, 100 * doubles)
    hand = Hand(tuple(cards), (stake,), from_split, split_aces, doubles > 0)
    value = hand_value(cards)
    return (
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


class _SuitSpy:
    """A card that notes every read of its suit (see HandGraph._reads_suits)."""

    __slots__ = ("_reads", "_suit", "rank")

    def __init__(self, rank: Rank, reads: list[int]) -> None:
        self.rank = rank
        self._suit = Suit.SPADES
        self._reads = reads

    @property
    def suit(self) -> Suit:
        self._reads.append(1)
        return self._suit

    @property
    def points(self) -> int:
        return self.rank.points

    @property
    def is_ace(self) -> bool:
        return self.rank.is_ace

    @property
    def is_ten_value(self) -> bool:
        return self.rank.is_ten_value

    def __eq__(self, other: object) -> bool:
        self._reads.append(1)
        return self is other

    def __hash__(self) -> int:
        self._reads.append(1)
        return id(self)

    def __str__(self) -> str:
        self._reads.append(1)
        return f"{self.rank.value}{self._suit.value}"


@dataclass(frozen=True, slots=True)
class HandTally:
    """What the simulator counts of a final player hand (see controller.play.tally)."""

    natural: bool  # counted as a natural dealt where it is the box's only hand
    bonus: tuple[str, ...]  # bonus combinations made
    five_card_trick: bool


def _counts(entries: Sequence[LedgerEntry]) -> Counts:
    c = ledger_counts(entries)
    return (c.net_cents, c.net_no_sb_cents, c.super_bonuses, c.rescues, c.hand_losses_cents)


class HandGraph:
    """The nodes of one variant's hands and what the rules say about them, built as needed.

    ``wager_cents``: every box's one wager (the simulator's bet); the settlement tables are in
    cents of it. The per-node lists are read by the kernel directly; -1 means "not asked yet"
    (the methods of the same name fill them).
    """

    def __init__(self, rules: Variant, strategy: Strategy, wager_cents: int) -> None:
        self.rules = rules
        self.strategy = strategy
        self.wager_cents = wager_cents
        self._suited_ranks, self._suited_triples = self._suit_analysis()
        self._keys: dict[Key, int] = {}
        self._node_keys: list[Key] = []
        # per node
        self.step: list[int] = []  # node * NCODES + code -> the node after that card, -1 unknown
        self.cards: list[tuple[Card, ...]] = []  # representative cards
        self.flags: list[tuple[bool, bool, int]] = []  # from_split, split_aces, doubles
        self.size: list[int] = []  # number of cards
        self.end: list[int] = []  # END_* after the hand's latest card
        self.must_draw: list[bool] = []  # dealer_must_draw
        self.needs: list[bool] = []  # the tally's dealer_needs_cards (< 2 cards, or draws)
        self.natural: list[bool] = []  # is_natural(cards, from_split=False)
        self.two_card_21: list[bool] = []  # is_two_card_21
        self.shape: list[int] = []
        self.decision_base: list[int] = []  # decision_slot(node, 0, 0)
        self.signature: list[int] = []
        self.doubled: list[int] = []  # the node once doubled
        self.dealer_rank: list[int] = []
        self.tally_bits: list[int] = []  # TALLY_* bits
        self.dealer_category: list[int] = []  # index of dealer_category(False, cards)
        self._tally: dict[int, HandTally] = {}
        self._splits: dict[int, tuple[int, int]] = {}
        # per shape (ranks only)
        self._shapes: dict[Key, int] = {}
        self._shape_facts: list[tuple[int, bool, bool, bool, bool]] = []
        # per signature (hand_facts)
        self._signatures: dict[tuple[object, ...], int] = {}
        self._signature_cards: list[tuple[Card, ...]] = []
        self._signature_flags: list[tuple[bool, bool, int]] = []
        self.super_bonus: list[int] = []  # per signature: bit c, a Super Bonus against card c
        self.super_bonus_mask: list[int] = []  # per node, the same
        self._dealer_ranks: dict[object, int] = {}
        self._dealer_rank_cards: list[tuple[Card, ...]] = []
        # decisions and settlements: int keys (see the methods that fill them)
        self.decisions: list[int] = []  # (shape * (NO_UP + 1) + up) * 8 + hands, -1 unknown
        self._decided = 0
        self.surrenders: list[int] = []  # shape * (NO_UP + 1) + up: 1 surrender, 0 not, -1
        self.rescues: dict[int, bool] = {}
        self.settle: dict[int, Counts] = {}
        self._against_natural: dict[tuple[object, ...], Counts] = {}
        self.start = self._node((), False, False, 0)

    # --- which suits matter ------------------------------------------------------------------

    def _reads_suits(self, ranks: Sequence[int]) -> bool:
        """Does any of hand_facts read a suit of a hand of these ranks (any flags)?"""
        reads: list[int] = []
        cards = cast("list[Card]", [_SuitSpy(_RANKS[r], reads) for r in ranks])
        for from_split, doubles in product((False, True), (0, 1)):
            split_aces = from_split and _RANKS[ranks[0]] is Rank.ACE
            try:
                hand_facts(self.rules, cards, from_split, split_aces, doubles)
            except Exception:
                return True
            if reads:
                return True
        return False

    def _suit_analysis(self) -> tuple[frozenset[int], frozenset[tuple[int, ...]]]:
        """The ranks whose suits a node keeps (up to three cards), and the sorted three-rank
        combinations whose suits matter."""
        n = len(_RANKS)
        ranks: set[int] = set()
        triples: set[tuple[int, ...]] = set()
        for combo in [(a,) for a in range(n)] + list(product(range(n), repeat=2)):
            if self._reads_suits(combo):
                ranks.update(combo)
        for a in range(n):
            for b in range(a, n):
                for c in range(b, n):
                    if self._reads_suits((a, b, c)):
                        ranks.update((a, b, c))
                        triples.add((a, b, c))
        return frozenset(ranks), frozenset(triples)

    # --- keys -------------------------------------------------------------------------------

    def _card_key(self, code: int) -> int:
        """A card in a key: its rank, and its suit where the rank's suits matter."""
        rank, suit = divmod(code, _NSUITS)
        return rank * (_NSUITS + 1) + (suit + 1 if rank in self._suited_ranks else 0)

    def _child_key(self, key: Key, code: int) -> Key:
        n, hard, aces, first_aces, prefix, suits, from_split, split_aces, doubles = key
        rank = code // _NSUITS
        ace = rank == _ACE
        n += 1
        if n <= 2:
            prefix = (*prefix, self._card_key(code))
        elif n == 3:
            keys = (*prefix, self._card_key(code))
            prefix = tuple(sorted(k // (_NSUITS + 1) for k in keys))
            if prefix in self._suited_triples:  # every rank of it keeps its suit
                suits = 0
                for k in keys:
                    suits |= 1 << (k % (_NSUITS + 1) - 1)
        else:
            prefix, suits = (), 0
        return (
            n,
            hard + _POINTS[rank],
            min(aces + ace, 3),
            first_aces + (ace and n <= 2),
            prefix,
            suits,
            from_split,
            split_aces,
            doubles,
        )

    @staticmethod
    def _shape_key(key: Key) -> Key:
        """The key without suits: what the rules that read ranks only see."""
        n, hard, aces, first_aces, prefix, _, from_split, split_aces, doubles = key
        if n <= 2:
            prefix = tuple(k // (_NSUITS + 1) for k in prefix)
        return (n, hard, aces, first_aces, prefix, 0, from_split, split_aces, doubles)

    # --- nodes -----------------------------------------------------------------------------

    def _node(
        self, cards: tuple[Card, ...], from_split: bool, split_aces: bool, doubles: int
    ) -> int:
        key: Key = (0, 0, 0, 0, (), 0, from_split, split_aces, doubles)
        for card in cards:
            key = self._child_key(key, CODES[card])
        return self._node_for(key, cards)

    def _node_for(self, key: Key, cards: tuple[Card, ...]) -> int:
        node = self._keys.get(key)
        if node is not None:
            return node
        node = len(self.cards)
        self._keys[key] = node
        self._node_keys.append(key)
        from_split, split_aces, doubles = flags = key[6], key[7], key[8]
        self.cards.append(cards)
        self.flags.append(flags)
        self.size.append(len(cards))
        self.step.extend([-1] * NCODES)
        shape = self._shape(self._shape_key(key), cards, from_split, split_aces, doubles)
        self.shape.append(shape)
        self.decision_base.append(shape * (NO_UP + 1) * 8)
        end, must_draw, needs, natural, two_card_21 = self._shape_facts[shape]
        self.end.append(end)
        self.must_draw.append(must_draw)
        self.needs.append(needs)
        self.natural.append(natural)
        self.two_card_21.append(two_card_21)
        for table in (
            self.signature,
            self.super_bonus_mask,
            self.doubled,
            self.dealer_rank,
            self.tally_bits,
            self.dealer_category,
        ):
            table.append(-1)
        return node

    def node_of(
        self,
        cards: Sequence[Card],
        from_split: bool = False,
        split_aces: bool = False,
        doubles: int = 0,
    ) -> int:
        """The node of a hand of these cards and flags (the cards become its representative
        where the node is new)."""
        return self._node(tuple(cards), from_split, split_aces, doubles)

    def add(self, node: int, code: int) -> int:
        """The node after one more card (the kernel calls it where ``step`` says -1); the
        step table is filled for the four suits of the card's rank at once."""
        key = self._node_keys[node]
        cards = self.cards[node]
        base = node * NCODES
        first = code - code % _NSUITS
        if first // _NSUITS not in self._suited_ranks:
            # no key keeps this rank's suit: the four cards make one child (the first suit's
            # cards its representative, as a card-by-card fill would make it)
            child = self._node_for(self._child_key(key, first), (*cards, CARDS[first]))
            self.step[base + first : base + first + _NSUITS] = [child] * _NSUITS
            return child
        for other in range(first, first + _NSUITS):
            child = self._node_for(self._child_key(key, other), (*cards, CARDS[other]))
            self.step[base + other] = child
        return self.step[base + code]

    def play(self, node: int, *codes: int) -> int:
        """The node after these cards (for tests and the slow paths)."""
        for code in codes:
            nxt = self.step[node * NCODES + code]
            node = nxt if nxt >= 0 else self.add(node, code)
        return node

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
        pair = self._splits.get(node)
        if pair is None:
            first, second = self.cards[node]
            aces = first.is_ace
            pair = (self._node((first,), True, aces, 0), self._node((second,), True, aces, 0))
            self._splits[node] = pair
        return pair

    # --- representatives for the rule functions ----------------------------------------------

    def hand_state(self, node: int) -> HandState:
        """The round model's hand for a node: one stake, doubled as often as the hand was."""
        from_split, split_aces, doubles = self.flags[node]
        return _hand_state(self.cards[node], from_split, split_aces, doubles, self.wager_cents)

    def frozen_hand(self, node: int, player: str, rescued: bool) -> Hand:
        """Settlement's hand for a node: ``player``'s stake, doubled as often as the hand."""
        from_split, split_aces, doubles = self.flags[node]
        w = self.wager_cents
        stake = Stake(player, w, doubles * w, rescued)
        return Hand(self.cards[node], (stake,), from_split, split_aces, doubles > 0)

    # --- what the rules say per shape (ranks only) -------------------------------------------

    def _shape(
        self, key: Key, cards: tuple[Card, ...], from_split: bool, split_aces: bool, doubles: int
    ) -> int:
        shape = self._shapes.get(key)
        if shape is not None:
            return shape
        shape = len(self._shape_facts)
        self._shapes[key] = shape
        self.decisions.extend([-1] * ((NO_UP + 1) * 8))
        self.surrenders.extend([-1] * (NO_UP + 1))
        rules = self.rules
        hand = _hand_state(cards, from_split, split_aces, doubles, self.wager_cents)
        self._shape_facts.append(
            (
                _END_CODES.get(end_of_hand(rules, hand), END_OTHER),
                dealer_must_draw(rules, cards),
                dealer_needs_cards(rules, cards),
                is_natural(rules, cards, False),
                is_two_card_21(cards),
            )
        )
        return shape

    def decision(self, node: int, up: int, hands: int) -> int:
        """Basic strategy's play (an index of DECISIONS) for the hand of ``node`` in play, the
        dealer's first card of rank index ``up`` (NO_UP where it is face down), the box
        holding ``hands`` hands: ``Strategy.decide_hand`` on the representative."""
        key = self.decision_slot(node, up, hands)
        answer = self.decisions[key]
        if answer < 0:
            hand = self.hand_state(node)
            box = _box_state(hand, hands, self.wager_cents)
            seen = None if up == NO_UP else Card(_RANKS[up], Suit.SPADES)
            action = self.strategy.decide_hand(self.rules, box, hand, seen)
            answer = self.decisions[key] = _DECISION_CODE[action]
            self._decided += 1
        return answer

    def decision_slot(self, node: int, up: int, hands: int) -> int:
        """Where ``decisions`` holds the decision (the kernel computes it inline)."""
        return self.decision_base[node] + up * 8 + hands

    def surrenders_now(self, node: int, up: int) -> bool:
        """In a surrender window: does basic strategy surrender this box's only hand? What
        ``StrategyPlayer`` asks: ``why_not_surrender``, then ``decide_hand`` in the window."""
        key = self.shape[node] * (NO_UP + 1) + up
        answer = self.surrenders[key]
        if answer < 0:
            rules = self.rules
            hand = self.hand_state(node)
            box = _box_state(hand, 1, self.wager_cents)
            seen = Card(_RANKS[up], Suit.SPADES)
            answer = self.surrenders[key] = int(
                why_not_surrender(rules, box) is None
                and self.strategy.decide_hand(rules, box, hand, seen, surrender_window=True)
                is Action.SURRENDER
            )
        return answer > 0

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
        """The settlement class of a node: its hand_facts."""
        sig = self.signature[node]
        if sig >= 0:
            return sig
        cards = self.cards[node]
        from_split, split_aces, doubles = flags = self.flags[node]
        facts = hand_facts(self.rules, cards, from_split, split_aces, doubles)
        sig = self._signatures.get(facts, -1)
        if sig < 0:
            sig = self._signatures[facts] = len(self._signature_cards)
            self._signature_cards.append(cards)
            self._signature_flags.append(flags)
            hand = self._signature_box(sig).hands[0]
            mask = 0
            for code, card in enumerate(CARDS):
                if is_super_bonus_hand(self.rules, hand, card):
                    mask |= 1 << code
            self.super_bonus.append(mask)
        self.signature[node] = sig
        self.super_bonus_mask[node] = self.super_bonus[sig]
        return sig

    def _signature_box(self, sig: int, rescued: bool = False) -> Box:
        """A box of one hand of the signature (the settlement tables' representative: the
        amounts of a hand's entries do not depend on the box or the hand's place, which the
        entries name; the kernel's trace mode makes the real entries)."""
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
            value = dealer_rank(self.rules, cards)
            rank = self._dealer_ranks.get(value, -1)
            if rank < 0:
                rank = self._dealer_ranks[value] = len(self._dealer_rank_cards)
                self._dealer_rank_cards.append(cards)
            self.dealer_rank[node] = rank
        return rank

    # Settlement tables, keyed (what) + 8 * (signature [+ dealer rank << 20]).
    BUST, TWENTY_ONE, NATURAL, RESCUE, SHOWDOWN = range(5)

    def settled(self, what: int, node: int, dealer: int = 0) -> Counts:
        """The counts of the settlement of one hand of ``node`` (``what``: BUST, TWENTY_ONE,
        NATURAL, RESCUE, or SHOWDOWN against the dealer's finished hand ``dealer``)."""
        sig = self.signature_of(node)
        rank = self.dealer_rank_of(dealer) if what == self.SHOWDOWN else 0
        key = ((rank << 20) + sig) * 8 + what
        counts = self.settle.get(key)
        if counts is None:
            rules, box = self.rules, self._signature_box(sig)
            if what == self.BUST:
                entries = settle_bust(rules, box, 0)
            elif what == self.TWENTY_ONE:
                entries = settle_twenty_one(rules, box, 0)
            elif what == self.NATURAL:
                entries = settle_natural(rules, box, 0)
            elif what == self.RESCUE:
                entries = settle_rescue(rules, box, 0, PLAYER)
            else:
                entries = settle_showdown(rules, box, 0, self._dealer_rank_cards[rank])
            counts = self.settle[key] = _counts(entries)
        return counts

    def surrender(self, dealer_natural: bool) -> Counts:
        key = -1 - dealer_natural
        counts = self.settle.get(key)
        if counts is None:
            box = Box(1, (Wager(PLAYER, self.wager_cents),), (), surrendered=True)
            counts = self.settle[key] = _counts(settle_surrender(self.rules, box, dealer_natural))
        return counts

    def is_super_bonus(self, node: int, dealer_first: int) -> bool:
        """``is_super_bonus_hand`` for the node's hand against the dealer's first card."""
        return bool(self.super_bonus[self.signature_of(node)] >> dealer_first & 1)

    def against_natural(
        self, hands: tuple[tuple[int, bool], ...], open_hands: tuple[int, ...], lost: int
    ) -> Counts:
        """The counts of ``settle_dealer_natural`` for a box of these hands (node, rescued),
        whose hands ``open_hands`` are open, with ``lost`` cents already collected from its
        hands this round (per signature: the function reads the hands' facts and stakes)."""
        sigs = tuple((self.signature_of(node), rescued) for node, rescued in hands)
        key = (sigs, open_hands, lost)
        counts = self._against_natural.get(key)
        if counts is None:
            w = self.wager_cents
            frozen = tuple(self._signature_box(sig, rescued).hands[0] for sig, rescued in sigs)
            box = Box(1, (Wager(PLAYER, w),), frozen)
            entries = settle_dealer_natural(
                self.rules, box, open_hands, {PLAYER: lost} if lost else {}
            )
            counts = self._against_natural[key] = _counts(entries)
        return counts

    # --- what the simulator counts ----------------------------------------------------------

    def hand_tally(self, node: int) -> HandTally:
        counted = self._tally.get(node)
        if counted is None:
            cards = self.cards[node]
            from_split, _, doubles = self.flags[node]
            rows, trick = hand_counts(self.rules, cards, from_split)
            counted = HandTally(
                is_counted_natural(self.rules, cards, doubles > 0),
                tuple(row.value for row in rows),
                trick,
            )
            self._tally[node] = counted
            self.tally_bits[node] = (TALLY_NATURAL if counted.natural else 0) | (
                TALLY_OTHER if counted.bonus or counted.five_card_trick else 0
            )
        return counted

    def tally_of(self, node: int) -> int:
        bits = self.tally_bits[node]
        if bits < 0:
            self.hand_tally(node)
            bits = self.tally_bits[node]
        return bits

    def dealer_category_of(self, node: int, natural: bool, categories: Sequence[str]) -> int:
        """The index in ``categories`` of the finished dealer hand's row."""
        if natural:
            return categories.index(dealer_category(True, self.cards[node]))
        answer = self.dealer_category[node]
        if answer < 0:
            answer = categories.index(dealer_category(False, self.cards[node]))
            self.dealer_category[node] = answer
        return answer

    @staticmethod
    def column(code: int) -> str:
        return dealer_column(CARDS[code])

    def stats(self) -> dict[str, int]:
        """How much was built (for the benchmarks)."""
        return {
            "nodes": len(self.cards),
            "shapes": len(self._shape_facts),
            "signatures": len(self._signature_cards),
            "decisions": self._decided,
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
