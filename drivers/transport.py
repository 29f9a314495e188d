"""Bytes to and from one serial port named by any pyserial URL.

:class:`SerialTransport` opens the URL exclusively (``exclusive=True``: a real posix port is
``flock``-ed so a second program cannot open it; pyserial's URL handlers such as ``loop://``,
``socket://`` and ``spy://`` accept the flag and have nothing to lock), reads what has arrived,
writes whole buffers, and turns every pyserial and OS error into :mod:`drivers.errors` with
``raise ... from``. A read or write that fails means the port is dead: the transport closes
itself and the owner reopens it with :meth:`SerialTransport.reconnect`, which backs off
exponentially up to a cap. Raw bytes are logged on the ``croupier.wire`` debug logger, with
the cards masked (:class:`WireMask`): the shoe's card events and the hole-card reader's answers
carry the hole card before it is turned over, and the debug log is no place for it.

A read waits as long as its caller says (``read(timeout)``: the device driver waits for the
link's next timer) and returns early, empty, when another thread calls :meth:`wake` (a command
to send, a confirmation, close). A port with a descriptor (a real or pseudo terminal, also under
``spy://``, and ``socket://``) is waited on with ``select`` together with a wake-up pipe, so an
idle port costs nothing; any other port (``loop://``, ``sim://``, a test's opener) is read with
its own timeout, at most :data:`MAX_BLIND_WAIT_S` at a time, and woken with its
``cancel_read()`` where it has one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import serial
import structlog

from drivers.errors import DriverConfigError, PortIOError, PortOpenError
from drivers.tbl21 import framing

BAUD_RATES = framing.BAUD_RATES
DEFAULT_BAUD = framing.DEFAULT_BAUD
DEFAULT_READ_TIMEOUT = 0.01
DEFAULT_WRITE_TIMEOUT = 1.0
READ_CHUNK = 4096
# The longest one read of a port without a descriptor waits: its cancel_read() (if any) can be
# missed when it comes just before the read starts, so a wake-up is never later than this.
MAX_BLIND_WAIT_S = 0.05

WIRE_LOGGER = "croupier.wire"
wire = structlog.get_logger(WIRE_LOGGER)
_WIRE = logging.getLogger(WIRE_LOGGER)  # asked first: the hex of a frame costs, unlogged
log = structlog.get_logger("croupier.drivers")


# --- the wire log, without the cards ------------------------------------------------------------

# The frames whose payload tells a card: the shoe's card event (``c``: ``RS;draw_no;...``) and
# the hole-card reader's peek result (``k``: ``Y`` blackjack or ``N``..., a hint of the hole
# card). The transport cannot tell the hole card from the others (nor can the driver), so the
# card field of every such frame is masked, with its CRC (52 cards tried against a CRC give the
# card back). The rest (header, draw number, quality, ETX) stays for whoever reads the log.
_CARD_KINDS = frozenset(b"ck")
_STX = 0x02
_FIELD_END = ord(";")
_HEADER = 6  # STX LEN VER DEV SEQ TYPE
MASKED = "**"


class _WireSettings:
    show_cards = False  # logs.wire_cards: the raw bytes as they are (a bench, never a table)


def show_wire_cards(on: bool) -> None:
    """Whether the wire log shows the cards (the table file's ``[logs] wire_cards``)."""
    _WireSettings.show_cards = on


@dataclass
class _CardFrame:
    """Where, in a direction's byte stream, a card frame's field and CRC are."""

    payload: int  # stream offset of the first payload byte
    crc: int  # ... of the first CRC byte (the payload ends here)
    field_done: bool = False  # the card field's ';' was seen: the rest of the payload shows


class WireMask:
    """The hex of one direction's bytes, read by read, with the card field and CRC of each card
    frame shown as ``**``. A frame split across reads is masked all the same: a frame is found
    at every STX (as the receiver may resynchronise there), so garbage can only hide more."""

    def __init__(self) -> None:
        self._tail = b""  # the last bytes of the previous reads: a header cut short
        self._offset = 0  # stream offset of the next read's first byte
        self._open: list[_CardFrame] = []

    def hex(self, data: bytes) -> str:
        if _WireSettings.show_cards:
            return data.hex(" ")
        seen = self._tail + data
        base = self._offset - len(self._tail)  # stream offset of seen[0]
        at = seen.find(_STX)
        while at != -1 and at + _HEADER <= len(seen):
            # decided once: when its TYPE byte arrives (in this read)
            if at + _HEADER > len(self._tail) and seen[at + _HEADER - 1] in _CARD_KINDS:
                payload = base + at + _HEADER
                length = max(seen[at + 1] - 4, 2)  # LEN counts VER..PAYLOAD
                self._open.append(_CardFrame(payload, payload + length))
            at = seen.find(_STX, at + 1)
        if not self._open:
            shown = data.hex(" ")
        else:
            shown = " ".join(
                MASKED if self._masked(self._offset + index, byte) else f"{byte:02x}"
                for index, byte in enumerate(data)
            )
        self._offset += len(data)
        self._open = [f for f in self._open if f.crc + 2 > self._offset]
        self._tail = seen[-(_HEADER - 1) :]
        return shown

    def _masked(self, where: int, byte: int) -> bool:
        masked = False
        for frame in self._open:
            if frame.crc <= where < frame.crc + 2:
                masked = True
            elif frame.payload <= where < frame.crc and not frame.field_done:
                if byte == _FIELD_END:
                    frame.field_done = True
                else:
                    masked = True
        return masked


class SerialPort(Protocol):
    """The part of a pyserial port the transport uses (``fileno()`` and ``cancel_read()`` too,
    where a port has them)."""

    timeout: float | None

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


class Opener(Protocol):
    """How a port is opened (``serial.serial_for_url`` by default; tests pass their own)."""

    def __call__(
        self,
        url: str,
        *,
        baudrate: int,
        timeout: float,
        write_timeout: float,
        exclusive: bool | None,
    ) -> SerialPort: ...


_open_transports: weakref.WeakSet[SerialTransport] = weakref.WeakSet()
_registry_lock = threading.Lock()


def open_transports() -> list[SerialTransport]:
    """Transports whose port is open now (a test fixture checks none is left behind)."""
    with _registry_lock:
        return [t for t in _open_transports if t.is_open]


def open_serial_url(
    url: str, *, baudrate: int, timeout: float, write_timeout: float, exclusive: bool | None
) -> SerialPort:
    """The default :class:`Opener`: ``serial.serial_for_url`` (``exclusive=None``: not passed)."""
    if exclusive is None:  # a handler that rejects the flag: do not pass it at all
        port: SerialPort = serial.serial_for_url(
            url, baudrate=baudrate, timeout=timeout, write_timeout=write_timeout
        )
    else:
        port = serial.serial_for_url(
            url,
            baudrate=baudrate,
            timeout=timeout,
            write_timeout=write_timeout,
            exclusive=exclusive,
        )
    return port


@dataclass(slots=True)
class Backoff:
    """Capped exponential back-off: ``initial``, then times ``factor``, never above ``cap``."""

    initial: float = 0.1
    factor: float = 2.0
    cap: float = 5.0
    _next: float | None = None

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.factor < 1 or self.cap < self.initial:
            raise DriverConfigError(
                f"back-off needs initial > 0, factor >= 1 and cap >= initial; got "
                f"initial={self.initial}, factor={self.factor}, cap={self.cap}"
            )

    def next_delay(self) -> float:
        delay = self.initial if self._next is None else self._next
        self._next = min(delay * self.factor, self.cap)
        return delay

    def reset(self) -> None:
        self._next = None


class SerialTransport:
    """One port. Not thread-safe: one thread (the device's runner) owns it."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = DEFAULT_BAUD,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        write_timeout: float = DEFAULT_WRITE_TIMEOUT,
        opener: Opener = open_serial_url,
    ) -> None:
        if not isinstance(url, str) or not url.strip():
            raise DriverConfigError(f"a port URL must be a non-empty string, got {url!r}")
        if baudrate not in BAUD_RATES:
            raise DriverConfigError(
                f"{url}: baud rate {baudrate} is not supported; use one of "
                f"{', '.join(map(str, BAUD_RATES))}",
                url=url,
            )
        if not 0 < read_timeout <= 1.0 or write_timeout <= 0:
            raise DriverConfigError(
                f"{url}: read_timeout must be in (0, 1] s and write_timeout > 0 s; got "
                f"{read_timeout} and {write_timeout}",
                url=url,
            )
        self.url = url
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self._opener = opener
        self._port: SerialPort | None = None
        self._fd: int | None = None  # the port's descriptor, if it is waited on with select
        self._wake_lock = threading.Lock()  # guards the pipe and the port against wake()
        self._wake_r: int | None = None
        self._wake_w: int | None = None
        self._woken = False  # a wake() for a port without a descriptor, not yet seen by read
        self._wire = wire.bind(port=url)
        self._rx_mask = WireMask()
        self._tx_mask = WireMask()

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        """Open the port; raises :class:`PortOpenError` with what to check."""
        if self._port is not None:
            return
        try:
            try:
                port = self._open_with(exclusive=True)
            except TypeError as exc:
                if "exclusive" not in str(exc):
                    raise
                # A third-party URL handler that does not know the flag: it has nothing to
                # lock either, so open it without.
                log.info("port handler takes no exclusive flag", port=self.url)
                port = self._open_with(exclusive=None)
        except (serial.SerialException, OSError, ValueError, TypeError) as exc:
            raise PortOpenError(self._open_advice(exc), url=self.url) from exc
        fd = _selectable_fd(port)
        with self._wake_lock:
            if fd is not None:
                try:
                    self._wake_r, self._wake_w = os.pipe()
                except OSError as exc:
                    _close_quietly(port, self.url)
                    raise PortOpenError(
                        f"cannot open {self.url}: no descriptor left for its wake-up pipe: {exc}",
                        url=self.url,
                    ) from exc
                os.set_blocking(self._wake_r, False)
                os.set_blocking(self._wake_w, False)
            self._fd = fd
            self._woken = False
            self._port = port
        with _registry_lock:
            _open_transports.add(self)
        log.info("port opened", port=self.url, baudrate=self.baudrate)

    def _open_with(self, *, exclusive: bool | None) -> SerialPort:
        return self._opener(
            self.url,
            baudrate=self.baudrate,
            timeout=self.read_timeout,
            write_timeout=self.write_timeout,
            exclusive=exclusive,
        )

    def _open_advice(self, exc: BaseException) -> str:
        text = str(exc)
        lowered = text.lower()
        if isinstance(exc, ValueError) and "protocol" in lowered:
            hint = "the URL scheme is unknown; use a device path or a pyserial URL"
        elif "lock" in lowered or "busy" in lowered or "already open" in lowered:
            hint = "another program holds the port; close it (only one may open a port)"
        elif "permission" in lowered or "denied" in lowered:
            hint = "no permission; add the user to the 'dialout' group or fix the udev rule"
        elif "no such file" in lowered or "not found" in lowered or "enoent" in lowered:
            hint = "the port does not exist; check the cable and the configured path"
        else:
            hint = "check the cable, the configured path and that nothing else uses the port"
        return f"cannot open {self.url}: {text}; {hint}"

    def close(self) -> None:
        with self._wake_lock:
            port, self._port = self._port, None
            pipe = (self._wake_r, self._wake_w)
            self._wake_r = self._wake_w = self._fd = None
        with _registry_lock:
            _open_transports.discard(self)
        for fd in pipe:
            if fd is not None:
                os.close(fd)
        if port is None:
            return
        _close_quietly(port, self.url)
        log.info("port closed", port=self.url)

    def wake(self) -> None:
        """Make a read in progress (or the next one) return at once, empty. Any thread."""
        with self._wake_lock:
            if self._wake_w is not None:
                # A full pipe already holds a wake-up.
                with contextlib.suppress(BlockingIOError):
                    os.write(self._wake_w, b"!")
                return
            port = self._port
            if port is None:
                return
            self._woken = True
            cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(serial.SerialException, OSError, ValueError, TypeError):
                cancel()

    def read(self, timeout: float | None = None) -> bytes:
        """What has arrived, waiting at most ``timeout`` seconds (``read_timeout`` if None) for
        the first byte; b"" if none came or :meth:`wake` was called.

        A failure closes the port and raises :class:`PortIOError`.
        """
        port = self._require_open("read")
        wait = self.read_timeout if timeout is None else max(0.0, timeout)
        try:
            if self._fd is not None:
                if not self._wait_readable(self._fd, wait):
                    return b""
                data = port.read(1)
            else:
                data = self._blind_read(port, wait)
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(min(waiting, READ_CHUNK))
        except (serial.SerialException, OSError, ValueError, TypeError) as exc:
            # pyserial raises TypeError/ValueError when a port is closed under its reader.
            self.close()
            raise PortIOError(
                f"reading {self.url} failed: {exc}; the port is closed and will be reopened",
                url=self.url,
            ) from exc
        if data and _WIRE.isEnabledFor(logging.DEBUG):
            self._wire.debug("rx", hex=self._rx_mask.hex(data))
        return data

    def _wait_readable(self, fd: int, wait: float) -> bool:
        """Whether ``fd`` has bytes (or a hang-up) within ``wait``; False when woken."""
        wake_r = self._wake_r
        if wake_r is None:  # closed meanwhile by another thread
            return False
        readable, _, _ = select.select([fd, wake_r], [], [], wait)
        if wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
        return fd in readable

    def _blind_read(self, port: SerialPort, wait: float) -> bytes:
        """One byte from a port without a descriptor, read with its own timeout."""
        if self._woken:
            self._woken = False
            wait = 0.0
        wait = min(wait, MAX_BLIND_WAIT_S)
        if port.timeout != wait:
            port.timeout = wait
        return port.read(1)

    def write(self, data: bytes) -> None:
        """Write all of ``data``. A failure closes the port and raises :class:`PortIOError`."""
        if not data:
            return
        port = self._require_open("write")
        if _WIRE.isEnabledFor(logging.DEBUG):
            self._wire.debug("tx", hex=self._tx_mask.hex(data))
        try:
            written = port.write(data)
        except serial.SerialTimeoutException as exc:
            self.close()
            raise PortIOError(
                f"writing to {self.url} timed out after {self.write_timeout} s (nothing reads "
                "the other end); the port is closed and will be reopened",
                url=self.url,
            ) from exc
        except (serial.SerialException, OSError, ValueError, TypeError) as exc:
            self.close()
            raise PortIOError(
                f"writing to {self.url} failed: {exc}; the port is closed and will be reopened",
                url=self.url,
            ) from exc
        if written is not None and written != len(data):
            self.close()
            raise PortIOError(
                f"writing to {self.url}: only {written} of {len(data)} bytes went out; the port "
                "is closed and will be reopened",
                url=self.url,
            )

    def reconnect(
        self,
        backoff: Backoff,
        *,
        sleep: Callable[[float], object] = time.sleep,
        should_stop: Callable[[], bool] = lambda: False,
        max_attempts: int | None = None,
    ) -> bool:
        """Open the port, retrying with ``backoff`` between attempts.

        Returns True once open, False when ``should_stop()`` turned true or ``max_attempts``
        ran out. ``sleep`` may return early (a stop event's ``wait``).
        """
        attempts = 0
        while not should_stop():
            attempts += 1
            try:
                self.open()
            except PortOpenError as exc:
                if max_attempts is not None and attempts >= max_attempts:
                    return False
                delay = backoff.next_delay()
                log.info("port not back yet", port=self.url, error=str(exc), retry_in=delay)
                sleep(delay)
                continue
            backoff.reset()
            return True
        return False

    def _require_open(self, what: str) -> SerialPort:
        if self._port is None:
            raise PortIOError(f"cannot {what} {self.url}: the port is not open", url=self.url)
        return self._port

    def __repr__(self) -> str:
        return f"<SerialTransport {self.url} {'open' if self.is_open else 'closed'}>"


def _selectable_fd(port: SerialPort) -> int | None:
    """The descriptor of a port whose bytes ``select`` sees (pyserial's POSIX ports, also under
    ``spy://``, and ``socket://``: neither buffers what it has read); None for any other."""
    if not isinstance(port, _SELECTABLE_PORTS):
        return None
    fileno = getattr(port, "fileno", None)
    if fileno is None:
        return None
    try:
        fd = fileno()
    except (serial.SerialException, OSError, ValueError):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


def _close_quietly(port: SerialPort, url: str) -> None:
    try:
        port.close()
    except (serial.SerialException, OSError) as exc:
        log.info("error while closing a port ignored", port=url, error=str(exc))


def _selectable_port_types() -> tuple[type, ...]:
    found: list[type] = []
    with contextlib.suppress(ImportError):
        from serial.serialposix import Serial as PosixSerial  # noqa: PLC0415 - POSIX only

        found.append(PosixSerial)
    from serial.urlhandler.protocol_socket import Serial as SocketSerial  # noqa: PLC0415

    found.append(SocketSerial)
    return tuple(found)


_SELECTABLE_PORTS = _selectable_port_types()
