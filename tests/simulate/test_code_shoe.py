"""The kernel's card stream is the simulator's: the same cards, shoe after shoe."""

from __future__ import annotations

import random

import pytest

from controller.play import kernel
from controller.play.hand_graph import CARDS
from controller.play.kernel import CodeShoe, _bulk_shuffle, _shuffle_for
from controller.play.simulate import ShoeStream
from drivers.tbl21.cards import DeckType, parse_cards


@pytest.mark.parametrize("size", [2, 3, 17, 288, 312, 416])
def test_the_bulk_shuffle_is_random_shuffle(size: int) -> None:
    for seed in range(25):
        expected, got = list(range(size)), list(range(size))
        a, b = random.Random(seed), random.Random(seed)
        for _ in range(4):  # shoe after shoe: the generator ends where random.shuffle leaves it
            a.shuffle(expected)
            _bulk_shuffle(b, got)
            assert got == expected
        assert a.getstate() == b.getstate()


def test_a_shuffle_that_disagrees_with_random_shuffle_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def reversed_shuffle(rng: random.Random, x: list[int]) -> None:
        x.reverse()

    monkeypatch.setattr(kernel, "_bulk_shuffle", reversed_shuffle)
    monkeypatch.setattr(kernel, "_SHUFFLE_CHECKED", [])
    assert _shuffle_for() is random.Random.shuffle


@pytest.mark.parametrize(("deck", "decks"), [(DeckType.SPANISH_48, 6), (DeckType.STANDARD_52, 8)])
def test_seeded_shoes_deal_the_cards_of_the_simulators_stream(deck: DeckType, decks: int) -> None:
    stream = ShoeStream(deck, decks, seed=99)
    shoe = CodeShoe(deck, decks, seed=99)
    for _ in range(3):
        expected = [stream.draw() for _ in range(deck.size * decks)]
        assert [CARDS[c] for c in shoe.cards] == expected
        stream.new_shoe()
        shoe.new_shoe()
    assert shoe.shoes == stream.shoes == 4


def test_a_recorded_order_goes_on_across_shuffles() -> None:
    cards = parse_cards("AS KH 7C 2D 9S")
    shoe = CodeShoe(DeckType.STANDARD_52, 1, cards=cards)
    shoe.at = 3
    shoe.new_shoe()
    assert (shoe.at, shoe.since, shoe.shoes, shoe.recorded) == (3, 3, 2, True)
    assert [CARDS[c] for c in shoe.cards[shoe.at :]] == parse_cards("2D 9S")
