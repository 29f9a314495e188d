"""Faults at the boundaries a pseudo-terminal cannot produce, injected with pytest-mock.

A real table (:class:`TableService`, its drivers on real ptys, its SQLite journal on disk) plays
Pennsylvania Blackjack rounds with the demo's dealer acting on the emulated devices. Exactly one
boundary is patched per test, only for as long as the fault lasts:

- pyserial's ``Serial.write`` / ``Serial.read`` raising ``SerialException`` on the shoe's port in
  the middle of a round;
- SQLite answering ``disk I/O error`` (at COMMIT) and ``database or disk is full`` (at INSERT)
  in the middle of a round, the journal's connection wrapped by ``mocker``;
- the wall clock the journal reads jumping back an hour.

Each run is compared with the same rounds played undisturbed (same shuffle, same bets, same
strategy): the same cards, the same round ends, the same money; every card the shoe gave is
applied once, in draw order; the chain verifies; and the table plays on after the fault clears.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import serial
from pytest_mock import MockerFixture

from controller.journal import store
from controller.journal.store import Journal
from controller.play.demo import DemoDealer
from controller.play.strategy import strategy_for
from controller.round.spec import State
from controller.service.notices import NoticeKind
from controller.service.service import TableService
from controller.table.config import LoadedTable, table_from_mapping
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, PtyRunner
from tests.faults.harness import JournalRow, applied_cards, read_journal

ROUNDS = 3
WAIT_S = 30.0
FAULT_AT_DRAW = 9  # the fault strikes after this many cards: round 1 or 2, cards on the table


# --- the table -----------------------------------------------------------------------------


@dataclass
class Table:
    service: TableService
    shoe: EmulatedShoe
    shoe_port: str
    journal_path: Path


class UpTo:
    """The demo's dealer, who stops after ``rounds`` rounds (so the shoe and the journal can be
    compared once everything is quiet)."""

    name = "demo"

    def __init__(self, inner: DemoDealer, service: TableService, rounds: int) -> None:
        self.inner = inner
        self.service = service
        self.rounds = rounds

    def tick(self, now: float) -> None:
        if self.service.rounds_completed < self.rounds:
            self.inner.tick(now)


def loaded(folder: Path, ports: dict[str, str]) -> LoadedTable:
    return table_from_mapping(
        {
            "table_id": "t-boundaries",
            "variant": "pa-blackjack",
            "boxes": [1, 2, 3],
            "display": {"port": 0},
            "devices": ports,
            "journal": {"path": str(folder / "journal.sqlite3")},
        },
        "<test>",
        folder,
    )


@contextmanager
def pty_table(folder: Path, rounds: int = ROUNDS) -> Iterator[Table]:
    """A table whose three devices are emulated on real ptys, the demo's dealer acting."""
    folder.mkdir(parents=True, exist_ok=True)
    shoe, reader, panel = EmulatedShoe(decks=6, seed=11), EmulatedPeekReader(), EmulatedPanel()
    runners = [PtyRunner(d, name=n) for d, n in ((shoe, "shoe"), (reader, "peek"), (panel, "pnl"))]
    try:
        ports = dict(zip(("shoe", "peek", "panel"), (r.port for r in runners), strict=True))
        table = loaded(folder, ports)

        def seat(service: TableService) -> UpTo:
            assert service.app is not None
            limits = service.config.limits
            dealer = DemoDealer(
                service.app,
                shoe,
                reader,
                panel,
                strategy_for(service.rules),
                boxes=(1, 2),
                min_cents=limits.min_cents,
                max_cents=limits.max_cents,
                increment_cents=limits.increment_cents,
                pace_s=0.0,
                seed=3,
                bet=service.journaled.answer,
            )
            return UpTo(dealer, service, rounds)

        service = TableService(table, actors=[seat])
        service.start()
        try:
            yield Table(service, shoe, ports["shoe"], table.journal_path)
        finally:
            service.close()
    finally:
        for runner in reversed(runners):
            runner.close()


def wait_until(check: Callable[[], bool], what: str, service: TableService) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.01)
    app = service.app
    state = None if app is None else app.controller.state
    raise AssertionError(
        f"the table did not reach: {what} (state {state}; errors {service.errors})"
    )


def play_out(table: Table) -> list[JournalRow]:
    """Wait for the rounds, then for the table to be quiet; the journal's rows."""
    service = table.service
    wait_until(lambda: service.rounds_completed >= ROUNDS, f"{ROUNDS} rounds played", service)
    app = service.app
    assert app is not None
    wait_until(
        lambda: app.controller.state is State.BETTING and app.cards_handled >= 0,
        "bets open after the last round",
        service,
    )
    assert service.errors == []
    return read_journal(table.journal_path)


@dataclass(frozen=True)
class Played:
    cards: list[tuple[int, str]]  # (draw_no, card), as the table applied them
    ends: list[dict[str, Any]]  # the round_end rows, in order
    ledger: list[dict[str, Any]]


