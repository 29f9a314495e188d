"""Voiding the open round of a journal whose replay disagrees: the rows from the disagreeing
input on are set aside (a ``set_aside`` row), every open wager of the round goes back, and every
later start replays the journal with them set aside (controller.journal.setaside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.settlement import EntryKind
from controller.journal.errors import RecoveryMismatch
from controller.journal.journaled import JournaledTable, recover
from controller.journal.setaside import CannotSetAside, plan, write
from controller.journal.store import Journal
from controller.play.event_hands import EventHands
from controller.play.scenario_file import ScriptedShoe
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card

from .sessions import rules_of, scenario

RULES = rules_of(scenario("nz_insurance"))
CARDS = [
    "2C",
    "KH",
    "AC",
    "9D",
    "KS",
    "5H",
    "6D",
    "7C",
    "8S",
    "9H",
    "TD",
    "JC",
    "QD",
    "KC",
    "AH",
    "2D",
    "3S",
    "4H",
    "5C",
    "6S",
]


def _dealt(path: Path) -> tuple[int, int]:
    """A journal of one nz-pontoon round: ann $10 and bob $25 on box 1 and 2, the round dealt
    (the dealer shows a 9: the boxes play). Returns (seq of the last row, the shoe's last draw
    number)."""
    table = JournaledTable.start(RULES, Journal.open(path, table_id="T1"))
    hands = EventHands(table, iter(Card.parse(c) for c in CARDS))
    hands.draw()  # the burn card
    hands.enter(Action.BET, {"box": 1, "player": "ann", "amount_cents": 1000})
    hands.enter(Action.BET, {"box": 2, "player": "bob", "amount_cents": 2500})
    hands.enter(Action.DEAL, {})
    for _ in range(5):
        hands.draw()
    assert table.controller.state is State.PLAYING
    last = table.journal.last_row()
    assert last is not None
    table.journal.close()
    return last.seq, hands.draw_no


def _forge(path: Path) -> int:
    """A row the replay does not give (as a newer software's effect would be): the chain holds,
    the replay disagrees at it. Returns its seq."""
    with Journal.open(path, table_id="T1") as journal:
        return journal.append("note", {"device": "shoe", "text": "not made by this software"}).seq


def test_a_disagreeing_open_round_is_voided_and_every_later_start_replays_it_set_aside(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    _dealt(path)
    seq = _forge(path)
    with Journal.open(path, table_id="T1") as journal, pytest.raises(RecoveryMismatch):
        recover(RULES, journal)
    with Journal.open(path, table_id="T1") as journal:
        rows_before = journal.last_row()
        chosen = plan(RULES, journal, seq, "the replay disagreed", "Sue")
        assert journal.last_row() == rows_before  # planning writes nothing
        assert chosen.aside.last_seq == seq
        assert chosen.aside.first_seq < seq
        assert chosen.voided
        # the last card's row is set aside with the forged row: the void returns both wagers
        assert sorted((e.box, e.player, e.stake_cents) for e in chosen.returned) == [
            (1, "ann", 1000),
            (2, "bob", 2500),
        ]
        assert all(e.kind is EntryKind.RETURN and e.amount_cents == 0 for e in chosen.returned)
        text = chosen.describe()
        assert text.startswith("Round 1 is void: return $10 to box 1 (ann), $25 to box 2 (bob)")
        assert f"rows {chosen.aside.first_seq} to {seq}" in text
        write(journal, chosen)
        assert journal.verify().ok
    with Journal.open(path, table_id="T1") as journal:
        table = recover(RULES, journal)
        assert table.recovery is not None
        assert table.recovery.effects_written > 0
        assert table.controller.state is State.SETTLING
        assert table.controller.round.voided
        returned = [e for e in table.controller.round.ledger if e.kind is EntryKind.RETURN]
        assert sorted((e.player, e.stake_cents) for e in returned) == [("ann", 1000), ("bob", 2500)]
        assert sum(e.amount_cents for e in table.controller.round.ledger) == 0
        set_aside = list(journal.iter_rows(kinds=["set_aside"]))
        assert [r.payload["by"] for r in set_aside] == ["Sue"]
    # A third start finds nothing to write: the void's rows are in the journal now.
    with Journal.open(path, table_id="T1") as journal:
        again = recover(RULES, journal)
        assert again.recovery is not None
        assert again.recovery.effects_written == 0
        assert again.controller.state is State.SETTLING


def test_the_shoe_position_after_a_void_is_the_last_set_aside_card(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    _, drawn = _dealt(path)
    seq = _forge(path)
    with Journal.open(path, table_id="T1") as journal:
        chosen = plan(RULES, journal, seq, "the replay disagreed", "Sue")
        assert chosen.aside.cards == 1  # the card whose row the disagreement followed
        assert chosen.aside.draw_no == drawn
        write(journal, chosen)
    with Journal.open(path, table_id="T1") as journal:
        table = recover(RULES, journal)
        assert table.app.shoe.last_draw_no == drawn  # the next card is no draw gap


def test_no_void_once_money_was_paid_after_the_disagreement(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    _dealt(path)
    with Journal.open(path, table_id="T1") as journal:
        first_cause = next(
            r.seq
            for r in journal.iter_rows(kinds=["device_event"])
            if r.payload.get("type") == "CardDrawn" and r.payload.get("draw_no") == 3
        )
        journal.append(
            "ledger",
            {"box": 1, "player": "ann", "hand": 1, "kind": "win", "amount_cents": 1000},
            round_id=1,
        )
        with pytest.raises(CannotSetAside, match="money was paid or collected after"):
            plan(RULES, journal, first_cause + 1, "the replay disagreed", "Sue")


def test_no_void_when_a_later_round_was_dealt_on_the_disagreement(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    _dealt(path)
    with Journal.open(path, table_id="T1") as journal:
        journal.append("round_start", {"round": 2, "variant": RULES.id}, round_id=2)
        seq = journal.append("note", {"device": "shoe", "text": "x"}).seq
        with pytest.raises(CannotSetAside, match="round 2 was dealt after it"):
            plan(RULES, journal, seq, "the replay disagreed", "Sue")


def test_no_void_before_the_table_took_any_input(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal.open(path, table_id="T1") as journal:
        seq = journal.append("note", {"device": "shoe", "text": "x"}).seq
        with pytest.raises(CannotSetAside, match="follows no input"):
            plan(RULES, journal, seq, "the replay disagreed", "Sue")


def test_a_disagreement_while_bets_are_taken_sets_the_rows_aside_with_nothing_to_return(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    table = JournaledTable.start(RULES, Journal.open(path, table_id="T1"))
    sc = scenario("nz_insurance")
    assert isinstance(sc.shoe, ScriptedShoe)
    EventHands(table, iter(sc.shoe.cards)).draw()
    table.answer(Bet(1, "ann", 1000))
    table.journal.close()
    seq = _forge(path)
    with Journal.open(path, table_id="T1") as journal:
        chosen = plan(RULES, journal, seq, "the replay disagreed", None)
        assert not chosen.voided
        assert chosen.returned == ()
        assert chosen.describe().startswith("Round 1 had not been dealt: no wager to return.")
        write(journal, chosen)
    with Journal.open(path, table_id="T1") as journal:
        rebuilt = recover(RULES, journal)
        assert rebuilt.controller.state is State.BETTING
        assert rebuilt.controller.round.boxes == {}  # ann's bet was in the rows set aside
