"""Every what-if a user can type is dealt and modelled, or refused with why (issue 28): a rule
the table would deal no differently is never accepted silently."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controller.analysis.engine import Analysis
from controller.analysis.optimal import BASIC_ROUNDS, basic_strategy, start_chart
from controller.analysis.parsheet import chart_warning, shipped_strategy, toggles
from controller.analysis.report import title_fields
from controller.analysis.shoe import Shoe
from controller.cli.analyze import summary
from controller.game.errors import ConfigError
from controller.game.rules import load_variant
from controller.play.strategy import strategy_from_mapping
from drivers.tbl21.cards import parse_cards
from tests.analysis.brute import brute_force_ev

WAGER = 1000


def test_resplitting_one_card_split_aces_is_refused_as_a_rule_the_table_cannot_deal() -> None:
    with pytest.raises(ConfigError) as caught:
        load_variant("pa-blackjack", {"split.resplit_aces": True})
    said = str(caught.value)
    assert "split.resplit_aces = true" in said
    assert "the table cannot deal resplitting one-card split aces yet" in said


def test_doubling_one_card_split_aces_is_refused_as_a_rule_the_table_cannot_deal() -> None:
    with pytest.raises(ConfigError, match="the table cannot deal doubling one-card split aces"):
        load_variant("pa-blackjack", {"double.on_split_aces": True})


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


# --- the basic strategy (--strategy basic) and the chart that does not fit -----------------

TINY = {"split.allowed": False, "shoe.burn_cards": 0, "shoe.decks": 1, "shoe.cut_card_reserve": 1}


@pytest.mark.parametrize(
    ("variant", "cards", "extra"),
    [
        ("pa-blackjack", "KS KS KS AH AH 6H 5S 4D", {"dealer.hits_soft_17": True}),
        ("uk-pontoon", "KS KS KS KS AH 2D 3C 4H", {}),
    ],
)
def test_the_basic_strategy_is_a_chart_the_table_plays_between_the_start_and_the_optimum(
    variant: str, cards: str, extra: dict[str, object]
) -> None:
    """The generated basic strategy validates for the rules, is played by the round controller
    to the analysis' own value (brute force of a tiny shoe), is no worse than the chart it
    started from and no better than the composition-dependent optimum; for blackjack it is
    total-dependent (no card-count rows), for pontoon its columns are the hand's cards."""
    rules = load_variant(variant, {**TINY, "surrender.allowed": False, **extra})
    shoe = Shoe.of_cards(parse_cards(cards))
    data, strategy, edge, rounds = basic_strategy(rules, shoe, WAGER)
    assert 1 <= rounds <= BASIC_ROUNDS
    assert sorted(k for k in data if isinstance(data[k], dict)) == ["hard", "pairs", "soft"]
    assert data["columns"] == ("dealer-up-card" if variant == "pa-blackjack" else "player-cards")
    ev = brute_force_ev(rules, strategy, parse_cards(cards), WAGER)
    assert -edge == pytest.approx(ev, abs=1e-12)
    start = strategy_from_mapping(start_chart(rules), "start", rules)
    assert ev >= Analysis(rules, shoe, WAGER, start).expected_value() - 1e-12
    assert ev <= Analysis(rules, shoe, WAGER, None).expected_value() + 1e-12


