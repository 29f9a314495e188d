"""Running an emulated device on a real pseudo-terminal.

The device sits on the master side; the host opens the slave with pyserial exactly as it would
open a USB serial adapter::

    with PtyRunner(EmulatedShoe(seed=7), name="shoe") as runner:
        port = serial.serial_for_url(runner.port, exclusive=True, timeout=0.1)

``runner.slave_path`` is the ``/dev/pts/N`` of the moment; ``runner.port`` (also
``runner.link_path``) is a symlink that always points at the current one, like a
``/dev/serial/by-id/`` name, so a host that reconnects after an unplug finds the device again.

A background thread pumps bytes and ticks. The runner keeps its own slave descriptor open so the
pty survives the host closing and reopening it. An unplug (``device.unplug()`` or an
:class:`~sim_hardware.faults.Unplug` spec) closes both ends: the host's reads and writes fail
with EIO as with a pulled USB cable; a replug makes a fresh pty and moves the link. Bytes the
host is too slow to take pile up to 64 KiB, then the oldest are dropped (a UART overrun).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from drivers.tbl21.closing import Closing
from sim_hardware.device import DeviceCore
from sim_hardware.errors import SimError
from sim_hardware.live import track, untrack

MAX_TICK_S = 0.05  # the device says when it needs a tick; this is only a backstop
OVERRUN_BYTES = 64 * 1024


class PtyRunner(Closing):
    """Serve one device on a pseudo-terminal until :meth:`close`."""

    def __init__(
        self,
        device: DeviceCore,
        *,
        name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        link_dir: str | Path | None = None,
    ) -> None:
        device.claim_cable(self)
        self.device = device
        self.name = name or type(device).__name__.lower()
        self.clock = clock
        self.error: BaseException | None = None
        self.stats: dict[str, int] = {"bytes_in": 0, "bytes_out": 0, "overrun": 0, "steps": 0}
        self._own_dir = link_dir is None
        self._dir = (
            Path(tempfile.mkdtemp(prefix="croupier-sim-")) if link_dir is None else Path(link_dir)
        )
        self.link_path = self._dir / self.name
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_path = ""
        self._pending = bytearray()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._closed = False
        self._unplugs_seen = device.unplug_count
        self._plugs = 0
        self._thread = threading.Thread(target=self._run, name=f"sim-pty-{self.name}", daemon=True)
        try:
            self._plug_in()
            self._pending += device.tick(clock())  # booted before anyone can look at it
        except BaseException:
            self._release()
            raise
        device.add_listener(self._poke)
        track(self)
        self._thread.start()

    # ---- public -------------------------------------------------------------------------------

    @property
    def slave_path(self) -> str:
        """The ``/dev/pts/N`` the host can open now (changes after an unplug and replug)."""
        return self._slave_path

    @property
    def port(self) -> str:
        """The stable path to open (a symlink to the current slave)."""
        return str(self.link_path)

    @property
    def plug_count(self) -> int:
        """How many ptys this runner has made (1 + the replugs it has carried out)."""
        return self._plugs

    def wait_plugged(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until the runner has made its ``count``-th pty (after a replug)."""
        deadline = time.monotonic() + timeout
        while self._plugs < count:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def close(self) -> None:
        """Stop the pump thread, close every descriptor and remove the link.

        Raises :class:`SimError` if the pump thread died of an error (a bug worth seeing).
        """
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._poke()
        self._thread.join(timeout=5)
        self.device.remove_listener(self._poke)
        self._release()
        untrack(self)
        if self._thread.is_alive():
            raise SimError(f"the pty pump thread of {self.name} did not stop within 5 s")
        if self.error is not None:
            raise SimError(f"the pty pump thread of {self.name} failed: {self.error!r}") from (
                self.error
            )

    def __repr__(self) -> str:
        return f"<PtyRunner {self.name} {self._slave_path or '(unplugged)'}>"

    def _release(self) -> None:
        self.device.release_cable(self)
        self._unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        if self._own_dir:
            shutil.rmtree(self._dir, ignore_errors=True)

    # ---- the pump -----------------------------------------------------------------------------

    def _poke(self) -> None:
        with contextlib.suppress(OSError):  # full pipe: a wake-up is pending anyway
            os.write(self._wake_w, b"!")

    def _plug_in(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: before anyone can write to it
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        tmp = self._dir / f".{self.name}.new"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(path, tmp)
        os.replace(tmp, self.link_path)
        self._master, self._slave = master, slave
        self._slave_path = path  # published last: the link is in place by then
        self._plugs += 1

    def _unplug(self) -> None:
        self._slave_path = ""
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._pending.clear()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._step()
        except BaseException as exc:  # kept for close() to raise in the owner's thread
            self.error = exc

    def _step(self) -> None:
        self.stats["steps"] += 1
        connected = self.device.cable_connected
        if self.device.unplug_count != self._unplugs_seen:
            self._unplugs_seen = self.device.unplug_count
            self._unplug()
        if connected and self._master is None:
            self._plug_in()
        elif not connected and self._master is not None:
            self._unplug()
        now = self.clock()
        due = self.device.next_deadline()
        timeout = MAX_TICK_S if due is None else min(MAX_TICK_S, max(0.0, due - now))
        master = self._master
        readers = [self._wake_r] if master is None else [self._wake_r, master]
        writers = [master] if master is not None and self._pending else []
        readable, _, _ = select.select(readers, writers, [], timeout)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        data = b""
        if master is not None and master in readable:
            try:
                data = os.read(master, 4096)
            except (BlockingIOError, InterruptedError):
                data = b""
            except OSError:  # EIO: no slave open at the moment; nothing to read
                data = b""
        self.stats["bytes_in"] += len(data)
        now = self.clock()
        out = self.device.on_bytes(data, now) if data else self.device.tick(now)
        if self._master is None:
            return
        self._pending += out
        if len(self._pending) > OVERRUN_BYTES:
            excess = len(self._pending) - OVERRUN_BYTES
            del self._pending[:excess]
            self.stats["overrun"] += excess
        if self._pending:
            try:
                written = os.write(self._master, self._pending)
            except (BlockingIOError, InterruptedError):
                written = 0
            except OSError:
                written = len(self._pending)  # nobody listening: the bytes are gone
            del self._pending[:written]
            self.stats["bytes_out"] += written
