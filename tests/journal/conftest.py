"""Fixtures for the journal, audit, history and logging tests: real SQLite files in tmp_path."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import structlog

from controller.journal.store import Journal

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """A clock that moves on by ``step`` each time it is read (or by hand with ``advance``)."""

    def __init__(self, start: datetime = START, step: timedelta = timedelta(seconds=1)) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        now = self.now
        self.now += self.step
        return now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "var" / "journal.sqlite3"


@pytest.fixture
def journal(journal_path: Path, clock: FakeClock) -> Iterator[Journal]:
    with Journal.open(journal_path, table_id="T1", clock=clock) as opened:
        yield opened


def fill(journal: Journal, count: int, *, round_id: int | None = None) -> None:
    """``count`` note rows with distinct payloads."""
    for n in range(count):
        journal.append("note", {"device": "shoe", "text": f"note {n}"}, round_id=round_id)


@pytest.fixture
def filled(journal_path: Path, clock: FakeClock) -> Callable[[int], Path]:
    """A closed journal file of ``n`` rows of several kinds and rounds."""

    def make(count: int) -> Path:
        with Journal.open(journal_path, table_id="T1", clock=clock) as j:
            kinds: list[tuple[str, dict[str, Any], int | None]] = [
                ("software", {"version": "0.1.0"}, None),
                ("round_start", {"round": 1, "variant": "nz-pontoon"}, 1),
                ("prompt", {"code": "DEAL", "text": "deal"}, 1),
                ("ledger", {"box": 1, "amount_cents": 1500}, 1),
                ("round_end", {"round": 1, "net_cents": 1500}, 1),
            ]
            for n in range(count):
                kind, payload, round_id = kinds[n % len(kinds)]
                j.append(kind, {**payload, "n": n}, round_id=round_id)
        return journal_path

    return make


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Leave the process's logging exactly as the test found it."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    level = root.level
    levels = {
        name: logging.getLogger(name).level for name in ("croupier.wire", "transitions", "serial")
    }
    config = structlog.get_config()
    context = structlog.contextvars.get_contextvars()
    try:
        yield
    finally:
        from controller.journal.logs import reset_logging  # noqa: PLC0415

        reset_logging()
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)
        for name, value in levels.items():
            logging.getLogger(name).setLevel(value)
        structlog.configure(**config)
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(**context)
