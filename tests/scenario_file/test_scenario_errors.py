"""Invalid scenario files are refused with the file, line, key path and what is allowed."""

from pathlib import Path
from textwrap import dedent, indent

import pytest

from controller.game.errors import CroupierError
from controller.play.errors import Problem, ScenarioError
from controller.play.scenario_file import parse_scenario

HEAD = "spec: 1\nvariant: nz-pontoon\nshoe: [2C, AS, KH]\n"
ONE_ROUND = "rounds:\n  - bets: [{box: 1, player: ann, amount: 10}]\n"


# Only the built-in variant ids, whatever operators have added to config/variants/.
BUILT_IN_ONLY = Path(__file__).parent / "no-variants-here"


def problems_of(text: str, source: str = "game.yaml") -> list[Problem]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source, variants_dir=BUILT_IN_ONLY)
    return list(caught.value.problems)


def only_problem(text: str) -> str:
    problems = problems_of(text)
    assert len(problems) == 1, [str(p) for p in problems]
    return str(problems[0])


def round_with(actions: str, bets: str = "[{box: 1, player: ann, amount: 10}]") -> str:
    return HEAD + f"rounds:\n  - bets: {bets}\n    actions:\n" + indent(dedent(actions), "      ")


def test_scenario_error_is_a_croupier_error_listing_every_problem() -> None:
    text = "spec: 2\nvariant: nz-pontoon\nshoe: {seed: x}\n" + ONE_ROUND

    with pytest.raises(CroupierError) as caught:
        parse_scenario(text, "game.yaml")

    assert isinstance(caught.value, ScenarioError)
    assert str(caught.value).splitlines() == [
        "game.yaml:1: spec: unsupported spec version 2; allowed: 1",
        "game.yaml:3: shoe.seed: must be a whole number, got 'x'",
    ]


def test_problem_records_file_line_column_path_and_allowed_choices() -> None:
    (problem,) = problems_of(
        HEAD + "rounds:\n  - bets: [{box: 1, player: ann, amount: 10}]\n    acions: []\n"
    )

    assert problem == Problem(
        file="game.yaml",
        line=6,
        path="rounds[0].acions",
        message="unknown key 'acions' (did you mean 'actions'?)",
        allowed=("bets", "actions"),
        column=5,
    )


def test_amount_problem_reads_like_the_documented_example() -> None:
    text = round_with(
        """\
        - hit: {box: 1}
        - stand: {box: 1}
        - double: {box: 1, amount: -5}
        """
    )

    assert only_problem(text) == (
        "game.yaml:9: rounds[0].actions[2].double.amount: must be a positive amount in currency "
        "units with at most 2 decimals, got -5"
    )


def test_misspelled_action_is_named_with_a_suggestion_and_the_allowed_actions() -> None:
    assert only_problem(round_with("- hitt: {box: 1}\n")) == (
        "game.yaml:7: rounds[0].actions[0].hitt: unknown action 'hitt' (did you mean 'hit'?); "
        "allowed: insurance, surrender, hit, stand, double, split, rescue, "
        "card_out_of_turn, supervisor, key_card, unreadable_card, reader, unplug, replug"
    )


