"""Every scenario under tests/scenarios/ through ``croupier scenario run --json``: the whole
stack (emulated devices in-process, production drivers, table, round machine, settlement)."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from controller.cli.main import main
from controller.play.scenario_file import load_scenario
from controller.play.scenario_runner import run_scenario

HERE = Path(__file__).resolve().parents[1] / "scenarios"

# Each player's net result over the scenario, in cents, worked out by hand from the rules: the
# scenario pack's expected.json (croupier lab run checks the same)
EXPECTED: dict[str, dict[str, int]] = {
    name: dict(case["net_cents"])
    for name, case in json.loads((HERE / "expected.json").read_text(encoding="utf-8"))[
        "expected"
    ].items()
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
def test_scenario_ends_with_the_expected_net(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(HERE / f"{name}.yaml", capsys)
    assert report["net_cents"] == EXPECTED[name]
    rounds_net: dict[str, int] = {}
    for rnd in report["rounds"]:
        for player, cents in rnd["net_cents"].items():
            rounds_net[player] = rounds_net.get(player, 0) + cents
    assert rounds_net == report["net_cents"]


def test_report_has_exactly_the_fields_of_scenarios_md(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(HERE / "nz_super_bonus.yaml", capsys)
    assert list(report) == ["spec", "variant", "rounds", "rejected", "net_cents"]
    [rnd] = report["rounds"]
    assert list(rnd) == ["round", "dealer", "boxes", "prompts", "ledger", "net_cents"]
    assert list(rnd["dealer"]) == ["cards", "total", "bust", "natural"]
    assert list(rnd["boxes"][0]) == ["box", "wagers", "hands"]
    assert list(rnd["boxes"][0]["wagers"][0]) == ["player", "amount_cents"]
    assert list(rnd["boxes"][0]["hands"][0]) == ["cards", "total", "doubled", "outcome"]
    assert all("code" in p for p in rnd["prompts"])
    assert list(rnd["ledger"][0]) == ["box", "player", "kind", "amount_cents", "odds", "reason"]
    assert rnd["boxes"][0]["hands"][0] == {
        "cards": ["7H", "7H", "7H"],
        "total": 21,
        "doubled": False,
        "outcome": "win",
    }
    kinds = [(e["player"], e["kind"], e["amount_cents"], e["odds"]) for e in rnd["ledger"]]
    assert ("ann", "payout", 2000, "2:1") in kinds
    assert ("ann", "super_bonus", 100000, None) in kinds
    assert ("bob", "table_bonus", 5000, None) in kinds


def test_refused_actions_are_reported_with_the_action_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = run_json(HERE / "uk_stand_on_14_refused.yaml", capsys)
    assert report["rejected"] == [
        {"round": 1, "action": {"stand": {"box": 1}}, "reason": "stand needs 15 or five cards"}
    ]


@pytest.mark.parametrize(
    "name",
    [
        "pa_dealer_blackjack_ends_round",
        "pa_peek_no_blackjack_then_play",
        "pa_blackjack",
        "uk_pontoon_against_pontoon",
        "pa_reader_lies_lockup",
    ],
)
def test_hole_card_is_in_no_prompt_before_the_reveal(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_json(HERE / f"{name}.yaml", capsys)
    for rnd in report["rounds"]:
        hole = rnd["dealer"]["cards"][1]
        others = {c for box in rnd["boxes"] for hand in box["hands"] for c in hand["cards"]}
        if hole in others or (hole == rnd["dealer"]["cards"][0]):
            continue  # the same card is visible elsewhere: the test cannot tell them apart
        codes = [p["code"] for p in rnd["prompts"]]
        reveal = codes.index("REVEAL")
        assert not any(hole in p.get("text", "") for p in rnd["prompts"][:reveal]), name


def test_a_scenario_with_a_typo_exits_2_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "typo.yaml"
    bad.write_text(
        "spec: 1\nvariant: nz-pontoon\nshoe: [2C, AS, 7C, KH]\nrounds:\n"
        "  - bets: [{box: 1, player: ann, amount: 10}]\n    acions: []\n"
    )
    assert main(["scenario", "run", str(bad), "--json"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:6: rounds[0].acions: unknown key 'acions' (did you mean 'actions'?)" in err


def test_a_scenario_whose_script_ends_mid_decision_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = tmp_path / "short.yaml"
    short.write_text(
        "spec: 1\nvariant: nz-pontoon\nshoe: [2C, 9S, 7C, 5H]\nrounds:\n"
        "  - bets: [{box: 1, player: ann, amount: 10}]\n    actions: []\n"
    )
    assert main(["scenario", "run", str(short)]) == 1
    assert "box 1 hand 1 waits for a decision" in capsys.readouterr().err


def test_a_shoe_that_runs_out_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short = tmp_path / "empty.yaml"
    short.write_text(
        "spec: 1\nvariant: nz-pontoon\nshoe: [2C, 9S]\nrounds:\n"
        "  - bets: [{box: 1, player: ann, amount: 10}]\n    actions: []\n"
    )
    assert main(["scenario", "run", str(short)]) == 1
    assert "the shoe ran out of cards" in capsys.readouterr().err


@pytest.fixture
def default_logging() -> Iterator[None]:
    """structlog's defaults for one test (other tests' CLI runs quiet it to WARNING)."""
    saved = structlog.get_config()
    structlog.reset_defaults()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("default_logging")
def test_hole_card_is_in_no_log_line_at_info_or_above() -> None:
    # Ten up, hole 7S (unique in the round): the peek, the play and the dealer's turn all log.
    with capture_logs() as logs:
        result = run_scenario(load_scenario(HERE / "pa_peek_no_blackjack_then_play.yaml"))
    assert result.report.rounds[0].dealer.cards[1].rank.value == "9"
    hole = "9S"
    loud = [e for e in logs if e.get("log_level") in ("info", "warning", "error", "critical")]
    assert loud, "the run logged nothing at INFO: the check would prove nothing"
    assert not [e for e in loud if hole in repr(e)]


def test_an_insurance_without_a_player_plays_like_the_same_file_naming_the_only_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = (HERE / "nz_insurance.yaml").read_text()
    defaulted = tmp_path / "defaulted.yaml"
    defaulted.write_text(named.replace("{box: 1, player: ann, amount: 5}", "{box: 1, amount: 5}"))
    assert defaulted.read_text() != named
    assert run_json(defaulted, capsys) == run_json(HERE / "nz_insurance.yaml", capsys)
