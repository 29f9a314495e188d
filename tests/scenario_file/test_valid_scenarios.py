"""Valid scenario files load into the typed model the runner consumes."""

from decimal import Decimal
from pathlib import Path
from textwrap import dedent

import pytest

from controller.play.errors import ScenarioError
from controller.play.scenario_file import (
    Scenario,
    ScriptBet,
    ScriptDouble,
    ScriptedShoe,
    ScriptHit,
    ScriptInsurance,
    ScriptRescue,
    ScriptSplit,
    ScriptStand,
    ScriptSurrender,
    SeededShoe,
    known_variant_ids,
    load_scenario,
    parse_scenario,
)
from drivers.tbl21.cards import parse_cards

# The example of scenarios.md with its placeholder second round filled in.
CONTRACT_EXAMPLE = dedent(
    """\
    spec: 1
    variant: nz-pontoon            # a variant id from config/variants/, or a path
    rules:                         # optional: overrides of the variant's parameters
      decks: 8
    shoe: [2C, AS, KH, 7C, 9D]     # the cards the shoe delivers, in order
    rounds:
      - bets:
          - {box: 1, player: ann, amount: 10}      # first wager on a box = the box controller
          - {box: 1, player: bob, amount: 5}       # a second player on box 1
          - {box: 3, player: cat, amount: 25}
        actions:
          - insurance: {box: 1, player: ann, amount: 5}
          - surrender: {box: 3}
          - hit: {box: 1}
          - double: {box: 1, amount: 10, players: [ann]}   # players joining
          - split: {box: 1}
          - stand: {box: 1}
          - rescue: {box: 1, player: ann}
      - bets: [{box: 2, player: ann, amount: 2.5}]
        actions: []
    """
)


def parse(text: str) -> Scenario:
    return parse_scenario(dedent(text), "game.yaml")


def test_contract_example_loads_with_every_field_typed() -> None:
    scenario = parse_scenario(CONTRACT_EXAMPLE, "game.yaml")

    assert scenario.spec == 1
    assert scenario.variant == "nz-pontoon"
    assert scenario.variant_path is None
    assert dict(scenario.rules) == {"decks": 8}
    assert scenario.shoe == ScriptedShoe(tuple(parse_cards("2C AS KH 7C 9D")))
    assert scenario.source == "game.yaml"
    first, second = scenario.rounds
    assert first.bets == (
        ScriptBet(1, "ann", 1000),
        ScriptBet(1, "bob", 500),
        ScriptBet(3, "cat", 2500),
    )
    assert first.actions == (
        ScriptInsurance(1, player="ann", amount_cents=500),
        ScriptSurrender(3),
        ScriptHit(1),
        ScriptDouble(1, amount_cents=1000, players=("ann",)),
        ScriptSplit(1),
        ScriptStand(1),
        ScriptRescue(1, player="ann"),
    )
    assert second.bets == (ScriptBet(2, "ann", 250),)
    assert second.actions == ()


def test_actions_remember_the_line_they_were_written_on() -> None:
    scenario = parse_scenario(CONTRACT_EXAMPLE, "game.yaml")

    assert [a.line for a in scenario.rounds[0].actions] == list(range(12, 19))


def test_as_dict_reproduces_each_action_as_written_in_the_file() -> None:
    scenario = parse_scenario(CONTRACT_EXAMPLE, "game.yaml")

    assert [a.as_dict() for a in scenario.rounds[0].actions] == [
        {"insurance": {"box": 1, "player": "ann", "amount": 5}},
        {"surrender": {"box": 3}},
        {"hit": {"box": 1}},
        {"double": {"box": 1, "amount": 10, "players": ["ann"]}},
        {"split": {"box": 1}},
        {"stand": {"box": 1}},
        {"rescue": {"box": 1, "player": "ann"}},
    ]


def test_double_without_amount_or_players_means_full_wager_for_everyone_on_the_box() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: uk-pontoon
        shoe: [2C]
        rounds:
          - bets: [{box: 1, player: ann, amount: 10}, {box: 1, player: bob, amount: 5}]
            actions: [double: {box: 1}]
        """
    )

    (double,) = scenario.rounds[0].actions
    assert double == ScriptDouble(1, amount_cents=None, players=None)
    assert double.as_dict() == {"double": {"box": 1}}


def test_fractional_amount_is_echoed_in_currency_units() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: nz-pontoon
        shoe: [2C]
        rounds:
          - bets: [{box: 1, player: ann, amount: 10}]
            actions: [{insurance: {box: 1, player: ann, amount: 2.5}}]
        """
    )

    assert scenario.rounds[0].actions[0].as_dict() == {
        "insurance": {"box": 1, "player": "ann", "amount": 2.5}
    }


