"""Backends for the integration tests: the same emulated device served in-process under a
``sim://`` URL or on a real pseudo-terminal, so one test body runs against both."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Protocol

import pytest

from sim_hardware import DeviceCore, PtyRunner, serve

_names = itertools.count()


class Runner(Protocol):
    def close(self) -> None: ...


class Backend:
    """Serves devices one way and closes them all at the end of the test."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._runners: list[Runner] = []

    def serve(self, device: DeviceCore) -> str:
        """Serve ``device``; return the URL (or stable pty path) a driver opens."""
        name = f"it-{next(_names)}"
        if self.kind == "sim":
            runner = serve(device, name)
            self._runners.append(runner)
            return runner.url
        pty = PtyRunner(device, name=name)
        self._runners.append(pty)
        return pty.port

    def close(self) -> None:
        for runner in reversed(self._runners):
            runner.close()


@pytest.fixture(params=["sim", "pty"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    chosen = Backend(request.param)
    yield chosen
    chosen.close()
