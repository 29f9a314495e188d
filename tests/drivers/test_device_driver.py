"""The threaded drivers against emulated devices served in-process under ``sim://``.

Real time is unavoidable here (a thread reads the port); every wait has a generous bound and
returns as soon as the awaited event arrives.
"""

from __future__ import annotations

import itertools
import queue
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

import pytest

from drivers.device import DeviceDriver, format_utc
from drivers.errors import (
    CommandError,
    CommandRejectedError,
    DeviceTimeoutError,
    LinkDownError,
    PortOpenError,
    WrongDeviceError,
)
from drivers.link import LinkState
from drivers.panel import LedColour, LedMode, PanelDriver
from drivers.peek import PeekDriver, PeekUpCard
from drivers.shoe import ShoeDriver
from drivers.table import open_table
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    ButtonReleased,
    CardDrawn,
    CardMotion,
    CardSensed,
    DeviceEvent,
    DeviceIdentified,
    DeviceRef,
    DeviceRefused,
    DeviceStatusReport,
    DeviceType,
    FrameEvent,
    KeyPosition,
    KeySwitch,
    PeekOutcome,
    PeekResult,
    PowerUp,
    PowerUpReason,
    ProtocolViolation,
    ViolationKind,
)
from sim_hardware import (
    DeviceCore,
    EmulatedPanel,
    EmulatedPeekReader,
    EmulatedShoe,
    InProcessRunner,
    serve,
)

E = TypeVar("E", bound=DeviceEvent)
WAIT_S = 5.0
_names = itertools.count()


def wait_for(
    events: queue.Queue[DeviceEvent],
    cls: type[E],
    where: Callable[[E], bool] = lambda _: True,
    timeout: float = WAIT_S,
    seen: list[DeviceEvent] | None = None,
) -> E:
    """The first event of type ``cls`` matching ``where``; the others go to ``seen``."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            break
        if isinstance(event, cls) and where(event):
            return event
        if seen is not None:
            seen.append(event)
    pytest.fail(f"no {cls.__name__} within {timeout} s")


def drain(events: queue.Queue[DeviceEvent]) -> list[DeviceEvent]:
    got = []
    while True:
        try:
            got.append(events.get_nowait())
        except queue.Empty:
            return got


@pytest.fixture
def served() -> Iterator[Callable[[DeviceCore], InProcessRunner]]:
    runners: list[InProcessRunner] = []

    def serve_one(device: DeviceCore) -> InProcessRunner:
        runner = serve(device, f"drv-{next(_names)}")
        runners.append(runner)
        return runner

    yield serve_one
    for runner in runners:
        runner.close()


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    return queue.Queue()


# --- connecting --------------------------------------------------------------------------------


def test_a_started_driver_identifies_its_device_and_syncs_its_clock(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(seed=1, serial_no="SHOE-42")
    runner = served(shoe)
    with ShoeDriver(runner.url, events) as driver:
        identity = driver.wait_identified(WAIT_S)
        assert (identity.model, identity.serial) == ("SIM-SHOE", "SHOE-42")
        identified = wait_for(events, DeviceIdentified)
        assert identified.device.type is DeviceType.SHOE
        assert identified.device.port == runner.url
        deadline = time.monotonic() + WAIT_S
        while not shoe.time_valid and time.monotonic() < deadline:
            time.sleep(0.01)
        assert shoe.time_valid, "the driver sends T after identifying the device"
    assert not driver.running


def test_the_power_up_event_of_a_fresh_device_arrives_once(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    runner = served(EmulatedShoe(seed=1, boot_count=3))
    with ShoeDriver(runner.url, events):
        power_up = wait_for(events, PowerUp)
        assert power_up.boot_count == 3
        time.sleep(0.6)
    rest = []
    while not events.empty():
        rest.append(events.get())
    assert not any(isinstance(e, PowerUp) for e in rest)


def test_a_port_that_cannot_be_opened_fails_start_with_the_url(
    events: queue.Queue[DeviceEvent],
) -> None:
    driver = ShoeDriver("sim://nobody-here", events)
    with pytest.raises(PortOpenError, match="sim://nobody-here"):
        driver.start()
    driver.close()


def test_a_port_nobody_answers_on_times_out_and_an_echo_is_reported(
    events: queue.Queue[DeviceEvent],
) -> None:
    """On ``loop://`` the host hears its own frames: DEV ``H`` on a shoe port."""
    with ShoeDriver("loop://", events) as driver:
        with pytest.raises(DeviceTimeoutError, match=r"no identification within 0\.4 s"):
            driver.wait_identified(0.4)
        echo = wait_for(events, ProtocolViolation)
        assert echo.kind is ViolationKind.DEV_MISMATCH
        assert "DEV 'H'" in echo.detail
        assert driver.state is LinkState.CONNECTING


