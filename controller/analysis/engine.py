"""The expected value of a round, by combinatorial analysis of a finite shoe.

Everything the rules decide comes from the game's own code, called on a representative hand
for each composition the analysis meets:

* when a hand ends, and why (bust, natural, 21, split aces, one card after a double, the card
  limit): :func:`controller.round.model.end_of_hand`;
* what may be done now: ``why_not_hit`` / ``why_not_stand`` / ``why_not_double`` /
  ``why_not_split`` / ``why_not_rescue`` / ``why_not_surrender`` and ``surrender_offered``;
* what a finished hand is paid against each dealer result: :func:`settle_round` on a one-box
  round (naturals and NZ 21s paid at once, payout odds and bonus rows, ties, five-card tricks,
  the dealer's five-card trick, doubled stakes, the Super Bonus, original bets only on a dealer
  pontoon, surrender, rescue);
* the dealer's drawing rule and ranking: :mod:`controller.analysis.dealer`.

The value of a hand is its expected net in units of the initial wager, weighted by the chance
of the dealer not holding a natural where the dealer checks for one (the "W" form: that factor
is common to every choice in the hand, so maximising W is maximising the conditional value, and
adding the dealer-natural branch back gives the round's value exactly).

Player draws come from the shoe less every card seen by this box (its own cards, the dealer's
first card, the other cards of a split pair); the dealer draws from what is left. Splits use
the published approximation of the Wizard of Odds' appendix 9 ("for splitting values the
program only considered how many hands the player had already split, but not the other cards
drawn in those hands"): each split hand is played exactly from the shoe less the dealer's card
and the pair cards split so far.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from controller.analysis.dealer import (
    NATURAL_INDEX,
    NCATS,
    DealerTable,
    shared_table,
)
from controller.analysis.shoe import (
    VALUE_RANK,
    VALUES,
    ZERO,
    Comp,
    Shoe,
    add,
    card_of,
    comp_of,
    plus,
    representative,
)
from controller.game.errors import ConfigError
from controller.game.hands import HandEnd, win_odds
from controller.game.rules import SplitMatch, Variant
from controller.game.settlement import (
    Box,
    Hand,
    Stake,
    Wager,
    is_super_bonus_hand,
    settle_round,
)
from controller.play.strategy import Strategy
from controller.round.model import (
    BoxState,
    HandState,
    StakeState,
    end_of_hand,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_rescue,
    why_not_split,
    why_not_stand,
    why_not_surrender,
)
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Rank, Suit

Vec = npt.NDArray[np.float64]
PLAYER = "p"
SUITED_ROWS: dict[tuple[int, ...], tuple[Rank, ...]] = {
    (6, 7, 8): (Rank.SIX, Rank.SEVEN, Rank.EIGHT),
    (7, 7, 7): (Rank.SEVEN, Rank.SEVEN, Rank.SEVEN),
}
Up = int | None  # the dealer's first card as a value, None where the player sees no card


_SHAPES: dict[Comp, tuple[int, int]] = {}


def shape(comp: Comp) -> tuple[int, int]:
    """(number of cards, hard total) of a composition, worked out once per composition."""
    got = _SHAPES.get(comp)
    if got is None:
        got = _SHAPES[comp] = (sum(comp), sum(c * (i + 1) for i, c in enumerate(comp)))
    return got


_SUCCESSORS: dict[Comp, tuple[Comp, ...]] = {}


def _successors(comp: Comp) -> tuple[Comp, ...]:
    """The composition after one more card of each value (index value - 1), worked out once."""
    got = _SUCCESSORS.get(comp)
    if got is None:
        got = _SUCCESSORS[comp] = tuple(add(comp, v) for v in VALUES)
    return got


def payoff_features(comp: Comp) -> tuple[int, ...]:
    """What a finished hand's payoff can depend on, besides its context: the whole
    composition for up to three cards (a natural, a pair, the suited 6-7-8 and 7-7-7 rows),
    beyond that the hard total, the aces and the number of cards (totals, soft totals, the
    five-card trick, the 21s by number of cards: the representative hand's suits never make
    a bonus of four cards or more)."""
    n, hard = shape(comp)
    if n <= 3:
        return comp
    return (hard, comp[0], n)


class Ctx:
    """Where a hand is played: the dealer's first card, the cards seen besides the hand's own
    (the other pair cards of a split), and whether it is a split hand (of aces).

    One object per distinct context (interned), so that equal contexts are the same object and
    the memo keys hash and compare them by identity, in C, at every hand."""

    __slots__ = ("base", "from_split", "hands", "split_aces", "up")
    _interned: ClassVar[dict[tuple[object, ...], Ctx]] = {}
    up: Up
    base: Comp
    from_split: bool
    split_aces: bool
    hands: int  # hands on the box (for the legality checks)

    def __new__(
        cls,
        up: Up,
        base: Comp,
        from_split: bool = False,
        split_aces: bool = False,
        hands: int = 1,
    ) -> Ctx:
        key = (up, base, from_split, split_aces, hands)
        got = cls._interned.get(key)
        if got is None:
            got = object.__new__(cls)
            for name, value in zip(
                ("up", "base", "from_split", "split_aces", "hands"), key, strict=True
            ):
                object.__setattr__(got, name, value)
            cls._interned[key] = got
        return got

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a context is read only ({name})")

    def __reduce__(self) -> tuple[object, ...]:
        return (Ctx, (self.up, self.base, self.from_split, self.split_aces, self.hands))

    def __repr__(self) -> str:
        return (
            f"Ctx(up={self.up!r}, base={self.base!r}, from_split={self.from_split!r}, "
            f"split_aces={self.split_aces!r}, hands={self.hands!r})"
        )


@dataclass
class Terminal:
    """How a played hand ended, for the outcome tables."""

    label: str  # natural, bust, 21, stand, five-card trick... (from the rules' own reasons)
    doubled: bool
    rescued: bool


class Rows:
    """The dealer's draw-multiset chances for a shoe, worked out only when first needed (from
    the parent hand's rows, one card fewer)."""

    __slots__ = ("_parent", "_rows", "_table", "_value", "key", "shoe", "total")

    def __init__(
        self,
        table: DealerTable,
        shoe: Comp,
        rows: Vec | None = None,
        parent: Rows | None = None,
        value: int = 0,
        total: int | None = None,
        key: int | None = None,
    ) -> None:
        self._table = table
        self.shoe = shoe  # what the dealer draws from
        self.total = sum(shoe) if total is None else total  # its number of cards
        self._rows = rows
        self._parent = parent
        self._value = value
        # the shoe as one int for the table's caches (:meth:`DealerTable.shoe_key`; None: a
        # shoe with a card fewer than none, never cached)
        self.key = table.shoe_key(shoe) if key is None and parent is None else key

    def child(self, value: int) -> Rows:
        shoe = list(self.shoe)
        left = shoe[value - 1] = shoe[value - 1] - 1
        key = self.key
        table = self._table
        if key is not None:
            key = key - table.weights[value - 1] if left >= 0 else None
        # (:meth:`__init__`'s fields set here: a million children a par sheet)
        out = _new_rows(Rows)
        out._table = table
        out.shoe = tuple(shoe)
        out.total = self.total - 1
        out._rows = None
        out._parent = self
        out._value = value
        out.key = key
        return out

    def categories(self, exclude_natural: bool) -> Vec:
        """The dealer's final categories from this shoe (:meth:`DealerTable.categories`),
        looked up in the table's per-shoe cache first (read only: the vector's bytes, the
        same bits)."""
        table = self._table
        cache = table.by_shoe_checked if exclude_natural else table.by_shoe
        key = self.key
        got = None if key is None else cache.get(key)
        if got is None:
            vec = table.categories(self.get(), exclude_natural)
            if key is not None:
                cache[key] = table.packed(vec)
            return vec
        return np.frombuffer(got[:8] + table.gap + got[8:])  # (DealerTable.packed)

    def get(self) -> Vec:
        if self._rows is None:
            parent = self._parent
            assert parent is not None
            self._rows = self._table.remove(parent.get(), parent.shoe, self._value, parent.total)
            self._parent = None
        return self._rows


