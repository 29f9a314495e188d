"""The floor's watcher: read the new rows and the shippers' word, fold them into the tables' views.

One thread with its own read-only connection (the floor role). At start it reads every table's
rows of the last ``history_hours`` (its shipper's word, the alerts acknowledged); then, every
``HEADS_S`` (0.25 s), it reads the tables' heads (``croupier.tables``, one row a table: one
query for the whole floor) and the new rows of the tables whose head moved (one query for all
of them), checks their chain and updates the views. The tables' commits notify nothing since
migration 0007: PostgreSQL serialises notifying commits behind one lock held through each
commit's flush, which 1,000 tables' batches cannot afford. It also LISTENs on
``croupier_status`` (a shipper's status or problem changed: refused, lost) and
``croupier_acks`` (an alert acknowledged), and on ``croupier_rows`` for a floor not yet
migrated. Once a second it reads every shipper's word (one query), refreshes what time changes
(silence, shipping lag, the shift) and publishes what changed to :class:`FloorHub`. Every
``recheck_s`` it reads the rows it has checked again and checks them again: a row changed in
PostgreSQL behind the triggers' back is found then. Each look runs with Python's cycle collector
paused (:mod:`controller.collector`): its rows die at its end or join the views, and at 1,000
tables the collector's full passes over them stalled the page.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import structlog

from controller.collector import collector_paused
from controller.floor.chain import ROW_COLUMNS, check_rows, row_from_values
from controller.floor.dealers import merged
from controller.floor.live import LAG_ALERT_S, SILENT_ALERT_S, Ack, ShipperWord, TableView
from controller.floor.schema import NOTIFY_ACKS, NOTIFY_ROWS, NOTIFY_STATUS
from controller.floor.shifts import Shifts

log = structlog.get_logger("croupier.floor.watch")

FETCH_ROWS = 5000
TICK_S = 1.0
HEADS_S = 0.25  # how often the heads are read (a table's new rows reach the page within it)
MONTHS_S = 3600.0  # how often the floor makes the next months' partitions


@dataclass(frozen=True, slots=True)
class WatchSettings:
    history_hours: float = 12.0
    recheck_s: float = 300.0
    lag_s: float = LAG_ALERT_S
    silent_s: float = SILENT_ALERT_S


class FloorHub:
    """The tables as the floor page shows them, published by the watcher, read by the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.version = 0
        self._tables: dict[str, tuple[int, dict[str, Any]]] = {}
        self._alerts: list[dict[str, Any]] = []
        self._shift: dict[str, Any] = {}
        self._listeners: list[Callable[[], None]] = []
        self.healthy = False
        self.problem = "starting"

    def publish(
        self,
        changed: dict[str, dict[str, Any]],
        alerts: list[dict[str, Any]],
        shift: dict[str, Any],
    ) -> None:
        with self._lock:
            if not changed and alerts == self._alerts and shift == self._shift:
                return
            self.version += 1
            for table_id, view in changed.items():
                self._tables[table_id] = (self.version, view)
            self._alerts = alerts
            self._shift = shift
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def since(self, version: int) -> tuple[int, dict[str, Any]]:
        """What changed after ``version`` (everything for -1)."""
        with self._lock:
            tables = [view for v, view in self._tables.values() if v > version]
            return self.version, {
                "tables": sorted(tables, key=lambda t: str(t["table_id"])),
                "alerts": list(self._alerts),
                "shift": dict(self._shift),
                "healthy": self.healthy,
                "problem": self.problem,
            }

    def subscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def set_health(self, healthy: bool, problem: str) -> None:
        with self._lock:
            changed = (healthy, problem) != (self.healthy, self.problem)
            self.healthy, self.problem = healthy, problem
            if changed:
                self.version += 1
            listeners = list(self._listeners) if changed else []
        for listener in listeners:
            listener()


