"""All three drivers on one queue, over ``sim://`` and real ptys (one body, two backends)."""

from __future__ import annotations

import queue
import time
from typing import TypeVar

import pytest

from drivers.panel import LedColour, LedMode
from drivers.peek import PeekUpCard
from drivers.table import TableDevices, open_table
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    ButtonReleased,
    CardDrawn,
    CardSensed,
    DeviceEvent,
    DeviceType,
    FaultRaised,
    KeyPosition,
    KeySwitch,
    PeekOutcome,
    PeekResult,
)
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.faults import PeekMode

from .conftest import Backend

E = TypeVar("E", bound=DeviceEvent)
WAIT_S = 10.0


def next_of(table: TableDevices, cls: type[E], seen: list[DeviceEvent]) -> E:
    """The next event of type ``cls`` (events before it are kept in ``seen``)."""
    end = time.monotonic() + WAIT_S
    while (left := end - time.monotonic()) > 0:
        try:
            event = table.events.get(timeout=left)
        except queue.Empty:
            break
        seen.append(event)
        if isinstance(event, cls):
            return event
    pytest.fail(f"no {cls.__name__} within {WAIT_S} s")


def test_a_round_of_cards_peeks_and_buttons_over_one_queue(backend: Backend) -> None:
    shoe = EmulatedShoe(cards="AS 9H KD 5C")
    reader = EmulatedPeekReader()
    panel = EmulatedPanel()
    urls = [backend.serve(device) for device in (shoe, reader, panel)]
    seen: list[DeviceEvent] = []
    with open_table(*urls) as table:
        for driver in table.drivers:
            driver.wait_identified(WAIT_S)

        table.panel.set_led(Button.DEAL, LedMode.STEADY, LedColour.GREEN).result(WAIT_S)
        table.panel.show_text("NO MORE BETS").result(WAIT_S)
        assert panel.lit_buttons == ["DEA"]
        panel.tap("DEA")
        assert next_of(table, ButtonPressed, seen).button is Button.DEAL

        shoe.draw()
        shoe.draw()
        first = next_of(table, CardDrawn, seen)
        second = next_of(table, CardDrawn, seen)
        assert [str(first.card), str(second.card)] == ["AS", "9H"]

        reader.insert_hole_card("KD")
        assert next_of(table, CardSensed, seen).device.type is DeviceType.PEEK
        table.peek.arm(PeekUpCard.ACE).result(WAIT_S)
        assert next_of(table, PeekResult, seen).outcome is PeekOutcome.BLACKJACK

        reader.set_answer_mode(PeekMode.UNREADABLE, count=1)
        table.peek.arm(PeekUpCard.ACE).result(WAIT_S)
        assert next_of(table, PeekResult, seen).outcome is PeekOutcome.UNREADABLE

        panel.hold("SHF", 2.2)
        assert next_of(table, ButtonHeld, seen).button is Button.SHUFFLE
        assert next_of(table, ButtonReleased, seen).held_ms >= 2000
        panel.turn_key("TEC")
        assert next_of(table, KeySwitch, seen).position is KeyPosition.TECHNICIAN

        shoe.raise_fault(0x30, text="OPTICS_DIRTY")
        fault = next_of(table, FaultRaised, seen)
        assert (fault.code, fault.name) == (0x30, "OPTICS_DIRTY")
    assert all(e.device.port in urls for e in seen)