def played(rows: list[JournalRow]) -> Played:
    return Played(
        applied_cards(rows),
        [r.payload for r in rows if r.kind == "round_end"],
        [r.payload for r in rows if r.kind == "ledger"],
    )


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The same rounds with no fault: what every faulted run must come to."""
    folder = tmp_path_factory.mktemp("undisturbed")
    with pty_table(folder) as table:
        rows = play_out(table)
    return played(rows)


def assert_nothing_twice_nothing_lost(
    table: Table, rows: list[JournalRow], undisturbed: Played
) -> None:
    got = played(rows)
    draw_numbers = [n for n, _ in got.cards]
    assert draw_numbers == list(range(1, len(draw_numbers) + 1)), "a card applied twice or lost"
    assert len(got.cards) == table.shoe.draw_no, "the shoe gave a card the table did not apply"
    assert got.cards == undisturbed.cards
    assert [e["round"] for e in got.ends] == [e["round"] for e in undisturbed.ends]
    assert got.ends == undisturbed.ends  # the same money to each player, each round once
    assert got.ledger == undisturbed.ledger
    with Journal.open(table.journal_path, readonly=True) as journal:
        assert journal.verify().ok


def state_when_struck(table: Table) -> State:
    app = table.service.app
    assert app is not None
    return app.controller.state


MID_ROUND = {s for s in State if s not in (State.BETTING, State.BURN, State.SHUFFLE)}


# --- pyserial ------------------------------------------------------------------------------


@dataclass
class SerialFault:
    """Raise ``SerialException`` once, on the shoe's port, after ``FAULT_AT_DRAW`` cards."""

    table: Table | None = None
    struck: list[State] = field(default_factory=list)  # the table's state when it struck
    lock: threading.Lock = field(default_factory=threading.Lock)

    def strikes(self, port: serial.Serial) -> bool:
        table = self.table
        if table is None or port.port != table.shoe_port:
            return False
        with self.lock:
            if self.struck or table.shoe.draw_no < FAULT_AT_DRAW:
                return False
            self.struck.append(state_when_struck(table))
            return True


def hold_rows(rows: list[JournalRow]) -> list[JournalRow]:
    return [r for r in rows if r.kind == "state" and r.payload["dest"] == "hold"]


def assert_held_for_the_shoe_and_resumed(rows: list[JournalRow]) -> None:
    lost = [
        r
        for r in rows
        if r.kind == "device_event"
        and r.payload.get("type") == "LinkLost"
        and r.payload["device"]["type"] == "shoe"
    ]
    assert len(lost) == 1
    assert "failed" in lost[0].payload["reason"]  # what pyserial said, passed on
    holds = hold_rows(rows)
    assert len(holds) == 1
    assert holds[0].seq > lost[0].seq
    prompts = [r.payload["text"] for r in rows if r.kind == "prompt" and r.seq > lost[0].seq]
    assert any("shoe" in text.lower() for text in prompts[:3]), prompts[:3]
    resumed = [r for r in rows if r.kind == "state" and r.payload["source"] == "hold"]
    assert resumed
    assert resumed[0].seq > holds[0].seq


@pytest.mark.parametrize(
    ("method", "error"),
    [
        ("write", serial.SerialException(5, "write failed: [Errno 5] Input/output error")),
        (
            "read",
            # what pyserial says when a USB adapter goes away under a read
            serial.SerialException(
                "device reports readiness to read but returned no data "
                "(device disconnected or multiple access on port?)"
            ),
        ),
    ],
    ids=["mid-write", "mid-read"],
)
def test_a_serial_port_that_fails_mid_round_holds_the_table_and_applies_every_card_once(
    tmp_path: Path,
    mocker: MockerFixture,
    undisturbed: Played,
    method: str,
    error: serial.SerialException,
) -> None:
    fault = SerialFault()
    real = getattr(serial.Serial, method)

    def faulty(port: serial.Serial, *args: Any) -> Any:
        if fault.strikes(port):
            raise error
        return real(port, *args)

    mocker.patch.object(serial.Serial, method, autospec=True, side_effect=faulty)
    with pty_table(tmp_path) as table:
        fault.table = table
        rows = play_out(table)

    assert len(fault.struck) == 1
    assert fault.struck[0] in MID_ROUND
    assert_held_for_the_shoe_and_resumed(rows)
    assert_nothing_twice_nothing_lost(table, rows, undisturbed)


# --- SQLite --------------------------------------------------------------------------------


