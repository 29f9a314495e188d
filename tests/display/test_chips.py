"""An amount as the chips of the table: they always add up to it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.display.chips import bet_chips, breakdown, chips_json
from controller.table.config import DEFAULT_CHIPS


@given(
    st.integers(min_value=0, max_value=10_000_000),
    st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=12, unique=True),
)
def test_the_chips_and_the_rest_add_up_to_the_amount_and_the_rest_is_below_the_smallest_chip(
    cents: int, denominations: list[int]
) -> None:
    chips, rest = breakdown(cents, denominations)
    assert sum(d * n for d, n in chips) + rest == cents
    assert 0 <= rest < min(denominations)
    assert [d for d, _ in chips] == sorted({d for d, _ in chips}, reverse=True)


def test_a_dealer_pays_largest_chips_first_and_a_remainder_no_chip_makes_in_cash() -> None:
    assert breakdown(2_750, DEFAULT_CHIPS) == ([(2_500, 1), (100, 2), (50, 1)], 0)
    assert breakdown(1_525, (500, 100)) == ([(500, 3)], 25)
    shown = chips_json(1_525, (500, 100))
    assert shown["chips"] == [{"cents": 500, "count": 3, "text": "$5"}]
    assert (shown["rest_cents"], shown["rest"]) == (25, "$0.25")


def test_a_negative_amount_is_refused() -> None:
    with pytest.raises(ValueError, match="not negative"):
        breakdown(-100, DEFAULT_CHIPS)


def test_the_bet_chips_are_the_tables_chips_that_make_a_bet_it_takes_smallest_first() -> None:
    # $5 - $500 in $1 steps: not 50c (no bet is a multiple of it alone), not $1,000 (over)
    assert bet_chips(DEFAULT_CHIPS, 100, 50_000) == [100, 500, 2_500, 10_000, 50_000]
    assert bet_chips(DEFAULT_CHIPS, 50, 500_000) == [50, 100, 500, 2_500, 10_000, 50_000]
    assert bet_chips((2_500, 500), 1_000, 100_000) == [1_000]  # none fits: the increment
