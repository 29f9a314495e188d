"""Builders for strategy tests: representative hands for a table cell, boxes to hold them."""

from __future__ import annotations

from collections.abc import Iterator

from controller.game.hands import hand_value
from controller.game.rules import Variant
from controller.game.settlement import Wager
from controller.play.strategy import COLUMN_RANKS, Strategy
from controller.round.model import BoxState, HandState, StakeState
from drivers.tbl21.cards import Card, DeckType, Rank, Suit

SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
NON_ACE_POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10)


def rank_of(points: int, deck: DeckType) -> Rank:
    """A rank worth ``points`` (1 = ace); ten-value is K in a Spanish deck, T otherwise."""
    if points == 1:
        return Rank.ACE
    if points == 10:
        return Rank.KING if deck is DeckType.SPANISH_48 else Rank.TEN
    return Rank(str(points))


def make_cards(points: tuple[int, ...], deck: DeckType) -> list[Card]:
    """Cards with these point values, suits rotating so that no two are the same card."""
    return [Card(rank_of(p, deck), SUITS[i % 4]) for i, p in enumerate(points)]


def _compositions(total: int, n: int, low: int) -> Iterator[tuple[int, ...]]:
    """Non-decreasing tuples of ``n`` values from NON_ACE_POINTS (>= low) summing to total."""
    if n == 0:
        if total == 0:
            yield ()
        return
    for p in NON_ACE_POINTS:
        if p < low or p * n > total:
            continue
        for rest in _compositions(total - p, n - 1, p):
            yield (p, *rest)


def _spread(items: list[tuple[int, ...]], most: int) -> list[tuple[int, ...]]:
    if len(items) <= most:
        return items
    step = (len(items) - 1) / (most - 1)
    return [items[round(i * step)] for i in range(most)]


def hands_for(kind: str, total: int, ncards: int, most: int = 3) -> list[tuple[int, ...]]:
    """Representative point tuples (in deal order) for a cell: hard ``total`` of ``ncards``
    cards (with no ace, and with an ace counting 1 where that exists), or soft ``total`` (one ace
    counted 11; with 3+ cards both an ace among the first two and an ace drawn later)."""
    out: list[tuple[int, ...]] = []
    if kind == "hard":
        plain = [c for c in _compositions(total, ncards, 2) if not _is_pair_of_two(c)]
        out += _spread(plain, most)
        if total >= 12:  # an ace that must count 1
            with_ace = [(*c[:1], 1, *c[1:]) for c in _compositions(total - 1, ncards - 1, 2)]
            out += _spread([c for c in with_ace if hand_value_is(c, total, soft=False)], 2)
    else:
        rest = list(_compositions(total - 11, ncards - 1, 2))
        if total == 12 and ncards == 2:
            rest = []  # A-A is a pair; soft 12 of two cards is only met when it cannot split
            out.append((1, 1))
        picked = _spread(rest, most)
        out += [(1, *c) for c in picked]  # the ace first: an initial ace
        if ncards >= 3:
            out += [(*c, 1) for c in picked]  # the ace last: drawn later
    return [c for c in out if hand_value_is(c, total, soft=kind == "soft")]


def _is_pair_of_two(points: tuple[int, ...]) -> bool:
    return len(points) == 2 and points[0] == points[1]


def hand_value_is(points: tuple[int, ...], total: int, *, soft: bool) -> bool:
    value = hand_value(make_cards(points, DeckType.STANDARD_52))
    return value.total == total and value.soft == soft


def pair_points(row: str) -> int:
    return {"AA": 1, "TT": 10}.get(row) or int(row[0])


def up_cards(strategy: Strategy, rules: Variant, column: str) -> list[Card | None]:
    """The dealer cards a column stands for (None where the player sees no dealer card)."""
    if not strategy.by_up_card:
        return [None]
    ranks = [
        r
        for r in COLUMN_RANKS[column]
        if not (r is Rank.TEN and rules.shoe.deck is DeckType.SPANISH_48)
    ]
    return [Card(r, Suit.CLUBS) for r in ranks]


def box_with(
    cards: list[Card],
    *,
    hands_on_box: int = 1,
    doubled: bool = False,
    from_split: bool = False,
) -> tuple[BoxState, HandState]:
    """A box holding this hand (and ``hands_on_box - 1`` other split hands)."""
    stake = StakeState("ann", 1000, 1000 if doubled else 0)
    hand = HandState(
        cards,
        [stake],
        from_split=from_split or hands_on_box > 1,
        split_aces=(from_split or hands_on_box > 1) and cards[0].is_ace,
        doubles=1 if doubled else 0,
        cards_at_double=len(cards) - 1 if doubled else 0,
    )
    others = [
        HandState([Card(Rank.NINE, Suit.HEARTS)], [StakeState("ann", 1000)], from_split=True)
        for _ in range(hands_on_box - 1)
    ]
    box = BoxState(1, [Wager("ann", 1000)], [hand, *others])
    return box, hand
