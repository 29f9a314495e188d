"""pyserial handler for ``sim://<name>``: a port onto an in-process emulated device.

pyserial finds this module through ``serial.protocol_handler_packages`` (add
``sim_hardware.urlhandler`` with ``sim_hardware.register_url_handler()``); ``serial_for_url``
then builds :class:`Serial` and opens it. The device must be served under ``<name>`` first
(``sim_hardware.serve``). Settings (baud rate, parity...) are accepted and checked like a real
port's but change nothing.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

from sim_hardware.inprocess import SCHEME, InProcessRunner, lookup


class Serial(SerialBase):
    """A pyserial port whose far end is an emulated TBL-21 device."""

    BAUDRATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400)
    _runner: InProcessRunner | None = None
    _generation = -1
    _cancel = False

    def open(self) -> None:
        if self.port is None:
            raise SerialException("Port must be configured before it can be used.")
        if self.is_open:
            raise SerialException("Port is already open.")
        runner = lookup(self._name_from_url(self.port))
        self._reconfigure_port()
        self._generation = runner.attach(self)
        self._runner = runner
        self.is_open = True

    def close(self) -> None:
        if self.is_open and self._runner is not None:
            self._runner.detach(self)
        self._runner = None
        self.is_open = False

    @staticmethod
    def _name_from_url(url: str) -> str:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != SCHEME or not parts.netloc or parts.path not in ("", "/"):
            raise SerialException(
                f"expected a URL of the form {SCHEME}://<name> (e.g. sim://shoe), got {url!r}"
            )
        if parts.query:
            raise SerialException(f"{url!r}: {SCHEME}:// URLs take no options")
        return parts.netloc

    def _reconfigure_port(self) -> None:
        if not isinstance(self.baudrate, int) or not 0 < self.baudrate < 2**32:
            raise ValueError(f"invalid baudrate: {self.baudrate!r}")

    def _live(self) -> InProcessRunner:
        if not self.is_open or self._runner is None:
            raise PortNotOpenError()
        return self._runner

    @property
    def in_waiting(self) -> int:
        return self._live().in_waiting(self, self._generation)

    def read(self, size: int = 1, /) -> bytes:
        runner = self._live()
        self._cancel = False
        return runner.read(self, self._generation, size, self.timeout, lambda: self._cancel)

    def write(self, b: ReadableBuffer, /) -> int:
        runner = self._live()
        return runner.write(self, self._generation, bytes(b))

    def cancel_read(self) -> None:
        self._cancel = True
        if self._runner is not None:
            self._runner.wake()

    def cancel_write(self) -> None:
        return None

    def flush(self) -> None:
        self._live()

    def reset_input_buffer(self) -> None:
        self._live().reset_input(self)

    def reset_output_buffer(self) -> None:
        self._live()

    @property
    def out_waiting(self) -> int:
        self._live()
        return 0

    def _update_break_state(self) -> None:
        return None

    def _update_rts_state(self) -> None:
        return None

    def _update_dtr_state(self) -> None:
        return None

    @property
    def cts(self) -> bool:
        self._live()
        return True

    @property
    def dsr(self) -> bool:
        self._live()
        return True

    @property
    def ri(self) -> bool:
        self._live()
        return False

    @property
    def cd(self) -> bool:
        self._live()
        return True