_new_rows = object.__new__


@dataclass(frozen=True)
class Prepared:
    """A finished hand made ready for :func:`settle_round`: its one-hand box and what its
    payout depends on besides the dealer (rank, odds, stakes)."""

    box: Box
    hand: Hand
    key: tuple[object, ...]
    # :meth:`Analysis._settled`'s cache key per dealer's first card (the Super Bonus asked
    # once per card, not at every payoff)
    keys: dict[Up, tuple[object, ...]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )


@dataclass(frozen=True)
class Facts:
    """What the rules say of a hand with these features (from the round model's checks)."""

    end: HandEnd | None
    can_stand: bool
    can_hit: bool
    can_double: bool
    can_rescue: bool  # a doubled hand (why_not_rescue)
    key: tuple[object, ...]  # the features they were asked on


Value = tuple[float, str]  # a hand's value and what is done (:meth:`Analysis.decision`)
MemoKey = tuple[Ctx, Comp, int, bool]  # context, composition, initial aces, doubled
# what the rules and the strategy say of a hand, and its payoff where it stands (None: not
# asked yet): :meth:`Analysis._decision`
Node = tuple[Facts, Action | None, tuple[Vec, float | None] | None]


# what is done (:data:`Value`'s second item) as a small code, and back
_WHAT: list[str] = []
_CODE: dict[str, int] = {}
# the places in a group's arrays, as int objects shared by every group (Python makes a new
# one for each int above 256: 32 bytes a hand)
_PLACES: list[int] = []


def _code(what: str) -> int:
    got = _CODE.get(what)
    if got is None:
        got = _CODE[what] = len(_WHAT)
        _WHAT.append(what)
    return got


# the codes of the strategy's actions (their values) and of the hands' ends, looked up by
# identity (a dict keyed by the enums hashes and compares them in Python) and made on first
# use, in the order :func:`_code` met them before (HandEnd.STAND and Action.STAND's value are
# equal strings: the first met is the one :data:`_WHAT` gives back)
_ENUM_CODES: dict[int, int] = {}


def _action_code(action: Action) -> int:
    got = _ENUM_CODES.get(id(action))
    if got is None:
        got = _ENUM_CODES[id(action)] = _code(action.value)
    return got


def _end_code(end: HandEnd) -> int:
    got = _ENUM_CODES.get(id(end))
    if got is None:
        got = _ENUM_CODES[id(end)] = _code(end)
    return got


class Group:
    """The hands played in one context with one initial-aces count and doubled flag: each
    composition's place in ``values`` (its value) and ``codes`` (what is done:
    :func:`_code`), and the nodes they share with every context of the same dealer's card
    and split flags. Arrays, not a (float, str) tuple per hand: the optimum meets millions."""

    __slots__ = ("codes", "index", "nodes", "values")

    def __init__(self, nodes: dict[Comp, Node]) -> None:
        self.index: dict[Comp, int] = {}
        self.values = array("d")
        self.codes = bytearray()
        self.nodes = nodes

    def get(self, comp: Comp) -> Value | None:
        j = self.index.get(comp)
        return None if j is None else (self.values[j], _WHAT[self.codes[j]])

    def put(self, comp: Comp, got: Value) -> None:
        self.add(comp, got[0], _code(got[1]))

    def add(self, comp: Comp, value: float, code: int) -> None:
        """:meth:`put` with what is done as its code (:func:`_code`)."""
        values = self.values
        k = len(values)
        if k >= len(_PLACES):
            _PLACES.extend(range(len(_PLACES), 2 * k + 1024))
        self.index[comp] = _PLACES[k]  # (one int object per place, for every group)
        values.append(value)
        self.codes.append(code)


class Memo:
    """An analysis' hand values, (context, composition, initial aces, doubled) -> (value, what
    is done), kept per (context, initial aces, doubled) in a :class:`Group` keyed by the
    composition alone: no key tuple and no value tuple per hand state, where the optimum meets
    millions (issue 26's memory; the values are the same floats, bit for bit). Read as a
    mapping of those keys."""

    __slots__ = ("_groups", "_nodes")

    def __init__(self) -> None:
        self._groups: dict[tuple[Ctx, int, bool], Group] = {}
        self._nodes: dict[tuple[Up, bool, bool, int, bool], dict[Comp, Node]] = {}

    def group(self, ctx: Ctx, i0: int, doubled: bool) -> Group:
        """The hands played in ``ctx`` with these initial aces and doubled flag."""
        key = (ctx, i0, doubled)
        got = self._groups.get(key)
        if got is None:
            node_key = (ctx.up, ctx.from_split, ctx.split_aces, i0, doubled)
            nodes = self._nodes.get(node_key)
            if nodes is None:
                nodes = self._nodes[node_key] = {}
            got = self._groups[key] = Group(nodes)
        return got

    def groups(self) -> Iterator[tuple[tuple[Ctx, int, bool], Group]]:
        yield from self._groups.items()

    def take(self, ctx: Ctx, i0: int, doubled: bool, group: Group) -> int:
        """Take over ``group``'s values (another analysis' hands: :meth:`Analysis.reuse`)
        as this group's; returns how many."""
        mine = self.group(ctx, i0, doubled)
        if not mine.index:
            mine.index = dict(group.index)
            mine.values = array("d", group.values)
            mine.codes = bytearray(group.codes)
        else:
            for comp, j in group.index.items():
                mine.put(comp, (group.values[j], _WHAT[group.codes[j]]))
        return len(group.index)

    def get(self, key: MemoKey) -> Value | None:
        ctx, comp, i0, doubled = key
        got = self._groups.get((ctx, i0, doubled))
        return None if got is None else got.get(comp)

    def __setitem__(self, key: MemoKey, value: Value) -> None:
        ctx, comp, i0, doubled = key
        self.group(ctx, i0, doubled).put(comp, value)

    def __len__(self) -> int:
        return sum(len(group.index) for group in self._groups.values())

    def items(self) -> Iterator[tuple[MemoKey, Value]]:
        for (ctx, i0, doubled), group in self._groups.items():
            for comp, j in group.index.items():
                yield (ctx, comp, i0, doubled), (group.values[j], _WHAT[group.codes[j]])

    def __iter__(self) -> Iterator[MemoKey]:
        for key, _got in self.items():
            yield key


@dataclass
class Shared:
    """What the rules and the settlement say, the same for every analysis of the same rules
    but for the shoe's size and the same wager (a par sheet's decks curve and deck-count
    toggle): a finished hand's payoff per dealer's table (its example hands), and the facts
    of a hand. An analysis asks here where its own cache has no answer (and keeps what its
    walk met in its own: :meth:`Analysis.plays_as`, :meth:`Analysis.reuse`)."""

    payoffs: dict[tuple[object, ...], tuple[Vec, float | None]]
    facts: dict[tuple[object, ...], Facts]


