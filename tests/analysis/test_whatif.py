"""Every what-if a user can type is dealt and modelled, or refused with why (issue 28): a rule
the table would deal no differently is never accepted silently."""

from __future__ import annotations

import pytest

from controller.analysis.engine import Analysis
from controller.analysis.parsheet import toggles
from controller.analysis.shoe import Shoe
from controller.game.errors import ConfigError
from controller.game.rules import load_variant


def test_resplitting_one_card_split_aces_is_refused_as_a_rule_the_table_cannot_deal() -> None:
    with pytest.raises(ConfigError) as caught:
        load_variant("pa-blackjack", {"split.resplit_aces": True})
    said = str(caught.value)
    assert "split.resplit_aces = true" in said
    assert "the table cannot deal resplitting one-card split aces yet" in said


def test_resplitting_aces_that_draw_on_is_still_a_rule() -> None:
    rules = load_variant(
        "pa-blackjack", {"split.resplit_aces": True, "split.split_aces_one_card": False}
    )
    assert rules.split.resplit_aces


def test_a_redouble_after_one_card_is_refused_as_a_rule_the_table_cannot_deal() -> None:
    with pytest.raises(ConfigError) as caught:
        load_variant("pa-blackjack", {"double.times_per_hand": 3})
    said = str(caught.value)
    assert "double.times_per_hand = 3" in said
    assert "the table cannot deal a redouble" in said


def test_a_second_double_the_table_deals_is_refused_by_the_analysis_with_why() -> None:
    """uk-pontoon draws on after a double, so the table deals a second one; the analysis plays
    one double per hand and says so instead of giving the one-double figure."""
    rules = load_variant("uk-pontoon", {"double.times_per_hand": 2})  # a table may deal it
    with pytest.raises(ConfigError, match="cannot give that game's figures yet"):
        Analysis(rules, Shoe.of_variant(rules))


@pytest.mark.parametrize("variant", ["pa-blackjack", "nz-pontoon", "uk-pontoon"])
def test_every_split_ace_toggle_of_the_par_sheet_is_a_rule_the_table_deals(variant: str) -> None:
    rules = load_variant(variant)
    for _what, overrides in toggles(rules):
        if any(key.startswith("split.") for key in overrides):
            load_variant(variant, overrides)  # refused (ConfigError) if inert
    names = [what for what, _ in toggles(rules)]
    assert ("resplit aces" in names) is False
    assert ("no resplit aces" in names) is (variant == "uk-pontoon")
