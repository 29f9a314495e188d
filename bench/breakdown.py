"""Where a card's time goes on the table's side: ``display_latency.py --breakdown``.

Wraps, for the length of one benchmark run, the steps a card takes on the owner's thread and
notes when each began and ended (``perf_counter``), with the journal's commits counted (and what
each committed). Then, per timed card, the time of each step inside the card's table leg (from
the card's frame written on the pty to the state published), clipped to it:

- ``driver``: the frame written -> the driver thread putting the event in the owner's inbox
  (the read, the framing, the wake-up of the driver's thread);
- ``queued``: in the inbox -> the owner taking it (the owner busy with something else, or waiting
  for the GIL);
- ``commit``: :meth:`Journal._write` (``BEGIN IMMEDIATE``, the inserts, ``COMMIT`` with its
  fsync), split into ``commit_cause`` (a commit with a cause row: the cause alone before the
  one-transaction change, the cause with its effects after), ``commit_effects`` (effects alone)
  and ``commit_other`` (notices, the stop row...); ``rows``: the hashing and inserting in them;
- ``apply``: the table applying the cause (:meth:`TableApp.apply`: the round controller);
- ``send_orders``: the device commands leaving for the drivers; ``ack``: the card's event
  confirmed to its driver;
- ``log``: the logging handlers (the audit log's JSON lines, the debug log);
- ``actors``: the demo dealer's turn; ``lamp``: the notice lamp; ``state``: the display's state
  built (and published);
- ``other``: what is left (the owner waiting for the GIL or a core, and code not wrapped).

Bench-only: nothing here changes what the table does, only notes the time.
"""

from __future__ import annotations

import bisect
import logging
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from controller.display.hub import StateHub
from controller.journal.store import Journal
from controller.service.service import TableService
from controller.table.app import TableApp
from drivers.table import TableDevices
from drivers.tbl21.events import CardDrawn

STEPS = (
    "driver",
    "queued",
    "commit_cause",
    "commit_effects",
    "commit_other",
    "rows",
    "apply",
    "send_orders",
    "ack",
    "log",
    "actors",
    "lamp",
    "state",
    "other",
)
CAUSE_KINDS = frozenset({"device_event", "call"})
OWNER = "table-owner"


