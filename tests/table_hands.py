"""The hands of a test on a journaled table: cards drawn from the shoe, panel keys and the key
switch, each event numbered as the devices number them."""

from __future__ import annotations

from controller.journal.journaled import JournaledTable
from drivers.tbl21.cards import Card
from drivers.tbl21.events import Button, ButtonPressed, CardDrawn, KeyPosition, KeySwitch
from tests.round.walk import PANEL, SHOE


class TableHands:
    """Mixed into a test's table: ``self.table`` and the two counters are its own."""

    table: JournaledTable
    draw_no: int  # the shoe's last draw number
    seq: int  # the panel's last event number

    def card(self, text: str) -> None:
        self.draw_no += 1
        assert self.table.handle(
            CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=Card.parse(text),
                      draw_no=self.draw_no, remaining=300 - self.draw_no, quality=99)
        )  # fmt: skip

    def press(self, button: Button) -> None:
        self.seq += 1
        assert self.table.handle(
            ButtonPressed(device=PANEL, at=0.0, seq=self.seq, button=button, held_ms=0)
        )

    def key(self, position: KeyPosition) -> None:
        self.seq += 1
        assert self.table.handle(KeySwitch(device=PANEL, at=0.0, seq=self.seq, position=position))
