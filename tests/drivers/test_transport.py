"""The serial transport over pyserial's ``loop://`` and a real pseudo-terminal."""

from __future__ import annotations

import os
import socket
import threading
import time
import tty
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from pathlib import Path

import pytest
import serial

from drivers.errors import DriverConfigError, PortIOError, PortOpenError
from drivers.transport import Backoff, SerialPort, SerialTransport, open_transports


class Pty:
    """A pseudo-terminal whose master side the test plays; ``path`` is the slave to open."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo or line editing before pyserial configures it
        self.path = os.ttyname(self.slave)

    def read(self, size: int = 1024) -> bytes:
        return os.read(self.master, size)

    def unplug(self) -> None:
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def close(self) -> None:
        self.unplug()
        if self.slave >= 0:
            os.close(self.slave)
            self.slave = -1


@pytest.fixture
def pty() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


@pytest.fixture
def loop() -> Iterator[SerialTransport]:
    transport = SerialTransport("loop://", read_timeout=0.05)
    transport.open()
    yield transport
    transport.close()


def read_until(transport: SerialTransport, size: int, tries: int = 100) -> bytes:
    data = b""
    for _ in range(tries):
        data += transport.read()
        if len(data) >= size:
            break
    return data


def read_until_dead(transport: SerialTransport) -> PortIOError:
    """Read until the transport reports its port dead (a hang-up shows at once; a few tries
    allow for a slow machine)."""
    for _ in range(20):
        try:
            transport.read()
        except PortIOError as exc:
            return exc
    pytest.fail("the dead port was not detected")


# --- opening ---------------------------------------------------------------------------------


def test_loop_url_carries_bytes_both_ways(loop: SerialTransport) -> None:
    loop.write(b"\x02hello\x03")
    assert read_until(loop, 7) == b"\x02hello\x03"
    assert loop.read() == b"", "nothing more: the read times out empty"


@pytest.mark.parametrize("baud", [9600, 19200, 115200])
def test_the_three_protocol_baud_rates_open(baud: int) -> None:
    transport = SerialTransport("loop://", baudrate=baud)
    transport.open()
    try:
        assert transport.is_open
    finally:
        transport.close()


def test_an_unsupported_baud_rate_is_refused_before_opening() -> None:
    with pytest.raises(DriverConfigError, match=r"baud rate 57600 .* 9600, 19200, 115200"):
        SerialTransport("loop://", baudrate=57600)


@pytest.mark.parametrize("url", ["", "   "])
def test_an_empty_url_is_refused(url: str) -> None:
    with pytest.raises(DriverConfigError, match="non-empty"):
        SerialTransport(url)


def test_an_unknown_url_scheme_names_the_url_and_the_fix() -> None:
    transport = SerialTransport("nosuch://x")
    with pytest.raises(PortOpenError, match=r"cannot open nosuch://x: .*scheme is unknown") as info:
        transport.open()
    assert isinstance(info.value.__cause__, ValueError)
    assert not transport.is_open


def test_a_missing_device_path_says_to_check_the_cable(tmp_path: Path) -> None:
    url = str(tmp_path / "ttyNOPE")
    with pytest.raises(PortOpenError, match="does not exist") as info:
        SerialTransport(url).open()
    assert info.value.url == url
    assert isinstance(info.value.__cause__, serial.SerialException)


def test_a_handler_that_rejects_the_exclusive_flag_is_opened_without_it() -> None:
    calls: list[bool | None] = []

    def opener(
        url: str, *, baudrate: int, timeout: float, write_timeout: float, exclusive: bool | None
    ) -> SerialPort:
        calls.append(exclusive)
        if exclusive is not None:
            raise TypeError("__init__() got an unexpected keyword argument 'exclusive'")
        port: SerialPort = serial.serial_for_url("loop://", timeout=timeout)
        return port

    transport = SerialTransport("odd://x", opener=opener)
    transport.open()
    try:
        assert calls == [True, None]
        assert transport.is_open
    finally:
        transport.close()


def test_open_transports_lists_only_open_ones() -> None:
    transport = SerialTransport("loop://")
    transport.open()
    assert transport in open_transports()
    transport.close()
    assert transport not in open_transports()


# --- a real pseudo-terminal ------------------------------------------------------------------


def test_a_pty_carries_bytes_both_ways(pty: Pty) -> None:
    transport = SerialTransport(pty.path, read_timeout=0.05)
    transport.open()
    try:
        os.write(pty.master, b"\x02\x13\x01S")
        assert read_until(transport, 4) == b"\x02\x13\x01S"
        transport.write(b"\x02\x04\x01H\x07A\x9a\xef\x03")
        assert pty.read() == b"\x02\x04\x01H\x07A\x9a\xef\x03"
    finally:
        transport.close()


def test_a_pty_is_opened_exclusively(pty: Pty) -> None:
    first = SerialTransport(pty.path)
    first.open()
    try:
        with pytest.raises(PortOpenError, match="another program holds the port"):
            SerialTransport(pty.path).open()
    finally:
        first.close()


def test_a_pty_whose_far_end_closed_is_detected_as_dead_on_read(pty: Pty) -> None:
    transport = SerialTransport(pty.path, read_timeout=0.05)
    transport.open()
    pty.unplug()
    error = read_until_dead(transport)
    assert f"reading {pty.path} failed" in str(error)
    assert isinstance(error.__cause__, serial.SerialException)
    assert not transport.is_open, "a dead port is closed so it can be reopened"


def test_a_pty_whose_far_end_closed_is_detected_as_dead_on_write(pty: Pty) -> None:
    transport = SerialTransport(pty.path)
    transport.open()
    pty.unplug()
    with pytest.raises(PortIOError, match=f"writing to {pty.path} failed"):
        transport.write(b"\x02\x04\x01H\x2aQPl\x03")
    assert not transport.is_open


def test_reading_a_closed_transport_is_a_port_error() -> None:
    with pytest.raises(PortIOError, match="not open"):
        SerialTransport("loop://").read()


def test_socket_url_reaches_a_device_in_another_process_and_notices_it_going() -> None:
    """``socket://`` (an emulator elsewhere): bytes both ways, then the peer closes."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received: list[bytes] = []

    def peer() -> None:
        conn, _ = server.accept()
        with conn:  # (pyserial drops what arrives before its open() finishes: speak second)
            received.append(conn.recv(64))
            conn.sendall(b"\x02hello")

    thread = threading.Thread(target=peer)
    thread.start()
    transport = SerialTransport(f"socket://127.0.0.1:{port}", read_timeout=0.05)
    try:
        transport.open()
        transport.write(b"\x02bye")
        assert read_until(transport, 6) == b"\x02hello"
        thread.join(5)
        assert received == [b"\x02bye"]
        error = read_until_dead(transport)
        assert "socket disconnected" in str(error)
    finally:
        transport.close()
        thread.join(5)
        server.close()