class Breakdown:
    """Spans of the owner thread's steps, and the card events' arrival in the inbox."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float, str]] = []  # (start, end, step), owner thread only
        self.commits: list[tuple[float, str]] = []  # (end, label) of each commit, any thread
        self.card_put: list[float] = []  # a new CardDrawn put in the inbox
        self.card_taken: list[float] = []  # ... and taken by the owner
        self.label = threading.local()
        self._undo: list[Callable[[], None]] = []

    # --- wrapping ----------------------------------------------------------------------------

    def _wrap(self, owner: Any, name: str, step: str | Callable[..., str]) -> None:
        original = getattr(owner, name)
        spans = self.spans

        def timed(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name != OWNER:
                return original(*args, **kwargs)
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                label = step if isinstance(step, str) else step(*args, **kwargs)
                spans.append((start, time.perf_counter(), label))

        setattr(owner, name, timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def install(self, service: TableService) -> None:
        """Before ``service.start()``."""
        breakdown = self

        def commit_label(journal: Any, entries: Any, *_: Any, **__: Any) -> str:
            return breakdown.label.__dict__.get("step", "commit_other")

        # Every write goes through append_groups where it exists (append_many calls it), and
        # through append_many before it did (the commit compared against).
        name = "append_groups" if hasattr(Journal, "append_groups") else "append_many"
        append_many = getattr(Journal, name)

        def labelled_append(journal: Journal, entries: Any, *args: Any, **kwargs: Any) -> Any:
            entries = list(entries)
            if name == "append_groups":
                kinds = {kind for group, _ in entries for kind, _ in list(group)}
                entries = [(list(group), round_id) for group, round_id in entries]
            else:
                kinds = {kind for kind, _ in entries}
            if kinds & CAUSE_KINDS:
                step = "commit_cause"
            elif kinds & {"notice", "stop", "software", "config", "recovery"}:
                step = "commit_other"
            else:
                step = "commit_effects"
            breakdown.label.step = step
            try:
                return append_many(journal, entries, *args, **kwargs)
            finally:
                breakdown.commits.append((time.perf_counter(), step))
                breakdown.label.step = "commit_other"

        setattr(Journal, name, labelled_append)
        self._undo.append(lambda: setattr(Journal, name, append_many))
        self._wrap(Journal, "_write", commit_label)
        self._wrap(Journal, "_insert", "rows")
        self._wrap(TableApp, "apply", "apply")
        self._wrap(TableApp, "send_orders", "send_orders")
        self._wrap(TableDevices, "confirm", "ack")
        self._wrap(logging.Handler, "handle", "log")
        self._wrap(TableService, "_tick_actors", "actors")
        self._wrap(TableService, "_signal", "lamp")
        self._wrap(StateHub, "update", "state")

        inbox = service._inbox
        put = inbox.put

        def timed_put(item: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(item, CardDrawn):
                breakdown.card_put.append(time.perf_counter())
            put(item, *args, **kwargs)

        inbox.put = timed_put  # type: ignore[method-assign]
        dispatch = TableService._dispatch

        def timed_dispatch(svc: TableService, item: object) -> bool:
            if isinstance(item, CardDrawn):
                breakdown.card_taken.append(time.perf_counter())
            return dispatch(svc, item)

        TableService._dispatch = timed_dispatch  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(TableService, "_dispatch", dispatch))

    def uninstall(self) -> None:
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()

    # --- the figures -------------------------------------------------------------------------

    def per_card(self, windows: list[tuple[int, float, float]]) -> list[dict[str, float]]:
        """Per timed card (its index, frame written, state published): ms in each step."""
        spans = sorted(self.spans)
        starts = [s for s, _, _ in spans]
        longest = max((e - s for s, e, _ in spans), default=0.0)
        rows = []
        for index, wrote, published in windows:
            steps: Counter[str] = Counter()
            first = bisect.bisect_left(starts, wrote - longest)
            for start, end, step in spans[first:]:
                if start >= published:
                    break
                overlap = min(end, published) - max(start, wrote)
                if overlap > 0:
                    steps[step] += overlap
            if index < len(self.card_put):
                steps["driver"] = max(0.0, min(self.card_put[index], published) - wrote)
            if index < len(self.card_taken) and index < len(self.card_put):
                taken = min(self.card_taken[index], published)
                steps["queued"] = max(0.0, taken - self.card_put[index])
            # nested spans: the rows inside a commit, the log inside everything
            wrapped = sum(v for k, v in steps.items() if k not in ("rows", "log"))
            steps["other"] = max(0.0, (published - wrote) - wrapped)
            row = {step: 1000 * steps.get(step, 0.0) for step in STEPS}
            row["total"] = 1000 * (published - wrote)
            row["commits"] = float(
                bisect.bisect_left(self.commits, (published, ""))
                - bisect.bisect_left(self.commits, (wrote, ""))
            )
            rows.append(row)
        return rows

    def report(self, windows: list[tuple[int, float, float]], cards: int) -> dict[str, Any]:
        rows = self.per_card(windows)
        if not rows:
            return {}
        rows.sort(key=lambda r: r["total"])
        tail = rows[int(0.99 * len(rows)) :]

        def pct(values: list[float], share: float) -> float:
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

        steps = {
            step: {
                "p50_ms": round(statistics.median(r[step] for r in rows), 3),
                "p99_ms": round(pct([r[step] for r in rows], 0.99), 3),
                "mean_ms": round(statistics.fmean(r[step] for r in rows), 3),
                "tail_mean_ms": round(statistics.fmean(r[step] for r in tail), 3),
            }
            for step in (*STEPS, "commits")
        }
        kinds = Counter(label for _, label in self.commits)
        return {
            "commits": dict(kinds),
            "commits_per_card": round(sum(kinds.values()) / max(1, cards), 2),
            "cards_matched": len(rows),
            "steps": steps,
            "slowest": [
                {k: round(v, 2) for k, v in r.items() if v >= 0.05 or k == "total"}
                for r in rows[-5:]
            ],
        }


@contextmanager
def installed(service: TableService) -> Iterator[Breakdown]:
    breakdown = Breakdown()
    breakdown.install(service)
    try:
        yield breakdown
    finally:
        breakdown.uninstall()