def test_a_chart_that_does_not_fit_the_changed_rules_is_said_in_the_summary_and_headline() -> None:
    shipped = load_variant("pa-blackjack")
    changed = load_variant(
        "pa-blackjack", {"dealer.hits_soft_17": True, "surrender.allowed": False}
    )
    said = chart_warning(changed, shipped)
    assert said is not None
    assert "'Rh' surrenders, but pa-blackjack has no surrender" in said
    assert "--strategy basic generates the basic strategy for these rules" in said
    assert (
        chart_warning(load_variant("pa-blackjack", {"dealer.hits_soft_17": True}), shipped) is None
    )
    sheet = {
        "name": "n",
        "variant": "pa-blackjack",
        "overrides": {},
        "shoe": {"decks": 6, "deck": "52", "cards": 312},
        "strategy": "pa-blackjack.toml (the shipped rules' chart, played as is)",
        "strategy_warning": said,
        "house_edge": 0.006,
        "variance": 1.3,
        "standard_deviation": 1.14,
        "hit_frequency": {"round_won": 0.43, "round_pushed": 0.09, "round_lost": 0.48},
        "events": {},
        "contributions": [],
        "edge_by_decks": [],
        "method": {"cpu_seconds": 1.0, "engine_version": "2"},
    }
    lines = summary(sheet, cached=False, out_dir=None).splitlines()
    assert lines[2] == f"  NOTE: {said}"  # before the house edge
    fields = dict(title_fields(sheet, datetime.now(UTC)))
    assert fields["Strategy warning"] == said


# --- rules a user asks about that had no key ---------------------------------------------------


def test_more_decks_than_a_shoe_holds_are_analysed_but_refused_for_a_table() -> None:
    with pytest.raises(ConfigError, match=r"shoe\.decks = 12 \(an override\): must be a whole"):
        load_variant("pa-blackjack", {"shoe.decks": 12})
    rules = load_variant("pa-blackjack", {"shoe.decks": 12}, analysis=True)
    assert (rules.shoe.decks, rules.shoe.cut_card_reserve) == (12, 12 * 13)


def test_the_cut_card_reserve_follows_the_decks_unless_given_in_cards() -> None:
    assert load_variant("pa-blackjack").shoe.cut_card_reserve == 78  # 13 a deck, as shipped
    assert load_variant("pa-blackjack", {"shoe.decks": 1}).shoe.cut_card_reserve == 13
    given = {"shoe.decks": 1, "shoe.cut_card_reserve": 10}
    assert load_variant("pa-blackjack", given).shoe.cut_card_reserve == 10
    both = {"shoe.cut_card_reserve": 10, "shoe.cut_card_reserve_per_deck": 13}
    with pytest.raises(
        ConfigError, match=r"give shoe\.cut_card_reserve or shoe\.cut_card_reserve_"
    ):
        load_variant("pa-blackjack", both)


def test_doubling_on_some_totals_only_is_refused_for_a_table_the_round_would_deal_otherwise() -> (
    None
):
    with pytest.raises(ConfigError, match="the table does not check a double's total yet"):
        load_variant("pa-blackjack", {"double.on_totals": [10, 11]})


# Peter Griffin, The Theory of Blackjack, rule effects in percent for a basic strategy player,
# as tabulated at http://www.cliquiz.com/5 ("Double on 10-11 only: -0.26 -0.21 -0.18; Double
# on 9-10-11 only: -0.13 -0.11 -0.09" for 1 deck, 2 decks, multi-deck); the same sizes as
# Wikipedia's "between 0.09% (8 decks) and 0.15% (1 deck) for the 9-11 rule, and between 0.17%
# (8 decks) and 0.26% (single deck) for the 10-11 rule". Rounded effects of other base rules:
# agreement to 0.025 points.
@pytest.mark.parametrize(("decks", "published"), [(1, (0.26, 0.13)), (8, (0.18, 0.09))])
def test_doubling_on_some_totals_only_costs_the_published_points(
    decks: int, published: tuple[float, float]
) -> None:
    shipped = load_variant("pa-blackjack")

    def edge(extra: dict[str, object]) -> float:
        rules = load_variant("pa-blackjack", {"shoe.decks": decks, **extra}, analysis=True)
        strategy, _note = shipped_strategy(rules, shipped)  # Dh where no double: hit
        return Analysis(rules, Shoe.of_variant(rules), WAGER, strategy).house_edge()

    base = edge({})
    ten_eleven = 100 * (edge({"double.on_totals": [10, 11]}) - base)
    nine_eleven = 100 * (edge({"double.on_totals": [9, 10, 11]}) - base)
    assert (ten_eleven, nine_eleven) == pytest.approx(published, abs=0.025)