# --- waiting and waking ----------------------------------------------------------------------

Port = tuple[SerialTransport, Callable[[], None]]  # a transport, and what makes bytes arrive


@pytest.fixture(params=["pty", "socket", "loop"])
def any_port(request: pytest.FixtureRequest) -> Iterator[Port]:
    """An open transport over a pty, a ``socket://`` peer or ``loop://`` (no descriptor: read
    with its own timeout), and a way to make bytes arrive on it."""
    with ExitStack() as stack:
        if request.param == "pty":
            pty = stack.enter_context(closing(Pty()))
            transport = SerialTransport(pty.path)

            def send() -> None:
                os.write(pty.master, b"\x02hi")

        elif request.param == "socket":
            server = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
            transport = SerialTransport(f"socket://127.0.0.1:{server.getsockname()[1]}")
            transport.open()
            peer = stack.enter_context(server.accept()[0])

            def send() -> None:
                peer.sendall(b"\x02hi")

        else:
            transport = SerialTransport("loop://")

            def send() -> None:
                transport.write(b"\x02hi")

        transport.open()
        stack.callback(transport.close)
        yield transport, send


def test_a_wake_before_the_read_makes_it_return_at_once(
    any_port: Port,
) -> None:
    transport, _ = any_port
    transport.wake()
    assert transport.read(timeout=30.0) == b"", "the wake-up was kept, not lost"