def sqlite_error(message: str, code: int, name: str) -> sqlite3.OperationalError:
    """The error SQLite's driver raises (with its extended result code, as sqlite3 sets it)."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    error.sqlite_errorname = name
    return error


@dataclass
class DiskFault:
    """SQLite fails every write of one kind for ``lasts_s`` seconds, from the first write after
    ``FAULT_AT_DRAW`` cards."""

    table: Table
    error: sqlite3.OperationalError
    lasts_s: float = 1.5
    started: float | None = None
    failed: int = 0
    state: State | None = None

    def active(self) -> bool:
        if self.started is None:
            if self.table.shoe.draw_no < FAULT_AT_DRAW:
                return False
            self.started = time.monotonic()
            self.state = state_when_struck(self.table)
        return time.monotonic() - self.started < self.lasts_s

    def cleared(self) -> bool:
        return self.started is not None and time.monotonic() - self.started >= self.lasts_s


def break_the_disk(
    mocker: MockerFixture, table: Table, error: sqlite3.OperationalError, at: str
) -> DiskFault:
    """Wrap the journal's SQLite connection: ``at`` ("COMMIT" or "INSERT") fails while the
    fault is active; everything else (and everything once it clears) is SQLite itself."""
    journal = table.service.journaled.journal
    real: sqlite3.Connection = journal._db
    fault = DiskFault(table, error)

    def fails(sql: str) -> bool:
        struck = (at == "COMMIT" and sql == "COMMIT") or (
            at == "INSERT" and sql.startswith("INSERT INTO journal ")
        )
        return struck and fault.active()

    def execute(sql: str, *args: Any) -> sqlite3.Cursor:
        if fails(sql):
            fault.failed += 1
            raise fault.error
        return real.execute(sql, *args)

    def executemany(sql: str, rows: Any) -> sqlite3.Cursor:
        if fails(sql):
            fault.failed += 1
            raise fault.error
        return real.executemany(sql, rows)

    db = mocker.patch.object(journal, "_db", wraps=real)
    db.execute.side_effect = execute
    db.executemany.side_effect = executemany
    return fault


def journal_fault_notices(table: Table) -> list[str]:
    return [n.text for n in table.service.notices.open() if n.kind is NoticeKind.JOURNAL]


@pytest.mark.parametrize(
    ("error", "at", "words"),
    [
        (
            sqlite_error("disk I/O error", 778, "SQLITE_IOERR_WRITE"),
            "COMMIT",
            "because of a disk error (disk I/O error). Call a technician",
        ),
        (
            sqlite_error("database or disk is full", 13, "SQLITE_FULL"),
            "INSERT",
            "because the disk is full (database or disk is full). Free disk space",
        ),
    ],
    ids=["disk-io-error-at-commit", "disk-full-at-insert"],
)
def test_a_journal_that_fails_mid_round_stops_the_table_with_the_reason_and_it_plays_on(
    tmp_path: Path,
    mocker: MockerFixture,
    undisturbed: Played,
    error: sqlite3.OperationalError,
    at: str,
    words: str,
) -> None:
    with pty_table(tmp_path) as table:
        fault = break_the_disk(mocker, table, error, at)
        wait_until(fault.cleared, "the disk fault struck and cleared", table.service)
        rows = play_out(table)
        notices = journal_fault_notices(table)
        unavailable = table.service.journaled.unavailable

    assert fault.failed >= 1
    assert fault.state in MID_ROUND
    assert len(notices) == 1, notices
    assert notices[0].startswith(f"Journal unavailable: {table.journal_path}")
    assert words in notices[0]
    assert unavailable is None  # written again since
    # the notice itself is journalled once the journal takes rows again
    opened = [r for r in rows if r.kind == "notice" and r.payload["event"] == "opened"]
    assert [r.payload["text"] for r in opened] == notices
    assert_nothing_twice_nothing_lost(table, rows, undisturbed)


# --- the wall clock ------------------------------------------------------------------------


def test_the_wall_clock_jumping_back_mid_round_keeps_journal_times_in_order_and_says_so(
    tmp_path: Path, mocker: MockerFixture, undisturbed: Played
) -> None:
    jump = timedelta(hours=1)
    real_now = store.utc_now

    @dataclass
    class Clock:
        table: Table | None = None
        jumped_at: datetime | None = None

        def __call__(self) -> datetime:
            now = real_now()
            table = self.table
            if self.jumped_at is None and table is not None and table.shoe.draw_no >= 9:
                self.jumped_at = now
            return now - jump if self.jumped_at is not None else now

    clock = Clock()
    mocker.patch.object(store, "utc_now", side_effect=clock)
    with pty_table(tmp_path) as table:
        clock.table = table
        rows = play_out(table)
        texts = [n.text for n in table.service.notices.open()]
    assert clock.jumped_at is not None

    with Journal.open(table.journal_path, readonly=True) as journal:
        times = [row.at for row in journal.iter_rows()]
    assert times == sorted(times), "journal times went backwards"
    assert any("clock went back" in text and "1:00:00" in text for text in texts), texts
    notes = [r for r in rows if r.kind == "notice" and "clock went back" in r.payload["text"]]
    assert len(notes) == 1
    assert_nothing_twice_nothing_lost(table, rows, undisturbed)
    assert datetime.now(UTC) > times[-1]
