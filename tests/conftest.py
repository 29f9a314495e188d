"""Suite-wide checks: no test may leave a thread, a port or an emulated device running.

Hypothesis runs without its per-example deadline: these machines are shared, and a test that
fails because a neighbour took the CPU shows nothing about the code (speed lives in bench/).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

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


# What makes a test one of the slow kinds: a fixture it uses, or what its module's source uses.
_KIND_FIXTURES = {"browser": ("browser", "page"), "pg": ("cluster",)}
_KIND_SOURCE = {
    "pty": re.compile(r"\bopenpty\b|\bpty_runner\b|\bPtyRunner\b|tests\.faults\.harness"),
    "slow": re.compile(r"\bsubprocess\b|\bPopen\b"),
}
_module_kinds: dict[str, set[str]] = {}


def _source_kinds(path: Path) -> set[str]:
    key = str(path)
    if key not in _module_kinds:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            text = ""
        _module_kinds[key] = {kind for kind, rx in _KIND_SOURCE.items() if rx.search(text)}
    return _module_kinds[key]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with the slow kinds it is (``browser``, ``pg``, ``pty``, ``slow``): by
    the fixtures it uses, and by what its module uses (pseudo-terminals, other processes). A new
    test is marked without anyone remembering to."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        kinds = {kind for kind, names in _KIND_FIXTURES.items() if used.intersection(names)}
        kinds |= _source_kinds(item.path)
        for kind in sorted(kinds):
            item.add_marker(getattr(pytest.mark, kind))


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


# croupier records where each table id's journal is (controller.journal.whereabouts) and refuses
# a new journal for a table id whose journal is elsewhere: the tests start table-1 in many
# folders, so each test (and, for the fixtures of a module or session, the run) has a state
# folder of its own, never the user's.
_STATE_ENV = "CROUPIER_STATE_DIR"


@pytest.fixture(scope="session", autouse=True)
def state_folder_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.environ.get(_STATE_ENV)
    os.environ[_STATE_ENV] = str(tmp_path_factory.mktemp("croupier-state"))
    yield
    if before is None:
        os.environ.pop(_STATE_ENV, None)
    else:
        os.environ[_STATE_ENV] = before


@pytest.fixture(autouse=True)
def state_folder_of_the_test(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_STATE_ENV, str(tmp_path_factory.mktemp("croupier-state")))
