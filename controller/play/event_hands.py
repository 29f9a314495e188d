"""Dealer's hands that speak in driver events, fed straight to a table (no devices, no threads).

What the emulated devices and the drivers would deliver, built directly: a ``CardDrawn`` for
each card pulled, ``CardSensed`` and ``PeekResult`` for the reader, ``ButtonPressed`` for each
panel key, ``KeySwitch``, ``FaultRaised``, ``LinkLost`` / ``LinkRestored``. It exercises the
table's whole event path (and the journal, when the table is a
:class:`~controller.journal.journaled.JournaledTable`) quickly and deterministically: crash-recovery
tests and the simulator use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from controller.play.autoplay import SUPERVISOR_ACTIONS, TableEvent, reader_outcome
from controller.play.errors import PlayError
from controller.round.errors import ActionRefused
from controller.round.inputs import Bet, Decision, KeyedCard
from controller.round.spec import Action
from controller.table.app import InputResult, TableApp, decision
from controller.table.keypad import keys_for
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    ButtonPressed,
    CardDrawn,
    CardMotion,
    CardSensed,
    DeviceEvent,
    DeviceRef,
    DeviceType,
    FaultRaised,
    KeyPosition,
    KeySwitch,
    LinkLost,
    LinkRestored,
    PeekOutcome,
    PeekResult,
    ShoeLoaded,
)
from drivers.tbl21.faults import Severity

PORTS = {DeviceType.SHOE: "event://shoe", DeviceType.PEEK: "event://peek",
         DeviceType.PANEL: "event://panel"}  # fmt: skip


class EventTable(Protocol):
    """A table that takes driver events (TableApp, JournaledTable)."""

    app: TableApp

    def handle(self, event: DeviceEvent) -> object: ...

    def answer(self, call: Bet | Decision | KeyedCard) -> InputResult: ...


class EventHands:
    def __init__(self, table: EventTable, cards: Iterator[Card], *, decks: int = 6) -> None:
        self.table = table
        self.cards = cards
        self.draw_no = 0
        self.remaining = 10_000
        self._seq = dict.fromkeys(DeviceType, 0)
        self.misread_next = False
        self.reader_answer: str | None = None

    @property
    def app(self) -> TableApp:
        return self.table.app

    def _ref(self, device: DeviceType) -> DeviceRef:
        return DeviceRef(device, PORTS[device])

    def _next_seq(self, device: DeviceType) -> int:
        seq = self._seq[device]
        self._seq[device] = (seq + 1) % 256
        return seq

    def _send(self, device: DeviceType, cls: type[Any], **fields: Any) -> None:
        event = cls(device=self._ref(device), at=0.0, seq=self._next_seq(device), boot=1, **fields)
        self.table.handle(event)

    # --- Hands ------------------------------------------------------------------------------------

    def draw(self) -> None:
        try:
            card = next(self.cards)
        except StopIteration:
            raise PlayError("the shoe ran out of cards") from None
        self.draw_no += 1
        self.remaining -= 1
        if self.misread_next:
            self.misread_next = False
            self._send(DeviceType.SHOE, FaultRaised, code=0x10, severity=Severity.WARNING,
                       text="CARD_UNREADABLE")  # fmt: skip
            return
        self._send(DeviceType.SHOE, CardDrawn, card=card, draw_no=self.draw_no,
                   remaining=self.remaining, quality=99)  # fmt: skip

    def peek(self) -> None:
        answer, self.reader_answer = self.reader_answer, None
        outcome = reader_outcome(self.app.controller, answer)
        self._send(DeviceType.PEEK, CardSensed, motion=CardMotion.INSERTED)
        self._send(DeviceType.PEEK, PeekResult, outcome=PeekOutcome(outcome), quality=99)
        self._send(DeviceType.PEEK, CardSensed, motion=CardMotion.REMOVED)

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        if action is Action.BET:
            result = self.table.answer(Bet(data["box"], data["player"], data["amount_cents"]))
            if not result.accepted:
                raise ActionRefused(action, self.app.controller.state, result.reason)
            return
        players = self.app.controller.box_players(int(data.get("box", 0) or 0))
        start = self.app.output_mark()
        for key in keys_for(action, data, players):
            self._send(DeviceType.PANEL, ButtonPressed, button=key, held_ms=0)
        if action is Action.SHUFFLE and self.app.shoe.shuffle_requested:
            self._send(DeviceType.SHOE, ShoeLoaded, cards_detected=None)
        for item in self.app.outputs_since(start):
            if isinstance(item, InputResult) and not item.accepted:
                raise ActionRefused(action, self.app.controller.state, item.reason)

    def table_event(self, event: TableEvent) -> None:
        if event.kind == "card_out_of_turn":
            self.draw()
        elif event.kind == "unreadable_card":
            self.misread_next = True
        elif event.kind == "reader":
            self.reader_answer = event.data["answer"]
        elif event.kind == "supervisor":
            self._send(DeviceType.PANEL, KeySwitch, position=KeyPosition.SUPERVISOR)
            action = SUPERVISOR_ACTIONS[event.data["decision"]]
            result = self.table.answer(decision(action, by="supervisor"))
            self._send(DeviceType.PANEL, KeySwitch, position=KeyPosition.RUN)
            if not result.accepted:
                raise ActionRefused(action, self.app.controller.state, result.reason)
        elif event.kind == "key_card":
            result = self.table.answer(
                decision(Action.KEY_CARD, card=Card.parse(event.data["card"]))
            )
            if not result.accepted:
                raise ActionRefused(Action.KEY_CARD, self.app.controller.state, result.reason)
        elif event.kind in ("unplug", "replug"):
            device = DeviceType[event.data["device"].upper()]
            ref = self._ref(device)
            if event.kind == "unplug":
                self.table.handle(LinkLost(device=ref, at=0.0, reason="unplugged",
                                           last_reply_at=None))  # fmt: skip
            else:
                self.table.handle(LinkRestored(device=ref, at=0.0, down_since=0.0))
        else:
            raise PlayError(f"unknown table event {event.kind!r}")
