"""The table's side of the floor: its journal rows, shipped to PostgreSQL from a thread of its own.

The local SQLite journal stays the record of truth and the outbox. The shipper reads it through
its own read-only connection, never through the table's, and never holds the table up:

1. connect (``[floor] dsn`` with the password from the environment or a file), read what the
   floor holds for this table (``croupier.tables``: the last seq and hash) and check that this
   journal's row at that seq has the same hash (another journal shipping as the same table is
   refused here, or by the floor's insert trigger when both ship at once);
2. ship the rows after it in order, ``batch_rows`` at a time, one transaction each
   (``INSERT ... ON CONFLICT DO NOTHING``: a batch sent again after a lost reply is not written
   twice), ``ensure_months`` asked first (a floor from before 0002 lets the table make the
   month's partition; since 0002 the floor makes them ahead);
3. say how far behind it is (``croupier.report_shipper``) every couple of seconds;
4. on a lost connection, a slow or full server: wait (0.5 s, doubling to 5 s) and start at 1.
   The backlog grows on disk, in the journal, and drains when the server is back;
5. at a clean stop (:meth:`Shipper.close`, after the table journalled its ``stop`` row) ship what
   the journal holds, for at most ``stop_ship_s``; :attr:`Shipper.at_stop` then says whether
   every row reached the floor or how many wait in the journal for the next start, and why.

:meth:`Shipper.health` has the shape of the table service's device health (role ``floor``,
status ``connecting``/``connected``/``lost``/``refused``, a detail such as ``1,234 rows behind,
oldest 35 s``); :meth:`Shipper.backlog` gives the same as data.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

import psycopg
import structlog
from psycopg.adapt import AdaptersMap, Dumper
from psycopg.pq import Format
from psycopg.types.json import Jsonb

from controller.floor import confirmed
from controller.floor.errors import ShipRefused
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal, Row, parse_ts
from controller.table.config import FloorLink
from controller.table.health import DeviceHealth
from controller.table.private import PrivateFileError

log = structlog.get_logger("croupier.floor.shipper")

REPORT_S = 2.0  # the shipper's word to the floor, at least this often
RETRY_S = (0.5, 1.0, 2.0, 4.0, 5.0)  # waits after a failure, then 5 s on
REFUSED_RETRY_S = 30.0
LAG_WARN_S = 30.0  # the oldest unshipped row older than this: a warning on the device strip
STOP_SHIP_S = 5.0  # a clean stop ships what the journal holds for at most this long
# the journal is read at least this often even when its files look unchanged: a file's change
# time moves in the kernel's coarse ticks, and SQLite rewrites a restarted WAL at the same
# size, so a row written in the tick of the last look can leave both as they were
LOOK_S = 1.0

_INSERT = """
INSERT INTO croupier.journal_rows
    (table_id, seq, ts, at, round_id, kind, payload, prev_hash, hash)
SELECT table_id, seq, ts, ts::timestamptz, round_id, kind, payload, prev_hash, hash
FROM unnest(%b::text[], %b::bigint[], %b::text[], %b::bigint[], %b::text[], %b::text[],
            %b::text[], %b::text[]) AS r(table_id, seq, ts, round_id, kind, payload, prev_hash,
                                         hash)
ON CONFLICT DO NOTHING
"""
_HEAD = "SELECT seq, hash FROM croupier.tables WHERE table_id = %s"
_MINE = "SELECT croupier.login_table(), session_user"
_REPORT = "SELECT croupier.report_shipper(%s, %s, %s, %s, %s, %s, %s)"


_ARRAY_HEAD = struct.Struct("!iiIii")  # dimensions, has nulls, element type, length, lower bound
_LENGTH = struct.Struct("!i")
_INT8 = struct.Struct("!iq")  # length 8, the value
_NULL = _LENGTH.pack(-1)


class TextColumn(list[str]):
    """A batch's column of texts, sent as a binary ``text[]`` (:class:`_TextColumnDumper`)."""


class IntColumn(list[int | None]):
    """A batch's column of integers (NULL allowed), sent as a binary ``bigint[]``."""