def test_a_device_of_the_wrong_type_is_refused_and_its_port_released(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    runner = served(EmulatedShoe(seed=1))
    driver = PanelDriver(runner.url, events).start()
    try:
        with pytest.raises(WrongDeviceError, match="not a panel"):
            driver.wait_identified(WAIT_S)
        refused = wait_for(events, DeviceRefused)
        assert "identifies as DEV 'S'" in refused.reason
        deadline = time.monotonic() + WAIT_S
        while driver.running and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not driver.running
        assert driver.state is LinkState.REFUSED
        with pytest.raises(LinkDownError):
            driver.enable().result(WAIT_S)
    finally:
        driver.close()


# --- shoe --------------------------------------------------------------------------------------


def test_cards_drawn_arrive_in_order_on_the_queue(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(cards="AS KH 7C TD 2S")
    runner = served(shoe)
    with ShoeDriver(runner.url, events) as driver:
        driver.wait_identified(WAIT_S)
        for _ in range(5):
            shoe.draw()
        drawn = [wait_for(events, CardDrawn) for _ in range(5)]
    assert [str(c.card) for c in drawn] == ["AS", "KH", "7C", "TD", "2S"]
    assert [c.draw_no for c in drawn] == [1, 2, 3, 4, 5]


def test_shoe_commands_return_the_status_reply(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(seed=3)
    runner = served(shoe)
    with ShoeDriver(runner.url, events) as driver:
        driver.wait_identified(WAIT_S)
        status = driver.lock_gate().result(WAIT_S)
        assert isinstance(status, DeviceStatusReport)
        assert status.specific[-1] == "L"
        assert shoe.gate_locked
        driver.new_shoe(6, "52", cut_index=250).result(WAIT_S)
        assert shoe.remaining == 312


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: d.new_shoe(0, "52"), "decks must be"),
        (lambda d: d.new_shoe(6, "54"), "deck type '54'"),
        (lambda d: d.new_shoe(6, "52", cut_index=312), "cut_index must be"),
        (lambda d: d.set_gate("yes"), "locked must be True or False"),
        (lambda d: d.send("A"), "other than A and N"),
    ],
)
def test_a_bad_shoe_command_is_refused_before_anything_is_sent(
    events: queue.Queue[DeviceEvent], call: Callable[[ShoeDriver], object], message: str
) -> None:
    driver = ShoeDriver("loop://", events)  # never started: nothing could be sent anyway
    with pytest.raises(CommandError, match=message):
        call(driver)


