"""Rated sessions read from a table's own rows (controller.floor.ratings.sessions_of, a real
SQLite journal, no PostgreSQL): a decision the dealer undid before its card never happened, a
split undone leaves one hand of two cards again, and an unrated box's decisions are nobody's; a
re-split is a decision on its hand, which the rating values (a re-split the rules forbid is
refused at the table and never a decision)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from controller.analysis.theo import DecisionValues, Edges, decision_of, session_theo
from controller.floor.ratings import SeenDecision, sessions_of
from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from drivers.tbl21.events import Button, DeviceRef, DeviceType, PeekOutcome, PeekResult
from tests.floor.rated import PaTable, seat_ann, split_eights


def test_an_undone_split_and_an_undone_hit_are_not_decisions_and_an_unrated_box_is_nobodys(
    tmp_path: Path,
) -> None:
    t = PaTable(tmp_path / "undo.sqlite3", "T-undo")
    seat_ann(t, "40005555")
    assert t.table.answer(Bet(1, "ann", 2500)).accepted
    assert t.table.answer(Bet(2, "bob", 500)).accepted  # bob is not rated
    t.press(Button.DEAL)
    for text in ("8H", "5C", "7C", "8D", "TC", "9C"):  # boxes 1, 2, the dealer, 1, 2, hole
        t.card(text)
    t.press(Button.OK)  # no surrender
    t.press(Button.SPLIT)
    t.press(Button.UNDO)  # the split taken back before its card
    t.press(Button.HIT)
    t.press(Button.UNDO)  # and the hit
    t.press(Button.STAND)  # ann stands on 16
    t.press(Button.STAND)  # bob stands on 15
    t.press(Button.OK)  # the hole card turned over: 16
    t.card("TH")  # the dealer busts
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)
    (play,) = sessions_of(t.journal.rows())
    t.journal.close()
    assert play.decisions == [SeenDecision(1, 1, 1, "7C", ("8H", "8D"), 1, "stand", 2500)]
    assert (play.rounds, play.wagers_cents, play.average_bet_cents) == (1, 2500, 2500)
    assert play.dealers == ["Bo Chen"]
    assert play.end is None  # still seated


def test_insurance_taken_or_declined_is_a_decision_when_its_window_closes_and_an_undo_unmakes_it(
    tmp_path: Path,
) -> None:
    t = PaTable(tmp_path / "insure.sqlite3", "T-insure")
    seat_ann(t, "40005555")
    assert t.table.sit_down(2, "40006666", "bob").accepted
    assert t.table.answer(Bet(1, "ann", 2500)).accepted
    assert t.table.answer(Bet(2, "bob", 1000)).accepted
    t.press(Button.DEAL)
    for text in ("TH", "9C", "AC", "TD", "7C", "8C"):  # boxes 1, 2, the dealer's ace, 1, 2, hole
        t.card(text)
    assert t.table.controller.state is State.INSURANCE
    t.press(Button.BOX2)
    t.press(Button.INSURANCE)  # bob: half his wager
    t.press(Button.BOX1)
    t.press(Button.INSURANCE)
    t.press(Button.UNDO)  # ann's insurance taken back: she declined
    t.press(Button.OK)  # the insurance window closes
    t.press(Button.OK)  # no surrender
    reader = DeviceRef(DeviceType.PEEK, "test://peek")
    t.table.handle(
        PeekResult(device=reader, at=0.0, seq=1, outcome=PeekOutcome.NO_BLACKJACK, quality=90)
    )
    t.press(Button.STAND)
    t.press(Button.STAND)
    t.press(Button.OK)
    t.press(Button.OK)
    ann, bob = sessions_of(t.journal.rows())
    t.journal.close()
    assert ann.decisions == [
        SeenDecision(1, 1, 1, "AC", ("TH", "TD"), 1, "insurance", 2500),
        SeenDecision(1, 1, 1, "AC", ("TH", "TD"), 1, "stand", 2500),
    ]
    assert bob.decisions[0] == SeenDecision(
        1, 2, 1, "AC", ("9C", "7C"), 1, "insurance", 1000, insured_cents=500
    )
    assert [d.action for d in bob.decisions] == ["insurance", "stand"]


def test_a_rescue_taken_or_declined_is_a_decision_on_the_doubled_hand_with_its_card(
    tmp_path: Path,
) -> None:
    t = PaTable(tmp_path / "rescue.sqlite3", "T-rescue", load_variant("nz-pontoon"))
    seat_ann(t, "40005555")
    assert t.table.sit_down(2, "40006666", "bob").accepted
    assert t.table.answer(Bet(1, "ann", 2000)).accepted
    assert t.table.answer(Bet(2, "bob", 1000)).accepted
    t.press(Button.DEAL)
    for text in ("5H", "4C", "7C", "6D", "5C"):  # boxes 1, 2, the dealer's 7, boxes 1, 2
        t.card(text)
    t.press(Button.DOUBLE)
    t.card("2S")  # ann's doubled 13
    assert t.table.controller.state in {State.RESCUE}
    t.press(Button.RESCUE)  # ann rescues
    t.press(Button.DOUBLE)
    t.card("3S")  # bob's doubled 12
    t.press(Button.OK)  # bob keeps it
    t.card("KS")  # the dealer's 17
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)
    ann, bob = sessions_of(t.journal.rows())
    t.journal.close()
    assert ann.decisions[1] == SeenDecision(
        1, 1, 1, "7C", ("5H", "6D", "2S"), 1, "rescue", 2000, doubled=True
    )
    assert bob.decisions[1] == SeenDecision(
        1, 2, 1, "7C", ("4C", "5C", "3S"), 1, "no_rescue", 1000, doubled=True
    )
    taken, declined = decision_of(ann.decisions[1]), decision_of(bob.decisions[1])
    assert taken is not None
    assert declined is not None
    assert (taken.taken, taken.declined) == (Action.RESCUE, False)
    assert (declined.taken, declined.declined, declined.spot.doubled) == (Action.RESCUE, True, True)


def _split_round(t: PaTable, resplit: bool) -> None:
    """ann (box 1, $10): 8-8 against a 7 (the hole card a 9), split; the first hand is dealt
    an eight (split again where ``resplit``: the table refuses it where the rules forbid it,
    the hand then stands), then 2 and doubled to 20; the next hand gets an eight and stands on
    16 (a pair it might split again), the last a five and stands on 13; the dealer busts."""
    split_eights(t, "40005555")
    t.card("8S")  # the first hand's second card: 8-8 again
    t.press(Button.SPLIT)  # a re-split (refused where the rules forbid it)
    if resplit:
        t.card("2S")
        t.press(Button.DOUBLE)
        t.card("TS")  # 20: one card after a double
        t.card("8C")  # the second hand: 8-8
    else:
        t.press(Button.STAND)  # the refused re-split's hand stands on 16
        t.card("8C")  # the second hand: 8-8
    t.press(Button.STAND)
    if resplit:
        t.card("5S")  # the third hand: 13
        t.press(Button.STAND)
    t.press(Button.OK)  # the hole card turned over: 16
    t.card("TH")  # the dealer busts
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)


def test_a_resplit_is_a_decision_on_its_hand_with_its_place_and_every_decision_is_valued(
    tmp_path: Path,
) -> None:
    rules = load_variant("pa-blackjack", {"shoe.decks": 1})  # splits to four hands
    t = PaTable(tmp_path / "resplit.sqlite3", "T-resplit", rules)
    _split_round(t, resplit=True)
    (play,) = sessions_of(t.journal.rows())
    t.journal.close()
    assert play.decisions == [
        SeenDecision(1, 1, 1, "7C", ("8H", "8D"), 1, "split", 1000),
        SeenDecision(1, 1, 1, "7C", ("8H", "8S"), 2, "split", 1000),
        SeenDecision(1, 1, 1, "7C", ("8H", "2S"), 3, "double", 1000),
        SeenDecision(1, 1, 2, "7C", ("8S", "8C"), 3, "stand", 1000),
        SeenDecision(1, 1, 3, "7C", ("8D", "5S"), 3, "stand", 1000),
    ]
    decisions = [decision_of(d) for d in play.decisions]
    assert all(d is not None for d in decisions)
    rated = [d for d in decisions if d is not None]
    assert [(d.spot.split_hands, d.spot.hand, d.spot.later_hands) for d in rated] == [
        (1, 1, 0),
        (2, 1, 1),
        (3, 1, 2),
        (3, 2, 1),
        (3, 3, 0),
    ]
    values = DecisionValues(rules)
    # the re-split and the stand on a pair that might have been split again are valued
    # against the split's value there
    assert Action.SPLIT in values.values(rated[1].spot)
    assert Action.SPLIT in values.values(rated[3].spot)
    theo = session_theo(
        rated, play.wagers_cents, play.rounds, values, Edges(Fraction(0), Fraction(0))
    )
    assert (theo.decisions, theo.unvalued) == (5, 0)
    expected = Fraction(0)
    for d in rated:
        cost = values.cost(d.spot, d.taken)
        assert cost is not None
        expected += cost * d.wager_cents
    assert theo.cost_cents == expected


def test_where_the_rules_forbid_a_resplit_the_table_refuses_it_and_the_rows_show_no_such_decision(
    tmp_path: Path,
) -> None:
    rules = load_variant("pa-blackjack", {"shoe.decks": 1, "split.max_hands": 2})
    t = PaTable(tmp_path / "no-resplit.sqlite3", "T-noresplit", rules)
    _split_round(t, resplit=False)
    rows = t.journal.rows()
    (play,) = sessions_of(rows)
    t.journal.close()
    splits = [r.payload for r in rows if r.kind == "input" and r.payload.get("action") == "split"]
    assert [p.get("accepted") for p in splits] == [True, False]  # the re-split refused
    assert play.decisions == [
        SeenDecision(1, 1, 1, "7C", ("8H", "8D"), 1, "split", 1000),
        SeenDecision(1, 1, 1, "7C", ("8H", "8S"), 2, "stand", 1000),
        SeenDecision(1, 1, 2, "7C", ("8D", "8C"), 2, "stand", 1000),
    ]
    values = DecisionValues(rules)
    for seen in play.decisions[1:]:
        decision = decision_of(seen)
        assert decision is not None
        assert Action.SPLIT not in values.values(decision.spot)
        assert values.cost(decision.spot, Action.SPLIT) is None
