"""The nz-pontoon strategy is what its documented calculation gives, and the model is sound."""

from __future__ import annotations

import math

import pytest

from controller.play.strategy import load_strategy
from tests.strategy import nz_derivation as nz


def test_the_shipped_nz_file_says_what_the_calculation_says() -> None:
    shipped = load_strategy("nz-pontoon").tables
    derived = nz.tables()
    assert sorted(shipped) == sorted(derived)
    for section, rows in derived.items():
        assert {r: tuple(c) for r, c in rows.items()} == dict(shipped[section]), section


@pytest.mark.parametrize("up", nz.UPS)
def test_the_dealer_outcomes_are_a_probability_distribution(up: int) -> None:
    assert math.isclose(sum(nz.dealer_outcomes(up).values()), 1.0)


def test_a_dealer_pontoon_comes_from_a_spanish_deck_at_the_right_rate() -> None:
    assert math.isclose(nz.natural_p(1), 12 / 48)  # ace up: a K/Q/J next
    assert math.isclose(nz.natural_p(10), 4 / 48)  # K/Q/J up: an ace next
    assert nz.natural_p(7) == 0.0


def test_surrender_never_pays_because_a_player_21_beats_a_later_pontoon() -> None:
    for up in nz.SURRENDER_UPS:
        for total in range(4, 21):
            assert nz.surrender(up) < max(nz.values(total, False, False, 2, up).values())
        assert nz.surrender(up) < nz.values(16, False, False, 2, up)["H"]  # the worst stiff


def test_a_soft_double_of_the_first_two_cards_is_never_the_best_play() -> None:
    for up in nz.UPS:
        for total in range(13, 21):
            evs = nz.values(total - 10, True, False, 2, up)
            assert evs["D"] < max(evs["H"], evs["S"])
