"""Amounts are read from the YAML text as exact decimals and kept as integer cents."""

from textwrap import dedent

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.play.errors import ScenarioError
from controller.play.scenario_file import parse_scenario, units_text


def bet_amounts(*amounts: str) -> list[int]:
    bets = "\n".join(
        f"      - {{box: {i + 1}, player: p{i}, amount: {a}}}" for i, a in enumerate(amounts)
    )
    text = dedent(
        """\
        spec: 1
        variant: nz-pontoon
        shoe: {seed: 1}
        rounds:
          - bets:
        """
    )
    scenario = parse_scenario(text + bets + "\n", "game.yaml")
    return [b.amount_cents for b in scenario.rounds[0].bets]


@pytest.mark.parametrize(
    ("written", "cents"),
    [
        ("10", 1000),
        ("2.5", 250),
        ("2.50", 250),
        ("2.500", 250),
        ("0.1", 10),
        ("0.01", 1),
        (".5", 50),
        ("+5", 500),
        ("1_000", 100000),
        ("007", 700),
        ("12345678901234567890123.45", 1234567890123456789012345),
    ],
)
def test_amount_in_currency_units_becomes_exact_cents(written: str, cents: int) -> None:
    assert bet_amounts(written) == [cents]


def test_point_one_plus_point_two_is_exactly_thirty_cents() -> None:
    assert sum(bet_amounts("0.1", "0.2")) == 30


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("0", "0"),
        ("0.00", "0.00"),
        ("-5", "-5"),
        ("-0.5", "-0.5"),
        ("2.555", "2.555"),
        ("0.001", "0.001"),
        ("1.0e+3", "1.0e+3"),
        ("1e3", "'1e3'"),
        (".inf", ".inf"),
        (".nan", ".nan"),
        ("0x10", "0x10"),
        ("'10'", "'10'"),
        ("true", "true (read as true/false)"),
        ("null", "null (read as nothing/null)"),
        ("[10]", "a list"),
        ("1__0", "1__0"),
        ("!!float ten", "ten"),
        ("1:30", "1:30"),
    ],
)
def test_amount_that_is_not_positive_with_two_decimals_is_refused(written: str, shown: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        bet_amounts(written)

    (problem,) = caught.value.problems
    assert problem.path == "rounds[0].bets[0].amount"
    assert problem.line == 6
    assert problem.message == (
        "must be a positive amount in currency units with at most 2 decimals, got " + shown
    )


@given(st.integers(min_value=1, max_value=10**15))
def test_any_amount_written_in_units_reads_back_as_the_same_cents(cents: int) -> None:
    assert bet_amounts(units_text(cents)) == [cents]


@pytest.mark.parametrize(
    ("cents", "text"), [(1000, "10"), (250, "2.5"), (1, "0.01"), (100000, "1000"), (1010, "10.1")]
)
def test_units_text_writes_cents_as_a_person_would(cents: int, text: str) -> None:
    assert units_text(cents) == text


def test_bet_amounts_are_int_never_float_or_decimal() -> None:
    assert all(type(c) is int for c in bet_amounts("2.5", "10"))
