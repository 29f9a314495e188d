"""The dealer's final hand, exactly, from any shoe composition.

The dealer's play is enumerated once per first card with the game's own drawing rule
(:func:`controller.game.hands.dealer_must_draw`) and ranking (:func:`dealer_rank`): every
sequence of draws the rule allows, grouped by the multiset of drawn cards (how many orderings
of it are valid sequences, and the final rank). The chance of one ordered draw sequence from a
shoe depends only on its multiset (a product of falling factorials), so a shoe's whole final
distribution is one vectorised sum over those multisets.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from controller.analysis.shoe import NVALUES, VALUES, Comp, card_of
from controller.game.hands import HandRank, Tier, dealer_must_draw, dealer_rank
from controller.game.rules import Variant
from drivers.tbl21.cards import Card

Category = tuple[Tier, int]  # (tier, total for Tier.TOTAL else 0): what compare() looks at
# Every category compare() can tell apart, in one order for every table.
CATEGORIES: tuple[Category, ...] = (
    (Tier.BUST, 0),
    *((Tier.TOTAL, t) for t in range(2, 22)),
    (Tier.FIVE_CARD_TRICK, 0),
    (Tier.NATURAL, 0),
)
CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
NATURAL_INDEX = CATEGORY_INDEX[(Tier.NATURAL, 0)]
NCATS = len(CATEGORIES)


def category_of(rank: HandRank) -> Category:
    return (rank.tier, rank.total if rank.tier is Tier.TOTAL else 0)


def category_label(cat: Category) -> str:
    tier, total = cat
    return {
        Tier.BUST: "bust",
        Tier.NATURAL: "natural",
        Tier.FIVE_CARD_TRICK: "five-card",
    }.get(tier, str(total))


@dataclass
class DealerTable:
    """The dealer's draw multisets from one first card (or from none: both cards drawn)."""

    first: int | None
    counts: npt.NDArray[np.int64]  # (M, 10) cards drawn after the first card
    orderings: npt.NDArray[np.float64]  # valid orderings of each multiset
    drawn: npt.NDArray[np.int64]  # cards drawn per multiset
    category: npt.NDArray[np.int64]  # index into CATEGORIES
    examples: dict[int, tuple[Card, ...]]  # one final dealer hand per category index
    max_count: int
    # per value, more than its count in any shoe drawn from (:meth:`shoe_key`)
    radix: tuple[int, ...]
    _flat: npt.NDArray[np.int64] = field(init=False, repr=False)
    _starts: npt.NDArray[np.int64] = field(init=False, repr=False)
    _steps: npt.NDArray[np.float64] = field(init=False, repr=False)
    _columns: list[npt.NDArray[np.float64]] = field(init=False, repr=False)
    _drawn: npt.NDArray[np.float64] = field(init=False, repr=False)
    _max_drawn: int = field(init=False, repr=False)
    _natural_rows: list[int] = field(init=False, repr=False)
    _low: int = field(init=False, repr=False)
    _left: dict[int, npt.NDArray[np.float64]] = field(init=False, repr=False)
    # shared by every Analysis that uses this table: the final categories and the natural's
    # chance per shoe drawn from (the vectors' bytes as :meth:`packed`, read as arrays: an
    # array object per shoe took three times the memory, and the optimum meets over half a
    # million shoes)
    by_shoe: dict[int, bytes] = field(init=False, repr=False)
    by_shoe_checked: dict[int, bytes] = field(init=False, repr=False)
    weights: tuple[int, ...] = field(init=False, repr=False)  # the radices' products below
    gap: bytes = field(init=False, repr=False)  # the zeros :meth:`packed` leaves out
    _naturals: dict[Comp, float] = field(init=False, repr=False)
    first_cards: frozenset[Card] = field(init=False, repr=False)  # of the examples

    def __post_init__(self) -> None:
        rows, cols = np.nonzero(self.counts)
        width = self.max_count + 1
        self._flat = cols * width + self.counts[rows, cols]
        self._starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        self._steps = np.arange(self.max_count, dtype=np.float64)
        self._columns = [self.counts[:, i].astype(np.float64) for i in range(NVALUES)]
        self._drawn = self.drawn.astype(np.float64)
        self._max_drawn = int(self.drawn.max()) if len(self.drawn) else 0
        self._natural_rows = [int(i) for i in np.flatnonzero(self.category == NATURAL_INDEX)]
        self._left = {}
        self.by_shoe = {}
        self.by_shoe_checked = {}
        self.weights = tuple(math.prod(self.radix[:i]) for i in range(NVALUES))
        # the first category after the bust the dealer can end in: those between are 0
        self._low = min((int(c) for c in self.category if c > 0), default=NCATS)
        self.gap = bytes(8 * (self._low - 1))
        self._naturals = {}
        self.first_cards = frozenset(ex[0] for ex in self.examples.values())

    def shoe_key(self, shoe: Comp) -> int | None:
        """A shoe drawn from as one int, its counts the digits in the mixed radix
        :attr:`radix` (one per shoe, and a quarter of a tuple's memory as a cache key); None
        where a count is out of range (a shoe less a card it did not hold)."""
        if not all(0 <= n < r for n, r in zip(shoe, self.radix, strict=True)):
            return None
        return sum(n * w for n, w in zip(shoe, self.weights, strict=True))

    def packed(self, vec: npt.NDArray[np.float64]) -> bytes:
        """A categories vector's bytes without the categories between the bust and the
        lowest the dealer can end in (every one 0.0 from this table: a dealer who stands on
        17 keeps 8 of 23): ``packed[:8] + gap + packed[8:]`` is the vector's bytes again."""
        return vec[:1].tobytes() + vec[self._low :].tobytes()

    def rows(self, shoe: Comp) -> npt.NDArray[np.float64]:
        """The chance of each draw multiset from ``shoe`` (the cards the dealer draws from)."""
        n = np.asarray(shoe, dtype=np.float64)
        ff = np.ones((NVALUES, self.max_count + 1))
        ff[:, 1:] = np.cumprod(np.maximum(n[:, None] - self._steps[None, :], 0.0), axis=1)
        prob: npt.NDArray[np.float64] = np.multiply.reduceat(
            ff.ravel().take(self._flat), self._starts
        )
        total = sum(shoe)
        den = [1.0]
        for i in range(int(self.drawn.max()) if len(self.drawn) else 0):
            den.append(den[-1] * max(total - i, 0))
        dens = np.asarray(den).take(self.drawn)
        prob *= self.orderings
        np.divide(prob, dens, out=prob, where=dens > 0)
        prob[dens <= 0] = 0.0
        return prob

    def remove(
        self, rows: npt.NDArray[np.float64], shoe: Comp, value: int, total: int | None = None
    ) -> npt.NDArray[np.float64]:
        """:meth:`rows` of ``shoe`` less one card of ``value``, from the rows of ``shoe``:
        each multiset's chance times (n_v - k_v) / n_v * N / (N - m). ``total``: N, the
        number of cards in ``shoe``, where the caller knows it."""
        n_v = shoe[value - 1]
        if total is None:
            total = sum(shoe)
        if n_v <= 0:
            raise ValueError(f"no card of value {value} left to remove")
        out: npt.NDArray[np.float64] = n_v - self._columns[value - 1]
        out *= rows
        left = self._left.get(total)
        if left is None:  # N - m per multiset, the same for every shoe of N cards
            left = self._left[total] = total - self._drawn
        if total <= self._max_drawn:  # a tiny shoe: some multisets can no longer be drawn
            np.divide(out, left, out=out, where=left > 0)
            out[left <= 0] = 0.0
        else:
            out /= left
        out *= total / n_v
        return out

    def natural_probability(self, shoe: Comp) -> float:
        """The chance of the dealer's natural from ``shoe`` (a few multisets, in plain Python)."""
        got = self._naturals.get(shoe)
        if got is not None:
            return got
        total = sum(shoe)
        out = 0.0
        for i in self._natural_rows:
            p = float(self.orderings[i])
            m = 0
            for v in range(NVALUES):
                for j in range(int(self.counts[i, v])):
                    p *= max(shoe[v] - j, 0) / max(total - m, 1)
                    m += 1
            out += p
        self._naturals[shoe] = out
        return out

    def categories(
        self, rows: npt.NDArray[np.float64], exclude_natural: bool
    ) -> npt.NDArray[np.float64]:
        out = np.asarray(
            np.bincount(self.category, weights=rows, minlength=NCATS), dtype=np.float64
        )
        if exclude_natural:
            out[NATURAL_INDEX] = 0.0
        return out

    def distribution(self, shoe: Comp, exclude_natural: bool) -> npt.NDArray[np.float64]:
        """Probability of each category from ``shoe`` (the cards the dealer draws from).
        ``exclude_natural``: leave out the natural (the dealer checked for it): the result then
        sums to the chance of no natural."""
        return self.categories(self.rows(shoe), exclude_natural)