def test_misspelled_top_level_key_is_suggested_instead_of_reported_missing() -> None:
    text = HEAD + "round:\n  - bets: [{box: 1, player: ann, amount: 10}]\n"

    assert only_problem(text) == (
        "game.yaml:4: round: unknown key 'round' (did you mean 'rounds'?); "
        "allowed: spec, variant, shoe, rounds, rules"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "variant: nz-pontoon\nshoe: [2C]\n" + ONE_ROUND,
            "game.yaml:1: spec: required key is missing",
            id="spec missing",
        ),
        pytest.param(
            "spec: '1'\nvariant: nz-pontoon\nshoe: [2C]\n" + ONE_ROUND,
            "game.yaml:1: spec: must be the spec version number, got '1'; allowed: 1",
            id="spec as text",
        ),
        pytest.param(
            "spec: true\nvariant: nz-pontoon\nshoe: [2C]\n" + ONE_ROUND,
            "game.yaml:1: spec: must be the spec version number, got true (read as true/false);"
            " allowed: 1",
            id="spec as boolean",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontone\nshoe: [2C]\n" + ONE_ROUND,
            "game.yaml:2: variant: unknown variant 'nz-pontone' (did you mean 'nz-pontoon'?); "
            "give a variant id or a path to a variant file; "
            "allowed: nz-pontoon, uk-pontoon, pa-blackjack, pontoon-blackjack",
            id="variant typo",
        ),
        pytest.param(
            "spec: 1\nvariant: [nz-pontoon]\nshoe: [2C]\n" + ONE_ROUND,
            "game.yaml:2: variant: must be a variant id or a path to a variant file, got a list; "
            "allowed: nz-pontoon, uk-pontoon, pa-blackjack, pontoon-blackjack",
            id="variant not text",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: [2C, 10H]\n" + ONE_ROUND,
            "game.yaml:3: shoe[1]: card '10H': expected two characters, rank then suit "
            "(rank one of A23456789TJQK, suit one of SHDC), e.g. 'AS' or 'TH'",
            id="card notation",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe:\n  - 2C\n  - 7\n" + ONE_ROUND,
            "game.yaml:5: shoe[1]: a card must be written as text like 'AS' or 'TH', got 7",
            id="card as number",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: []\n" + ONE_ROUND,
            "game.yaml:3: shoe: a scripted shoe must hold at least one card",
            id="empty shoe",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: {seed: 7, cards: [2C]}\n" + ONE_ROUND,
            "game.yaml:3: shoe: give either seed or cards (not both, not neither); "
            "allowed: seed, cards, cut",
            id="shoe with seed and cards",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: {seed: 7, cutt: 3}\n" + ONE_ROUND,
            "game.yaml:3: shoe.cutt: unknown key 'cutt' (did you mean 'cut'?); "
            "allowed: seed, cards, cut",
            id="shoe extra key",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: {cards: [2C, AS], cut: 3}\n" + ONE_ROUND,
            "game.yaml:3: shoe.cut: the cut card must come within the 2 scripted cards",
            id="cut beyond the scripted cards",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: 2C AS\n" + ONE_ROUND,
            "game.yaml:3: shoe: must be a list of cards like [2C, AS, KH], {seed: 7} or "
            "{cards: [...], cut: 20}, got '2C AS'",
            id="shoe as text",
        ),
        pytest.param(
            HEAD + "rules: {decks: [[8]]}\n" + ONE_ROUND,
            "game.yaml:4: rules.decks[0]: must be a number, true/false, text or a list of those, "
            "got a list",
            id="rule list of lists",
        ),
        pytest.param(
            HEAD + "rules:\n  decks:\n" + ONE_ROUND,
            "game.yaml:5: rules.decks: must be a number, true/false, text or a list of those, "
            "got nothing",
            id="rule without value",
        ),
        pytest.param(
            HEAD + "rules: &r {decks: 8, again: *r}\n" + ONE_ROUND,
            "game.yaml:4: rules.again: a rule section cannot contain itself",
            id="rule section containing itself",
        ),
        pytest.param(
            HEAD
            + "rules:\n  dealer: {hits_soft_17: true}\n  dealer.hits_soft_17: false\n"
            + ONE_ROUND,
            "game.yaml:6: rules.dealer.hits_soft_17: rule 'dealer.hits_soft_17' is given twice",
            id="rule twice via section and dotted key",
        ),
        pytest.param(
            HEAD + "rules: 8\n" + ONE_ROUND,
            "game.yaml:4: rules: must be a mapping of rule overrides (name: value), got 8",
            id="rules not mapping",
        ),
        pytest.param(
            HEAD + "rounds: []\n",
            "game.yaml:4: rounds: a scenario needs at least one round",
            id="no rounds",
        ),
        pytest.param(
            HEAD + "rounds:\n  - actions: []\n",
            "game.yaml:5: rounds[0].bets: required key is missing",
            id="bets missing",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: []\n",
            "game.yaml:5: rounds[0].bets: a round needs at least one bet",
            id="no bets",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 0, player: ann, amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].box: must be a box number from 1 to 7, got 0",
            id="box zero",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 8, player: ann, amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].box: must be a box number from 1 to 7, got 8",
            id="box eight",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: no, amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].player: must be a player name (text), "
            "got no (read as true/false); if that is the name, quote it: 'no'",
            id="player read as boolean",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: !!int one, player: ann, amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].box: must be a box number from 1 to 7, got one",
            id="explicit int tag on text",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 0x1, player: ann, amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].box: must be a box number from 1 to 7, got 0x1",
            id="box in hex",
        ),
        pytest.param(
            HEAD + "rules: {hits_soft_17: !!bool maybe}\n" + ONE_ROUND,
            "game.yaml:4: rules.hits_soft_17: must be a number, true/false, text or a list of "
            "those, got maybe (read as true/false)",
            id="explicit bool tag on text",
        ),
        pytest.param(
            "spec: 1\nvariant: nz-pontoon\nshoe: {seed: " + "9" * 100 + "}\n" + ONE_ROUND,
            "game.yaml:3: shoe.seed: must be a whole number, got " + "9" * 37 + "...",
            id="seed too long to be a seed",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: '', amount: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].player: must be a player name (text), got ''",
            id="empty player",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: ann, amont: 10}]\n",
            "game.yaml:5: rounds[0].bets[0].amont: unknown key 'amont' "
            "(did you mean 'amount'?); allowed: box, player, amount",
            id="bet key typo",
        ),
        pytest.param(
            HEAD
            + "rounds:\n  - bets:\n    - {box: 1, player: ann, amount: 10}\n"
            + "    - {box: 1, player: ann, amount: 5}\n",
            "game.yaml:7: rounds[0].bets[1]: player 'ann' already has a bet on box 1 in this round",
            id="same player twice on a box",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: ann, amount: 10}]\n    actions: {}\n",
            "game.yaml:6: rounds[0].actions: must be a list of actions like {hit: {box: 1}}, "
            "got a mapping",
            id="actions not a list",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: ann, amount: 10, box: 2}]\n",
            "game.yaml:5: rounds[0].bets[0].box: key is given twice",
            id="duplicate key",
        ),
        pytest.param(
            HEAD + "rounds:\n  - bets: [{box: 1, player: ann, amount: 10}\n",
            "game.yaml:6: not valid YAML: while parsing a flow sequence expected ',' or ']', "
            "but got '<stream end>'",
            id="yaml syntax",
        ),
        pytest.param(
            "",
            "game.yaml:1: the file is empty; a scenario needs spec, variant, shoe and rounds",
            id="empty file",
        ),
        pytest.param(
            "- spec: 1\n",
            "game.yaml:1: must be a scenario mapping with keys spec, variant, shoe, rounds, "
            "rules, got a list",
            id="top level not a mapping",
        ),
    ],
)
def test_file_level_problem_names_line_and_key(text: str, expected: str) -> None:
    assert only_problem(text) == expected


