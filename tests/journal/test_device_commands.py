"""The table's commands to its devices are journalled before they are sent, and a command the
journal could not take is not sent."""

from __future__ import annotations

from pathlib import Path

from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    CardMotion,
    CardSensed,
    DeviceRef,
    DeviceType,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PEEK = DeviceRef(DeviceType.PEEK, "test://peek")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


class JournalWatchingDevices:
    """Devices that note, at each command, whether the journal already holds it."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.sent: list[tuple[str, tuple[str, ...], bool]] = []

    def _sent(self, command: str, args: tuple[str, ...]) -> None:
        rows = [r.payload for r in self.journal.iter_rows(kinds=["device_command"])]
        written = bool(rows) and rows[-1]["command"] == command and tuple(rows[-1]["args"]) == args
        self.sent.append((command, args, written))

    def arm_peek(self, up: str) -> None:
        self._sent("arm_peek", (up,))

    def new_shoe(self) -> None:
        self._sent("new_shoe", ())

    def light(self, lit: frozenset[Button]) -> None:
        self._sent("light", tuple(sorted(b.value for b in lit)))


def card(text: str, draw_no: int) -> CardDrawn:
    return CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text), draw_no=draw_no,
                     remaining=300 - draw_no, quality=99)  # fmt: skip


def test_every_device_command_is_in_the_journal_before_the_device_gets_it(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    devices = JournalWatchingDevices(journal)
    table = JournaledTable.start(load_variant("pa-blackjack"), journal, devices)
    table.devices_ready()
    table.handle(card("2C", 1))  # the burn card: bets open, the panel's keys change
    table.answer(Bet(1, "ann", 1000))
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=1, button=Button.DEAL, held_ms=0))
    for draw_no, text in enumerate(["9H", "KD", "7C", "5S"], start=2):
        table.handle(card(text, draw_no))
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=2, button=Button.OK, held_ms=0))
    table.handle(CardSensed(device=PEEK, at=0.0, seq=1, motion=CardMotion.INSERTED))
    commands = [command for command, _, _ in devices.sent]
    assert "arm_peek" in commands
    assert "light" in commands
    assert all(written for _, _, written in devices.sent), devices.sent
    journal.close()


def test_a_command_whose_row_the_journal_refused_is_not_sent(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    devices = JournalWatchingDevices(journal)
    table = JournaledTable.start(load_variant("pa-blackjack"), journal, devices)
    table.devices_ready()
    sent = len(devices.sent)
    journal.close()  # nothing can be written any more
    assert not table.handle(card("2C", 1))
    assert len(devices.sent) == sent
    assert table.unavailable
