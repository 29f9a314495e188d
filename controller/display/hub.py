"""The display's state, built on the table owner's thread and read by the web server.

:class:`StateHub` observes a :class:`~controller.service.service.TableService`: after every pass
of the owner that changed something it builds the display state (:func:`state_of`) there, and
the web server (any thread, or its event loop) reads the latest one; ``subscribe`` registers a
wake-up for the server's WebSocket senders.

The state message (``{"type": "state", "state": {...}}``) is encoded to JSON text once per
publication, there too, and every client is sent that same text: the cost of a pass does not
grow with the number of pages open, and the web server's thread (which shares the GIL with the
owner) only writes bytes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from controller.display.state import table_state
from controller.display.words import say
from controller.game.prompts import money
from controller.service.service import TableService


def identity_json(service: TableService) -> dict[str, Any] | None:
    """What this start runs, in words for the technician's view (the journal has it all)."""
    software = service.software
    if software is None:
        return None
    row = service.config_row
    files = ", ".join(
        f"{name} {str(row.get(f'{name}_sha256') or '-')[:16]}"
        for name in ("variant", "strategy", "table")
    )
    return {
        "software": software.summary(),
        "recorded": software.recorded,
        "software_sha256": software.sha256,
        "rules": f"Rules files (SHA-256): {files}",
        **{k: row.get(k, "") for k in ("variant_sha256", "strategy_sha256", "table_sha256")},
    }


def state_of(service: TableService, identity: dict[str, Any] | None) -> dict[str, Any]:
    """The display state of an open table (on its owner's thread), with ``identity`` (its
    start's :func:`identity_json`)."""
    assert service.app is not None
    state = table_state(
        service.app,
        service.config,
        service.device_health(),
        service.last_rounds,
        rounds_completed=service.rounds_completed,
        demo=any(actor.name == "demo" for actor in service.actors),
    )
    state["rounds_at_start"] = service.rounds_at_start  # (rebuilt from the journal)
    state["identity"] = identity
    state["notices"] = [
        {**n, "text": say(n["text"])} for n in (x.as_json() for x in service.notices.open())
    ]
    return state


class Shift:
    """The table's result since this start (what the pit calls the shift so far): the house's
    win (+) or loss (-) over the rounds finished since the service was opened, summed from the
    same round summaries the last-rounds list shows (each player's net, sign turned over)."""

    def __init__(self) -> None:
        self.started = datetime.now(UTC)
        self.rounds = 0
        self.house_cents = 0
        self._counted: int | None = None  # rounds_completed already summed

    def update(self, service: TableService) -> None:
        if self._counted is None:  # the rounds finished before this start are not the shift's
            self._counted = service.rounds_at_start
        new = service.rounds_completed - self._counted
        if new <= 0:
            return
        for summary in service.last_rounds[-new:]:
            self.rounds += 1
            self.house_cents -= sum(cents for _, cents in summary.net)
        self._counted = service.rounds_completed

    def as_json(self) -> dict[str, Any]:
        verb = "up" if self.house_cents > 0 else "down" if self.house_cents < 0 else "even"
        return {
            "since": self.started.isoformat(timespec="seconds"),
            "since_text": self.started.astimezone().strftime("%H:%M"),
            "rounds": self.rounds,
            "house_cents": self.house_cents,
            "text": f"house {verb}"
            + (f" {money(abs(self.house_cents))}" if self.house_cents else ""),
        }


class StateHub:
    """The latest display state of one table."""

    def __init__(self) -> None:
        self.shift = Shift()
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._message = ""
        self._version = 0
        self._listeners: list[Callable[[], None]] = []
        # identity_json of a start, worked out once: (its software, its config row, the words)
        self._identity: tuple[object, object, dict[str, Any] | None] | None = None

    @classmethod
    def attach(cls, service: TableService) -> StateHub:
        """A hub that follows ``service`` from now on."""
        hub = cls()
        service.observe(hub.update)
        return hub

    def update(self, service: TableService) -> None:
        """The service's observer: build the state now (owner's thread) and publish it."""
        self.shift.update(service)
        state = state_of(service, self.identity(service))
        state["shift"] = self.shift.as_json()
        self.publish(state)

    def identity(self, service: TableService) -> dict[str, Any] | None:
        """:func:`identity_json` of the service's start: worked out again only when a start
        sets another software identity or config row (not at every publication)."""
        known = self._identity
        if known is None or known[0] is not service.software or known[1] is not service.config_row:
            known = self._identity = (
                service.software,
                service.config_row,
                identity_json(service),
            )
        return known[2]

    def publish(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._version += 1
            self._state = {**state, "version": self._version}
            self._message = json.dumps(
                {"type": "state", "state": self._state}, separators=(",", ":"), ensure_ascii=False
            )
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def latest(self) -> tuple[int, dict[str, Any]]:
        with self._lock:
            return self._version, self._state

    def message(self) -> tuple[int, str]:
        """The latest version and its state message, encoded."""
        with self._lock:
            return self._version, self._message

    def state(self) -> dict[str, Any]:
        return self.latest()[1]

    def subscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)
