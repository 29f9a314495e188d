"""The report model renders exactly the JSON of scenarios.md."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.play.scenario_file import ScriptDouble, ScriptStand
from controller.play.scenario_report import (
    BoxReport,
    DealerReport,
    HandReport,
    LedgerRecord,
    PromptRecord,
    Rejection,
    RoundReport,
    ScenarioReport,
    WagerReport,
    sum_net_cents,
)
from drivers.tbl21.cards import parse_cards

# The report example of scenarios.md, verbatim.
CONTRACT_JSON = """
{
  "spec": 1,
  "variant": "nz-pontoon",
  "rounds": [
    {
      "round": 1,
      "dealer": {"cards": ["7C", "KH", "9D"], "total": 26, "bust": true, "natural": false},
      "boxes": [
        {"box": 1,
         "wagers": [{"player": "ann", "amount_cents": 1000}, {"player": "bob", "amount_cents": 500}],
         "hands": [{"cards": ["7H", "7H", "7H"], "total": 21, "doubled": false, "outcome": "win"}]}
      ],
      "prompts": [{"code": "OFFER_INSURANCE"}, {"code": "PAY", "box": 1, "amount_cents": 2000}],
      "ledger": [{"box": 1, "player": "ann", "kind": "payout", "amount_cents": 2000,
                  "odds": "2:1", "reason": "7-7-7 same suit"}],
      "net_cents": {"ann": 102000, "bob": 5000}
    }
  ],
  "rejected": [{"round": 1, "action": {"stand": {"box": 1}}, "reason": "stand needs 15 or five cards"}],
  "net_cents": {"ann": 102000, "bob": 5000}
}
"""  # noqa: E501 (kept verbatim from the contract)


def round_report(number: int, net: dict[str, int]) -> RoundReport:
    return RoundReport(
        round=number,
        dealer=DealerReport(tuple(parse_cards("7C KH 9D")), total=26, bust=True, natural=False),
        boxes=(
            BoxReport(
                box=1,
                wagers=(WagerReport("ann", 1000), WagerReport("bob", 500)),
                hands=(
                    HandReport(tuple(parse_cards("7H 7H 7H")), 21, doubled=False, outcome="win"),
                ),
            ),
        ),
        prompts=(PromptRecord("OFFER_INSURANCE"), PromptRecord("PAY", box=1, amount_cents=2000)),
        ledger=(LedgerRecord(1, "ann", "payout", 2000, "2:1", "7-7-7 same suit"),),
        net_cents=net,
    )


def contract_report() -> ScenarioReport:
    return ScenarioReport(
        spec=1,
        variant="nz-pontoon",
        rounds=(round_report(1, {"ann": 102000, "bob": 5000}),),
        rejected=(Rejection(1, ScriptStand(1), "stand needs 15 or five cards"),),
    )


def test_contract_example_renders_exactly_as_documented() -> None:
    assert contract_report().to_json_dict() == json.loads(CONTRACT_JSON)


def test_report_round_trips_through_json_unchanged() -> None:
    rendered = contract_report().to_json_dict()

    assert json.loads(json.dumps(rendered)) == rendered


def test_report_key_order_follows_the_contract() -> None:
    rendered = contract_report().to_json_dict()
    expected = json.loads(CONTRACT_JSON)

    assert list(rendered) == list(expected)
    assert list(rendered["rounds"][0]) == list(expected["rounds"][0])


def test_prompt_omits_the_fields_it_does_not_have() -> None:
    assert PromptRecord("PEEK").to_json_dict() == {"code": "PEEK"}
    full = PromptRecord(
        "PAY", box=2, hand=1, player="ann", amount_cents=150, odds="3:2", text="pay"
    )
    assert full.to_json_dict() == {
        "code": "PAY",
        "box": 2,
        "hand": 1,
        "player": "ann",
        "amount_cents": 150,
        "odds": "3:2",
        "text": "pay",
    }


def test_ledger_entry_always_has_all_six_fields_with_null_odds_when_none() -> None:
    entry = LedgerRecord(3, "cat", "collect", 2500, None, "dealer 20 beats 18")

    assert entry.to_json_dict() == {
        "box": 3,
        "player": "cat",
        "kind": "collect",
        "amount_cents": 2500,
        "odds": None,
        "reason": "dealer 20 beats 18",
    }


def test_rejected_action_is_shown_as_written_with_amount_in_currency_units() -> None:
    rejection = Rejection(2, ScriptDouble(1, amount_cents=250, players=("ann",)), "second double")

    assert rejection.to_json_dict() == {
        "round": 2,
        "action": {"double": {"box": 1, "amount": 2.5, "players": ["ann"]}},
        "reason": "second double",
    }


def test_top_level_net_sums_the_rounds_in_order_of_first_appearance() -> None:
    report = ScenarioReport(
        spec=1,
        variant="uk-pontoon",
        rounds=(
            round_report(1, {"bob": -500, "ann": 1000}),
            round_report(2, {"ann": -1000, "cat": 2500}),
        ),
    )

    assert report.to_json_dict()["net_cents"] == {"bob": -500, "ann": 0, "cat": 2500}


@given(st.lists(st.dictionaries(st.sampled_from(["ann", "bob", "cat"]), st.integers())))
def test_sum_net_cents_is_the_per_player_sum(rounds: list[dict[str, int]]) -> None:
    total = sum_net_cents(rounds)

    for player in ("ann", "bob", "cat"):
        if any(player in r for r in rounds):
            assert total[player] == sum(r.get(player, 0) for r in rounds)
        else:
            assert player not in total


@pytest.mark.parametrize("bad", [10.0, True, "1000"])
def test_money_fields_refuse_anything_but_integer_cents(bad: object) -> None:
    with pytest.raises(TypeError, match="integer cents"):
        WagerReport("ann", bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="integer cents"):
        LedgerRecord(1, "ann", "payout", bad, None, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="integer cents"):
        round_report(1, {"ann": bad})  # type: ignore[dict-item]


def test_round_net_cannot_be_changed_after_the_report_is_built() -> None:
    net = {"ann": 100}
    report = round_report(1, net)
    net["ann"] = 999

    assert report.net_cents["ann"] == 100
    with pytest.raises(TypeError):
        report.net_cents["ann"] = 5  # type: ignore[index]