def test_a_wake_from_another_thread_ends_a_long_read(
    any_port: Port,
) -> None:
    transport, _ = any_port
    fired = threading.Event()

    def wake() -> None:
        fired.set()
        transport.wake()

    timer = threading.Timer(0.05, wake)
    timer.start()
    started = time.monotonic()
    try:
        data = transport.read(timeout=30.0)
        while not fired.is_set():  # loop:// has no descriptor: its reads end every 50 ms
            data += transport.read(timeout=30.0)
    finally:
        timer.join()
    assert data == b""
    assert time.monotonic() - started < 10.0, "woken, not timed out"


def test_bytes_end_a_long_read_as_soon_as_they_arrive(
    any_port: Port,
) -> None:
    transport, send = any_port
    timer = threading.Timer(0.05, send)
    timer.start()
    try:
        data = b""
        for _ in range(400):  # a 30 s read each on a pty or socket, 50 ms on loop://
            data += transport.read(timeout=30.0)
            if len(data) >= 3:
                break
    finally:
        timer.join()
    assert data == b"\x02hi"


def test_closing_a_transport_closes_its_wake_up_pipe_and_a_late_wake_is_harmless(
    pty: Pty,
) -> None:
    transport = SerialTransport(pty.path)
    fds_before = set(os.listdir("/proc/self/fd"))
    transport.open()
    transport.wake()
    transport.close()
    assert set(os.listdir("/proc/self/fd")) <= fds_before
    transport.wake()  # after close: nothing to wake, no error


# --- reconnecting ----------------------------------------------------------------------------


class FlakyOpener:
    """Fails ``failures`` times, then opens ``loop://``."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(
        self,
        url: str,
        *,
        baudrate: int,
        timeout: float,
        write_timeout: float,
        exclusive: bool | None,
    ) -> SerialPort:
        self.calls += 1
        if self.calls <= self.failures:
            raise serial.SerialException(2, f"could not open port {url}: No such file")
        port: SerialPort = serial.serial_for_url("loop://", timeout=timeout)
        return port


def test_reconnect_backs_off_exponentially_up_to_the_cap() -> None:
    opener = FlakyOpener(failures=7)
    sleeps: list[float] = []
    transport = SerialTransport("/dev/ttyGONE", opener=opener)
    backoff = Backoff(initial=0.1, factor=2.0, cap=1.0)
    try:
        assert transport.reconnect(backoff, sleep=sleeps.append)
        assert sleeps == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
        assert transport.is_open
        assert backoff.next_delay() == 0.1, "a success resets the back-off"
    finally:
        transport.close()


def test_reconnect_gives_up_when_told_to_stop() -> None:
    opener = FlakyOpener(failures=1000)
    sleeps: list[float] = []
    transport = SerialTransport("/dev/ttyGONE", opener=opener)
    assert not transport.reconnect(
        Backoff(), sleep=sleeps.append, should_stop=lambda: len(sleeps) >= 3
    )
    assert opener.calls == 3
    assert not transport.is_open


def test_reconnect_reopens_a_port_that_came_back_under_its_stable_name(tmp_path: Path) -> None:
    """Like /dev/serial/by-id: a symlink follows the device to its new pty after a replug."""
    by_id = tmp_path / "usb-TBL21_SHOE-if00"
    first = Pty()
    by_id.symlink_to(first.path)
    transport = SerialTransport(str(by_id), read_timeout=0.05)
    transport.open()
    first.unplug()
    read_until_dead(transport)
    first.close()
    second = Pty()
    try:
        by_id.unlink()
        by_id.symlink_to(second.path)
        assert transport.reconnect(Backoff(), sleep=lambda _: None, max_attempts=3)
        os.write(second.master, b"back")
        assert read_until(transport, 4) == b"back"
    finally:
        transport.close()
        second.close()


@pytest.mark.parametrize(
    ("initial", "factor", "cap"), [(0.0, 2.0, 1.0), (0.1, 0.5, 1.0), (1.0, 2.0, 0.5)]
)
def test_a_nonsensical_backoff_is_refused(initial: float, factor: float, cap: float) -> None:
    with pytest.raises(DriverConfigError, match="back-off needs"):
        Backoff(initial=initial, factor=factor, cap=cap)
