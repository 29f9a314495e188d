"""Drills: questions dealt on the real round controller, their answers croupier's own."""

from __future__ import annotations

import pytest

from controller.game.rules import load_variant
from controller.training.drills import (
    AnswerForm,
    DrillKind,
    handle_keys,
    is_correct,
    make_question,
    make_questions,
    parse_answer,
)
from controller.training.errors import TrainingError

NZ = load_variant("nz-pontoon")
PA = load_variant("pa-blackjack")
UK = load_variant("uk-pontoon")


def test_the_same_variant_kind_and_seed_make_the_same_question() -> None:
    for kind in DrillKind:
        assert make_question(NZ, kind, 11) == make_question(NZ, kind, 11)


def test_a_payout_is_what_the_rounds_ledger_paid_the_box() -> None:
    # seed 3 at pa-blackjack: a split box, the dealer busts with 3 K Q: $9 and $18 at 1:1
    q = make_question(PA, DrillKind.PAYOUT, 3)
    assert "3♠ K♥ Q♦" in q.table
    assert "stake $9" in q.table
    assert "stake $18" in q.table
    assert q.form is AnswerForm.MONEY
    assert q.correct == 2700


def test_an_insurance_maximum_is_half_the_wager_to_the_cent_below() -> None:
    for seed in range(10):
        q = make_question(NZ, DrillKind.INSURANCE_MAX, seed)
        stake = int(q.table.split("stake $")[1].split()[0].replace(",", "")) * 100
        assert "A" in q.table.splitlines()[0]
        assert q.correct == stake // 2


def test_surrender_is_offered_on_some_deals_and_not_on_others() -> None:
    answers = {make_question(PA, DrillKind.SURRENDER, seed).correct for seed in range(30)}
    assert answers == {0, 1}


def test_a_total_is_the_total_croupier_gave_the_hand_in_play() -> None:
    q = make_question(NZ, DrillKind.TOTAL, 3)
    assert q.table.splitlines()[1] == "Box 1: 2♠ K♦ A♦ 7♣"
    assert q.correct == 20


@pytest.mark.parametrize("kind", [DrillKind.NEXT_PROMPT, DrillKind.HOLD])
def test_a_choice_question_has_four_different_choices_and_the_right_one_among_them(
    kind: DrillKind,
) -> None:
    for rules in (NZ, PA, UK):
        for seed in range(25):
            q = make_question(rules, kind, seed)
            assert len(set(q.choices)) == 4
            assert q.choices[q.correct] == q.told


def test_a_drill_the_rules_do_not_have_is_refused_saying_so() -> None:
    with pytest.raises(TrainingError, match="uk-pontoon has no insurance_max drill"):
        make_question(UK, DrillKind.INSURANCE_MAX, 1)


@pytest.mark.parametrize(
    ("form", "typed", "value"),
    [
        (AnswerForm.MONEY, "22.50", 2250),
        (AnswerForm.MONEY, "$1,005", 100500),
        (AnswerForm.MONEY, "7.505", None),
        (AnswerForm.MONEY, "-5", None),
        (AnswerForm.MONEY, "ten", None),
        (AnswerForm.NUMBER, "17", 17),
        (AnswerForm.NUMBER, "1e3", None),
        (AnswerForm.YES_NO, "Y", 1),
        (AnswerForm.YES_NO, "no", 0),
        (AnswerForm.YES_NO, "maybe", None),
        (AnswerForm.CHOICE, "4", 3),
        (AnswerForm.CHOICE, "5", None),
        (AnswerForm.CHOICE, "0", None),
    ],
)
def test_a_typed_answer_is_read_in_its_questions_form(
    form: AnswerForm, typed: str, value: int | None
) -> None:
    assert parse_answer(form, typed, choices=4) == value


def test_an_answer_is_right_only_when_it_is_croupiers() -> None:
    q = make_question(NZ, DrillKind.PAYOUT, 3)
    assert is_correct(q, q.correct)
    assert not is_correct(q, q.correct + 1)


def test_a_procedure_is_a_shipped_scenarios_stop_on_the_panel_then_its_payouts() -> None:
    # nz_card_out_of_turn_assigned: the stop (a card out of turn, handled with the panel's
    # keys), then the payout of the box the assigned card made 20 against the dealer's 17
    steps = make_questions(NZ, DrillKind.PROCEDURE, 3)  # the 4th scenario of the pack
    assert [q.form for q in steps] == [AnswerForm.KEYS, AnswerForm.MONEY]
    stop, payout = steps
    assert "a card came out when none was due: 8♠" in stop.ask
    assert "Box 1: 9♥ 3♦, stake $10" in stop.table  # before the card is decided
    assert stop.scenario == "nz_card_out_of_turn_assigned"
    assert stop.steps == ("KEY_SUP", "HIT", "KEY_RUN")
    assert stop.told == "Keys: key to SUP, HIT, key to RUN."
    assert "Box 1: 9♥ 3♦ 8♠, stake $10" in payout.table
    assert payout.correct == 1000


def test_a_procedures_keys_are_scored_on_the_table_any_accepted_decision_right() -> None:
    (stop, _) = make_questions(NZ, DrillKind.PROCEDURE, 3)
    assert parse_answer(AnswerForm.KEYS, "key_sup hit what") is None
    burned = handle_keys(stop, "KEY_SUP CAN KEY_RUN")  # not the script's, but the table's
    assert burned is not None
    assert burned.correct
    refused = handle_keys(stop, "HIT KEY_SUP HIT KEY_RUN")
    assert refused is not None
    assert (refused.mistakes, refused.correct) == (1, False)
