"""The pontoon strategies agree with an independent calculation of their rules."""

from __future__ import annotations

import math
from functools import cache

import pytest

from controller.play.strategy import load_strategy
from tests.strategy import pontoon_derivation as pontoon

TOLERANCE = 0.005  # units per hand: closer calls than this are left to the published chart
VARIANTS = (("uk-pontoon", True), ("pontoon-blackjack", False))


def ev_of(evs: dict[str, float], code: str) -> float:
    return evs.get(code[0], -math.inf)


@cache
def _cells(variant_id: str, uk: bool) -> list[tuple[str, int, int, str]]:
    strategy = load_strategy(variant_id)
    return [
        (kind, int(row), ncards, cells[ncards - 2])
        for kind in ("hard", "soft")
        for row, cells in strategy.tables[kind].items()
        for ncards in (2, 3, 4)
        if pontoon.exists(kind, int(row), ncards)
    ]


@pytest.mark.parametrize(("variant_id", "uk"), VARIANTS)
def test_every_pontoon_play_is_the_best_or_within_a_hair_of_it(variant_id: str, uk: bool) -> None:
    problems = []
    for kind, total, ncards, code in _cells(variant_id, uk):
        hard = total - 10 if kind == "soft" else total
        evs = pontoon.values(hard, kind == "soft", ncards, True, uk)
        best = max(evs.values())
        if ev_of(evs, code) < best - TOLERANCE:
            problems.append(f"{kind} {total} of {ncards} cards: {code} {evs}")
        if code[0] == "D":  # the fallback, when the hand was doubled already
            fallback = pontoon.values(hard, kind == "soft", ncards, False, uk)
            if ev_of(fallback, code[1].upper()) < max(fallback.values()) - TOLERANCE:
                problems.append(f"{kind} {total} of {ncards} cards: {code} fallback {fallback}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("variant_id", "uk"), VARIANTS)
def test_five_cards_stand_on_a_trick_worth_nearly_twice_the_stake(
    variant_id: str, uk: bool
) -> None:
    strategy = load_strategy(variant_id)
    assert all(cells[3] == "S" for cells in strategy.tables["hard"].values())
    assert pontoon.trick(uk) > 1.9


def test_the_dealer_five_card_trick_is_modelled_only_for_uk() -> None:
    assert pontoon.dealer_outcomes(True)[pontoon.TRICK] > 0.01
    assert pontoon.TRICK not in pontoon.dealer_outcomes(False)
    for uk in (True, False):
        assert math.isclose(sum(pontoon.dealer_outcomes(uk).values()), 1.0)


def test_the_calculation_doubles_three_card_soft_17_only_because_21_ends_the_hand() -> None:
    evs = pontoon.values(7, True, 3, True, True)
    assert evs["D"] > evs["H"] > evs["S"]


# The Wizard of Odds online Pontoon chart as published (the source both pontoon files cite),
# columns 2, 3, 4 cards; "D" is double else hit. Cells of hands that cannot exist are "-".
PUBLISHED_HARD = {
    4: "H - -", 5: "H - -", 6: "H H -", 7: "H H -", 8: "H H D", 9: "H D D", 10: "D D D",
    11: "D D D", 12: "H H D", 13: "H H D", 14: "H H D", 15: "S S D", 16: "S S D",
    17: "S S H", 18: "S S S", 19: "S S S", 20: "S S S",
}  # fmt: skip
PUBLISHED_SOFT = {
    13: "H H -", 14: "H H D", 15: "H H D", 16: "H H D", 17: "H H D", 18: "H H D",
    19: "S D D", 20: "S D D", 21: "S D D",
}  # fmt: skip


def test_under_the_charts_own_rules_the_calculation_gives_the_published_chart() -> None:
    problems = []
    for kind, chart in (("hard", PUBLISHED_HARD), ("soft", PUBLISHED_SOFT)):
        for total, row in chart.items():
            for ncards, play in zip((2, 3, 4), row.split(), strict=True):
                if play == "-" or (kind == "soft" and total == 21 and ncards == 2):
                    continue  # no such hand; a two-card soft 21 is a pontoon
                hard = total - 10 if kind == "soft" else total
                evs = pontoon.values(hard, kind == "soft", ncards, True, True, True)
                if ev_of(evs, play) < max(evs.values()) - TOLERANCE:
                    problems.append(f"{kind} {total} of {ncards} cards: chart {play}, {evs}")
    assert not problems, "\n".join(problems)


def test_the_files_differ_from_the_chart_only_where_a_21_ending_the_hand_matters() -> None:
    strategy = load_strategy("uk-pontoon")
    differences = {
        (kind, int(row), ncards)
        for kind, chart in (("hard", PUBLISHED_HARD), ("soft", PUBLISHED_SOFT))
        for row, cells in strategy.tables[kind].items()
        if int(row) in chart  # soft 12 is A-A, a pair in the chart
        for ncards, published in zip((2, 3, 4), chart[int(row)].split(), strict=True)
        if published != "-" and cells[ncards - 2][0] != published[0]
    }
    assert differences == {("soft", t, 3) for t in range(13, 19)}
