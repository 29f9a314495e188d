"""A round ends once in the journal: a hold while it is settling (a lost link, a lid lockup)
resumes into SETTLING without a second ``round_end`` row; a void from a hold ends it with the
wagers returned. (Found by the fault suite: whoever added up round_end rows counted twice.)"""

from __future__ import annotations

from pathlib import Path

from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable, recover
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import decision
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    KeyPosition,
    KeySwitch,
    LinkLost,
    LinkRestored,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")
NZ = load_variant("nz-pontoon")


def card(text: str, draw_no: int) -> CardDrawn:
    return CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text), draw_no=draw_no,
                     remaining=300 - draw_no, quality=99)  # fmt: skip


def press(table: JournaledTable, button: Button, seq: int) -> None:
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=seq, button=button, held_ms=0))


def state(table: JournaledTable) -> State:
    return table.controller.state  # type: ignore[no-any-return]


def round_ends(journal: Journal) -> list[dict[str, object]]:
    return [row.payload for row in journal.rows(kinds=["round_end"])]


def dealt(path: Path) -> JournaledTable:
    """nz-pontoon, ann on box 1 with 10.00, dealt 9H (box), 7C (dealer), TD (box): 19."""
    table = JournaledTable.start(NZ, Journal.open(path, table_id="T1"))
    table.handle(card("2C", 1))  # the burn card
    table.answer(Bet(1, "ann", 1000))
    press(table, Button.DEAL, 1)
    for draw_no, text in enumerate(["9H", "7C", "JD"], start=2):
        table.handle(card(text, draw_no))
    return table


def test_a_hold_while_settling_writes_no_second_round_end(tmp_path: Path) -> None:
    table = dealt(tmp_path / "j.sqlite3")
    press(table, Button.STAND, 2)
    table.handle(card("KS", 5))  # the dealer: 7 + K = 17, stands; 19 wins
    assert state(table) is State.SETTLING
    table.handle(LinkLost(device=SHOE, at=1.0, reason="unplugged", last_reply_at=None))
    assert state(table) is State.HOLD
    table.handle(LinkRestored(device=SHOE, at=2.0, down_since=1.0))
    assert state(table) is State.SETTLING
    assert round_ends(table.journal) == [
        {"round": 1, "net_cents": 1000, "net_by_player": {"ann": 1000}}
    ]
    table.journal.close()
    rebuilt = recover(NZ, Journal.open(tmp_path / "j.sqlite3", table_id="T1"))
    assert rebuilt.controller.state is State.SETTLING  # and the replay agrees with the rows


def test_a_round_voided_from_a_hold_ends_once_with_every_wager_returned(tmp_path: Path) -> None:
    table = dealt(tmp_path / "j.sqlite3")
    table.handle(LinkLost(device=SHOE, at=1.0, reason="unplugged", last_reply_at=None))
    table.handle(KeySwitch(device=PANEL, at=1.5, seq=3, position=KeyPosition.SUPERVISOR))
    result = table.answer(decision(Action.VOID, by="sue"))
    assert result.accepted, result.reason
    assert round_ends(table.journal) == [{"round": 1, "net_cents": 0, "net_by_player": {"ann": 0}}]