_TABLES: dict[tuple[object, ...], DealerTable] = {}
MAX_TABLES = 128  # a par sheet needs about 60 (the decks curve, the dealer's rule toggles)


def dealer_rules_key(rules: Variant) -> tuple[object, ...]:
    """Every setting the dealer's table can depend on: the drawing rule
    (:func:`dealer_must_draw` reads ``rules.dealer``) and the ranking (:func:`dealer_rank`
    reads ``rules.hands.dealer_five_card_trick``)."""
    return (rules.dealer.model_dump_json(), rules.hands.dealer_five_card_trick)


def shared_table(rules: Variant, first: int | None, max_per_value: Comp) -> DealerTable:
    """:func:`build_table`, built once for every analysis with the same dealer rules and shoe
    (a par sheet's rule toggles mostly change only the player's rules), so the tables and
    their per-shoe results are shared."""
    key = (dealer_rules_key(rules), first, max_per_value)
    got = _TABLES.get(key)
    if got is None:
        if len(_TABLES) >= MAX_TABLES:
            _TABLES.clear()
        got = _TABLES[key] = build_table(rules, first, max_per_value)
    return got


def build_table(rules: Variant, first: int | None, max_per_value: Comp) -> DealerTable:
    """Enumerate the dealer's hands from ``first`` (None: from no card) drawing at most
    ``max_per_value`` cards of each value (the shoe's counts bound what can be drawn)."""
    found: dict[tuple[int, ...], list[float]] = {}
    examples: dict[int, tuple[Card, ...]] = {}
    hand: list[Card] = [] if first is None else [card_of(first)]
    drawn = [0] * NVALUES
    # the rule's answer per multiset of cards in the hand (the drawing rule and the ranking
    # read the cards' values, not their order): the category where the dealer stands, None
    # where the dealer draws; many orderings of one multiset meet the same question
    stops: dict[tuple[int, ...], int | None] = {}

    # (``walk`` is handed itself to call again: a closure naming itself is a reference cycle,
    # which held ``found`` and ``stops`` until the cycle collector ran)
    def walk(again: Callable[..., None]) -> None:
        if len(hand) >= 2:
            key = tuple(drawn)
            if key in stops:
                cat = stops[key]
            else:
                cat = stops[key] = (
                    None
                    if dealer_must_draw(rules, hand)
                    else CATEGORY_INDEX[category_of(dealer_rank(rules, hand))]
                )
            if cat is not None:
                examples.setdefault(cat, tuple(hand))
                entry = found.setdefault(key, [0.0, float(cat)])
                entry[0] += 1.0
                return
        for v in VALUES:
            if drawn[v - 1] + (1 if first == v else 0) >= max_per_value[v - 1]:
                continue
            drawn[v - 1] += 1
            hand.append(card_of(v))
            again(again)
            hand.pop()
            drawn[v - 1] -= 1

    walk(walk)
    keys = list(found)
    counts = np.array(keys, dtype=np.int64).reshape(len(keys), NVALUES)
    max_count = int(counts.max()) if keys else 1
    return DealerTable(
        first=first,
        counts=counts,
        orderings=np.array([found[k][0] for k in keys]),
        drawn=counts.sum(axis=1),
        category=np.array([int(found[k][1]) for k in keys], dtype=np.int64),
        examples=examples,
        max_count=max(max_count, 1),
        radix=tuple(n + 1 for n in max_per_value),
    )