_SHARED: dict[tuple[str, str, int], Shared] = {}
_PAYOFFS: dict[tuple[str, int], dict[tuple[object, ...], tuple[Vec, float | None]]] = {}
MAX_SHARED = 64  # a par sheet meets about 25 rule sets (cleared past that)
# the settings no fact of a hand reads: the shoe's size (a hand's suit pattern does read it,
# kept out of :attr:`Shared.payoffs`; the kind of deck stays in)
NO_FACT: dict[str, tuple[str, ...]] = {
    "shoe": ("decks", "burn_cards", "cut_card_reserve", "cut_card_reserve_per_deck"),
}
# and the settings no payoff reads besides (:func:`settle_round`, a hand's rank and odds: the
# settlement and the hands' modules and the rules' own methods, held so by
# tests/analysis/test_sheet_speed.py): what the player may do (the payoff of a finished hand
# is the same whatever led to it) and the dealer's drawing rule (the dealer's example hands,
# in the key, stand for it)
NOT_PAID: dict[str, tuple[str, ...]] = {
    **NO_FACT,
    "split": ("max_hands", "resplit_aces", "split_aces_one_card"),
    "double": ("max_cards", "cards_after", "after_split", "on_split_aces"),
    "dealer": ("hits_soft_17", "stands_on_five_cards"),
}


def _without(rules: Variant, leave_out: dict[str, tuple[str, ...]]) -> str:
    dump = rules.model_dump(mode="json")
    for section, names in leave_out.items():
        for name in names:
            dump[section].pop(name, None)
    return json.dumps(dump, sort_keys=True)


# whether the analyses made now share their payoffs (:func:`payoffs_shared`: a par sheet's)
_SHARING_PAYOFFS: list[bool] = [False]


@contextmanager
def payoffs_shared() -> Iterator[None]:
    """The analyses made inside share their finished hands' payoffs (:class:`Shared`), which
    are let go at the end. Only a par sheet's: its analyses ask the same payoffs again, while a
    long-running process (the floor's remaining-shoe edges, one analysis per shoe left) would
    keep every payoff of every dealer example set it met, and ask few of them again."""
    was = _SHARING_PAYOFFS[0]
    _SHARING_PAYOFFS[0] = True
    try:
        yield
    finally:
        _SHARING_PAYOFFS[0] = was
        if not was:
            _PAYOFFS.clear()
            for shared in _SHARED.values():
                shared.payoffs.clear()


def shared_answers(rules: Variant, wager_cents: int) -> Shared:
    """The :class:`Shared` answers of these rules and wager: the facts of every analysis of
    the same rules but for :data:`NO_FACT`, the payoffs of every one of the same rules but
    for :data:`NOT_PAID`."""
    facts_key = _without(rules, NO_FACT)
    paid_key = _without(rules, NOT_PAID)
    key = (facts_key, paid_key, wager_cents)
    got = _SHARED.get(key)
    if got is None:
        if len(_SHARED) >= MAX_SHARED or len(_PAYOFFS) >= MAX_SHARED:
            # both at once: a Shared kept past a clear of the payoffs alone would hold a
            # payoffs dict no later analysis of its rules is given (they would share nothing)
            _SHARED.clear()
            _PAYOFFS.clear()
        same_facts = next(
            (s.facts for (f, _p, w), s in _SHARED.items() if f == facts_key and w == wager_cents),
            {},
        )
        payoffs = _PAYOFFS.setdefault((paid_key, wager_cents), {})
        got = _SHARED[key] = Shared(payoffs, same_facts)
    return got


def same_payoff(a: Vec, b: Vec) -> bool:
    """``np.array_equal`` of two payoffs, the same bytes first (most are)."""
    return a.tobytes() == b.tobytes() or bool(np.array_equal(a, b))


_EXAMPLES: dict[tuple[object, ...], int] = {}


def examples_key(table: DealerTable) -> int:
    """The dealer's example hands a payoff is settled against (:meth:`Analysis._settled`), as
    a small int (one per distinct set of examples: a key hashed at every payoff looked up)."""
    examples = tuple(
        (cat, tuple((c.rank.value, c.suit.value) for c in cards))
        for cat, cards in sorted(table.examples.items(), key=lambda item: item[0])
    )
    got = _EXAMPLES.get(examples)
    if got is None:
        got = _EXAMPLES[examples] = len(_EXAMPLES)
    return got


