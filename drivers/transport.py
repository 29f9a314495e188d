"""Bytes to and from one serial port named by any pyserial URL.

:class:`SerialTransport` opens the URL exclusively (``exclusive=True``: a real posix port is
``flock``-ed so a second program cannot open it; pyserial's URL handlers such as ``loop://``,
``socket://`` and ``spy://`` accept the flag and have nothing to lock), reads what has arrived,
writes whole buffers, and turns every pyserial and OS error into :mod:`drivers.errors` with
``raise ... from``. A read or write that fails means the port is dead: the transport closes
itself and the owner reopens it with :meth:`SerialTransport.reconnect`, which backs off
exponentially up to a cap. Raw bytes are logged on the ``croupier.wire`` debug logger.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import serial
import structlog

from drivers.errors import DriverConfigError, PortIOError, PortOpenError

BAUD_RATES = (9600, 19200, 115200)
DEFAULT_BAUD = 115200
DEFAULT_READ_TIMEOUT = 0.01
DEFAULT_WRITE_TIMEOUT = 1.0
READ_CHUNK = 4096

wire = structlog.get_logger("croupier.wire")
log = structlog.get_logger("croupier.drivers")


class SerialPort(Protocol):
    """The part of a pyserial port the transport uses."""

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
        self._wire = wire.bind(port=url)

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
        port, self._port = self._port, None
        with _registry_lock:
            _open_transports.discard(self)
        if port is None:
            return
        try:
            port.close()
        except (serial.SerialException, OSError) as exc:
            log.info("error while closing a port ignored", port=self.url, error=str(exc))
        log.info("port closed", port=self.url)

    def read(self) -> bytes:
        """What has arrived, waiting at most ``read_timeout`` for the first byte (b"" if none).

        A failure closes the port and raises :class:`PortIOError`.
        """
        port = self._require_open("read")
        try:
            data = port.read(1)
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
        if data:
            self._wire.debug("rx", hex=data.hex(" "))
        return data

    def write(self, data: bytes) -> None:
        """Write all of ``data``. A failure closes the port and raises :class:`PortIOError`."""
        if not data:
            return
        port = self._require_open("write")
        self._wire.debug("tx", hex=data.hex(" "))
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
