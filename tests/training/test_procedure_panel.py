"""Procedures handled with the panel (issue 27): a shipped scenario played on a table built like
``croupier run``'s with emulated devices, the trainee pressing the panel's keys at its stop;
every procedure the table accepts is taken, each refused key is a mistake in the table's words."""

from __future__ import annotations

import pytest

from controller.game.rules import load_variant
from controller.round.spec import Action
from controller.training.errors import TrainingError
from controller.training.procedure import StopPanel, Trainee, panel_procedures, run_procedure

OUT_OF_TURN = "nz_card_out_of_turn_assigned"


def pressing(*keys: str) -> Trainee:
    def trainee(panel: StopPanel) -> None:
        for key in keys:
            panel.press(key)

    return trainee


def test_the_shipped_scenarios_with_a_supervisors_stop_are_the_variants_procedures() -> None:
    assert panel_procedures(load_variant("nz-pontoon")) == [
        "nz_card_out_of_turn_assigned",
        "nz_card_out_of_turn_burned",
        "nz_card_out_of_turn_void",
        "nz_unreadable_card_keyed_in",
    ]


def test_the_scripts_own_keys_handle_the_card_out_of_turn_without_a_mistake() -> None:
    result = run_procedure(OUT_OF_TURN, pressing("KEY_SUP", "HIT", "KEY_RUN"))
    assert result.reached
    assert result.correct
    (stop,) = result.stops
    assert stop.decided == [Action.ASSIGN_CARD]
    assert stop.correct_steps == ("KEY_SUP", "HIT", "KEY_RUN")
    assert "card" in stop.hold


@pytest.mark.parametrize(
    ("keys", "decided"),
    [
        (("KEY_SUP", "CAN", "KEY_RUN"), Action.BURN_CARD),
        (("KEY_SUP", "HOLD_DEA", "KEY_RUN"), Action.VOID),
    ],
)
def test_every_procedure_the_table_accepts_for_a_card_out_of_turn_is_taken(
    keys: tuple[str, ...], decided: Action
) -> None:
    result = run_procedure(OUT_OF_TURN, pressing(*keys))
    assert result.reached, result.why_not
    assert result.mistakes == 0
    assert result.correct
    assert result.stops[0].decided == [decided]


def test_each_key_the_table_refuses_is_a_mistake_with_the_tables_words() -> None:
    result = run_procedure(OUT_OF_TURN, pressing("HIT", "B1_", "KEY_SUP", "HIT", "KEY_RUN"))
    assert result.reached
    assert result.mistakes == 2
    assert not result.correct
    refused = [(k.key, k.refusal) for k in result.stops[0].keys if not k.accepted]
    assert refused == [
        ("HIT", "hit is not possible while the table is on hold"),
        ("B1_", "a box is chosen only for a decision, not while the table is on hold"),
    ]
    assert result.stops[0].decided == [Action.ASSIGN_CARD]


def test_a_stop_nobody_decides_does_not_reach_the_scenarios_outcome() -> None:
    result = run_procedure(OUT_OF_TURN, pressing("OK_"))
    assert not result.reached
    assert result.why_not == "the table still holds: nobody decided"
    assert result.mistakes == 1
    assert not result.correct


def test_a_keyed_in_card_is_confirmed_with_ok_under_the_supervisors_key() -> None:
    result = run_procedure("nz_unreadable_card_keyed_in", pressing("KEY_SUP", "OK_", "KEY_RUN"))
    assert result.correct
    assert result.stops[0].decided == [Action.CONFIRM_CARD]


def test_a_key_the_panel_has_not_is_refused_in_words() -> None:
    with pytest.raises(TrainingError, match="'XYZ' is not a key of the panel"):
        run_procedure(OUT_OF_TURN, pressing("XYZ"))
    with pytest.raises(TrainingError, match="no shipped scenario 'nope'"):
        run_procedure("nope", pressing())
