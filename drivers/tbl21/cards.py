"""Playing cards: ranks, suits, the two-character notation and shoe composition.

Notation is rank then suit: rank in ``A23456789TJQK``, suit in ``SHDC`` (``TH`` is the ten of
hearts, ``AS`` the ace of spades). Anything else is refused with a message that says what is
allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drivers.tbl21.errors import CardNotationError


class Suit(StrEnum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[self.value]


class Rank(StrEnum):
    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def points(self) -> int:
        """Hard value of the rank: an ace counts 1 here, picture cards 10."""
        return _POINTS[self]

    @property
    def is_ace(self) -> bool:
        return self is Rank.ACE

    @property
    def is_ten_value(self) -> bool:
        return _POINTS[self] == 10


_POINTS: dict[Rank, int] = {
    Rank.ACE: 1,
    Rank.TWO: 2,
    Rank.THREE: 3,
    Rank.FOUR: 4,
    Rank.FIVE: 5,
    Rank.SIX: 6,
    Rank.SEVEN: 7,
    Rank.EIGHT: 8,
    Rank.NINE: 9,
    Rank.TEN: 10,
    Rank.JACK: 10,
    Rank.QUEEN: 10,
    Rank.KING: 10,
}

RANKS = "".join(r.value for r in Rank)
SUITS = "".join(s.value for s in Suit)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``AS``, ``TH``, ``7C``... (upper case only, exactly two characters)."""
        if not isinstance(text, str):
            raise CardNotationError(f"a card must be written as text like 'AS', got {text!r}")
        if len(text) != 2:
            raise CardNotationError(
                f"card {text!r}: expected two characters, rank then suit "
                f"(rank one of {RANKS}, suit one of {SUITS}), e.g. 'AS' or 'TH'"
            )
        rank_char, suit_char = text[0], text[1]
        if rank_char not in RANKS:
            hint = " (write ten as 'T')" if text.startswith("1") else ""
            raise CardNotationError(
                f"card {text!r}: rank {rank_char!r} is not one of {RANKS}{hint}"
            )
        if suit_char not in SUITS:
            raise CardNotationError(f"card {text!r}: suit {suit_char!r} is not one of {SUITS}")
        return cls(Rank(rank_char), Suit(suit_char))

    @property
    def points(self) -> int:
        return self.rank.points

    @property
    def is_ace(self) -> bool:
        return self.rank.is_ace

    @property
    def is_ten_value(self) -> bool:
        return self.rank.is_ten_value

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card({self})"


def parse_cards(texts: str | list[str]) -> list[Card]:
    """Parse a list of cards, or a whitespace/comma separated string of them."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return [Card.parse(t) for t in texts]


class DeckType(StrEnum):
    """A standard 52-card deck, or a Spanish 48-card deck (the four tens removed)."""

    STANDARD_52 = "52"
    SPANISH_48 = "48"

    @property
    def size(self) -> int:
        return int(self.value)


def deck(deck_type: DeckType) -> list[Card]:
    """One deck in new-pack order (suits S, H, D, C; ranks A..K)."""
    return [
        Card(rank, suit)
        for suit in Suit
        for rank in Rank
        if not (deck_type is DeckType.SPANISH_48 and rank is Rank.TEN)
    ]


def shoe_cards(deck_type: DeckType, decks: int) -> list[Card]:
    """All the cards of an unshuffled shoe of ``decks`` decks."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    return deck(deck_type) * decks
