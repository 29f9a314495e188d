"""Every scenario under tests/scenarios/ through ``croupier scenario run --json``: the whole
stack (emulated devices in-process, production drivers, table, round machine, settlement)."""

import json
from pathlib import Path

import pytest

from controller.cli import main

HERE = Path(__file__).parent

# Each player's net result over the scenario, in cents, worked out by hand from the rules.
EXPECTED: dict[str, dict[str, int]] = {
    "nz_pontoon_paid_at_once": {"ann": 1500},
    "nz_three_card_21": {"ann": 1000},
    "nz_five_card_21": {"ann": 1500},
    "nz_six_card_21": {"ann": 2000},
    "nz_seven_card_21": {"ann": 3000},
    "nz_678_mixed": {"ann": 1500},
    "nz_678_suited": {"ann": 2000},
    "nz_678_spades": {"ann": 3000},
    "nz_super_bonus": {"ann": 102000, "bob": 6000},
    "nz_super_bonus_25": {"ann": 505000, "bob": 4000},
    "nz_doubled_678_spades": {"ann": 2000},
    "nz_doubled_against_pontoon": {"ann": -1000},
    "nz_rescue": {"ann": -1000},
    "nz_rescue_double_for_less": {"ann": -1000},
    "nz_insurance": {"ann": 0},
    "nz_surrender": {"ann": -500},
    "nz_surrender_void": {"ann": -1000},
    "nz_split_aces": {"ann": 0},
    "nz_co_bettor_keeps_bonus": {"ann": 2000, "bob": 750},
    "nz_insurance_never_for_a_pontoon_box": {"ann": 1500, "bob": -1500},
    "nz_no_offers_against_a_nine": {"ann": 1000},
    "nz_split_limit": {"ann": -3000},
    "nz_dealer_pontoon_against_split_and_double": {"ann": -1000},
    "nz_cut_card_then_shuffle": {"ann": 1000},
    "nz_card_out_of_turn_assigned": {"ann": 1000},
    "nz_card_out_of_turn_burned": {"ann": 1000},
    "nz_card_out_of_turn_void": {"ann": 0, "bob": 0},
    "nz_shoe_unplugged_mid_round": {"ann": 1000},
    "uk_tie_loses": {"ann": -1000},
    "uk_five_card_trick": {"ann": 2000},
    "uk_pontoon_against_pontoon": {"ann": -1000},
    "uk_stand_on_14_refused": {"ann": 1000},
    "uk_double_then_hit": {"ann": 2000},
    "pb_stand_on_14_refused": {"ann": 1000},
    "pa_blackjack": {"ann": 1500},
    "pa_surrender_against_six": {"ann": -500},
    "pa_surrender_against_ace_blackjack": {"ann": -1000},
    "pa_dealer_blackjack_ends_round": {"ann": -1000, "bob": -1000},
    "pa_peek_no_blackjack_then_play": {"ann": -500, "bob": 1000},
    "pa_aces_split_once": {"ann": 0},
}


def run_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    status = main(["scenario", "run", str(path), "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    report: dict = json.loads(out.out)  # type: ignore[type-arg]
    return report


def test_every_scenario_file_has_an_expectation() -> None:
    assert sorted(p.stem for p in HERE.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_scenario_ends_with_the_expected_net(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_json(HERE / f"{name}.yaml", capsys)
    assert report["net_cents"] == EXPECTED[name]
    rounds_net: dict[str, int] = {}
    for rnd in report["rounds"]:
        for player, cents in rnd["net_cents"].items():
            rounds_net[player] = rounds_net.get(player, 0) + cents
    assert rounds_net == report["net_cents"]
