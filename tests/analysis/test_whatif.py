"""Every what-if a user can type is dealt and modelled, or refused with why (issue 28): a rule
the table would deal no differently is never accepted silently."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel

from controller.analysis.engine import Analysis, Ctx
from controller.analysis.optimal import (
    BASIC_ROUNDS,
    START,
    basic_strategy,
    improve,
    start_chart,
)
from controller.analysis.parsheet import (
    chart_warning,
    no_figure_notes,
    shipped_strategy,
    toggles,
)
from controller.analysis.report import title_fields
from controller.analysis.shoe import ZERO, Shoe, comp_of
from controller.cli.analyze import summary
from controller.cli.main import main
from controller.game.errors import ConfigError
from controller.game.hands import HandEnd
from controller.game.rules import Variant, load_variant
from controller.game.settlement import Wager
from controller.game.words import refusal_words
from controller.play.strategy import STRATEGIES_DIR, strategy_for, strategy_from_mapping
from controller.round.model import BoxState, HandState, StakeState, why_not_double
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


@pytest.mark.parametrize(("variant", "timing"), [("pa-blackjack", "early"), ("nz-pontoon", "late")])
def test_a_surrender_timing_the_table_would_not_deal_is_refused(variant: str, timing: str) -> None:
    with pytest.raises(ConfigError, match=f"surrender.timing = '{timing}' cannot be dealt"):
        load_variant(variant, {"surrender.timing": timing})


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
    data, strategy, edge, rounds, _start = basic_strategy(rules, shoe, WAGER)
    assert 1 <= rounds <= BASIC_ROUNDS
    assert sorted(k for k in data if isinstance(data[k], dict)) == ["hard", "pairs", "soft"]
    assert data["columns"] == ("dealer-up-card" if variant == "pa-blackjack" else "player-cards")
    ev = brute_force_ev(rules, strategy, parse_cards(cards), WAGER)
    assert -edge == pytest.approx(ev, abs=1e-12)
    start = strategy_from_mapping(start_chart(rules), "start", rules)
    assert ev >= Analysis(rules, shoe, WAGER, start).expected_value() - 1e-12
    assert ev <= Analysis(rules, shoe, WAGER, None).expected_value() + 1e-12


def test_the_basic_strategy_for_a_21_that_plays_on_is_as_good_as_the_published_chart() -> None:
    """The online Pontoon rules (a 21 plays on, one double at any point; one deck to keep it
    quick): improved from "stand on 17" alone the chart stops at a poorer local optimum, so
    the basic strategy also improves the shipped chart that fits the rules (the published
    online chart) and the optimum's play per cell, and keeps the best: at least as good as
    the published chart, and total-dependent up to the pontoon card-count rows."""
    rules = load_variant(
        "pontoon-blackjack",
        {
            "shoe.decks": 1,
            "double.max_cards": 0,
            "double.max_total_after_two": 21,
            "hands.twenty_one_ends_hand": False,
        },
        analysis=True,
    )
    shoe = Shoe.of_variant(rules)
    published = strategy_for(rules)
    assert Path(published.path).name == "pontoon-blackjack-online.toml"
    published_edge = Analysis(rules, shoe, WAGER, published).house_edge()
    basic = basic_strategy(rules, shoe, WAGER)
    assert basic.edge <= published_edge + 1e-12
    assert basic.edge >= Analysis(rules, shoe, WAGER, None).house_edge() - 1e-12
    alone = improve(rules, shoe, WAGER, start_chart(rules), START)
    assert alone.edge > published_edge + 0.001  # why one start is not enough
    assert "21" in basic.data["soft"]  # type: ignore[operator]


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


def test_a_table_doubling_on_some_totals_only_refuses_a_double_on_another_total() -> None:
    rules = load_variant("pa-blackjack", {"double.on_totals": [9, 10, 11]})
    for cards, why in (("5H 4D", None), ("6H 5D", None), ("7H 5D", "the hand has 12")):
        hand = HandState(parse_cards(cards), [StakeState("p1", 1000, 0)])
        box = BoxState(1, [Wager("p1", 1000)], [hand])
        refusal = why_not_double(rules, box, hand, 1000, ["p1"])
        if why is None:
            assert refusal is None, cards
        else:
            assert refusal is not None
            assert refusal_words(refusal) == f"double only on a total of 9, 10 or 11, {why}"
    soft = HandState(parse_cards("AH 9D"), [StakeState("p1", 1000, 0)])  # soft 20, not 10
    refusal = why_not_double(rules, BoxState(1, [Wager("p1", 1000)], [soft]), soft, 1000, ["p1"])
    assert refusal is not None
    assert refusal.number == 20


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


# --- no --set key is silently inert ------------------------------------------------------------

# Where each key that no_figure_notes does not name is shown changing a figure: a rule toggle of
# a shipped par sheet (bench/parsheet_same.py writes them), a test, or a validation refusal.
SHOWN: dict[str, str] = {
    "shoe.deck": "test_tiny_shoes (the Spanish 48-card shoe: pontoon-blackjack, nz-pontoon)",
    "shoe.decks": "toggle '8 decks instead of 6', the decks curve",
    "dealer.second_card": "test_tiny_shoes (NZ's after-boxes against the hole card)",
    "dealer.first_card_face_up": "test_tiny_shoes (uk-pontoon: both dealer cards face down)",
    "dealer.peek_up_cards": "test_published (the no-hole-card games against the peek)",
    "dealer.hits_soft_17": "toggle 'dealer hits soft 17'",
    "dealer.stands_on_five_cards": "toggle 'dealer draws past five cards'",
    "hands.ties": "toggle 'ties to the dealer'",
    "hands.natural_after_split": "toggle 'natural after a split'",
    "hands.five_card_trick": "toggle 'no five-card trick'",
    "hands.dealer_five_card_trick": "toggle 'no dealer five-card trick'",
    "hands.stand_minimum": "test_tiny_shoes (stand on 15: uk-pontoon)",
    "hands.max_cards": "test_tiny_shoes (uk-pontoon's five-card limit)",
    "hands.twenty_one_ends_hand": "test_a_21_that_plays_on_may_be_hit_and_a_chart_stands_on_it",
    "payouts.win": "test_reprice (payouts re-priced)",
    "payouts.natural": "toggle 'natural pays 2:1'",
    "payouts.five_card_trick": "test_reprice (payouts re-priced)",
    "payouts.twenty_one_paid_at_once": "toggle '21 not paid at once'",
    "payouts.bonus": "toggle 'no bonus table'",
    "payouts.rounding": "settle_round at --wager (a fraction of a cent at odds)",
    "super_bonus.enabled": "the Super Bonus section (its cost at each band)",
    "super_bonus.hand": "the Super Bonus section (one hand only: 7-7-7 suited)",
    "super_bonus.dealer_first_rank": "test_tiny_shoes (nz-pontoon: 7-7-7 against a dealer 7)",
    "super_bonus.bands": "the Super Bonus section (its cost at each band)",
    "super_bonus.other_wagers_cents": "the Super Bonus section (the table bonus's cost)",
    "super_bonus.paid_on_doubled": "test_reprice (the Super Bonus re-priced)",
    "super_bonus.paid_on_split": "test_reprice (the Super Bonus re-priced)",
    "double.allowed": "test_tiny_shoes (pa-blackjack's doubles)",
    "double.min_cards": "test_tiny_shoes (nz-pontoon: doubles on 2 or more cards)",
    "double.max_cards": "toggle 'double on two cards only'",
    "double.max_total_after_two": "test_tiny_shoes (nz-pontoon: a third card below 21)",
    "double.amount": "the full wager doubled (docs/analysis.md: never worse than less)",
    "double.times_per_hand": "refused above 1 (validation, or the analysis)",
    "double.on_totals": "test_doubling_on_some_totals_only_costs_the_published_points",
    "double.cards_after": "toggle 'one card after a double'",
    "double.after_split": "toggle 'no double after split'",
    "double.on_split_aces": "refused with one-card split aces; pontoon's split aces draw on",
    "double.initial_aces_count_one": "toggle 'initial aces count normally on a double'",
    "double.bonus_odds_on_doubled": "test_tiny_shoes (nz-pontoon's doubled bonus hands)",
    "double.rescue": "toggle 'no rescue'",
    "split.allowed": "test_published (appendix 9's split values)",
    "split.match": "pairs by rank or value (K-Q): the split's legality, why_not_split",
    "split.max_hands": "toggle 'split once only'",
    "split.resplit_aces": "toggle 'no resplit aces' (refused with one-card split aces)",
    "split.split_aces_one_card": "toggle 'split aces draw on'",
    "surrender.allowed": "toggle 'no surrender'",
    "surrender.timing": "refused where the table would deal the other timing (validation)",
    "surrender.up_cards": "test_tiny_shoes (nz-pontoon: surrender against A, K, Q, J)",
    "surrender.dealer_natural_takes_all": "test_reprice (surrender re-priced)",
    "insurance.allowed": "the insurance section",
    "insurance.pays": "the insurance section (its edge per unit insured)",
    "dealer_natural.against_doubles": "toggle 'dealer natural takes doubles and splits too'",
    "dealer_natural.against_splits": "toggle 'dealer natural takes doubles and splits too'",
}


def _keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    out = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out += _keys(kind, f"{prefix}{name}.")
        else:
            out.append(prefix + name)
    return out


def test_every_variant_key_changes_a_figure_or_is_refused_with_why() -> None:
    """A key added to the variant without saying where it changes a figure, or that it changes
    none (and croupier analyze then refuses it, saying why), fails here."""
    keys = [*_keys(Variant), "shoe.cut_card_reserve_per_deck"]
    noted = {k for k in keys if no_figure_notes({k: 1})}
    assert noted.isdisjoint(SHOWN)
    assert sorted(set(keys) - noted - set(SHOWN)) == []
    assert sorted(set(SHOWN) - set(keys)) == []


def test_a_set_that_changes_no_figure_is_refused_saying_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["analyze", "pa-blackjack", "--set", "table.boxes=3"])
    assert code == 2  # (refused before any figure is worked out)
    err = capsys.readouterr().err
    assert "--set table.boxes=3 changes no figure of the par sheet: the par sheet is " in err
    assert err.rstrip().endswith("so it is refused")


def test_a_21_that_plays_on_may_be_hit_and_a_chart_stands_on_it() -> None:
    """hands.twenty_one_ends_hand = false: a table takes it (the round plays the 21 on), but
    not with 21s paid at once; a three-card soft 21 may be hit or doubled (for pontoon's
    five-card trick), the best play is worth no less than with the 21 ending the hand, and a
    chart (no row for 21) stands on it: its value is the same either way."""
    load_variant("pontoon-blackjack", {"hands.twenty_one_ends_hand": False})
    with pytest.raises(ConfigError, match="the table pays a 21 when it is made"):
        load_variant("nz-pontoon", {"hands.twenty_one_ends_hand": False})
    tiny = {**TINY, "double.max_total_after_two": 21}
    ends = load_variant("pontoon-blackjack", tiny, analysis=True)
    plays_on = load_variant(
        "pontoon-blackjack", {**tiny, "hands.twenty_one_ends_hand": False}, analysis=True
    )
    shoe = Shoe.of_cards(parse_cards("KS KS AH 5D 5C 2D 3C 4H 2S"))
    soft_21 = comp_of((1, 5, 5))  # A-5-5
    ctx = Ctx(10, ZERO)
    before = Analysis(ends, shoe).facts(ctx, soft_21, 0, False)
    after = Analysis(plays_on, shoe).facts(ctx, soft_21, 0, False)
    assert (before.end, before.can_hit, before.can_double) == (HandEnd.TWENTY_ONE, False, False)
    assert (after.end, after.can_hit, after.can_double) == (None, True, True)
    assert Analysis(plays_on, shoe).expected_value() > Analysis(ends, shoe).expected_value()
    data = start_chart(ends)
    chart_ends = strategy_from_mapping(data, "chart", ends)
    chart_plays_on = strategy_from_mapping(data, "chart", plays_on)
    assert Analysis(plays_on, shoe, WAGER, chart_plays_on).expected_value() == pytest.approx(
        Analysis(ends, shoe, WAGER, chart_ends).expected_value(), abs=1e-12
    )


def test_the_21_rule_with_a_chart_without_row_21_is_refused_and_points_to_charts_that_play_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["analyze", "uk-pontoon", "--set", "hands.twenty_one_ends_hand=false"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "changes no figure with uk-pontoon.toml (it has no row for 21 and stands on it)" in err
    assert "--strategy basic or --strategy optimal plays it" in err
    shipped = str(STRATEGIES_DIR / "pontoon-blackjack.toml")
    assert main([*argv[:1], "pontoon-blackjack", *argv[2:], "--strategy", shipped]) == 2
    assert "changes no figure with pontoon-blackjack.toml" in capsys.readouterr().err