@dataclass
class Analysis:
    """One game (rules, shoe, wager) under one policy: the shipped strategy or the optimum.

    ``strategy`` None plays the composition-dependent optimum (the best choice for every
    composition of the player's hand); otherwise every decision is the strategy's own
    (:meth:`Strategy.decide`, :meth:`Strategy.rescue`).
    """

    rules: Variant
    shoe: Shoe
    wager_cents: int = 1000
    strategy: Strategy | None = None
    tables: dict[Up, DealerTable] = field(default_factory=dict)
    _payoff: dict[tuple[object, ...], Vec] = field(default_factory=dict)
    _memo: Memo = field(default_factory=Memo)
    _facts: dict[tuple[object, ...], Facts] = field(default_factory=dict)
    _decide: dict[tuple[object, ...], Action] = field(default_factory=dict)
    _up_rows: dict[Up, Rows] = field(default_factory=dict)
    resplits: dict[tuple[Up, int, int, int], bool] = field(default_factory=dict)
    _hand_payoff: dict[tuple[object, ...], tuple[Vec, float | None]] = field(default_factory=dict)
    _rescues: dict[tuple[object, ...], bool] = field(default_factory=dict)
    # the nodes' tuples, one per distinct (facts, action, stand payoff): :meth:`_interned`
    _node_tuples: dict[tuple[int, Action | None, int | None], Node] = field(default_factory=dict)
    # :meth:`_bare_node`'s, by the features and dealer's card it reads
    _bare_nodes: dict[tuple[object, ...], Node] = field(default_factory=dict)
    _hand_parts: dict[tuple[object, ...], list[tuple[float, Prepared]]] = field(
        default_factory=dict
    )
    # what each rules' and strategy's question was asked on (see :meth:`plays_as`)
    _payoff_comp: dict[tuple[Up, bool, bool, tuple[int, ...], int, bool, bool], Comp] = field(
        default_factory=dict
    )
    _fact_args: dict[tuple[object, ...], tuple[Ctx, Comp, int, bool]] = field(default_factory=dict)
    _decide_args: dict[tuple[object, ...], tuple[Ctx, Comp, int, bool, bool, bool, bool]] = field(
        default_factory=dict
    )
    _rescue_args: dict[tuple[object, ...], tuple[Ctx, Comp, int, bool]] = field(
        default_factory=dict
    )
    # what the policy did at each box's first decision and at each split hand's second card
    # (see :meth:`plays_as`)
    _root_plans: dict[tuple[Up, Comp, int, bool], tuple[Action, ...]] = field(default_factory=dict)
    _split_plans: dict[tuple[Up, int, int, int], tuple[bool, bool, Action | None]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        rules = self.rules
        if rules.double.times_per_hand > 1:  # the table deals it with cards_after = 'any'
            raise ConfigError(
                rules.id,
                [
                    f"double.times_per_hand = {rules.double.times_per_hand}: the table lets a "
                    "hand be doubled again after drawing on, but this analysis plays each hand "
                    "with one double at most and cannot give that game's figures yet; analyse "
                    "it with double.times_per_hand = 1"
                ],
            )
        self.hidden = not rules.dealer.first_card_face_up
        self.track_initial_aces = rules.double.initial_aces_count_one
        for v in VALUES:
            self.tables[v] = shared_table(rules, v, self.shoe.counts)
        if self.hidden:
            self.tables[None] = shared_table(rules, None, self.shoe.counts)
        # the categories the dealer can end in from each first card (a payoff is filled in
        # for those only)
        self._reached: dict[Up, npt.NDArray[np.int64]] = {
            up: np.array(sorted(table.examples), dtype=np.int64)
            for up, table in self.tables.items()
        }
        self._shared = shared_answers(rules, self.wager_cents)
        # (not for the optimum: its hundreds of thousands of payoff classes would stay in the
        # shared cache, tens of megabytes past its walk, for little the sheet asks again)
        sharing = self.strategy is not None and _SHARING_PAYOFFS[0]
        self._shared_payoffs = self._shared.payoffs if sharing else None
        self._answered: tuple[Analysis, _Answers] | None = None  # (:meth:`_answers`)
        self._examples = {up: examples_key(table) for up, table in self.tables.items()}
        peek = set(rules.dealer.peek_up_cards) if rules.has_hole_card else set()
        self._peeks: dict[Up, bool] = {v: VALUE_RANK[v] in peek for v in VALUES}
        self._peeks[None] = bool(peek)
        if self.hidden and not (Rank.ACE in peek and Rank.KING in peek):
            raise ValueError(
                f"{rules.id}: both dealer cards face down needs dealer.peek_up_cards to "
                "hold the ace and the ten-value cards for this analysis"
            )

    # --- the shoe and the dealer ------------------------------------------------------------

    def remaining(self, up: Up, removed: Comp) -> Comp:
        shoe = tuple(a - b for a, b in zip(self.shoe.counts, removed, strict=True))
        return shoe if up is None else add(shoe, up, -1)

    def rows(self, up: Up, removed: Comp) -> Rows:
        """The dealer's draw-multiset chances once ``removed`` (besides the first card) is out,
        built card by card from the shoe less the first card."""
        base = self._up_rows.get(up)
        if base is None:
            shoe = self.remaining(up, ZERO)
            base = Rows(self.tables[up], shoe, self.tables[up].rows(shoe))
            self._up_rows[up] = base
        rows = base
        for i, n in enumerate(removed):
            for _ in range(n):
                rows = rows.child(i + 1)
        return rows

    def dealer(self, up: Up, rows: Vec, *, with_natural: bool = False) -> Vec:
        """The dealer's final categories from ``rows`` (the natural left out where the dealer
        checked for it: the vector then sums to the chance of no natural)."""
        return self.tables[up].categories(rows, self._peeks[up] and not with_natural)

    def dealer_of(self, up: Up, rows: Rows, *, with_natural: bool = False) -> Vec:
        """:meth:`dealer` of a :class:`Rows` (from the cache where this shoe was met before)."""
        return rows.categories(self._peeks[up] and not with_natural)

    # --- payoffs from the settlement ---------------------------------------------------------

    def _box(
        self, cards: list[Card], doubled: bool, rescued: bool, ctx: Ctx, surrendered: bool
    ) -> Box:
        w = self.wager_cents
        stake = Stake(PLAYER, w, w if doubled else 0, rescued)
        hand = Hand(tuple(cards), (stake,), ctx.from_split, ctx.split_aces, doubled)
        return Box(1, (Wager(PLAYER, w),), (hand,), surrendered)

    def payoff(
        self, cards: list[Card], doubled: bool, rescued: bool, ctx: Ctx, surrendered: bool = False
    ) -> Vec:
        """Net units for this finished hand against each dealer category, from settle_round."""
        return self._settled(self._prepare(cards, doubled, rescued, ctx, surrendered), ctx.up)

    def _prepare(
        self, cards: list[Card], doubled: bool, rescued: bool, ctx: Ctx, surrendered: bool
    ) -> Prepared:
        """The hand as settle_round sees it and what its payout depends on, besides the
        dealer's first card."""
        rules = self.rules
        box = self._box(cards, doubled, rescued, ctx, surrendered)
        hand = box.hands[0]
        rank = hand.rank(rules)
        odds = win_odds(rules, cards, rank, doubled_stake=doubled).odds
        key = (rank.tier, rank.total, odds, doubled, rescued, surrendered, ctx.from_split)
        return Prepared(box, hand, key)

    def _settled(self, prepared: Prepared, up: Up) -> Vec:
        key = prepared.keys.get(up)
        if key is None:
            rules = self.rules
            sb = False
            if rules.super_bonus.enabled:  # (a loop, not any() of a generator: 250,000 times)
                for first in self.tables[up].first_cards:
                    if is_super_bonus_hand(rules, prepared.hand, first):
                        sb = True
                        break
            key = prepared.keys[up] = (up, sb, *prepared.key)
        got = self._payoff.get(key)
        if got is not None:
            return got
        rules = self.rules
        table = self.tables[up]
        box = prepared.box
        out = np.zeros(NCATS)
        for cat, dealer_cards in table.examples.items():
            ledger = settle_round(rules, [box], list(dealer_cards))
            net = sum(e.amount_cents for e in ledger.entries if e.player == PLAYER)
            out[cat] = net / self.wager_cents
        self._payoff[key] = out
        return out

    def hand_payoff(self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx) -> Vec:
        """:meth:`payoff` for a composition, mixing over suits where a suited bonus hand
        (6-7-8, 7-7-7) could be made of these ranks."""
        return self._payoff_and_constant(comp, i0, doubled, rescued, ctx)[0]

    def fresh_payoff(self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx) -> Vec:
        """:meth:`hand_payoff` (the same vector), not kept where it was not worked out before:
        for a payoff asked once (:meth:`controller.analysis.reprice.Reach.delta`)."""
        key = (ctx.up, ctx.from_split, ctx.split_aces, payoff_features(comp), i0, doubled, rescued)
        got = self._hand_payoff.get(key)
        if got is None:
            shared = self._shared_for(comp)
            got = None if shared is None else shared.get((self._examples[ctx.up], key))
        return self._mixed_payoff(comp, i0, doubled, rescued, ctx) if got is None else got[0]

    def _shared_for(self, comp: Comp) -> dict[tuple[object, ...], tuple[Vec, float | None]] | None:
        """The shared payoffs this hand's payoff is looked up in and kept in (None: not
        shared; a hand of three cards may be a suited row, its suits' chances the shoe's)."""
        return None if shape(comp)[0] == 3 else self._shared_payoffs

    def _payoff_and_constant(
        self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx
    ) -> tuple[Vec, float | None]:
        """The payoff and, where it is the same against every dealer category, that net;
        kept by the features the payoff depends on (the same object for every composition of
        those features; a cache by composition too took a 7-tuple per hand state)."""
        key = (ctx.up, ctx.from_split, ctx.split_aces, payoff_features(comp), i0, doubled, rescued)
        got = self._hand_payoff.get(key)
        if got is None:
            shared = self._shared_for(comp)
            wide = (self._examples[ctx.up], key)
            got = None if shared is None else shared.get(wide)
            if got is None:
                vec = self._mixed_payoff(comp, i0, doubled, rescued, ctx)
                constant = float(vec[0]) if vec.max() == vec.min() else None
                got = (vec, constant)
                if shared is not None:
                    shared[wide] = got
            self._hand_payoff[key] = got
            self._payoff_comp[key] = comp
        return got

    def outright(
        self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx, rows: Rows
    ) -> float | None:
        """The net of a hand settled whatever the dealer holds (a bust), where the shoe left
        may be too small to finish the dealer's hand; else None.

        Such a hand has the same net against every category the dealer can reach from this
        card (the others stay 0 in its payoff, so it is not :meth:`_payoff_and_constant`'s
        constant) and is worth that net outright, as the round settles it (a bust is taken at
        once, the dealer drawing nothing for it): not through the dealer's distribution, which
        in a shoe too small for the dealer's draws loses the orders where the dealer would run
        out of cards. Asked only of such shoes (``rows.total`` within the most cards the
        dealer can draw): in any other the distribution is whole and the value the same, and
        the figures keep their last digits."""
        table = self.tables[ctx.up]
        if rows.total > table._max_drawn:
            return None
        vec = self._payoff_and_constant(comp, i0, doubled, rescued, ctx)[0]
        reached = vec[self._reached[ctx.up]]
        return float(reached[0]) if reached.max() == reached.min() else None

    def _mixed_payoff(self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx) -> Vec:
        key = (ctx.from_split, ctx.split_aces, payoff_features(comp), i0, doubled, rescued)
        parts = self._hand_parts.get(key)
        if parts is None:
            parts = self._hand_parts[key] = self._parts(comp, i0, doubled, rescued, ctx)
        if len(parts) == 1:
            return self._settled(parts[0][1], ctx.up)
        (p_mixed, mixed), (p_suited, hearts), (p_spades, spades) = parts
        return (
            p_mixed * self._settled(mixed, ctx.up)
            + p_suited * self._settled(hearts, ctx.up)
            + p_spades * self._settled(spades, ctx.up)
        )

    def _parts(
        self, comp: Comp, i0: int, doubled: bool, rescued: bool, ctx: Ctx
    ) -> list[tuple[float, Prepared]]:
        """The hand's suit patterns with their chances: one, or where a suited bonus hand
        (6-7-8, 7-7-7) could be made of these ranks, mixed, suited and spades."""
        cards = representative(comp, i0)
        values = tuple(sorted(c.points for c in cards))
        if values in SUITED_ROWS and (self.rules.payouts.bonus or self.rules.super_bonus.enabled):
            ranks = SUITED_ROWS[values]
            pattern = self.shoe.suit_pattern(ranks)
            return [
                (pattern["mixed"], self._prepare(cards, doubled, rescued, ctx, False)),
                (
                    pattern["suited"],
                    self._prepare(
                        [Card(r, Suit.HEARTS) for r in ranks], doubled, rescued, ctx, False
                    ),
                ),
                (
                    pattern["spades"],
                    self._prepare(
                        [Card(r, Suit.SPADES) for r in ranks], doubled, rescued, ctx, False
                    ),
                ),
            ]
        return [(1.0, self._prepare(cards, doubled, rescued, ctx, False))]

    def terminal_value(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rescued: bool, rows: Rows
    ) -> float:
        payoff, constant = self._payoff_and_constant(comp, i0, doubled, rescued, ctx)
        if constant is None and rows.total <= self.tables[ctx.up]._max_drawn:  # (a tiny shoe)
            constant = self.outright(comp, i0, doubled, rescued, ctx, rows)
        if constant is not None:  # settled whatever the dealer holds (bust, NZ 21...)
            if self._peeks[ctx.up]:
                return constant * (1.0 - self.tables[ctx.up].natural_probability(rows.shoe))
            return constant
        return float(self.dealer_of(ctx.up, rows) @ payoff)

    # --- what the rules allow ----------------------------------------------------------------

    def _hand_state(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool) -> HandState:
        w = self.wager_cents
        return HandState(
            representative(comp, i0),
            [StakeState(PLAYER, w, w if doubled else 0)],
            from_split=ctx.from_split,
            split_aces=ctx.split_aces,
            doubles=1 if doubled else 0,
        )

    def _box_state(self, hand: HandState, hands: int) -> BoxState:
        return BoxState(1, [Wager(PLAYER, self.wager_cents)], [hand] * hands)

    def facts(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool) -> Facts:
        """end_of_hand and the why_not_* checks for this hand. They read only the features in
        the cache key (hard total, aces, cards, initial aces, doubled, split flags, a pair), so
        they are asked once per feature set, on a representative hand."""
        n, hard = shape(comp)
        pair = n == 2 and max(comp) == 2
        key = (hard, comp[0], n, i0, doubled, ctx.from_split, ctx.split_aces, pair)
        got = self._facts.get(key)
        if got is None:
            got = self._shared.facts.get(key)
            if got is not None:
                self._facts[key] = got
                self._fact_args[key] = (ctx, comp, i0, doubled)
                return got
            hand = self._hand_state(ctx, comp, i0, doubled)
            rules = self.rules
            # the round's own checks, its rules too (a 21 that plays on, doubling on some
            # totals only)
            end = end_of_hand(rules, hand) if n >= 2 else None
            box = self._box_state(hand, 1)
            no_double = why_not_double(rules, box, hand, None, [PLAYER])
            got = Facts(
                end=end,
                can_stand=end is None and why_not_stand(rules, hand) is None,
                can_hit=end is None and why_not_hit(rules, hand) is None,
                can_double=end is None and no_double is None,
                can_rescue=doubled
                and rules.double.rescue
                and why_not_rescue(rules, hand, PLAYER) is None,
                key=key,
            )
            self._facts[key] = self._shared.facts[key] = got
            self._fact_args[key] = (ctx, comp, i0, doubled)
        return got

    def up_card(self, up: Up) -> Card | None:
        return None if up is None else card_of(up)

    def draws(self, up: Up, removed: Comp) -> list[tuple[int, float]]:
        shoe = self.remaining(up, removed)
        total = sum(shoe)
        if total <= 0:
            return []
        return [(v, shoe[v - 1] / total) for v in VALUES if shoe[v - 1] > 0]

    def strategy_action(
        self,
        ctx: Ctx,
        comp: Comp,
        i0: int,
        doubled: bool,
        *,
        can_double: bool,
        can_split: bool = False,
        can_surrender: bool = False,
    ) -> Action:
        assert self.strategy is not None
        n, hard = shape(comp)
        key = (
            hard,
            comp[0],
            n,
            i0,
            doubled,
            n == 2 and max(comp) == 2,
            ctx.up,
            can_double,
            can_split,
            can_surrender,
        )
        got = self._decide.get(key)
        if got is None:
            got = self.strategy.decide(
                self.rules,
                representative(comp, i0),
                self.up_card(ctx.up),
                can_double=can_double,
                can_split=can_split,
                can_surrender=can_surrender,
                doubled=doubled,
            )
            self._decide[key] = got
            self._decide_args[key] = (ctx, comp, i0, doubled, can_double, can_split, can_surrender)
        return got

    # --- the hand ----------------------------------------------------------------------------

    def value(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rows: Rows) -> float:
        return self.decision(ctx, comp, i0, doubled, rows)[0]

    def action_value(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rows: Rows, action: Action
    ) -> float:
        if action is Action.STAND:
            return self.terminal_value(ctx, comp, i0, doubled, False, rows)
        return self._draw_value(ctx, comp, i0, doubled or action is Action.DOUBLE, rows)

    def _draw_value(self, ctx: Ctx, comp: Comp, i0: int, after: bool, rows: Rows) -> float:
        """The value of drawing one card (hit, or double where ``after`` is the doubled
        flag the hand goes on with): each next card's hand, weighted by its count."""
        shoe = rows.shoe
        total = rows.total
        out = 0.0
        group = self._memo.group(ctx, i0, after)
        index, values = group.index, group.values
        nexts = _successors(comp)
        for i, n in enumerate(shoe):
            if n > 0:
                nxt = nexts[i]
                j = index.get(nxt)
                if j is None:  # (the child rows only where the hand is new)
                    v = self._walk(group, ctx, nxt, i0, after, rows.child(i + 1))
                else:
                    v = values[j]
                out += n * v
        return out / total if total else 0.0

    def legal(self, facts: Facts) -> list[Action]:
        out = []
        if facts.can_stand:
            out.append(Action.STAND)
        if facts.can_hit:
            out.append(Action.HIT)
        if facts.can_double:
            out.append(Action.DOUBLE)
        return out

    def decision(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rows: Rows
    ) -> tuple[float, str]:
        """(value, what is done) of a hand that has just received a card: a decision (an
        action's value) or, where the hand is over, how it ends (a :class:`HandEnd`)."""
        got = self._memo.group(ctx, i0, doubled).get(comp)
        if got is not None:
            return got
        return self._decision(ctx, comp, i0, doubled, rows)

    def _decision(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rows: Rows
    ) -> tuple[float, str]:
        """:meth:`decision` of a hand not in the memo yet."""
        group = self._memo.group(ctx, i0, doubled)
        self._walk(group, ctx, comp, i0, doubled, rows)
        got = group.get(comp)
        assert got is not None
        return got

    def _walk(
        self, group: Group, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rows: Rows
    ) -> float:
        """The value of a hand not in ``group`` (its context's, initial aces' and doubled
        flag's hands) yet, put there with what is done."""
        nodes = group.nodes
        node = nodes.get(comp)
        if node is None:
            node = nodes[comp] = self._bare_node(ctx, comp, i0, doubled)
        facts, action, _stand = node
        end = facts.end
        v: float
        if end is not None:
            if doubled and end is not HandEnd.BUST and facts.can_rescue:
                v, what = self._finished(ctx, comp, i0, doubled, end, rows)
                group.put(comp, (v, what))
                return v
            v = self._stand_value(nodes, node, ctx, comp, i0, doubled, rows)
            code = _ENUM_CODES.get(id(end))
            group.add(comp, v, _end_code(end) if code is None else code)
        elif action is None:
            best = (-np.inf, "")
            for act in self.legal(facts):
                if act is Action.STAND:
                    v = self._stand_value(nodes, node, ctx, comp, i0, doubled, rows)
                else:
                    v = self.action_value(ctx, comp, i0, doubled, rows, act)
                if v > best[0]:
                    best = (v, act.value)
            group.put(comp, best)
            v = best[0]
        else:
            if action is Action.STAND:
                v = self.terminal_value(ctx, comp, i0, doubled, False, rows)
            else:
                v = self._draw_value(ctx, comp, i0, doubled or action is Action.DOUBLE, rows)
            code = _ENUM_CODES.get(id(action))
            group.add(comp, v, _action_code(action) if code is None else code)
        return v

    def _stand_value(
        self,
        nodes: dict[Comp, Node],
        node: Node,
        ctx: Ctx,
        comp: Comp,
        i0: int,
        doubled: bool,
        rows: Rows,
    ) -> float:
        """:meth:`terminal_value` of the hand as it is (not rescued), its payoff kept on its
        node (``nodes[comp]``, what the payoff depends on: :meth:`_payoff_and_constant`)."""
        got = node[2]
        if got is None:
            got = self._payoff_and_constant(comp, i0, doubled, False, ctx)
            nodes[comp] = self._interned((node[0], node[1], got))
        payoff, constant = got
        up = ctx.up
        if constant is None and rows.total <= self.tables[up]._max_drawn:  # (a tiny shoe)
            constant = self.outright(comp, i0, doubled, False, ctx, rows)
        if constant is not None:  # settled whatever the dealer holds (bust, NZ 21...)
            if self._peeks[up]:
                return constant * (1.0 - self.tables[up].natural_probability(rows.shoe))
            return constant
        return float(rows.categories(self._peeks[up]) @ payoff)

    def _interned(self, node: Node) -> Node:
        """One tuple for equal nodes (their facts and payoffs are the analysis' own objects,
        so compared by identity): a million hands share a few thousand."""
        facts, action, stand = node
        key = (id(facts), action, None if stand is None else id(stand))
        got = self._node_tuples.get(key)
        if got is None:
            got = self._node_tuples[key] = node
        return got

    def _bare_node(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool) -> Node:
        """:meth:`_node`, interned, with no stand payoff yet: worked out once per what it
        reads (the facts' features, :meth:`facts`, and the dealer's card for the strategy,
        :meth:`strategy_action`), not once per composition. The optimum's node is its facts
        alone (kept by :meth:`facts`: a key per dealer's card too was 20 MB of its walk)."""
        if self.strategy is None:
            return self._interned((self.facts(ctx, comp, i0, doubled), None, None))
        n, hard = shape(comp)
        key = (
            ctx.up,
            hard,
            comp[0],
            n,
            i0,
            doubled,
            ctx.from_split,
            ctx.split_aces,
            n == 2 and max(comp) == 2,
        )
        got = self._bare_nodes.get(key)
        if got is None:
            got = self._interned((*self._node(ctx, comp, i0, doubled), None))
            self._bare_nodes[key] = got
        return got

    def _node(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool) -> tuple[Facts, Action | None]:
        """What the rules say of a hand and what the strategy does (None: no strategy, or the
        hand is over), the same for every context with this dealer's card and split flags."""
        facts = self.facts(ctx, comp, i0, doubled)
        if self.strategy is None or facts.end is not None:
            return facts, None
        action = self.strategy_action(ctx, comp, i0, doubled, can_double=facts.can_double)
        if action not in self.legal(facts):
            raise ValueError(
                f"the strategy plays {action.value} on {representative(comp, i0)}, "
                f"which the rules do not allow"
            )
        return facts, action

    def _finished(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, end: HandEnd, rows: Rows
    ) -> tuple[float, str]:
        keep = self.terminal_value(ctx, comp, i0, doubled, False, rows)
        if doubled and end is not HandEnd.BUST and self.facts(ctx, comp, i0, doubled).can_rescue:
            rescue = self.terminal_value(ctx, comp, i0, doubled, True, rows)
            if self.strategy is None:
                take = rescue > keep
            else:
                take = self.strategy_rescues(ctx, comp, i0, doubled)
            if take:
                return rescue, HandEnd.RESCUED
        return keep, end

    def strategy_rescues(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool) -> bool:
        """The strategy's rescue of this doubled hand (it reads the total and the first two
        cards' aces: the facts' features), asked once per features and dealer's card."""
        assert self.strategy is not None
        key = (self.facts(ctx, comp, i0, doubled).key, ctx.up)
        got = self._rescues.get(key)
        if got is None:
            up = self.up_card(ctx.up)
            cards = representative(comp, i0)
            got = up is not None and self.strategy.rescue(self.rules, cards, up)
            self._rescues[key] = got
            self._rescue_args[key] = (ctx, comp, i0, doubled)
        return got

    # --- the box -----------------------------------------------------------------------------

    def root(self, up: Up, p1: int, p2: int) -> tuple[float, str]:
        """Value and first decision of a box dealt p1, p2 against ``up`` (W form)."""
        comp = comp_of((p1, p2))
        i0 = comp[0] if self.track_initial_aces else 0
        ctx = Ctx(up, ZERO)
        rows = self.rows(up, comp)
        if p1 == p2 == 10 and self.rules.split.match is SplitMatch.RANK:
            same = self.shoe.same_rank_tens()
            a = self._root(ctx, comp, i0, rows, pair=True)
            b = self._root(ctx, comp, i0, rows, pair=False)
            return same * a[0] + (1 - same) * b[0], a[1]
        return self._root(ctx, comp, i0, rows, pair=p1 == p2)

    def root_values(
        self, ctx: Ctx, comp: Comp, i0: int, rows: Rows, pair: bool
    ) -> tuple[dict[Action, float], bool, bool]:
        """Every first decision's value, and whether split and surrender are open."""
        hand, facts, can_split, can_surrender = self._root_options(ctx, comp, i0, pair)
        values: dict[Action, float] = {}
        wanted = self._root_plan(ctx, comp, i0, pair, facts, can_split, can_surrender)
        for action in wanted:
            if action is Action.SPLIT:
                values[action] = self.split_value(ctx.up, hand.cards[0].points)
            elif action is Action.SURRENDER:
                payoff = self.payoff(hand.cards, False, False, ctx, surrendered=True)
                values[action] = float(self.dealer_of(ctx.up, rows) @ payoff)
            else:
                values[action] = self.action_value(ctx, comp, i0, False, rows, action)
        if self.strategy is None:
            if can_split:
                values[Action.SPLIT] = self.split_value(ctx.up, hand.cards[0].points)
            if can_surrender:
                payoff = self.payoff(hand.cards, False, False, ctx, surrendered=True)
                values[Action.SURRENDER] = float(self.dealer_of(ctx.up, rows) @ payoff)
        return values, can_split, can_surrender

    def _root_options(
        self, ctx: Ctx, comp: Comp, i0: int, pair: bool
    ) -> tuple[HandState, Facts, bool, bool]:
        """A box's first hand as the round model sees it, its facts, and whether split and
        surrender are open."""
        rules = self.rules
        hand = self._hand_state(ctx, comp, i0, False)
        box = self._box_state(hand, 1)
        facts = self.facts(ctx, comp, i0, False)
        can_split = pair and why_not_split(rules, box, hand) is None
        can_surrender = (
            rules.surrender.allowed
            and surrender_offered(rules, self.up_card(ctx.up))
            and why_not_surrender(rules, box) is None
        )
        return hand, facts, can_split, can_surrender

    def _root_plan(
        self,
        ctx: Ctx,
        comp: Comp,
        i0: int,
        pair: bool,
        facts: Facts,
        can_split: bool,
        can_surrender: bool,
    ) -> list[Action]:
        """The first decisions whose values :meth:`root_values` works out: the strategy's one
        choice, or every legal hit, stand and double for the optimum (noted for
        :meth:`plays_as`)."""
        wanted = self.legal(facts)
        if self.strategy is not None:
            first = self.strategy_action(
                ctx,
                comp,
                i0,
                False,
                can_double=facts.can_double,
                can_split=can_split,
                can_surrender=can_surrender,
            )
            then = self.strategy_action(
                ctx, comp, i0, False, can_double=facts.can_double, can_split=can_split
            )
            wanted = [first if first is Action.SURRENDER else then]
        self._root_plans[(ctx.up, comp, i0, pair)] = tuple(wanted)
        return wanted

    def _root(self, ctx: Ctx, comp: Comp, i0: int, rows: Rows, pair: bool) -> tuple[float, str]:
        facts = self.facts(ctx, comp, i0, False)
        if facts.end is not None:
            return self.decision(ctx, comp, i0, False, rows)
        values, _split, _surrender = self.root_values(ctx, comp, i0, rows, pair)
        best = max(values, key=lambda a: values[a])
        return values[best], best.value

    def split_plan(
        self, up: Up, pair: int, hands: int, second: int
    ) -> tuple[bool, bool, Action | None]:
        """A split hand (``hands`` on the box) that got ``second``: whether it ended there,
        whether it may split again, and what the strategy does (None: no strategy, or the
        hand is over). Noted for :meth:`plays_as`."""
        key = (up, pair, hands, second)
        got = self._split_plans.get(key)
        if got is not None:
            return got
        rules = self.rules
        ctx = Ctx(up, comp_of([pair] * (hands - 1)), True, pair == 1)
        comp = comp_of((pair, second))
        i0 = comp[0] if self.track_initial_aces else 0
        facts = self.facts(ctx, comp, i0, False)
        if facts.end is not None:
            got = (True, False, None)
        else:
            hand = self._hand_state(ctx, comp, i0, False)
            box = self._box_state(hand, hands)
            can = (
                (pair != 1 or rules.split.resplit_aces)
                and second == pair
                and hands < rules.split.max_hands
                and why_not_split(rules, box, hand) is None
            )
            action = None
            if self.strategy is not None:
                action = self.strategy_action(
                    ctx, comp, i0, False, can_double=facts.can_double, can_split=can
                )
            got = (False, can, action)
        self._split_plans[key] = got
        return got

    def split_value(self, up: Up, pair: int) -> float:
        """The split of a pair of ``pair`` (all its hands together, in units of one wager)."""
        return self.split_hands_value(up, pair, 2, 2)

    def split_hands_value(self, up: Up, pair: int, pending: int, hands: int) -> float:
        """The split model's value of ``pending`` hands of a split pair of ``pair`` still to get
        their second card, ``hands`` hands on the box (all of them together, in units of one
        wager; W form, each hand weighted by the chance of no dealer natural from its own shoe).

        The hands get their second cards one by one, each from the shoe less the dealer's
        card and the ``hands`` pair cards split so far (not the other cards drawn: appendix
        9's approximation); a hand dealt a pair card that may be split again is split again
        where the policy does (the optimum: where that is worth more than playing it on with
        the hands after it as they are), making one more hand, and every hand after that
        counts one more pair card out. :meth:`split_value` is ``(2, 2)``; a split hand's
        choice to split again at ``(pending, hands)`` (itself among the ``pending``) is
        between ``(pending + 1, hands + 1)`` and its value played on plus
        ``(pending - 1, hands)``."""
        return self._split_hands(up, pair, pending, hands, {})

    def _split_hand(self, up: Up, pair: int, hands: int, second: int) -> tuple[float, bool]:
        """A split hand (``hands`` on the box) that got ``second``: its value without splitting
        again, and whether it may (optimum) or does (strategy) split again."""
        ctx = Ctx(up, comp_of([pair] * (hands - 1)), True, pair == 1)
        comp = comp_of((pair, second))
        i0 = comp[0] if self.track_initial_aces else 0
        rows = self.rows(up, plus(ctx.base, comp))
        ended, can, action = self.split_plan(up, pair, hands, second)
        if ended:
            return self.decision(ctx, comp, i0, False, rows)[0], False
        if action is None:
            return self.decision(ctx, comp, i0, False, rows)[0], can
        if action is Action.SPLIT:
            return 0.0, True
        return self.action_value(ctx, comp, i0, False, rows, action), False

    def _split_hands(
        self, up: Up, pair: int, pending: int, hands: int, memo: dict[tuple[int, int], float]
    ) -> float:
        """:meth:`split_value` of ``pending`` hands still to get their second card, ``hands``
        formed (a method, not a closure calling itself: that was a reference cycle holding the
        analysis, its memo and all, until a full collection)."""
        if pending == 0:
            return 0.0
        key = (pending, hands)
        if key in memo:
            return memo[key]
        total = 0.0
        rest = self._split_hands(up, pair, pending - 1, hands, memo)
        for c, p in self.draws(up, comp_of([pair] * hands)):
            v, again = self._split_hand(up, pair, hands, c)
            if again:
                resplit = self._split_hands(up, pair, pending + 1, hands + 1, memo)
                if self.strategy is not None or resplit > v + rest:
                    self.resplits[(up, pair, pending, hands)] = True
                    total += p * resplit
                else:
                    self.resplits[(up, pair, pending, hands)] = False
                    total += p * (v + rest)
            else:
                total += p * (v + rest)
        memo[key] = total
        return total

    # --- the same play under other rules ---------------------------------------------------------

    def plays_as(self, base: Analysis) -> bool:
        """Whether this analysis (other rules, a fixed strategy) plays every hand ``base``
        reached as ``base`` played it: the same shoe and dealer tables, and the same answer to
        every question ``base``'s walk put to the rules and the strategy (when a hand ends and
        whether it busts, what it may do, what the strategy does, rescues, first decisions,
        split hands). Then both reach the same finished hands with the same chances and differ
        only in what those hands are paid, so ``base``'s reach can be re-priced
        (:class:`controller.analysis.reprice.Reach`). Asked on the questions ``base`` met,
        worked out here from this analysis' own rules."""
        if self.strategy is None or base.strategy is None:
            return False  # the optimum's choices follow the payoffs
        if not self._same_deal(base):
            return False
        try:
            for (up, comp, i0, pair), wanted in base._root_plans.items():
                ctx = Ctx(up, ZERO)
                _hand, facts, can_split, can_surrender = self._root_options(ctx, comp, i0, pair)
                plan = self._root_plan(ctx, comp, i0, pair, facts, can_split, can_surrender)
                if tuple(plan) != wanted:
                    return False
            for (up, value, hands, second), split in base._split_plans.items():
                if self.split_plan(up, value, hands, second) != split:
                    return False
            answers = self._answers(base)
            # (rescues may differ: a rescued hand is reached all the same, and
            # :meth:`takes_rescue` says how it is paid now)
            if not (all(answers.facts_play.values()) and all(answers.decisions.values())):
                return False
        except ValueError:  # the strategy plays what these rules forbid: the walk will say
            return False
        return True

    def takes_rescue(self, ctx: Ctx, comp: Comp, i0: int) -> bool:
        """Whether the strategy rescues this doubled hand where it ends (as :meth:`_finished`
        decides: not bust, the rules allow it, the strategy takes it)."""
        facts = self.facts(ctx, comp, i0, True)
        return (
            facts.end not in (None, HandEnd.BUST)
            and facts.can_rescue
            and self.strategy is not None
            and self.strategy_rescues(ctx, comp, i0, True)
        )

    def _same_deal(self, base: Analysis) -> bool:
        """The same shoe, dealer tables, check for a natural and tracking of initial aces."""
        return (
            self.shoe == base.shoe
            and self.hidden == base.hidden
            and self._peeks == base._peeks
            and self.track_initial_aces == base.track_initial_aces
            and self.rules.split.match is base.rules.split.match
            and self.tables.keys() == base.tables.keys()
            and all(self.tables[u] is base.tables[u] for u in base.tables)
        )

    def _answers(self, base: Analysis) -> _Answers:
        """This analysis' answers to the questions ``base``'s walk asked, compared: per split
        flags, whether every hand's facts are the same (and the same in what the value reads of
        them), per dealer's card, whether every decision and rescue of the strategy is. A hand's
        facts and decision are these answers (:meth:`_node`), so they cover every hand met.
        Worked out once per ``base`` (:meth:`plays_as` then :meth:`reuse` ask both)."""
        got = self._answered
        if got is not None and got[0] is base:
            return got[1]
        out = self._compare(base)
        self._answered = (base, out)
        return out

    def _compare(self, base: Analysis) -> _Answers:
        out = _Answers({}, {}, {}, {})
        for key, (ctx, comp, i0, doubled) in base._fact_args.items():
            flags = (ctx.from_split, ctx.split_aces)
            was = base._facts[key]
            now = self.facts(ctx, comp, i0, doubled)
            out.facts[flags] = out.facts.get(flags, True) and now == was
            out.facts_play[flags] = out.facts_play.get(flags, True) and (
                _play_facts(now) == _play_facts(was)
            )
        for key, args in base._decide_args.items():
            ctx, comp, i0, doubled, can_double, can_split, can_surrender = args
            same = base._decide[key] == self.strategy_action(
                ctx,
                comp,
                i0,
                doubled,
                can_double=can_double,
                can_split=can_split,
                can_surrender=can_surrender,
            )
            out.decisions[ctx.up] = out.decisions.get(ctx.up, True) and same
        for key, (ctx, comp, i0, doubled) in base._rescue_args.items():
            same = base._rescues[key] == self.strategy_rescues(ctx, comp, i0, doubled)
            out.rescues[ctx.up] = out.rescues.get(ctx.up, True) and same
        return out

    def reuse(self, base: Analysis) -> int:
        """Take over ``base``'s hand values (its walk's memo) for every family of hands, a
        dealer's first card and split flags, in which these rules give every hand ``base``
        met there the same facts (the end and its name too) and decision, the same rescues and
        the same payoffs, from the same shoe and dealer tables: a hand's value is worked out
        from those alone (its context's other pair cards only choose the shoe, which
        is part of the memo's key). A rule of the splits, say, leaves the unsplit hands'
        values as they were. Returns how many values were taken over."""
        if not self._same_deal(base) or (self.strategy is None) != (base.strategy is None):
            return 0
        try:
            answers = self._answers(base)
        except ValueError:  # the strategy plays what these rules forbid: the walk will say
            return 0
        # per payoff features (what a payoff depends on: :func:`payoff_features`), on the
        # composition it was first worked out for
        payoffs: dict[tuple[Up, bool, bool], list[tuple[Comp, int, bool, bool]]] = {}
        for (
            up,
            from_split,
            split_aces,
            _f,
            i0,
            doubled,
            rescued,
        ), comp in base._payoff_comp.items():
            payoffs.setdefault((up, from_split, split_aces), []).append(
                (comp, i0, doubled, rescued)
            )
        verdict: dict[tuple[Up, bool, bool], bool] = {}
        taken = 0
        for (ctx, i0, doubled), group in base._memo.groups():
            family = (ctx.up, ctx.from_split, ctx.split_aces)
            same = verdict.get(family)
            if same is None:
                same = verdict[family] = (
                    answers.facts.get(family[1:], True)
                    and answers.decisions.get(ctx.up, True)
                    and answers.rescues.get(ctx.up, True)
                    and self._same_payoffs(base, family, payoffs.get(family, []))
                )
            if same:
                taken += self._memo.take(ctx, i0, doubled, group)
        return taken

    def _same_payoffs(
        self,
        base: Analysis,
        family: tuple[Up, bool, bool],
        payoffs: list[tuple[Comp, int, bool, bool]],
    ) -> bool:
        up, from_split, split_aces = family
        ctx = Ctx(up, ZERO, from_split, split_aces)
        for comp, i0, doubled, rescued in payoffs:
            vec = base._payoff_and_constant(comp, i0, doubled, rescued, ctx)[0]
            # (equal vectors have equal constants: :meth:`_payoff_and_constant`; a family
            # taken over never asks its payoffs again, so they are not kept)
            if not same_payoff(self.fresh_payoff(comp, i0, doubled, rescued, ctx), vec):
                return False
        return True

    # --- the round -----------------------------------------------------------------------------

    def natural_branch(self, up: Up, p1: int, p2: int) -> float:
        """Where the dealer checks for a natural: its chance times what it takes from this box."""
        if not self._peeks[up]:
            return 0.0
        comp = comp_of((p1, p2))
        full = self.dealer_of(up, self.rows(up, comp), with_natural=True)
        ctx = Ctx(up, ZERO)
        payoff = self.payoff(representative(comp), False, False, ctx)
        return float(full[NATURAL_INDEX] * payoff[NATURAL_INDEX])

    def initial_hands(self) -> list[tuple[Up, int, int, float]]:
        """Every (dealer first card, player first, player second) with its probability."""
        counts = self.shoe.counts
        n = sum(counts)
        out: list[tuple[Up, int, int, float]] = []
        ups: list[tuple[Up, float]] = (
            [(None, 1.0)]
            if self.hidden
            else [(u, counts[u - 1] / n) for u in VALUES if counts[u - 1]]
        )
        for up, pu in ups:
            after_up = counts if up is None else add(counts, up, -1)
            m = sum(after_up)
            for a in VALUES:
                if not after_up[a - 1]:
                    continue
                pa = after_up[a - 1] / m
                rest = add(after_up, a, -1)
                for b in VALUES:
                    if rest[b - 1]:
                        out.append((up, a, b, pu * pa * rest[b - 1] / (m - 1)))
        return out

    def expected_value(self) -> float:
        total = 0.0
        for up, a, b, p in self.initial_hands():
            total += p * (self.root(up, a, b)[0] + self.natural_branch(up, a, b))
        return total

    def house_edge(self) -> float:
        """The house edge per initial wager (+: the house wins)."""
        return -self.expected_value()


def _play_facts(facts: Facts) -> tuple[object, ...]:
    """What decides which hands a strategy reaches: whether the hand is over and whether it
    bust (not what the end is called: "natural" or "21"), what it may do (a rescue ends the
    hand either way: :meth:`Analysis.takes_rescue`)."""
    return (
        facts.end is None,
        facts.end is HandEnd.BUST,
        facts.can_stand,
        facts.can_hit,
        facts.can_double,
    )


@dataclass
class _Answers:
    """:meth:`Analysis._answers`: per split flags (facts) or dealer's card (decisions,
    rescues), whether every answer is the same."""

    facts: dict[tuple[bool, bool], bool]
    facts_play: dict[tuple[bool, bool], bool]
    decisions: dict[Up, bool]
    rescues: dict[Up, bool]
