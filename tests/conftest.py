"""Suite-wide checks: no test may leave a thread, a port or an emulated device running.

Hypothesis runs without its per-example deadline: these machines are shared, and a test that
fails because a neighbour took the CPU shows nothing about the code (speed lives in bench/).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

from drivers.transport import open_transports

settings.register_profile("croupier", deadline=None)
settings.load_profile("croupier")

GRACE_S = 1.0  # a thread told to stop may need a moment on a busy 2-core machine
_WATCHED_FD_PREFIXES = ("/dev/pts/", "/dev/ptmx", "/dev/tty", "socket:", "pipe:")


def _live_devices() -> Callable[[], list[object]] | None:
    """``sim_hardware.live_devices`` if the emulator package provides it."""
    try:
        import sim_hardware  # noqa: PLC0415
    except ImportError:
        return None
    found = getattr(sim_hardware, "live_devices", None)
    return found if callable(found) else None


def _watched_fds() -> dict[int, str]:
    fds: dict[int, str] = {}
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:  # not Linux: skip the descriptor check
        return fds
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith(_WATCHED_FD_PREFIXES):
            fds[int(name)] = target
    return fds


def _new_threads(before: set[int]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]


@pytest.fixture(autouse=True)
def no_leaked_threads_ports_or_devices() -> Iterator[None]:
    """Fail a test that leaves a thread, an open port (driver transport or pty/socket/pipe
    descriptor) or an emulated device running."""
    threads_before = {t.ident for t in threading.enumerate() if t.ident is not None}
    fds_before = _watched_fds()
    live = _live_devices()
    devices_before = {id(d) for d in live()} if live else set()
    yield
    problems: list[str] = []

    deadline = time.monotonic() + GRACE_S
    while _new_threads(threads_before) and time.monotonic() < deadline:
        time.sleep(0.01)
    problems += [f"thread {t.name!r} still running" for t in _new_threads(threads_before)]

    for transport in open_transports():
        problems.append(f"port {transport.url} left open")
        transport.close()

    if live:
        for device in live():
            if id(device) not in devices_before:
                problems.append(f"emulated device {device!r} left running")

    leaked = {fd: t for fd, t in _watched_fds().items() if fds_before.get(fd) != t}
    problems += [f"descriptor {fd} -> {target} left open" for fd, target in leaked.items()]

    if problems:
        pytest.fail("the test leaked:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """A command run by a test configures logging for the process: undo it afterwards, so no
    later test logs through a handler bound to a closed capture stream."""
    yield
    from controller.journal.logs import reset_logging  # noqa: PLC0415

    reset_logging()
