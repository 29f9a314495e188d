"""An amount as the chips a dealer pays it with: the table's denominations, largest first.

This is how a dealer counts out a payout (the largest chip that fits, then the next), not a
search for the fewest chips; with the usual denominations (each a multiple of the ones below,
or 5 x 5) the two are the same. What no chip can make (a 25c remainder on a table whose
smallest chip is 50c) is the ``rest``, paid in cash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.game.prompts import money


def breakdown(cents: int, denominations: Sequence[int]) -> tuple[list[tuple[int, int]], int]:
    """``([(denomination, count), ...], rest)`` with ``sum(d * n) + rest == cents``."""
    if cents < 0:
        raise ValueError(f"an amount to pay is not negative: {cents}")
    left = cents
    out = []
    for chip in sorted(denominations, reverse=True):
        count, left = divmod(left, chip)
        if count:
            out.append((chip, count))
    return out, left


def chips_json(cents: int, denominations: Sequence[int]) -> dict[str, Any]:
    chips, rest = breakdown(cents, denominations)
    return {
        "chips": [{"cents": d, "count": n, "text": money(d)} for d, n in chips],
        "rest_cents": rest,
        "rest": money(rest) if rest else "",
    }


BET_CHIPS = 6  # chip buttons at the bet form, at most


def bet_chips(denominations: Sequence[int], increment_cents: int, max_cents: int) -> list[int]:
    """The chip buttons a touchscreen builds a bet with, smallest first: the table's chips
    that make a bet it takes (a multiple of its increment, at most its maximum), the six
    smallest of them; the increment alone if no chip does."""
    fit = sorted({d for d in denominations if d % increment_cents == 0 and d <= max_cents})
    return fit[:BET_CHIPS] or [increment_cents]
