"""A shoe as the analysis sees it: how many cards of each point value (A=1 .. ten-value=10),
and, for the few rules that look at ranks or suits, how those cards divide into ranks and suits.

Cards of one value are exchangeable, so the chance of a rank or suit pattern among cards of
known values follows from the full shoe's counts (:meth:`Shoe.same_suit`,
:meth:`Shoe.same_rank_tens`), whatever else was dealt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from math import comb

from controller.game.rules import Variant
from drivers.tbl21.cards import Card, Rank, Suit, shoe_cards

VALUES = tuple(range(1, 11))  # index i holds value i + 1
NVALUES = 10
Comp = tuple[int, ...]  # ten counts, index value - 1

# One card standing for each value when the game's own functions are called.
VALUE_RANK: dict[int, Rank] = {
    1: Rank.ACE,
    2: Rank.TWO,
    3: Rank.THREE,
    4: Rank.FOUR,
    5: Rank.FIVE,
    6: Rank.SIX,
    7: Rank.SEVEN,
    8: Rank.EIGHT,
    9: Rank.NINE,
    10: Rank.KING,
}
_SUIT_ORDER = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)


# the cards are immutable, so one of each (value, suit) serves every call
_CARDS: dict[tuple[int, Suit], Card] = {
    (v, s): Card(r, s) for v, r in VALUE_RANK.items() for s in Suit
}


def card_of(value: int, suit: Suit = Suit.HEARTS) -> Card:
    return _CARDS[(value, suit)]


ZERO: Comp = (0,) * NVALUES


def add(comp: Comp, value: int, n: int = 1) -> Comp:
    out = list(comp)
    out[value - 1] += n
    return tuple(out)


def plus(a: Comp, b: Comp) -> Comp:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def comp_of(values: Iterable[int]) -> Comp:
    out = [0] * NVALUES
    for v in values:
        out[v - 1] += 1
    return tuple(out)


@dataclass(frozen=True)
class Shoe:
    """The cards of a shoe before a round: counts by value, and by (rank, suit)."""

    counts: Comp
    inventory: tuple[tuple[Card, int], ...]

    @classmethod
    def of_cards(cls, cards: Iterable[Card]) -> Shoe:
        inv = Counter(cards)
        counts = [0] * NVALUES
        for card, n in inv.items():
            counts[card.points - 1] += n
        return cls(tuple(counts), tuple(sorted(inv.items())))

    @classmethod
    def of_variant(cls, rules: Variant) -> Shoe:
        return cls.of_cards(shoe_cards(rules.shoe.deck, rules.shoe.decks))

    @property
    def size(self) -> int:
        return sum(self.counts)

    def _rank_suit(self) -> Counter[tuple[Rank, Suit]]:
        return Counter({(c.rank, c.suit): n for c, n in self.inventory})

    def suit_pattern(self, ranks: tuple[Rank, ...]) -> dict[str, float]:
        """For cards of the given ranks (distinct ranks, or one rank three times), the chance
        they are all of one suit other than spades, all spades, or mixed."""
        rs = self._rank_suit()
        by_rank = Counter(ranks)
        suited = dict.fromkeys(Suit, 1.0)
        for rank, k in by_rank.items():
            total = sum(rs[(rank, s)] for s in Suit)
            if total < k:
                return {"suited": 0.0, "spades": 0.0, "mixed": 0.0}
            for s in Suit:
                suited[s] *= comb(rs[(rank, s)], k) / comb(total, k)
        spades = suited[Suit.SPADES]
        other = sum(p for s, p in suited.items() if s is not Suit.SPADES)
        return {"suited": other, "spades": spades, "mixed": 1.0 - other - spades}

    def same_rank_tens(self) -> float:
        """The chance that two ten-value cards are of one rank (a pair where pairs match by
        rank)."""
        rs = self._rank_suit()
        by_rank = Counter[Rank]()
        for (rank, _suit), n in rs.items():
            if rank.points == 10:
                by_rank[rank] += n
        total = sum(by_rank.values())
        if total < 2:
            return 0.0
        return sum(comb(n, 2) for n in by_rank.values()) / comb(total, 2)


_REPRESENTATIVES: dict[tuple[Comp, int], tuple[Card, ...]] = {}


def representative(comp: Comp, initial_aces: int = 0) -> list[Card]:
    """Cards of the composition, ``initial_aces`` of its aces among the first two, suits
    spread so that no accidental suited bonus arises (worked out once per composition; a new
    list each call)."""
    got = _REPRESENTATIVES.get((comp, initial_aces))
    if got is None:
        got = _REPRESENTATIVES[(comp, initial_aces)] = tuple(_representative(comp, initial_aces))
    return list(got)


def _representative(comp: Comp, initial_aces: int) -> list[Card]:
    values: list[int] = []
    for i, n in enumerate(comp):
        values += [i + 1] * n
    aces = [v for v in values if v == 1]
    others = [v for v in values if v != 1]
    used_aces = min(initial_aces, len(aces))
    head = aces[:used_aces] + others[: 2 - used_aces]
    used_others = len(head) - used_aces
    if len(head) < 2:  # too few other cards: the first two hold more aces
        extra = 2 - len(head)
        head += aces[used_aces : used_aces + extra]
        used_aces += extra
    ordered = head + others[used_others:] + aces[used_aces:]
    return [card_of(v, _SUIT_ORDER[i % 3]) for i, v in enumerate(ordered)]
