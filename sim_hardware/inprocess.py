"""Serving an emulated device in-process under a ``sim://<name>`` pyserial URL.

::

    shoe = EmulatedShoe(cards="AS KH 7C")
    with serve(shoe, "shoe"):
        port = serial.serial_for_url("sim://shoe", exclusive=True, timeout=0.1)
        ...  # the production driver opens the URL exactly like a real port

No thread: the device is ticked whenever the host reads, writes or asks ``in_waiting``, and a
scripted action (``shoe.draw()``) wakes a host blocked in ``read``. Time is ``clock()``
(``time.monotonic`` unless given). Like a real port: a second open of the same name is refused
(exclusive access); bytes the device sends while no host has the port open are lost; when the
device's cable is unplugged every read and write on the open port raises ``SerialException``
(EIO) and opening fails (ENOENT) until it is plugged back, after which the old port object stays
dead and the host must open the URL again.
"""

from __future__ import annotations

import errno
import re
import threading
import time
from collections.abc import Callable

import serial

from drivers.tbl21.closing import Closing
from sim_hardware.device import DeviceCore
from sim_hardware.errors import DeviceNameInUseError, SimConfigError
from sim_hardware.live import track, untrack

SCHEME = "sim"
HANDLER_PACKAGE = "sim_hardware.urlhandler"
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_served: dict[str, InProcessRunner] = {}
_served_lock = threading.Lock()
_MAX_WAIT_S = 0.02


def register_url_handler() -> None:
    """Make ``serial.serial_for_url("sim://<name>")`` reach served devices (idempotent)."""
    if HANDLER_PACKAGE not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(HANDLER_PACKAGE)


def serve(
    device: DeviceCore, name: str, *, clock: Callable[[], float] = time.monotonic
) -> InProcessRunner:
    """Serve ``device`` as ``sim://<name>`` until the returned runner is closed."""
    return InProcessRunner(device, name, clock=clock)


def lookup(name: str) -> InProcessRunner:
    with _served_lock:
        runner = _served.get(name)
    if runner is None:
        raise serial.SerialException(
            errno.ENOENT,
            f"could not open port {SCHEME}://{name}: no emulated device is served under that "
            f"name (serve one with sim_hardware.serve(device, {name!r}))",
        )
    return runner


class InProcessRunner(Closing):
    """One device served under one ``sim://`` name. Close it (or use ``with``) when done."""

    def __init__(
        self, device: DeviceCore, name: str, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not _NAME.match(name):
            raise SimConfigError(
                f"device name {name!r}: use letters, digits, '_', '-' or '.' (it becomes a URL)"
            )
        register_url_handler()
        device.claim_cable(self)
        self.device = device
        self.name = name
        self.url = f"{SCHEME}://{name}"
        self.clock = clock
        self._io = threading.Lock()  # always taken before the device lock, never after
        self._wake = threading.Event()
        self._rx = bytearray()
        self._holder: object | None = None  # the open port, if any
        self._generation = 0  # bumps on every unplug: ports opened before stay dead
        self._unplugs_seen = device.unplug_count
        self._closed = False
        self.read_polls = 0  # passes of the read loop (a spinning reader shows here)
        with _served_lock:
            if name in _served:
                device.release_cable(self)
                raise DeviceNameInUseError(
                    f"{self.url} is already served by {_served[name].device!r}; close that "
                    f"runner first or pick another name"
                )
            _served[name] = self
        try:
            with self._io:
                self._pump()  # the device boots now, like a powered shoe waiting for a host
        except BaseException:
            with _served_lock:
                del _served[name]
            device.release_cable(self)
            raise
        device.add_listener(self._wake.set)
        track(self)

    # ---- life cycle ---------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.device.remove_listener(self._wake.set)
        self.device.release_cable(self)
        with _served_lock:
            if _served.get(self.name) is self:
                del _served[self.name]
        self._wake.set()
        untrack(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("open" if self._holder else "idle")
        return f"<InProcessRunner {self.url} {type(self.device).__name__} {state}>"

    # ---- the port side (used by sim_hardware.urlhandler.protocol_sim.Serial) -----------------

    def attach(self, holder: object) -> int:
        """Open the port for ``holder``; returns the generation it must present later."""
        with self._io:
            self._pump()
            if self._closed:
                raise serial.SerialException(
                    errno.ENOENT, f"could not open port {self.url}: the emulator was closed"
                )
            if not self.device.cable_connected:
                raise serial.SerialException(
                    errno.ENOENT, f"could not open port {self.url}: device unplugged"
                )
            if self._holder is not None:
                raise serial.SerialException(
                    errno.EBUSY,
                    f"could not open port {self.url}: already open (exclusive access)",
                )
            self._holder = holder
            self._rx.clear()
            return self._generation

    def detach(self, holder: object) -> None:
        with self._io:
            if self._holder is holder:
                self._holder = None
                self._rx.clear()

    def write(self, holder: object, generation: int, data: bytes) -> int:
        with self._io:
            self._pump()
            self._check(holder, generation, "write")
            self._rx += self.device.on_bytes(data, self.clock())
        return len(data)

    def read(
        self,
        holder: object,
        generation: int,
        size: int,
        timeout: float | None,
        cancelled: Callable[[], bool],
    ) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self.read_polls += 1
            self._wake.clear()
            with self._io:
                self._pump()
                if (
                    self._holder is None
                    and generation == self._generation
                    and not (self._closed or not self.device.cable_connected)
                ):
                    return b""  # closed by its owner (another thread) while reading
                self._check(holder, generation, "read")
                if len(self._rx) >= size or timeout == 0 or cancelled():
                    return self._take(size)
                next_due = self.device.next_deadline()
                now = self.clock()
            wait = _MAX_WAIT_S if next_due is None else max(0.0, min(_MAX_WAIT_S, next_due - now))
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    with self._io:
                        return self._take(size)
                wait = min(wait, left)
            if wait > 0:
                self._wake.wait(wait)

    def in_waiting(self, holder: object, generation: int) -> int:
        with self._io:
            self._pump()
            self._check(holder, generation, "in_waiting")
            return len(self._rx)

    def reset_input(self, holder: object) -> None:
        with self._io:
            self._pump()
            if self._holder is holder:
                self._rx.clear()

    def wake(self) -> None:
        self._wake.set()

    def pump(self) -> None:
        """Let the device's timers run now (a test may call it; reads and writes do)."""
        with self._io:
            self._pump()

    # ---- internals (hold self._io) ----------------------------------------------------------

    def _pump(self) -> None:
        out = self.device.tick(self.clock())
        if self.device.unplug_count != self._unplugs_seen:
            self._unplugs_seen = self.device.unplug_count
            self._generation += 1
            self._holder = None
            self._rx.clear()
        if self._holder is not None and self.device.cable_connected:
            self._rx += out

    def _check(self, holder: object, generation: int, what: str) -> None:
        if self._closed:
            raise serial.SerialException(
                errno.EIO, f"{what} failed: {self.url}: the emulator was closed"
            )
        if generation != self._generation or not self.device.cable_connected:
            raise serial.SerialException(
                errno.EIO, f"{what} failed: {self.url}: device disconnected (cable unplugged)"
            )
        if self._holder is not holder:
            raise serial.SerialException(errno.EIO, f"{what} failed: {self.url}: port not open")

    def _take(self, size: int) -> bytes:
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data