def test_seeded_shoe_rules_omitted_and_actions_omitted() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: pa-blackjack
        shoe: {seed: 7}
        rounds:
          - bets: [{box: 7, player: "no", amount: 1}]
        """
    )

    assert scenario.shoe == SeededShoe(7)
    assert dict(scenario.rules) == {}
    assert scenario.rounds[0].bets == (ScriptBet(7, "no", 100),)
    assert scenario.rounds[0].actions == ()


def test_rule_overrides_keep_their_scalar_types_and_fractions_stay_decimal() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: pa-blackjack
        rules: {decks: 2, dealer_hits_soft_17: true, natural_pays: "6:5", min_bet: 2.5}
        shoe: {seed: 1}
        rounds: [{bets: [{box: 1, player: ann, amount: 10}]}]
        """
    )

    assert dict(scenario.rules) == {
        "decks": 2,
        "dealer_hits_soft_17": True,
        "natural_pays": "6:5",
        "min_bet": Decimal("2.5"),
    }
    assert isinstance(scenario.rules["min_bet"], Decimal)


def test_yaml_anchors_and_merge_keys_are_understood() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: nz-pontoon
        shoe: {seed: 3}
        rounds:
          - &round
            bets: [{box: 1, player: ann, amount: 10}]
            actions: [stand: {box: 1}]
          - *round
          - <<: *round
            actions: []
        """
    )

    assert [len(r.actions) for r in scenario.rounds] == [1, 1, 0]


def test_variant_path_is_resolved_next_to_the_scenario_file(tmp_path: Path) -> None:
    (tmp_path / "variants").mkdir()
    variant_file = tmp_path / "variants" / "house.toml"
    variant_file.write_text("id = 'house'\n", encoding="utf-8")
    scenario_file = tmp_path / "game.yaml"
    scenario_file.write_text(
        "spec: 1\nvariant: variants/house.toml\nshoe: {seed: 1}\n"
        "rounds: [{bets: [{box: 1, player: ann, amount: 10}]}]\n",
        encoding="utf-8",
    )

    scenario = load_scenario(scenario_file)

    assert scenario.variant == "variants/house.toml"
    assert scenario.variant_path == variant_file.resolve()
    assert scenario.source == str(scenario_file)


def test_missing_scenario_file_is_a_scenario_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"

    with pytest.raises(ScenarioError) as caught:
        load_scenario(missing)

    assert str(caught.value).startswith(f"{missing}: cannot read the file")


def test_rule_sections_flatten_to_dotted_keys_and_lists_become_tuples() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: pa-blackjack
        rules:
          dealer:
            hits_soft_17: true
            peek_up_cards: [A, K]
          shoe.decks: 2
        shoe: {seed: 1}
        rounds: [{bets: [{box: 1, player: ann, amount: 10}]}]
        """
    )

    assert dict(scenario.rules) == {
        "dealer.hits_soft_17": True,
        "dealer.peek_up_cards": ("A", "K"),
        "shoe.decks": 2,
    }


def test_scenario_knows_the_line_of_every_key_for_later_messages() -> None:
    scenario = parse_scenario(CONTRACT_EXAMPLE, "game.yaml")

    assert scenario.line_of("rules.decks") == 4
    assert scenario.line_of("shoe[3]") == 5
    assert scenario.line_of("rounds[0].bets[2]") == 10
    assert scenario.line_of("rounds[0].actions[3].double.players") == 15
    assert scenario.line_of("rounds[1]") == 19
    assert scenario.line_of("rounds[9]") is None
    assert scenario.where("rules.decks") == "game.yaml:4: rules.decks"
    assert scenario.where("nope") == "game.yaml: nope"


def test_operator_variant_dropped_into_the_variants_folder_is_a_known_id(tmp_path: Path) -> None:
    (tmp_path / "house-pontoon.toml").write_text("id = 'house-pontoon'\n", encoding="utf-8")
    text = "spec: 1\nvariant: house-pontoon\nshoe: {seed: 1}\n"
    text += "rounds: [{bets: [{box: 1, player: ann, amount: 10}]}]\n"

    scenario = parse_scenario(text, "game.yaml", variants_dir=tmp_path)

    assert (scenario.variant, scenario.variant_path) == ("house-pontoon", None)
    assert known_variant_ids(tmp_path)[-1] == "house-pontoon"


def test_insurance_without_a_player_is_for_the_box_s_only_player_and_echoed_as_written() -> None:
    scenario = parse(
        """\
        spec: 1
        variant: nz-pontoon
        shoe: [2C]
        rounds:
          - bets: [{box: 1, player: ann, amount: 10}, {box: 2, player: bob, amount: 10}]
            actions: [{insurance: {box: 2, amount: 5}}]
        """
    )

    (insurance,) = scenario.rounds[0].actions
    assert insurance == ScriptInsurance(2, player="bob", amount_cents=500)
    assert insurance.as_dict() == {"insurance": {"box": 2, "amount": 5}}