class _TextColumnDumper(Dumper):
    """``text[]`` in PostgreSQL's binary array format, without psycopg's general list dumping
    (which inspects every element each time: most of a batch's cost on the table's side)."""

    format = Format.BINARY
    oid = 1009  # text[]

    def dump(self, obj: Any) -> bytes:
        parts = [_ARRAY_HEAD.pack(1, 0, 25, len(obj), 1)]
        for value in obj:
            data = value.encode()
            parts += (_LENGTH.pack(len(data)), data)
        return b"".join(parts)


class _IntColumnDumper(Dumper):
    format = Format.BINARY
    oid = 1016  # bigint[]

    def dump(self, obj: Any) -> bytes:
        nulls = any(value is None for value in obj)
        head = _ARRAY_HEAD.pack(1, int(nulls), 20, len(obj), 1)
        return head + b"".join(_NULL if v is None else _INT8.pack(8, v) for v in obj)


def rows_behind(rows: int) -> str:
    """``1 row behind``, ``1,234 rows behind``."""
    return f"{rows:,} row{'' if rows == 1 else 's'} behind"


@dataclass(frozen=True, slots=True)
class Backlog:
    """How far the floor is behind this table's journal."""

    local_seq: int  # the journal's last row
    shipped_seq: int | None  # the last row the floor holds (None: not known since start)
    oldest_ts: str | None  # the first row not on the floor, its time (None: nothing behind)
    at: float  # when this was measured (wall clock)

    @property
    def rows(self) -> int | None:
        if self.shipped_seq is None:
            return None
        return max(0, self.local_seq - self.shipped_seq)

    @property
    def oldest_age_s(self) -> float:
        if self.oldest_ts is None or not self.rows:
            return 0.0
        return max(0.0, self.at - parse_ts(self.oldest_ts).timestamp())

    def describe(self) -> str:
        if self.rows is None:
            return f"floor not reached yet (journal at row {self.local_seq:,})"
        if self.rows == 0:
            return f"up to date (row {self.local_seq:,})"
        return f"{rows_behind(self.rows)}, oldest {self.oldest_age_s:,.0f} s"

    def as_json(self) -> dict[str, Any]:
        return {
            "local_seq": self.local_seq,
            "shipped_seq": self.shipped_seq,
            "rows": self.rows,
            "oldest_ts": self.oldest_ts if self.rows else None,
            "oldest_age_s": round(self.oldest_age_s, 3),
        }


