"""People at the table (controller.table.people), on a journaled table (real SQLite): a dealer
signs in and every round carries who dealt it; a rated player sits at a box and walks away, and
their bets carry the session. None of it changes a settlement, and all of it survives a
restart that replays the journal."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from controller.cli.history import recall, render
from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.access import KEY_ONLY
from controller.table.config import hash_secret
from controller.table.staff import Person, Staff
from drivers.tbl21.events import Button
from tests.table_hands import TableHands

NZ = load_variant("nz-pontoon")
BO_PIN, CY_PIN = "27182818", "14142135"
STAFF = Staff(
    {
        "2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN)),
        "2002": Person("2002", "dealer", "Cy Diaz", hash_secret(CY_PIN)),
    }
)
ACCESS = dataclasses.replace(KEY_ONLY, staff=STAFF, clock=lambda: 1_800_000_000.0)
# two rounds, the same cards and bets: ann (box 1) and bob (box 2) 10.00 and 5.00 each
ROUNDS = [["9H", "5D", "7C", "JD", "9S", "KS"], ["JH", "8D", "6C", "QD", "AS", "3H", "9C"]]
STANDS = [(1, 2), (1, 2)]


class Table(TableHands):
    def __init__(self, path: Path) -> None:
        self.journal = Journal.open(path, table_id="T1")
        self.table = JournaledTable.start(NZ, self.journal, access=ACCESS)
        self.draw_no = self.table.app.shoe.last_draw_no or 0
        self.seq = 0

    def play(self, number: int) -> None:
        assert self.table.answer(Bet(1, "ann", 1000)).accepted
        assert self.table.answer(Bet(2, "bob", 500)).accepted
        self.press(Button.DEAL)
        cards = ROUNDS[number]
        for text in cards[:5]:
            self.card(text)
        for _box in STANDS[number]:
            self.press(Button.STAND)
        for text in cards[5:]:
            self.card(text)
        assert self.table.controller.state is State.SETTLING
        self.press(Button.OK)

    def rows(self, kind: str) -> list[dict[str, Any]]:
        return [r.payload for r in self.journal.iter_rows(kinds=[kind])]


def _money(t: Table) -> tuple[Any, ...]:
    return (t.rows("ledger"), t.rows("round_end"))


def test_people_at_the_table_never_change_a_settlement(tmp_path: Path) -> None:
    plain = Table(tmp_path / "plain.sqlite3")
    plain.card("2C")  # the burn card
    for number in range(2):
        plain.play(number)

    rated = Table(tmp_path / "rated.sqlite3")
    rated.card("2C")
    assert rated.table.dealer_sign_in("2001", BO_PIN).accepted
    assert rated.table.sit_down(1, "40123", "ann").accepted
    rated.play(0)
    assert rated.table.dealer_sign_in("2002", CY_PIN).accepted  # a dealer change
    assert rated.table.walk_away(1).accepted
    assert rated.table.sit_down(2, "40777", "bob").accepted
    rated.play(1)

    assert _money(rated) == _money(plain)
    assert len(rated.rows("ledger")) >= 4
    starts = rated.rows("round_start")
    assert [(s.get("dealer"), s.get("dealer_name")) for s in starts] == [
        ("2001", "Bo Chen"),
        ("2002", "Cy Diaz"),
    ]
    assert [s.get("dealer") for s in plain.rows("round_start")] == [None, None]
    people = rated.rows("people")
    assert [(p["event"], p["box"], p["player"], p["amount_cents"]) for p in people] == [
        ("dealer_in", None, "", 0),
        ("sit_down", 1, "ann", 0),
        ("bet", 1, "ann", 1000),  # bob's bet on box 2 is unrated
        ("dealer_out", None, "", 0),
        ("dealer_in", None, "", 0),
        ("walk_away", 1, "ann", 0),
        ("sit_down", 2, "bob", 0),
        ("bet", 2, "bob", 500),
    ]
    sessions = [p["session"] for p in people if p["event"] == "sit_down"]
    assert len(set(sessions)) == 2
    assert all(s.startswith("T1-") for s in sessions)
    assert people[2]["session"] == sessions[0]
    assert people[7]["session"] == sessions[1]
    assert people[3]["text"] == "dealer Bo Chen (2001) handed over to Cy Diaz"
    plain.journal.close()
    rated.journal.close()


def test_a_rated_session_and_the_dealer_survive_a_restart_and_bets_after_it_carry_the_session(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    t = Table(path)
    t.card("2C")
    assert t.table.dealer_sign_in("2001", BO_PIN).accepted
    session = t.table.sit_down(1, "40123", "ann").session
    t.play(0)
    t.journal.close()

    again = Table(path)  # the journal replayed through a fresh table
    people = again.table.app.people
    assert people.dealer() == "Bo Chen (2001)"
    assert people.seats[1].session == session
    again.play(1)
    bets = [p for p in again.rows("people") if p["event"] == "bet"]
    assert [(b["box"], b["session"]) for b in bets] == [(1, session), (1, session)]
    assert again.rows("round_start")[-1]["dealer"] == "2001"
    rounds = recall(again.journal)
    assert [(r.round, r.dealer) for r in rounds[:2]] == [
        (1, "Bo Chen (2001)"),
        (2, "Bo Chen (2001)"),
    ]
    assert [
        (s["box"], s["player"], s["session"], s["amount_cents"]) for s in rounds[1].sessions
    ] == [(1, "ann", session, 1000)]
    text = render(rounds, path=path, table_id="T1", verified=True)
    assert "== Round 1 (nz-pontoon)" in text
    assert "dealt by Bo Chen (2001)" in text
    assert f"rated     box 1 ann (card 40123) bet $10 in session {session}" in text
    assert "people    player card 40123 (ann) sits at box 1: rated from now on" in text
    again.journal.close()


def test_wrong_sign_ins_and_seats_are_refused_in_words_and_change_nothing(tmp_path: Path) -> None:
    t = Table(tmp_path / "j.sqlite3")
    t.card("2C")
    wrong = t.table.dealer_sign_in("2001", CY_PIN)
    assert (wrong.accepted, wrong.text) == (
        False,
        # (from journal format 13 it says how many more lock dealer sign-in: test_dealer_lockout)
        "wrong staff number or dealer PIN: 4 more in a row lock dealer sign-in for 5 min",
    )
    typo = t.table.dealer_sign_in(BO_PIN[:8], BO_PIN)  # the PIN in the number's field
    assert typo.staff_id == "unknown"
    assert BO_PIN not in "".join(r.payload_json for r in t.journal.iter_rows())
    assert t.table.sit_down(1, "40123", "ann").accepted
    assert t.table.sit_down(1, "40999", "cat").text == (
        "player card 40123 (ann) sits at box 1: walk them away first"
    )
    assert t.table.sit_down(3, "40123", "cat").text == "player card 40123 sits at box 1 already"
    assert t.table.sit_down(9, "40555", "dan").text == (
        "there is no box 9 at this table (boxes 1 to 7)"
    )
    assert t.table.walk_away(2).text == "nobody rated sits at box 2"
    assert t.table.app.people.dealer() is None
    assert list(t.table.app.people.seats) == [1]
    t.journal.close()


def test_a_table_without_dealers_on_its_staff_file_says_how_to_add_them(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    table = JournaledTable.start(NZ, journal)  # no staff file
    said = table.dealer_sign_in("1", "112233")
    assert not said.accepted
    assert said.text == (
        "no dealer is on this table's staff file: add each dealer with `croupier staff add "
        "NUMBER --role dealer --name NAME`"
    )
    assert list(journal.iter_rows(kinds=["people", "call"])) == []
    journal.close()
