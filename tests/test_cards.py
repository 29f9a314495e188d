"""Card notation and shoe composition."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.tbl21.cards import Card, DeckType, Rank, Suit, deck, parse_cards, shoe_cards
from drivers.tbl21.errors import CardNotationError


def test_notation_parses_rank_then_suit() -> None:
    assert Card.parse("AS") == Card(Rank.ACE, Suit.SPADES)
    assert Card.parse("TH") == Card(Rank.TEN, Suit.HEARTS)
    assert Card.parse("7C") == Card(Rank.SEVEN, Suit.CLUBS)


@given(st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))
def test_every_card_prints_as_it_parses(rank: Rank, suit: Suit) -> None:
    card = Card(rank, suit)
    assert Card.parse(str(card)) == card


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("10H", "two characters"),
        ("1H", "write ten as 'T'"),
        ("as", "rank 'a'"),
        ("AX", "suit 'X'"),
        ("", "two characters"),
        ("ZS", "is not one of A23456789TJQK"),
    ],
)
def test_bad_notation_is_refused_with_what_is_allowed(text: str, says: str) -> None:
    with pytest.raises(CardNotationError, match=says):
        Card.parse(text)


def test_parse_cards_accepts_a_spaced_or_comma_list() -> None:
    assert [str(c) for c in parse_cards("AS, KH 7C")] == ["AS", "KH", "7C"]


def test_picture_cards_and_ten_are_ten_value_ace_counts_one_hard() -> None:
    assert [Card.parse(t).points for t in ("AS", "TS", "JS", "QS", "KS", "9S")] == [
        1, 10, 10, 10, 10, 9,
    ]  # fmt: skip
    assert Card.parse("TD").is_ten_value
    assert not Card.parse("9D").is_ten_value


def test_standard_deck_has_52_distinct_cards() -> None:
    cards = deck(DeckType.STANDARD_52)
    assert len(cards) == 52 == len(set(cards))


def test_spanish_deck_is_the_standard_deck_without_its_four_tens() -> None:
    spanish = deck(DeckType.SPANISH_48)
    assert len(spanish) == 48
    assert set(deck(DeckType.STANDARD_52)) - set(spanish) == {Card(Rank.TEN, s) for s in Suit}


def test_a_six_deck_spanish_shoe_holds_six_of_each_card_and_no_tens() -> None:
    counts = Counter(shoe_cards(DeckType.SPANISH_48, 6))
    assert sum(counts.values()) == 288
    assert set(counts.values()) == {6}
    assert not any(c.rank is Rank.TEN for c in counts)