class Shipper:
    """Ships ``journal_path``'s rows to the floor. ``start()``, then ``close()`` (or ``with``)."""

    def __init__(
        self,
        journal_path: str | Path,
        table_id: str,
        floor_settings: FloorLink,
        *,
        about: Mapping[str, Any] | None = None,
        clock: Callable[[], float] = time.time,
        stop_ship_s: float = STOP_SHIP_S,
    ) -> None:
        self.journal_path = Path(journal_path)
        self.table_id = table_id
        self.settings = floor_settings
        self.about = dict(about or {})
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wakeup = threading.Event()  # ends the thread's wait early (a stop, a last call)
        self._last_call = threading.Event()  # a clean stop: ship what the journal holds, now
        self._settled = threading.Event()  # ... done: all shipped, or refused
        self.stop_ship_s = stop_ship_s
        self.at_stop: str | None = None  # after close(): what reached the floor, in words
        self.shipped_all_at_stop: bool | None = None
        self._thread: threading.Thread | None = None
        self._journal: Journal | None = None
        self._db: psycopg.Connection[Any] | None = None
        self._health = DeviceHealth("floor", floor_settings.where)
        self._wake: Callable[[], None] | None = None
        self._shown: dict[str, Any] = {}  # the health last told (wake when it changes)
        self._backlog = Backlog(0, None, None, clock())
        self._months: set[str] = set()
        self._seen: tuple[tuple[int, int] | None, ...] = ()
        self._looked = 0.0  # time.monotonic() of the last read of the journal
        self._reported = 0.0
        self._failures = 0
        self.rows_shipped = 0  # by this shipper since it started
        self.batches = 0
        # the last row the floor committed, and when it was last written beside the journal
        # the last row the floor committed (its commit may not be on the floor's disk yet), and
        # the last one known to be on it: only that one is written down for a start to prune by
        self._committed: tuple[int, str] | None = None
        self._confirm: tuple[int, str] | None = None
        self._confirmed_at = -confirmed.CONFIRM_S

    # --- life cycle -------------------------------------------------------------------------

    def start(self, wake: Callable[[], None] | None = None) -> None:
        """Ship from a thread of its own; ``wake`` is called (from it) when the health the
        dealer sees changed (a table service's monitor)."""
        self._wake = wake
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="floor-shipper", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Ship what the journal holds (for at most ``stop_ship_s``), then stop; what is not
        shipped stays in the journal for next time, and :attr:`at_stop` says so."""
        thread = self._thread
        if thread is not None and thread.is_alive() and self.stop_ship_s > 0:
            self._last_call.set()
            self._wakeup.set()
            self._settled.wait(self.stop_ship_s)
        self._stop.set()
        self._wakeup.set()
        db = self._db
        if db is not None:
            with contextlib.suppress(psycopg.Error):
                db.cancel_safe(timeout=1.0)
        if self._thread is not None:
            self._thread.join(timeout=self.settings.connect_timeout_s + 5.0)
            self._thread = None
        self._disconnect()
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self._write_confirmed(force=True)
        if thread is not None:
            self.at_stop = self._at_stop()

    def _at_stop(self) -> str:
        """What reached the floor by the stop, in words."""
        backlog = self.backlog()
        health = self.health()
        problem = health.detail.split("; ")[0] if health.status != "connected" else ""
        self.shipped_all_at_stop = self._settled.is_set() and backlog.rows == 0
        if self.shipped_all_at_stop:
            return f"every row shipped to the floor (up to row {backlog.local_seq:,})"
        why = f" ({problem})" if problem else f" (not done in {self.stop_ship_s:g} s)"
        if backlog.rows is None:
            return (
                f"the floor was not reached before the stop{why}: the journal's rows wait "
                "there and ship at the next start"
            )
        return (
            f"{backlog.rows:,} row{'' if backlog.rows == 1 else 's'} not shipped at the "
            f"stop{why}: {'it waits' if backlog.rows == 1 else 'they wait'} in the journal and "
            "ship at the next start"
        )

    def _pause(self, seconds: float) -> None:
        """Wait, unless a stop or a last call comes first."""
        self._wakeup.wait(seconds)
        self._wakeup.clear()

    def __enter__(self) -> Shipper:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the table shows ----------------------------------------------------------------

    def health(self) -> DeviceHealth:
        with self._lock:
            return replace(self._health, faults=dict(self._health.faults))

    def backlog(self) -> Backlog:
        with self._lock:
            return self._backlog

    # --- the thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            last_call = self._last_call.is_set()
            if last_call:
                self._seen = ()  # read the journal again: the stop row is new
            try:
                busy = self._step()
            except JournalUnavailable as exc:
                problem = f"cannot read the journal: {exc}"
                self._set("connecting", problem)
                if self._db is not None:
                    with contextlib.suppress(psycopg.Error):  # journal trouble: the pit sees it
                        self._report(problem)
                self._journal = None
                busy = False
                self._pause(1.0)
                continue
            except ShipRefused as exc:
                self._set("refused", str(exc))
                log.error("the floor refused the rows", table_id=self.table_id, reason=str(exc))
                if self._db is not None:
                    with contextlib.suppress(psycopg.Error):  # the floor shows why
                        self._report(str(exc))
                self._disconnect()
                if last_call:
                    self._settled.set()  # refused: the stop need not wait for it
                self._pause(REFUSED_RETRY_S)
                continue
            except psycopg.Error as exc:
                self._set("lost", f"floor unreachable ({_reason(exc)})")
                self._disconnect()
                wait = RETRY_S[min(self._failures, len(RETRY_S) - 1)]
                self._failures += 1
                self._pause(wait)
                continue
            except Exception as exc:  # a bug here must never reach the table
                log.exception("the floor shipper failed", table_id=self.table_id)
                self._set("lost", f"shipper error: {type(exc).__name__}: {exc}")
                self._disconnect()
                self._pause(5.0)
                continue
            if last_call and not busy and self._backlog.rows == 0:
                try:  # the floor sees it up to date, and holds every row on its disk
                    self._report(durable=True)
                except psycopg.Error as exc:
                    self._set("lost", f"floor unreachable ({_reason(exc)})")
                    self._disconnect()  # start again from the floor's head
                    self._pause(RETRY_S[0])
                    continue
                self._settled.set()
                self._pause(self.stop_ship_s)
            elif not busy:
                self._pause(self.settings.poll_ms / 1000)

    def _files(self) -> tuple[tuple[int, int] | None, ...]:
        """The journal's files as the file system sees them (size, change time): a table that
        wrote nothing since the last look changed neither."""
        seen: list[tuple[int, int] | None] = []
        for suffix in ("", "-wal"):
            try:
                info = os.stat(f"{self.journal_path}{suffix}")
                seen.append((info.st_size, info.st_mtime_ns))
            except OSError:
                seen.append(None)
        return tuple(seen)

    def _step(self) -> bool:
        """One pass: connect if need be, ship one batch; True when there may be more now."""
        files = self._files()
        unchanged = files == self._seen and time.monotonic() - self._looked < LOOK_S
        if self._db is not None and unchanged and not self._backlog.rows:
            if self._clock() - self._reported >= REPORT_S:
                self._report()
            return False  # nothing new: not even a query
        self._looked = time.monotonic()
        journal = self._open_journal()
        last = journal.last_row()
        local_seq = 0 if last is None else last.seq
        if self._db is None:
            self._connect(journal, local_seq)
        assert self._db is not None
        shipped = self._backlog.shipped_seq
        assert shipped is not None
        busy = False
        if local_seq > shipped:
            batch = list(islice(journal.iter_rows(after_seq=shipped), self.settings.batch_rows))
            if batch:
                self._measure(local_seq, shipped, batch[0].ts)
                self._ship(batch)
                shipped = batch[-1].seq
                busy = local_seq > shipped
                self._committed = (shipped, batch[-1].hash)
                self._confirm_durably()
        self._measure(local_seq, shipped, None if not busy else self._first_after(shipped))
        self._seen = files
        self._failures = 0
        self._set("connected", "")
        now = self._clock()
        if now - self._reported >= REPORT_S:
            self._report()
        return busy

    def _confirm_durably(self) -> None:
        """At most every ``CONFIRM_S`` seconds: a report whose commit waits for the floor's
        disk, so that the rows committed before it are on that disk too (a batch's own commit
        does not wait, :func:`connect_options`), and then what the floor holds is written down.
        A floor that crashed before its disk had a batch loses it, and the shipper ships it
        again; a row written down here as held is never one of those."""
        if self._committed is None:
            return
        if self._clock() - self._confirmed_at < confirmed.CONFIRM_S:
            return
        self._report(durable=True)

    def _write_confirmed(self, *, force: bool) -> None:
        """Write what the floor committed beside the journal (:mod:`.confirmed`): what a start
        may prune. At most every ``CONFIRM_S`` seconds, and at the stop."""
        if self._confirm is None:
            return
        now = self._clock()
        if not force and now - self._confirmed_at < confirmed.CONFIRM_S:
            return
        seq, hash_ = self._confirm
        try:
            confirmed.record(self.journal_path, self.table_id, seq, hash_)
        except PrivateFileError as exc:
            log.warning("the floor's confirmation not written", problem=str(exc))
            return
        self._confirmed_at = now
        self._confirm = None

    def _open_journal(self) -> Journal:
        if self._journal is None:
            self._journal = Journal.open(self.journal_path, table_id=self.table_id, readonly=True)
        return self._journal

    def _first_after(self, seq: int) -> str | None:
        assert self._journal is not None
        row = next(iter(self._journal.iter_rows(after_seq=seq)), None)
        return None if row is None else row.ts

    def _connect(self, journal: Journal, local_seq: int) -> None:
        try:
            conninfo = self.settings.conninfo()
        except (ValueError, OSError) as exc:
            raise ShipRefused(str(exc)) from None
        self._set("connecting", f"connecting to {self.settings.where}")
        db = connect_floor(conninfo, self.table_id, self.settings)
        try:
            self._check_login(db)
            found = db.execute(_HEAD, (self.table_id,)).fetchone()
        except BaseException:
            db.close()
            raise
        self._db = db
        held_seq, held_hash = (0, "") if found is None else (int(found[0]), str(found[1]))
        if held_seq > local_seq:
            raise ShipRefused(
                f"the floor holds rows up to {held_seq:,} of table {self.table_id} but this "
                f"journal ends at row {local_seq:,}: another journal ships as table "
                f"{self.table_id}, or this journal was replaced; give each table its own id"
            )
        if held_seq > 0:
            mine = next(iter(journal.iter_rows(after_seq=held_seq - 1)), None)
            if mine is not None and mine.seq == held_seq and mine.hash != held_hash:
                raise ShipRefused(
                    f"the floor's row {held_seq:,} of table {self.table_id} is not this "
                    f"journal's: another journal ships as table {self.table_id}; give each "
                    "table its own id"
                )
            if mine is not None and mine.seq == held_seq:
                self._committed = (held_seq, held_hash)
        with self._lock:
            self._backlog = replace(self._backlog, shipped_seq=held_seq, local_seq=local_seq)
        log.info("floor connected", table_id=self.table_id, floor_holds=held_seq)

    def _check_login(self, db: psycopg.Connection[Any]) -> None:
        """This table's login must be bound to this table (the floor refuses anything else)."""
        try:
            found = db.execute(_MINE).fetchone()
        except psycopg.errors.UndefinedFunction:
            raise ShipRefused(
                "the floor's schema is older than this croupier: the floor's owner runs "
                "`croupier floor migrate`"
            ) from None
        mine, login = (None, "?") if found is None else found
        if mine != self.table_id:
            raise ShipRefused(
                f"the floor's login {login} "
                + ("writes no table" if mine is None else f"writes table {mine}")
                + f", not this table {self.table_id}: the floor's owner makes this table's own "
                f"login with `croupier floor table-login {self.table_id}`, and [floor] dsn "
                "names it"
            )

    def _ship(self, batch: list[Row]) -> None:
        db = self._db
        assert db is not None
        self._ensure_months(db, batch[0].ts, batch[-1].ts)
        send_batch(db, batch)
        self.rows_shipped += len(batch)
        self.batches += 1

    def _ensure_months(self, db: psycopg.Connection[Any], first_ts: str, last_ts: str) -> None:
        self._months |= send_months(db, first_ts, last_ts, self._months)

    def _measure(self, local_seq: int, shipped: int, oldest_ts: str | None) -> None:
        with self._lock:
            self._backlog = Backlog(local_seq, shipped, oldest_ts, self._clock())
            self._health.detail = self._backlog.describe()
            self._lag_fault()
        self._tell()

    def _tell(self) -> None:
        """Wake the table's owner when what the dealer sees of the floor changed."""
        shown = self.health().as_json()
        if shown != self._shown and self._wake is not None:
            self._shown = shown
            self._wake()

    def _lag_fault(self) -> None:
        if self._backlog.oldest_age_s > LAG_WARN_S:
            self._health.faults["SHIPPING_LAG"] = "warning"
        else:
            self._health.faults.pop("SHIPPING_LAG", None)

    def _report(self, problem: str = "", *, durable: bool = False) -> None:
        """Tell the floor the backlog; ``durable``: wait until the floor's disk holds it, and
        so every batch before it (the batches' commits do not wait: :func:`connect_options`)."""
        db = self._db
        assert db is not None
        committed = self._committed
        if durable:
            db.execute("SET synchronous_commit = on")
        send_report(db, self.table_id, self.backlog(), self.health().status, problem, self.about)
        self._reported = self._clock()
        if durable:
            db.execute("SET synchronous_commit = off")
            if committed is not None:  # on the floor's disk now, with the report
                self._confirm = committed
                self._write_confirmed(force=True)

    def _set(self, status: str, problem: str) -> None:
        with self._lock:
            self._health.status = status
            backlog = self._backlog
            if self._journal is not None and status != "connected":
                try:
                    last = self._journal.last_row()
                except JournalUnavailable:
                    last = None
                if last is not None and last.seq != backlog.local_seq:
                    backlog = replace(backlog, local_seq=last.seq, at=self._clock())
                if backlog.rows and backlog.shipped_seq is not None:
                    oldest = next(iter(self._journal.iter_rows(after_seq=backlog.shipped_seq)))
                    backlog = replace(backlog, oldest_ts=oldest.ts, at=self._clock())
                self._backlog = backlog
            self._lag_fault()
            shown = backlog.describe()
            self._health.detail = f"{problem}; {shown}" if problem else shown
        self._tell()

    def _disconnect(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(psycopg.Error):
                db.close()


def connect_options(table_id: str, settings: FloorLink) -> dict[str, Any]:
    """How the shipper connects, but for the connection string: its name on the server, its
    timeouts, autocommit. Autocommit: each of its statements is a transaction of its own (a
    batch is one ``INSERT``, its trigger's checks included), so a batch costs the floor one
    round trip, not three (``BEGIN``, the ``INSERT``, ``COMMIT``).

    ``synchronous_commit=off``: a batch's commit does not wait for the floor's disk (the WAL
    writer flushes within 0.6 s). The journal is the outbox: should the floor's server crash
    and lose its last flushed-not-yet batches, the shipper reconnects, reads the head (which
    is then behind) and ships those rows again from the journal, the same rows with the same
    hashes. A clean stop's last report waits for the disk, and with it every batch before it
    (:meth:`Shipper.close` says "every row shipped" only then). So 1,000 tables' commits share
    the WAL writer's flushes instead of each waiting for one."""
    return {
        "connect_timeout": settings.connect_timeout_s,
        "application_name": f"croupier-shipper {table_id}",
        "options": (
            f"-c statement_timeout={settings.statement_timeout_s * 1000} -c synchronous_commit=off"
        ),
        "autocommit": True,
    }


def register_columns(adapters: AdaptersMap) -> None:
    """Send :class:`TextColumn` and :class:`IntColumn` with their own binary dumpers."""
    adapters.register_dumper(TextColumn, _TextColumnDumper)
    adapters.register_dumper(IntColumn, _IntColumnDumper)


def connect_floor(conninfo: str, table_id: str, settings: FloorLink) -> psycopg.Connection[Any]:
    """The shipper's connection to the floor (one per table, its own login)."""
    db = psycopg.connect(conninfo, **connect_options(table_id, settings))
    register_columns(db.adapters)
    return db


def send_months(
    db: psycopg.Connection[Any], first_ts: str, last_ts: str, asked: set[str]
) -> set[str]:
    """Ask the floor for the months from ``first_ts`` to ``last_ts`` unless ``asked`` already
    (a floor before 0002 lets the table make them); returns the months asked now."""
    months = {first_ts[:7], last_ts[:7]}
    if months <= asked:
        return set()
    db.execute(
        "SELECT croupier.ensure_months(%s::timestamptz, %s::timestamptz)", (first_ts, last_ts)
    )
    return months


def batch_columns(batch: Sequence[Row]) -> tuple[TextColumn | IntColumn, ...]:
    """The parameters of :data:`_INSERT` for ``batch``: its rows' columns."""
    return (
        TextColumn([row.table_id for row in batch]),
        IntColumn([row.seq for row in batch]),
        TextColumn([row.ts for row in batch]),
        IntColumn([row.round_id for row in batch]),
        TextColumn([row.kind for row in batch]),
        TextColumn([row.payload_json for row in batch]),
        TextColumn([row.prev_hash for row in batch]),
        TextColumn([row.hash for row in batch]),
    )


def send_batch(db: psycopg.Connection[Any], batch: Sequence[Row]) -> None:
    """Insert ``batch`` (one table's rows in order) in one transaction; the floor's refusal
    raises :class:`ShipRefused` with its reason. The columns go as binary arrays (``%b``): no
    quoting of the payloads' JSON on the way, no parsing of it by the server."""
    columns = batch_columns(batch)
    try:
        db.execute(_INSERT, columns)  # one statement: its own transaction (autocommit)
    except psycopg.errors.RaiseException as exc:
        text = str(exc.diag.message_primary or exc).removeprefix("croupier: ")
        raise ShipRefused(f"the floor refused rows {batch[0].seq:,}-: {text}") from None


def send_report(
    db: psycopg.Connection[Any],
    table_id: str,
    backlog: Backlog,
    status: str,
    problem: str,
    about: Mapping[str, Any],
) -> None:
    """The shipper's word to the floor: its backlog and status (``croupier.report_shipper``)."""
    db.execute(_REPORT, report_params(table_id, backlog, status, problem, about))


def report_params(
    table_id: str, backlog: Backlog, status: str, problem: str, about: Mapping[str, Any]
) -> tuple[Any, ...]:
    """The parameters of :data:`_REPORT`."""
    return (
        table_id,
        backlog.local_seq,
        backlog.rows or 0,
        backlog.oldest_age_s,
        status,
        problem,
        Jsonb(dict(about)),
    )


def _reason(exc: psycopg.Error) -> str:
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return "the floor's server is too slow: statement timed out"
    if isinstance(exc, psycopg.errors.DiskFull):
        return "the floor's disk is full"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
