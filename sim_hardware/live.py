"""Book-keeping of running emulated devices, so a test fixture can catch leaks."""

from __future__ import annotations

import threading
from typing import Protocol


class Runner(Protocol):
    """Anything that serves an emulated device and must be closed."""

    def close(self) -> None: ...


_lock = threading.Lock()
_live: list[Runner] = []


def track(runner: Runner) -> None:
    with _lock:
        _live.append(runner)


def untrack(runner: Runner) -> None:
    with _lock:
        if runner in _live:
            _live.remove(runner)


def live_devices() -> list[Runner]:
    """Runners (in-process ``sim://`` servers and pty runners) not yet closed, oldest first."""
    with _lock:
        return list(_live)