def test_a_command_the_device_refuses_fails_with_its_reason(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    runner = served(EmulatedShoe(seed=3))
    with ShoeDriver(runner.url, events) as driver:
        driver.wait_identified(WAIT_S)
        with pytest.raises(CommandRejectedError, match="UNKNOWN_COMMAND"):
            driver.send("Z").result(WAIT_S)


def test_commands_after_close_fail_at_once(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    runner = served(EmulatedShoe(seed=3))
    driver = ShoeDriver(runner.url, events).start()
    driver.close()
    assert not driver.running
    with pytest.raises(LinkDownError):
        driver.lock_gate().result(0)


def test_in_confirm_mode_the_next_card_waits_for_the_confirmation_of_the_last(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(cards="AS KH 7C")
    runner = served(shoe)
    with ShoeDriver(runner.url, events, confirm_events=True) as driver:
        driver.wait_identified(WAIT_S)
        driver.confirm(wait_for(events, PowerUp))  # as the controller does after journaling
        shoe.draw()
        shoe.draw()
        first = wait_for(events, CardDrawn)
        time.sleep(0.6)  # the shoe resends the unacknowledged first card meanwhile
        assert not any(isinstance(e, CardDrawn) for e in drain(events))
        driver.confirm(first)
        second = wait_for(events, CardDrawn)
        assert (first.draw_no, second.draw_no) == (1, 2)
        with pytest.raises(CommandError, match="cannot confirm an event of peek"):
            driver.confirm(replace(second, device=DeviceRef(DeviceType.PEEK, runner.url)))


def test_confirm_outside_confirm_mode_is_refused(events: queue.Queue[DeviceEvent]) -> None:
    driver = ShoeDriver("loop://", events)
    event = PowerUp(device=driver.ref, at=0.0, seq=1, boot_count=1, reason=PowerUpReason.POWER_ON)
    with pytest.raises(CommandError, match="needs confirm_events=True"):
        driver.confirm(event)


# --- peek reader and panel ----------------------------------------------------------------------


def test_a_peek_answers_yes_or_no_without_revealing_the_card(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    reader = EmulatedPeekReader()
    runner = served(reader)
    with PeekDriver(runner.url, events) as driver:
        driver.wait_identified(WAIT_S)
        reader.insert_hole_card("KS")
        assert wait_for(events, CardSensed).motion is CardMotion.INSERTED
        driver.arm(Card.parse("AH")).result(WAIT_S)
        result = wait_for(events, PeekResult)
        assert result.outcome is PeekOutcome.BLACKJACK
        assert not hasattr(result, "card")
        driver.arm(PeekUpCard.TEN_VALUE).result(WAIT_S)
        assert wait_for(events, PeekResult).outcome is PeekOutcome.NO_BLACKJACK


def test_the_panel_shows_text_and_leds_and_reports_buttons(
    served: Callable[[DeviceCore], InProcessRunner], events: queue.Queue[DeviceEvent]
) -> None:
    panel = EmulatedPanel()
    runner = served(panel)
    with PanelDriver(runner.url, events) as driver:
        driver.wait_identified(WAIT_S)
        driver.show_text("PLACE BETS", "BOX 3").result(WAIT_S)
        assert panel.text == ("PLACE BETS      ", "BOX 3           ")
        driver.set_led(Button.INSURANCE, LedMode.BLINK, LedColour.GREEN).result(WAIT_S)
        assert panel.lit_buttons == ["INS"]
        driver.buzz(200).result(WAIT_S)
        panel.tap("HIT")
        assert wait_for(events, ButtonPressed).button is Button.HIT
        assert wait_for(events, ButtonReleased).button is Button.HIT
        panel.turn_key("SUP")
        assert wait_for(events, KeySwitch).position is KeyPosition.SUPERVISOR


@pytest.mark.parametrize(
    ("line1", "line2", "message"),
    [
        ("X" * 17, "", "has 17 characters; at most 16"),
        ("A|B", "", "cannot be shown"),
        ("ok", "caf\u00e9", "cannot be shown"),
    ],
)
def test_text_that_does_not_fit_the_panel_is_refused(
    events: queue.Queue[DeviceEvent], line1: str, line2: str, message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        PanelDriver("loop://", events).show_text(line1, line2)


def test_time_sync_needs_an_aware_datetime() -> None:
    with pytest.raises(CommandError, match="timezone-aware"):
        format_utc(datetime(2026, 11, 29, 12, 0, 0))


# --- a whole table ----------------------------------------------------------------------------


def test_three_devices_share_one_event_queue(
    served: Callable[[DeviceCore], InProcessRunner],
) -> None:
    shoe, reader, panel = EmulatedShoe(cards="9C 8D"), EmulatedPeekReader(), EmulatedPanel()
    urls = [served(d).url for d in (shoe, reader, panel)]
    with open_table(*urls) as table:
        for driver in table.drivers:
            driver.wait_identified(WAIT_S)
        shoe.draw()
        panel.tap("DEA")
        reader.insert_hole_card("2C")
        wanted = {CardDrawn: DeviceType.SHOE, ButtonPressed: DeviceType.PANEL}
        wanted[CardSensed] = DeviceType.PEEK
        got: dict[type[DeviceEvent], DeviceType] = {}
        end = time.monotonic() + WAIT_S
        while set(got) != set(wanted) and time.monotonic() < end:
            try:
                event = table.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if type(event) in wanted:
                got[type(event)] = event.device.type
        assert got == wanted


def test_a_table_in_confirm_mode_routes_each_confirmation_to_its_device(
    served: Callable[[DeviceCore], InProcessRunner],
) -> None:
    shoe, reader, panel = EmulatedShoe(cards="9C 8D 7H"), EmulatedPeekReader(), EmulatedPanel()
    urls = [served(d).url for d in (shoe, reader, panel)]
    with open_table(*urls, confirm_events=True) as table:
        for _ in range(3):
            shoe.draw()
        panel.tap("STD")
        cards: list[CardDrawn] = []
        buttons: list[DeviceEvent] = []
        end = time.monotonic() + WAIT_S
        while (len(cards) < 3 or len(buttons) < 2) and time.monotonic() < end:
            try:
                event = table.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(event, FrameEvent):
                table.confirm(event)  # journaled: let the device send the next one
            if isinstance(event, CardDrawn):
                cards.append(event)
            elif isinstance(event, ButtonPressed | ButtonReleased):
                buttons.append(event)
        assert [c.draw_no for c in cards] == [1, 2, 3]
        assert [type(b) for b in buttons] == [ButtonPressed, ButtonReleased]


def test_open_table_closes_what_it_opened_when_one_port_fails(
    served: Callable[[DeviceCore], InProcessRunner],
) -> None:
    shoe_url = served(EmulatedShoe(seed=1)).url
    peek_url = served(EmulatedPeekReader()).url
    with pytest.raises(PortOpenError, match="sim://no-panel"):
        open_table(shoe_url, peek_url, "sim://no-panel")
    # the leak check fixture fails this test if the shoe or peek driver were left running


def test_driver_classes_declare_their_device_type() -> None:
    types: dict[type[DeviceDriver], DeviceType] = {
        ShoeDriver: DeviceType.SHOE,
        PeekDriver: DeviceType.PEEK,
        PanelDriver: DeviceType.PANEL,
    }
    for cls, kind in types.items():
        assert cls.device_type is kind