@pytest.mark.parametrize(
    ("actions", "expected"),
    [
        pytest.param(
            "- stand: {box: 2}\n",
            "game.yaml:7: rounds[0].actions[0].stand.box: box 2 has no bet in this round; "
            "allowed: 1",
            id="box without a bet",
        ),
        pytest.param(
            "- rescue: {box: 1, player: anne}\n",
            "game.yaml:7: rounds[0].actions[0].rescue.player: player 'anne' has no bet on box 1 "
            "in this round (did you mean 'ann'?); allowed: ann",
            id="rescue by a player not on the box",
        ),
        pytest.param(
            "- double: {box: 1, players: [ann, zed]}\n",
            "game.yaml:7: rounds[0].actions[0].double.players[1]: player 'zed' has no bet on "
            "box 1 in this round; allowed: ann",
            id="double joined by a player not on the box",
        ),
        pytest.param(
            "- double: {box: 1, players: []}\n",
            "game.yaml:7: rounds[0].actions[0].double.players: must name at least one player "
            "(leave it out for everyone on the box)",
            id="double with no players",
        ),
        pytest.param(
            "- double: {box: 1, players: [ann, ann]}\n",
            "game.yaml:7: rounds[0].actions[0].double.players[1]: player 'ann' is named twice",
            id="double naming a player twice",
        ),
        pytest.param(
            "- insurance: {box: 1, player: ann}\n",
            "game.yaml:7: rounds[0].actions[0].insurance.amount: required key is missing",
            id="insurance without amount",
        ),
        pytest.param(
            "- insurance: {box: 3, amount: 5}\n",
            "game.yaml:7: rounds[0].actions[0].insurance.box: box 3 has no bet in this round; "
            "allowed: 1",
            id="insurance without a player for a box without a bet",
        ),
        pytest.param(
            "- split: {box: 1, player: ann}\n",
            "game.yaml:7: rounds[0].actions[0].split.player: unknown key 'player'; allowed: box",
            id="split with a player",
        ),
        pytest.param(
            "- stand\n",
            "game.yaml:7: rounds[0].actions[0]: write the action with its box, like "
            "`stand: {box: 1}`, got 'stand'",
            id="bare action name",
        ),
        pytest.param(
            "- {hit: {box: 1}, stand: {box: 1}}\n",
            "game.yaml:7: rounds[0].actions[0]: an action must be a mapping with one key, the "
            "action name, like `hit: {box: 1}`; got 2 keys; "
            "allowed: insurance, surrender, hit, stand, double, split, rescue, "
            "card_out_of_turn, supervisor, key_card, unreadable_card, reader, unplug, replug",
            id="two actions in one item",
        ),
        pytest.param(
            "- hit: 1\n",
            "game.yaml:7: rounds[0].actions[0].hit: must be the hit details with keys box, got 1",
            id="action body not a mapping",
        ),
        pytest.param(
            "- surrender: {}\n",
            "game.yaml:7: rounds[0].actions[0].surrender.box: required key is missing",
            id="action without box",
        ),
    ],
)
def test_action_problem_names_line_and_key(actions: str, expected: str) -> None:
    assert only_problem(round_with(actions)) == expected