class FloorWatcher:
    """``start()`` (connects: errors raise here), then ``close()``."""

    def __init__(
        self,
        conninfo: str,
        shifts: Shifts,
        settings: WatchSettings = WatchSettings(),
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.conninfo = conninfo
        self.shifts = shifts
        self.settings = settings
        self.clock = clock
        self.hub = FloorHub()
        self.views: dict[str, TableView] = {}
        self._shown: dict[str, dict[str, Any]] = {}
        self._db: psycopg.Connection[Any] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shift_start = shifts.current(clock())[0]
        self._rechecked = time.monotonic()
        self._months_made = -MONTHS_S
        # the dealers' figures this shift, folded at most once a TICK_S (every table's tally:
        # some 30 ms at 1,000 tables, measured, too much for each of the heads' looks)
        self._dealers: list[dict[str, Any]] = []
        self._dealers_at = -TICK_S
        self._last_heads = 0.0  # (time.monotonic) when the heads were last read
        self._last_tick = 0.0  # and every shipper's word

    def start(self) -> None:
        self._connect()
        self._thread = threading.Thread(target=self._run, name="floor-watch", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            if self._thread.is_alive():
                return  # a query still running: the thread closes the connection when done
            self._thread = None
        self._disconnect()

    # --- connection ---------------------------------------------------------------------------

    def _connect(self) -> None:
        db = psycopg.connect(self.conninfo, autocommit=True, application_name="croupier-floor")
        db.execute("SET jit = off")  # compiling its small queries took longer than running them
        db.execute(f"LISTEN {NOTIFY_ROWS}")
        db.execute(f"LISTEN {NOTIFY_STATUS}")
        db.execute(f"LISTEN {NOTIFY_ACKS}")
        self._db = db
        with collector_paused():  # (every table's history: the views' objects, no cycle)
            self._load()
        self.hub.set_health(True, "")

    def _disconnect(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(psycopg.Error):
                db.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._db is None:
                    self._connect()
                self._look()
            except psycopg.Error as exc:
                log.warning("the floor's database connection failed", error=str(exc))
                self.hub.set_health(False, f"the floor's database is unreachable: {exc}")
                self._disconnect()
                self._stop.wait(2.0)
        self._disconnect()

    def _look(self) -> None:
        """One look: the shippers' word as it comes, or the heads when they are due; then what
        moved read, checked and published, with the cycle collector paused (the look's rows
        are freed at its end or join the views: :mod:`controller.collector`)."""
        rows, status, acks = self._wait(max(0.0, self._last_heads + HEADS_S - time.monotonic()))
        with collector_paused():
            now = time.monotonic()
            if now - self._last_heads >= HEADS_S:
                self._last_heads = now
                rows |= self._moved()
            if rows:
                self._fetch_many(rows)
            tick = now - self._last_tick >= TICK_S
            if tick:
                status = set(self.views) | status
                self._fetch_status(None)  # every shipper's word, once a second
            elif status:
                self._fetch_status(status)
            if acks:
                self._fetch_acks(acks)
            dirty = rows | status | acks
            if tick:
                self._last_tick = now
                self._tick()
                dirty = set(self.views)
            if now - self._months_made >= MONTHS_S:
                self._months_made = now
                self._make_months()
            if now - self._rechecked >= self.settings.recheck_s:
                self._recheck()
                self._rechecked = now
                dirty = set(self.views)
            if dirty:
                self._publish(dirty)

    def _make_months(self) -> None:
        """This month's and the next month's partitions, ahead of the rows (the tables' own
        logins make none: migration 0002)."""
        db = self._db
        assert db is not None
        try:
            db.execute("SELECT croupier.ensure_months(now(), now() + interval '1 month')")
        except (psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedFunction) as exc:
            log.warning("cannot make the next months' partitions", error=str(exc).strip())

    def _wait(self, timeout: float) -> tuple[set[str], set[str], set[str]]:
        db = self._db
        assert db is not None
        named: dict[str, set[str]] = {NOTIFY_ROWS: set(), NOTIFY_STATUS: set(), NOTIFY_ACKS: set()}
        for gen_timeout, stop_after in ((timeout, 1), (0.0, None)):
            for note in db.notifies(timeout=gen_timeout, stop_after=stop_after):
                named.setdefault(note.channel, set()).add(note.payload)
            if not any(named.values()):
                break
        return named[NOTIFY_ROWS], named[NOTIFY_STATUS], named[NOTIFY_ACKS]

    # --- reading --------------------------------------------------------------------------------

    def _view(self, table_id: str) -> TableView:
        view = self.views.get(table_id)
        if view is None:
            view = self.views[table_id] = TableView(table_id, self._shift_start)
        return view

    def _load(self) -> None:
        db = self._db
        assert db is not None
        self.views.clear()
        self._shown.clear()
        now = self.clock()
        since = min(now - timedelta(hours=self.settings.history_hours), self._shift_start)
        ids = [
            str(r[0])
            for r in db.execute(
                "SELECT table_id FROM croupier.tables UNION SELECT table_id FROM croupier.shippers"
            ).fetchall()
        ]
        heads = {
            str(t): int(seq) for t, seq in db.execute("SELECT table_id, seq FROM croupier.tables")
        }
        for table_id in sorted(ids):
            view = self._view(table_id)
            config = db.execute(
                "SELECT payload::jsonb ->> 'variant' FROM croupier.journal_rows "
                "WHERE table_id = %s AND kind = 'config' ORDER BY seq DESC LIMIT 1",
                (table_id,),
            ).fetchone()
            if config is not None and config[0]:
                view.variant = str(config[0])
            first = db.execute(
                "SELECT min(seq) FROM croupier.journal_rows WHERE table_id = %s AND at >= %s",
                (table_id, since),
            ).fetchone()
            if first is not None and first[0] is not None:
                view.last_seq = int(first[0]) - 1
                self._fetch_rows(table_id)
            else:  # nothing in the history: the rows from the head on (not the table's past)
                view.last_seq = heads.get(table_id, 0)
        self._fetch_status(None)
        self._fetch_acks(set(self.views))
        self._publish(set(self.views))

    def _fetch_rows(self, table_id: str) -> None:
        db = self._db
        assert db is not None
        view = self._view(table_id)
        while True:
            found = db.execute(
                f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608 - fixed names
                "WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                (table_id, view.last_seq, FETCH_ROWS),
            ).fetchall()
            for values in found:
                broken = view.feed(row_from_values(values))
                if broken is not None:
                    log.error("chain break on the floor", detail=broken.describe())
            if len(found) < FETCH_ROWS:
                return

    def _fetch_many(self, table_ids: set[str]) -> None:
        """The new rows of several tables in one query (each after the last row it has, at
        most ``FETCH_ROWS`` a table: the rest at the next look, its head being further)."""
        db = self._db
        assert db is not None
        for table_id in table_ids:
            self._view(table_id)
        wanted = sorted(table_ids)
        # per table, its primary key from the row after the last one held (LATERAL with a
        # LIMIT: a join let the planner hash the month's every row, 0.35 s at 800,000 rows)
        found = db.execute(
            "SELECT r.* FROM unnest(%s::text[], %s::bigint[]) AS w(table_id, after) "  # noqa: S608
            f"CROSS JOIN LATERAL (SELECT {ROW_COLUMNS} FROM croupier.journal_rows j "
            "WHERE j.table_id = w.table_id AND j.seq > w.after ORDER BY j.seq LIMIT %s) r "
            "ORDER BY r.table_id, r.seq",
            (wanted, [self.views[t].last_seq for t in wanted], FETCH_ROWS),
        ).fetchall()
        for values in found:
            row = row_from_values(values)
            broken = self.views[row.table_id].feed(row)
            if broken is not None:
                log.error("chain break on the floor", detail=broken.describe())

    def _moved(self) -> set[str]:
        """The tables whose head is past the last row their view holds (one query)."""
        db = self._db
        assert db is not None
        views = self.views
        return {
            str(table_id)
            for table_id, seq in db.execute("SELECT table_id, seq FROM croupier.tables")
            if table_id not in views or int(seq) > views[table_id].last_seq
        }

    def _fetch_status(self, table_ids: set[str] | None) -> None:
        """The word of these tables' shippers (of every one: None), in one query."""
        db = self._db
        assert db is not None
        query = (
            "SELECT table_id, reported_at, local_seq, backlog_rows, oldest_age_s, status, "
            "problem, about FROM croupier.shippers"
        )
        if table_ids is None:
            found = db.execute(query).fetchall()
        else:
            found = db.execute(query + " WHERE table_id = ANY(%s)", (sorted(table_ids),)).fetchall()
        for table_id, *word in found:
            about = word[6] if isinstance(word[6], dict) else {}
            self._view(str(table_id)).shipper = ShipperWord(
                word[0],
                int(word[1]),
                int(word[2]),
                float(word[3]),
                str(word[4]),
                str(word[5]),
                about,
            )

    def _fetch_acks(self, table_ids: set[str]) -> None:
        """The acknowledgements of these tables' alerts (of the history read; a floor before
        migration 0005 has none)."""
        db = self._db
        assert db is not None
        since = min(self.clock() - timedelta(hours=self.settings.history_hours), self._shift_start)
        try:
            found = db.execute(
                "SELECT table_id, kind, alert, since, acked_by, acked_at "
                "FROM croupier.alert_acks WHERE table_id = ANY(%s) AND acked_at >= %s "
                "ORDER BY acked_at",
                (sorted(table_ids), since),
            ).fetchall()
        except psycopg.errors.UndefinedTable:
            return
        for table_id, kind, alert, raised, by, at in found:
            view = self._view(str(table_id))
            view.acks.setdefault((str(kind), str(alert), str(raised)), Ack(str(by), at))

    def _recheck(self) -> None:
        """Check again every row already checked (one table at a time)."""
        db = self._db
        assert db is not None
        for table_id, view in self.views.items():
            first = view.chain.first_seq
            if first is None:
                continue
            known = {b.seq for b in view.breaks}
            after = first - 1
            with db.cursor(name=f"recheck_{table_id}".replace("-", "_").replace(".", "_")) as cur:
                db.autocommit = False
                try:
                    cur.execute(
                        f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608
                        "WHERE table_id = %s AND seq > %s AND seq <= %s ORDER BY seq",
                        (table_id, after, view.last_seq),
                    )
                    rows = (row_from_values(v) for v in cur)
                    for broken in check_rows(table_id, rows):
                        if broken.seq in known:
                            continue
                        log.error("chain break found on recheck", detail=broken.describe())
                        view.breaks.append(broken)
                finally:
                    db.rollback()
                    db.autocommit = True

    # --- publishing -------------------------------------------------------------------------------

    def _tick(self) -> None:
        start, _ = self.shifts.current(self.clock())
        if start != self._shift_start:
            self._shift_start = start
            for view in self.views.values():
                view.new_shift(start)

    def _dealer_figures(self) -> list[dict[str, Any]]:
        at = time.monotonic()
        if at - self._dealers_at >= TICK_S:
            self._dealers_at = at
            self._dealers = [d.as_json() for d in merged([v.dealing for v in self.views.values()])]
        return self._dealers

    def _publish(self, dirty: set[str]) -> None:
        now = self.clock()
        changed: dict[str, dict[str, Any]] = {}
        alerts: list[dict[str, Any]] = []
        args = {"lag_s": self.settings.lag_s, "silent_s": self.settings.silent_s}
        for table_id in sorted(self.views):
            view = self.views[table_id]
            if table_id in dirty or table_id not in self._shown:
                shown = view.as_json(now, **args)
                if shown != self._shown.get(table_id):
                    self._shown[table_id] = shown
                    changed[table_id] = shown
            alerts += self._shown[table_id]["alerts"]
        start, end = self.shifts.current(now)
        shift = {
            "start": start.isoformat(timespec="minutes"),
            "end": end.isoformat(timespec="minutes"),
            "tables": len(self.views),
            "house_win_cents": sum(int(v["house_win_cents"]) for v in self._shown.values()),
            "zone": start.tzname() or "",
            "rounds": sum(int(v["rounds"]) for v in self._shown.values()),
            "dealers": self._dealer_figures(),
        }
        self.hub.publish(changed, alerts, shift)
