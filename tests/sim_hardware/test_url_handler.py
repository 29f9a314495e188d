"""The in-process runner: an emulated device behind a ``sim://<name>`` pyserial URL."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
import serial

from drivers.tbl21.framing import Frame, FrameDecoder, encode
from sim_hardware import (
    DeviceNameInUseError,
    EmulatedShoe,
    InProcessRunner,
    PtyRunner,
    SimConfigError,
    live_devices,
    serve,
)


@pytest.fixture
def shoe() -> EmulatedShoe:
    return EmulatedShoe(cards="AS KH 7C 2D", decks=1)


@pytest.fixture
def served(shoe: EmulatedShoe) -> Iterator[InProcessRunner]:
    with serve(shoe, "test-shoe") as runner:
        yield runner


def read_until(
    port: serial.SerialBase, wanted: Callable[[Frame], bool], limit_s: float = 5.0
) -> list[Frame]:
    """Read frames until one is ``wanted`` (or ``limit_s`` passes); return all read."""
    decoder = FrameDecoder()
    frames: list[Frame] = []
    deadline = time.monotonic() + limit_s
    while not any(wanted(f) for f in frames) and time.monotonic() < deadline:
        frames += decoder.feed(port.read(256)).frames
    return frames


def test_serial_for_url_reaches_the_served_device(served: InProcessRunner) -> None:
    with serial.serial_for_url("sim://test-shoe", exclusive=True, timeout=0.05) as port:
        port.write(encode(Frame("H", 7, "Q")))
        frames = read_until(port, lambda f: f.kind == "s")
    assert [f.seq for f in frames if f.kind == "s"] == [7]


def test_a_drawn_card_reaches_a_host_blocked_in_read(
    served: InProcessRunner, shoe: EmulatedShoe
) -> None:
    with serial.serial_for_url("sim://test-shoe", timeout=0.05) as port:
        port.write(encode(Frame("H", 0, "A")))  # the power-up
        shoe.draw()
        frames = read_until(port, lambda f: f.kind == "c")
    assert [f.payload[:12] for f in frames if f.kind == "c"] == ["AS;0001;0003"]


def test_a_second_open_of_the_same_name_is_refused(served: InProcessRunner) -> None:
    with (
        serial.serial_for_url("sim://test-shoe", exclusive=True, timeout=0),
        pytest.raises(serial.SerialException, match="already open"),
    ):
        serial.serial_for_url("sim://test-shoe", exclusive=True, timeout=0)


def test_the_port_can_be_opened_again_after_close(served: InProcessRunner) -> None:
    serial.serial_for_url("sim://test-shoe", timeout=0).close()
    with serial.serial_for_url("sim://test-shoe", timeout=0) as port:
        assert port.is_open


def test_a_read_with_nothing_to_read_returns_empty_after_the_timeout(
    served: InProcessRunner,
) -> None:
    with serial.serial_for_url("sim://test-shoe", timeout=0.2) as port:
        port.read(4096)  # whatever the device had to say (the power-up resends)
        port.write(encode(Frame("H", 0, "A")))  # the power-up is acknowledged: silence
        port.read(4096)
        started = time.monotonic()
        data = port.read(1)
        waited = time.monotonic() - started
    assert data == b""
    assert waited >= 0.19


def test_a_non_blocking_read_returns_at_once(served: InProcessRunner) -> None:
    with serial.serial_for_url("sim://test-shoe", timeout=0) as port:
        port.write(encode(Frame("H", 0, "A")))
        port.read(4096)
        assert port.read(10) == b""


def test_unplug_makes_reads_and_writes_raise_and_open_fail(
    served: InProcessRunner, shoe: EmulatedShoe
) -> None:
    port = serial.serial_for_url("sim://test-shoe", timeout=0.05)
    try:
        shoe.unplug()
        with pytest.raises(serial.SerialException, match="unplugged"):
            port.read(1)
        with pytest.raises(serial.SerialException, match="unplugged"):
            port.write(b"\x02")
        with pytest.raises(serial.SerialException, match="unplugged"):
            serial.serial_for_url("sim://test-shoe", timeout=0)
    finally:
        port.close()


def test_after_replug_the_old_port_stays_dead_and_a_new_open_works(
    served: InProcessRunner, shoe: EmulatedShoe
) -> None:
    old = serial.serial_for_url("sim://test-shoe", timeout=0.05)
    try:
        shoe.unplug()
        shoe.replug()
        with pytest.raises(serial.SerialException):
            old.read(1)
        with serial.serial_for_url("sim://test-shoe", timeout=0.05) as new:
            new.write(encode(Frame("H", 5, "Q")))
            frames = read_until(new, lambda f: f.kind == "s")
            assert [f.seq for f in frames if f.kind == "s"] == [5]
    finally:
        old.close()


def test_an_unknown_name_is_refused_with_a_hint() -> None:
    with (
        serve(EmulatedShoe(), "someone-else"),
        pytest.raises(serial.SerialException, match="no emulated device is served"),
    ):
        serial.serial_for_url("sim://nobody", timeout=0)


def test_a_name_can_be_served_only_once(served: InProcessRunner) -> None:
    with pytest.raises(DeviceNameInUseError, match="already served"):
        serve(EmulatedShoe(), "test-shoe")


def test_a_name_that_cannot_be_a_url_is_refused() -> None:
    with pytest.raises(SimConfigError, match="device name"):
        serve(EmulatedShoe(), "my shoe")


def test_closing_the_runner_kills_the_open_port_and_the_name(shoe: EmulatedShoe) -> None:
    runner = serve(shoe, "closing-shoe")
    port = serial.serial_for_url("sim://closing-shoe", timeout=0)
    runner.close()
    try:
        with pytest.raises(serial.SerialException, match="closed"):
            port.read(1)
        with pytest.raises(serial.SerialException, match="no emulated device"):
            serial.serial_for_url("sim://closing-shoe", timeout=0)
    finally:
        port.close()


def test_live_devices_lists_a_runner_until_it_is_closed(shoe: EmulatedShoe) -> None:
    runner = serve(shoe, "listed-shoe")
    assert runner in live_devices()
    runner.close()
    assert runner not in live_devices()


def test_bytes_sent_while_no_host_has_the_port_open_are_lost(
    served: InProcessRunner, shoe: EmulatedShoe
) -> None:
    with serial.serial_for_url("sim://test-shoe", timeout=0) as port:
        port.write(encode(Frame("H", 0, "A")))
    shoe.draw()
    served.pump()  # the c goes out to nobody
    with serial.serial_for_url("sim://test-shoe", timeout=0) as port:
        assert port.read(4096) == b""


def test_a_read_blocked_in_another_thread_ends_when_the_owner_closes_the_port(
    served: InProcessRunner,
) -> None:
    port = serial.serial_for_url("sim://test-shoe", timeout=None)
    port.write(encode(Frame("H", 0, "A")))
    got: list[bytes] = []

    def reader() -> None:
        while port.is_open:
            got.append(port.read(1000))  # blocks: it wants more than will ever come

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(0.05)
    port.close()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert got[-1:] == [b""]


def test_a_reader_waiting_for_bytes_sleeps_instead_of_spinning(served: InProcessRunner) -> None:
    with serial.serial_for_url("sim://test-shoe", timeout=0.5) as port:
        port.write(encode(Frame("H", 0, "A")))
        port.read(10_000)
    assert served.read_polls < 100  # 20 ms waits at most, or a deadline; a spin makes thousands


def test_a_device_can_be_served_by_one_runner_at_a_time(shoe: EmulatedShoe) -> None:
    with serve(shoe, "first-name"):
        with pytest.raises(SimConfigError, match="already served by"):
            serve(shoe, "second-name")
        with pytest.raises(SimConfigError, match="one cable"):
            PtyRunner(shoe)
    with serve(shoe, "second-name") as again:
        assert again.device is shoe