def test_insurance_without_a_player_on_a_box_with_two_names_the_box_and_asks_for_one() -> None:
    two = "[{box: 1, player: ann, amount: 10}, {box: 1, player: bob, amount: 10}]"
    assert only_problem(round_with("- insurance: {box: 1, amount: 5}\n", bets=two)) == (
        "game.yaml:7: rounds[0].actions[0].insurance.player: box 1 has 2 players (ann, bob): "
        "say which one this is for, like `player: ann`; allowed: ann, bob"
    )


def test_every_problem_in_a_file_is_reported_in_line_order() -> None:
    text = dedent(
        """\
        spec: 1
        variant: nz-pontoon
        shoe: [2C, XX]
        rounds:
          - bets:
              - {box: 9, player: ann, amount: 10}
            acions: []
          - bets: [{box: 1, player: bob, amount: 0.001}]
            actions:
              - hitt: {box: 1}
        """
    )

    lines = [(p.line, p.path) for p in problems_of(text)]

    assert lines == [
        (3, "shoe[1]"),
        (6, "rounds[0].bets[0].box"),
        (7, "rounds[0].acions"),
        (8, "rounds[1].bets[0].amount"),
        (10, "rounds[1].actions[0].hitt"),
    ]


def test_cross_checks_wait_until_the_bets_are_valid() -> None:
    """A bad bet is reported alone, not echoed by every action on its box."""
    text = round_with("- hit: {box: 1}\n", bets="[{box: 1, player: ann, amount: -1}]")

    assert [p.path for p in problems_of(text)] == ["rounds[0].bets[0].amount"]


def test_variant_file_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    text = "spec: 1\nvariant: variants/house.toml\nshoe: [2C]\n" + ONE_ROUND

    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, str(tmp_path / "game.yaml"))

    (problem,) = caught.value.problems
    assert (problem.line, problem.path) == (2, "variant")
    assert problem.message.startswith("variant file 'variants/house.toml' not found")
    assert str(tmp_path / "variants" / "house.toml") in problem.message


def test_unknown_variant_lists_the_ids_found_in_the_variants_folder(tmp_path: Path) -> None:
    (tmp_path / "house-pontoon.toml").write_text("id = 'house-pontoon'\n", encoding="utf-8")
    text = "spec: 1\nvariant: house-pontoom\nshoe: [2C]\n" + ONE_ROUND

    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "game.yaml", variants_dir=tmp_path)

    (problem,) = caught.value.problems
    assert "(did you mean 'house-pontoon'?)" in problem.message
    assert problem.allowed[-1] == "house-pontoon"
