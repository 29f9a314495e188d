"""The analysis against published exact figures (tests/analysis/published.py names the
sources): the dealer's final-total tables to five decimals and single-hand expected values
of the Wizard of Odds' appendix 9 to the published six decimals. The whole-game figures take
minutes and run in the bench (bench/analysis_published.py)."""

from __future__ import annotations

import pytest

from controller.analysis.dealer import NATURAL_INDEX
from controller.analysis.engine import Analysis, Ctx
from controller.analysis.parsheet import dealer_tables
from controller.analysis.shoe import ZERO, Shoe, comp_of
from controller.game.hands import HandEnd
from controller.game.rules import load_variant
from controller.round.spec import Action
from tests.analysis.published import (
    AFTER_CHECK_S17,
    BEFORE_CHECK_S17_1D,
    HANDS,
    game_overrides,
)

COLUMNS = ("17", "18", "19", "20", "21", "bust")


@pytest.mark.parametrize("decks", sorted(AFTER_CHECK_S17))
def test_dealer_final_totals_after_the_check_match_the_published_tables(decks: int) -> None:
    rules = load_variant("pa-blackjack", {"shoe.decks": decks, "shoe.cut_card_reserve": 10})
    table = dealer_tables(rules)
    for up, published in AFTER_CHECK_S17[decks].items():
        entry = table[up]
        row = entry.get("after_check", entry["before_check"])
        mine = tuple(row.get(c, 0.0) for c in COLUMNS)
        assert mine == pytest.approx(published, abs=6e-6), up


def test_dealer_final_totals_before_the_check_match_the_published_table() -> None:
    rules = load_variant("pa-blackjack", {"shoe.decks": 1, "shoe.cut_card_reserve": 10})
    table = dealer_tables(rules)
    for up, published in BEFORE_CHECK_S17_1D.items():
        row = table[up]["before_check"]
        mine = tuple(row.get(c, 0.0) for c in ("17", "18", "19", "20", "21", "natural", "bust"))
        assert mine == pytest.approx(published, abs=6e-6), up


@pytest.mark.parametrize("game", sorted(HANDS))
def test_hand_values_match_the_published_appendix_9(game: str) -> None:
    rules = load_variant("pa-blackjack", game_overrides(game))
    a = Analysis(rules, Shoe.of_variant(rules))
    for (up_text, (p1, p2)), published in HANDS[game].items():
        up = 1 if up_text == "A" else int(up_text)
        comp = comp_of((p1, p2))
        rows = a.rows(up, comp)
        values, _split, _surrender = a.root_values(Ctx(up, ZERO), comp, 0, rows, pair=False)
        no_natural = 1.0
        if a._peeks[up]:
            no_natural -= float(a.dealer(up, rows.get(), with_natural=True)[NATURAL_INDEX])
        mine = tuple(values[x] / no_natural for x in (Action.STAND, Action.HIT, Action.DOUBLE))
        assert mine == pytest.approx(published, abs=1e-6), (up_text, p1, p2)


@pytest.mark.parametrize(
    ("variant", "published"), [("nz-pontoon", 0.04181), ("pa-blackjack", 0.04749)]
)
def test_two_card_natural_frequency_is_the_published_exact_one(
    variant: str, published: float
) -> None:
    rules = load_variant(variant)
    a = Analysis(rules, Shoe.of_variant(rules))
    p = sum(
        prob
        for up, x, y, prob in a.initial_hands()
        if a.facts(Ctx(up, ZERO), comp_of((x, y)), 0, False).end is HandEnd.NATURAL
    )
    assert p == pytest.approx(published, abs=5e-6)
