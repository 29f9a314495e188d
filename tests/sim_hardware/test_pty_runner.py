"""The pty runner: the device on the master side, pyserial on the slave, real bytes between."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest
import serial

from drivers.tbl21.framing import Frame, FrameDecoder, encode
from sim_hardware import EmulatedPanel, EmulatedShoe, PtyRunner, SimError, live_devices


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


def talk_until_it_fails(port: serial.SerialBase, limit_s: float = 5.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        port.read(1)
        port.write(encode(Frame("H", 1, "Q")))


def test_a_pyserial_client_on_the_slave_exchanges_frames_with_the_device() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    with PtyRunner(shoe, name="shoe") as runner:
        assert runner.slave_path.startswith("/dev/pts/")
        with serial.serial_for_url(runner.port, exclusive=True, timeout=0.05) as port:
            port.write(encode(Frame("H", 0, "A")))  # the power-up, if it came already
            port.write(encode(Frame("H", 0x2A, "Q")))
            frames = read_until(port, lambda f: f.kind == "s")
            assert [f.seq for f in frames if f.kind == "s"] == [0x2A]
            shoe.draw()
            frames = read_until(port, lambda f: f.kind == "c")
            cards = [f.payload[:12] for f in frames if f.kind == "c"]
            assert cards[:1] == ["AS;0001;0002"]


def test_the_slave_path_itself_can_be_opened_too() -> None:
    with (
        PtyRunner(EmulatedPanel(), name="panel") as runner,
        serial.Serial(runner.slave_path, 115200, timeout=0.05) as port,
    ):
        port.write(encode(Frame("H", 3, "I")))
        frames = read_until(port, lambda f: f.kind == "i")
    assert [f.fields[0] for f in frames if f.kind == "i"] == ["SIM-PANEL"]


def test_unplug_breaks_the_hosts_port_and_replug_moves_the_link_to_a_new_pty() -> None:
    shoe = EmulatedShoe()
    with PtyRunner(shoe, name="shoe") as runner:
        port = serial.serial_for_url(runner.port, timeout=0.05)
        try:
            shoe.unplug()
            with pytest.raises(serial.SerialException):
                talk_until_it_fails(port)
        finally:
            port.close()
        shoe.replug()
        assert runner.wait_plugged(2)
        with serial.serial_for_url(runner.port, timeout=0.05) as again:
            again.write(encode(Frame("H", 2, "Q")))
            frames = read_until(again, lambda f: f.kind == "s")
            assert [f.seq for f in frames if f.kind == "s"] == [2]


def test_close_stops_the_thread_removes_the_link_and_leaves_no_live_device() -> None:
    runner = PtyRunner(EmulatedShoe(), name="shoe")
    link = runner.link_path
    assert runner in live_devices()
    assert os.path.islink(link)
    runner.close()
    assert not runner.alive
    assert not os.path.lexists(link)
    assert runner not in live_devices()


class BrokenShoe(EmulatedShoe):
    broken = False

    def tick(self, now: float) -> bytes:
        if self.broken:
            raise RuntimeError("firmware bug")
        return super().tick(now)


def test_an_error_in_the_pump_thread_is_raised_by_close() -> None:
    shoe = BrokenShoe()
    runner = PtyRunner(shoe, name="shoe")
    shoe.broken = True
    shoe.inject()  # any call wakes the pump, which now meets the bug
    deadline = time.monotonic() + 5
    while runner.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(SimError, match="firmware bug"):
        runner.close()
    assert runner not in live_devices()


def test_a_device_failing_at_start_leaves_nothing_open() -> None:
    shoe = BrokenShoe()
    shoe.broken = True
    with pytest.raises(RuntimeError, match="firmware bug"):
        PtyRunner(shoe, name="shoe")
    assert live_devices() == []


def test_an_idle_runner_sleeps_between_deadlines_instead_of_spinning() -> None:
    with PtyRunner(EmulatedShoe(), name="shoe") as runner:
        time.sleep(0.5)
        steps = runner.stats["steps"]
    assert steps < 100  # a 50 ms backstop and the power-up resends; a spin makes thousands
