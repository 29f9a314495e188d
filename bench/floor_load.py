"""Many emulated tables shipping to one PostgreSQL on this machine (the floor's load test).

    .venv/bin/python bench/floor_load.py [--tables 200] [--speed 4] [--seconds 120] [--procs 4]
    .venv/bin/python bench/floor_load.py --lean --tables 1000 [--revision 0005]

What runs:

- one throwaway PostgreSQL (``controller.floor.cluster``, durable: fsync on), migrated;
- a template of real rows: one in-process demo table (``TableService``, emulated devices, demo
  players and dealer) deals 30 rounds; its rows, grouped by the transaction they were written in,
  are the script every emulated table replays;
- ``--tables`` emulated tables in ``--procs`` processes: each table has its own journal file,
  written through the real :class:`~controller.journal.store.Journal` (WAL, synchronous=FULL),
  paced as dealt rounds (the groups due at each ``--tick``, 0.25 s, of one round in one
  transaction: 200 tables' commits on one disk are merged that way): "real pace" is 60 rounds
  an hour at a table (a round a minute), ``--speed 4`` four times that; each table has its own
  real :class:`~controller.floor.shipper.Shipper` thread and connection (default settings);
- or, with ``--lean``, no SQLite and no dealing: each emulated table has its own connection
  (the table's own login, connected as the shipper connects) that sends what the real
  :class:`~controller.floor.shipper.Shipper` sends (its SQL and its parameters, built by its
  own functions: ``batch_columns``, ``report_params``; batches of at most ``batch_rows``, one
  after another while rows wait, a report every 2 s) at the shipper's cadence (a poll every
  ``poll_ms`` after a pass that left nothing), all of a process's tables on one asyncio
  event loop (a thread per table, as the shipper runs, spent this machine's CPU on the GIL),
  reading a
  journal held in memory (:class:`PacedJournal`): the template's rows, chained with the
  journal's own ``row_hash`` and stamped with the time each group falls due. What PostgreSQL
  receives is what 1,000 real tables' shippers would send; the generator spares the tables'
  journals, their fsyncs, the dealing and the shippers' idle polls (which look at the
  journal's files only, never at PostgreSQL), so that 1,000 tables fit on this machine beside
  PostgreSQL;
- the floor's watcher (``FloorWatcher``) in this process, as ``floor serve`` runs it;
- ``--revision`` migrates the floor only that far (``0005``: the schema before the 1,000-table
  work), to measure before and after in one run.

What is measured, after a warm-up of a fifth of the run:

- rows per second that reached PostgreSQL (``received_at`` in the window);
- shipping lag per row: ``received_at`` (PostgreSQL's clock at insert) minus the row's journal
  time ``ts``: p50, p99, max;
- the floor view's update delay: when the watcher publishes a table's view with new rows in
  it, now minus the newest row's ``ts`` (journal write to the floor's view; the WebSocket hop
  to a browser is not included);
- PostgreSQL's CPU seconds (all its processes, /proc) and WAL bytes and data-folder growth per
  million rows; the emulators' and the watcher's CPU seconds; the machine's load average and
  its busy CPU seconds over the window (the machine is shared: read the figures with them);
- every row once: per table, the rows on the floor are exactly rows 1 to the last written (none
  missing, none twice).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from datetime import time as dtime
from itertools import islice
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli.scenario import quiet_logs
from controller.floor.cluster import Cluster
from controller.floor.shifts import Shifts
from controller.floor.shipper import (
    _HEAD,
    _INSERT,
    _MINE,
    _REPORT,
    REPORT_S,
    RETRY_S,
    Backlog,
    Shipper,
    batch_columns,
    connect_options,
    register_columns,
    report_params,
)
from controller.floor.watch import FloorWatcher, WatchSettings
from controller.journal.store import GENESIS_HASH, Journal, Row, format_ts, row_hash
from controller.table.config import FloorLink

REAL_ROUND_S = 60.0  # "real pace": a round a minute at a table
PASSWORD_ENV = "CROUPIER_BENCH_FLOOR_PASSWORD"  # noqa: S105 - a variable name

# (round offset, rows: kind, payload, payload's stored text)
Group = tuple[int | None, list[tuple[str, dict[str, Any], str]]]


def record_template(
    folder: Path, rounds: int = 30, *, rated: bool = True
) -> tuple[list[Group], int]:
    """Rows of a real demo table, grouped by transaction; and how many rounds they hold.

    ``rated``: the demo's rated players sit (ann, bob, and carl the counter at box 3), so that
    the rows carry their sit-downs, sessions on bets and rated decisions, as ``floor demo``'s.
    """
    from controller.play.counter import DEMO_COUNTERS  # noqa: PLC0415
    from controller.play.demo import DemoOptions, demo_dealer  # noqa: PLC0415
    from controller.service.service import TableService  # noqa: PLC0415
    from controller.table.config import table_from_mapping  # noqa: PLC0415

    path = folder / "template.sqlite3"
    table = table_from_mapping(
        {"table_id": "template", "boxes": [1, 2, 3], "journal": {"path": str(path)}},
        "<bench>",
        folder,
    )
    demo = DemoOptions(pace_s=0.0, seed=11, rated=rated, counters=DEMO_COUNTERS if rated else ())
    with TableService(table, actors=[demo_dealer(demo)]) as service:
        while service.rounds_completed < rounds:
            time.sleep(0.05)
    with Journal.open(path, readonly=True) as journal:
        rows = [r for r in journal.rows() if r.kind not in ("software", "config")]
    groups: list[Group] = []
    last_key: tuple[str, int | None] | None = None
    for row in rows:
        key = (row.ts, row.round_id)
        if key != last_key:
            groups.append((row.round_id, []))
            last_key = key
        groups[-1][1].append((row.kind, row.payload, row.payload_json))
    return groups, rounds


def emulate(
    index: int,
    table_ids: list[str],
    folder: str,
    dsns: dict[str, str],
    groups: list[Group],
    rounds: int,
    speed: float,
    until: float,
    tick: float,
    out: Any,
    poll_ms: int = 100,
) -> None:
    """One emulator process: its tables' journals, their shippers, the paced appends."""
    quiet_logs()
    journals = {}
    shippers = []
    for tid in table_ids:
        path = Path(folder) / f"{tid}.sqlite3"
        journals[tid] = Journal.open(path, table_id=tid)
        journals[tid].append("software", {"version": "bench"})
        settings = FloorLink(dsn=dsns[tid], password_env=PASSWORD_ENV, poll_ms=poll_ms)
        shipper = Shipper(path, tid, settings, about={"variant": "nz-pontoon"})
        shipper.start()
        shippers.append(shipper)
    round_s = REAL_ROUND_S / speed
    step = round_s * rounds / len(groups)  # seconds between groups (rounds evenly paced)
    start = time.time()
    offsets = {tid: (hash(tid) % 1000) / 1000 * step for tid in table_ids}
    cursor = dict.fromkeys(table_ids, 0)
    late = 0.0
    appended = 0
    cpu0 = time.process_time()
    while time.time() < until:
        now = time.time()
        for tid in table_ids:
            # the groups due now, those of one round in one transaction (a table on its own
            # computer commits each group; 200 tables on one disk cannot, so they are merged)
            pending: list[tuple[str, dict[str, Any]]] = []
            pending_round: int | None = None
            while start + offsets[tid] + cursor[tid] * step <= now:
                round_offset, rows = groups[cursor[tid] % len(groups)]
                lap = cursor[tid] // len(groups)
                round_id = None if round_offset is None else round_offset + lap * rounds
                if pending and round_id != pending_round:
                    journals[tid].append_many(pending, round_id=pending_round)
                    pending = []
                pending_round = round_id
                pending += [(kind, payload) for kind, payload, _ in rows]
                late = max(late, now - (start + offsets[tid] + cursor[tid] * step))
                cursor[tid] += 1
                appended += len(rows)
            if pending:
                journals[tid].append_many(pending, round_id=pending_round)
        time.sleep(tick)
    for shipper in shippers:
        shipper.close()
    for journal in journals.values():
        journal.close()
    out.put(
        {"proc": index, "appended": appended, "cpu_s": time.process_time() - cpu0, "late_s": late}
    )


class PacedJournal:
    """One table's journal as its shipper reads it, held in memory: the template's groups, the
    ``n``-th written at ``start + n * step`` (its rows' ``ts``), chained as the journal chains
    them (:func:`row_hash`). Rows are written when the clock has passed their time, as the
    shipper looks (``last_row``), and forgotten once shipped."""

    def __init__(
        self,
        table_id: str,
        groups: list[Group],
        rounds: int,
        start: float,
        step: float,
        until: float,
    ) -> None:
        self.table_id = table_id
        self.groups = groups
        self.rounds = rounds
        self.start = start
        self.step = step
        self.until = until
        self.rows: list[Row] = []  # rows[i].seq == self.base + i + 1
        self.base = 0
        self.written = 0  # groups written
        self.seq = 0
        self.prev = GENESIS_HASH

    def due(self, now: float) -> int:
        """How many groups are written by ``now`` (none after ``until``)."""
        elapsed = min(now, self.until) - self.start
        return 0 if elapsed < 0 else int(elapsed / self.step) + 1

    def _write_due(self) -> None:
        due = self.due(time.time())
        while self.written < due:
            n = self.written
            ts = format_ts(datetime.fromtimestamp(self.start + n * self.step, UTC))
            round_offset, rows = self.groups[n % len(self.groups)]
            lap = n // len(self.groups)
            round_id = None if round_offset is None else round_offset + lap * self.rounds
            for kind, payload, text in rows:
                self.seq += 1
                digest = row_hash(self.seq, ts, self.table_id, round_id, kind, text, self.prev)
                self.rows.append(
                    Row(
                        self.seq,
                        ts,
                        self.table_id,
                        round_id,
                        kind,
                        payload,
                        self.prev,
                        digest,
                        text,
                    )
                )
                self.prev = digest
            self.written += 1

    def last_row(self) -> Row | None:
        self._write_due()
        return self.rows[-1] if self.rows else None

    def iter_rows(self, after_seq: int = 0) -> Iterator[Row]:
        return islice(self.rows, max(0, after_seq - self.base), None)

    def forget(self, upto_seq: int) -> None:
        """Rows up to ``upto_seq`` are no longer needed (the row at it is kept)."""
        drop = upto_seq - 1 - self.base
        if drop > 256:
            del self.rows[:drop]
            self.base += drop

    def next_due(self) -> float:
        """When the next group is written."""
        return self.start + self.written * self.step


# The shipper of the commit before issue 26's floor work (36550f3), for ``--before``: a
# transaction of its own around each statement (BEGIN, the statement, COMMIT: three round
# trips) and the columns as text arrays. Kept here to measure it side by side.
_INSERT_BEFORE = """
INSERT INTO croupier.journal_rows
    (table_id, seq, ts, at, round_id, kind, payload, prev_hash, hash)
SELECT table_id, seq, ts, ts::timestamptz, round_id, kind, payload, prev_hash, hash
FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::bigint[], %s::text[], %s::text[],
            %s::text[], %s::text[]) AS r(table_id, seq, ts, round_id, kind, payload, prev_hash,
                                         hash)
ON CONFLICT DO NOTHING
"""


async def ship_paced(
    journal: PacedJournal,
    conninfo: str,
    settings: FloorLink,
    until: float,
    stats: dict[str, float],
    before: bool = False,
) -> None:
    """What the real :class:`Shipper` sends for one table, and when, on a connection of its
    own: connected as it connects (:func:`connect_options`: the table's own login, autocommit),
    its first look (login, head), its batches (:func:`batch_columns` for :data:`_INSERT`: at
    most ``batch_rows``, one after the other while rows wait), its word every ``REPORT_S``
    (:func:`report_params` for :data:`_REPORT`) and its polls every ``poll_ms`` after a pass
    that left nothing (an idle poll only looks at the journal's files, which PostgreSQL never
    sees: the task sleeps through them). A lost connection or a timeout: it waits as the
    shipper waits (0.5 s, doubling) and starts again from the floor's head. After ``until`` it
    ships what is left, reports and ends, as a clean stop does. ``before``: the shipper of
    the commit before (a transaction around each statement, text arrays)."""
    tid = journal.table_id
    poll = settings.poll_ms / 1000
    about = {"variant": "nz-pontoon"}
    failures = 0
    while True:
        try:
            options = connect_options(tid, settings)
            options["autocommit"] = not before
            db = await psycopg.AsyncConnection.connect(conninfo, **options)
            register_columns(db.adapters)
            try:
                await _ship_paced(db, journal, settings, until, stats, about, poll, before)
                return
            finally:
                await db.close()
        except psycopg.Error as exc:
            stats["errors"] += 1
            kind = type(exc).__name__
            stats[kind] = stats.get(kind, 0) + 1
            await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S) - 1)])
            failures += 1


async def _ship_paced(
    db: psycopg.AsyncConnection[Any],
    journal: PacedJournal,
    settings: FloorLink,
    until: float,
    stats: dict[str, float],
    about: dict[str, Any],
    poll: float,
    before: bool,
) -> None:
    tid = journal.table_id
    await (await db.execute(_MINE)).fetchone()
    found = await (await db.execute(_HEAD, (tid,))).fetchone()
    await db.commit()
    shipped = 0 if found is None else int(found[0])
    reported = 0.0
    months: set[str] = set()
    while True:
        last = journal.last_row()
        local = 0 if last is None else last.seq
        busy = False
        if local > shipped:
            batch = list(islice(journal.iter_rows(after_seq=shipped), settings.batch_rows))
            wanted = {batch[0].ts[:7], batch[-1].ts[:7]}
            if not wanted <= months:
                await db.execute(
                    "SELECT croupier.ensure_months(%s::timestamptz, %s::timestamptz)",
                    (batch[0].ts, batch[-1].ts),
                )
                await db.commit()
                months |= wanted
            if before:
                await db.execute(_INSERT_BEFORE, [list(c) for c in batch_columns(batch)])
                await db.commit()
            else:
                await db.execute(_INSERT, batch_columns(batch))
            shipped = batch[-1].seq
            journal.forget(shipped)
            busy = local > shipped
        now = time.time()
        if now - reported >= REPORT_S or (now >= until and not busy):
            oldest = next(journal.iter_rows(after_seq=shipped), None) if busy else None
            backlog = Backlog(local, shipped, None if oldest is None else oldest.ts, now)
            await db.execute(_REPORT, report_params(tid, backlog, "connected", "", about))
            await db.commit()  # (nothing to commit in autocommit: no round trip)
            reported = now
        if busy:
            continue
        if now >= until:
            return
        wake = time.time() + poll
        target = min(journal.next_due(), reported + REPORT_S, until)
        if wake < target:
            wake += math.ceil((target - wake) / poll) * poll
        await asyncio.sleep(max(0.0, wake - time.time()))
        stats["late"] = max(stats["late"], time.time() - wake)


def emulate_lean(
    index: int,
    table_ids: list[str],
    folder: str,
    dsns: dict[str, str],
    groups: list[Group],
    rounds: int,
    speed: float,
    until: float,
    tick: float,
    out: Any,
    poll_ms: int = 100,
    before: bool = False,
) -> None:
    """One generator process: a connection per table, each shipping a paced journal, all on
    one event loop (a thread per table spent more of this machine's CPU on the GIL than on
    the shipping)."""
    del folder, tick
    quiet_logs()
    round_s = REAL_ROUND_S / speed
    step = round_s * rounds / len(groups)
    start = time.time()
    cpu0 = time.process_time()
    stats = {"late": 0.0, "errors": 0.0}
    journals = []
    for tid in table_ids:
        offset = (hash(tid) % 1000) / 1000 * step
        journals.append(PacedJournal(tid, groups, rounds, start + offset, step, until))

    async def run() -> int:
        tasks = []
        for journal in journals:
            settings = FloorLink(
                dsn=dsns[journal.table_id], password_env=PASSWORD_ENV, poll_ms=poll_ms
            )
            tasks.append(
                asyncio.create_task(
                    ship_paced(journal, settings.conninfo(), settings, until, stats, before)
                )
            )
            # tables do not all connect at the same instant: over the first 10 s
            await asyncio.sleep(10.0 / len(journals))
        _, pending = await asyncio.wait(tasks, timeout=max(1.0, until + 30 - time.time()))
        return len(pending)

    pending = asyncio.run(run())
    written = {j.table_id: j.seq for j in journals}
    out.put(
        {
            "proc": index,
            "appended": sum(written.values()),
            "written": written,
            "cpu_s": time.process_time() - cpu0,
            "late_s": stats["late"],
            "errors": int(stats["errors"]),
            "error_kinds": {k: int(v) for k, v in stats.items() if k not in ("late", "errors")},
            "not_shipped_at_stop": pending,
        }
    )


def postgres_cpu(cluster: Cluster) -> float:
    """CPU seconds (user + system) of the postmaster and its children."""
    pid_file = cluster.data / "postmaster.pid"
    master = int(pid_file.read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid = int(fields[1])
        if int(entry) == master or ppid == master:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def postgres_pss_mb(cluster: Cluster) -> float:
    """The memory of the postmaster and its children (proportional set size: shared memory
    counted once), in MB."""
    master = int((cluster.data / "postmaster.pid").read_text().split()[0])
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if int(entry) != master and ppid != master:
                continue
            for line in Path(f"/proc/{entry}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1024


def machine_busy_s() -> float:
    """The machine's busy CPU seconds since boot (every CPU: user, nice, system, irq)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--speed", type=float, default=4.0, help="times real pace (4)")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument(
        "--tick", type=float, default=0.25, help="s between an emulator's appends (0.25)"
    )
    parser.add_argument(
        "--poll-ms", type=int, default=100, help="the shippers' [floor] poll_ms (100, the default)"
    )
    parser.add_argument(
        "--lean",
        action="store_true",
        help="real shippers reading paced journals in memory (no SQLite, no dealing)",
    )
    parser.add_argument("--revision", default="head", help="migrate the floor this far only (head)")
    parser.add_argument(
        "--before",
        action="store_true",
        help="with --lean: the floor and shipper before issue 26 (revision 0005, a transaction "
        "around each statement, text arrays)",
    )
    parser.add_argument(
        "--unrated",
        action="store_true",
        help="the template's players unrated (before issue 24: no sit-downs, sessions or rated "
        "decisions in the rows)",
    )
    parser.add_argument("--out", type=Path, help="append the figures to this jsonl file")
    parser.add_argument("--label", default="", help="a word for this run in the jsonl")
    args = parser.parse_args()
    quiet_logs()
    folder = Path(tempfile.mkdtemp(prefix="croupier-floor-bench-"))
    cluster = Cluster(durable=True, max_connections=args.tables + 100)
    load_before = os.getloadavg()
    try:
        print(f"PostgreSQL {cluster.base}: creating", flush=True)
        cluster.init()
        cluster.start()
        cluster.bootstrap("0005" if args.before else args.revision)
        os.environ[PASSWORD_ENV] = cluster.credentials.table
        groups, rounds = record_template(folder, rated=not args.unrated)
        kinds: dict[str, int] = {}
        for _round, group_rows in groups:
            for kind, _payload, _text in group_rows:
                kinds[kind] = kinds.get(kind, 0) + 1
        print(f"template rows by kind: {dict(sorted(kinds.items()))}", flush=True)
        rows_per_round = sum(len(g[1]) for g in groups) / rounds
        print(
            f"template: {rounds} rounds, {len(groups)} transactions, {rows_per_round:.0f} rows a "
            f"round; {args.tables} tables at {args.speed}x real pace (a round every "
            f"{REAL_ROUND_S / args.speed:.0f} s) = "
            f"{args.tables * rows_per_round * args.speed / REAL_ROUND_S:,.0f} rows/s offered",
            flush=True,
        )
        published: list[float] = []
        newest: dict[str, str] = {}
        watcher = FloorWatcher(
            cluster.conninfo("floor"),
            Shifts((dtime(0, 0),), ZoneInfo("UTC")),
            WatchSettings(history_hours=1, recheck_s=3600),
        )
        watcher.start()
        measuring = threading.Event()

        def listener() -> None:
            if not measuring.is_set():
                return
            now = time.time()
            _, update = watcher.hub.since(watcher.hub.version - 1)
            for view in update["tables"]:
                last = view.get("last_ts")
                if last and newest.get(view["table_id"]) != last:  # new rows in this view
                    newest[view["table_id"]] = last
                    published.append(now - datetime.fromisoformat(last).timestamp())

        watcher.hub.subscribe(listener)
        ids = [f"bench-{n:03d}" for n in range(args.tables)]
        dsns = {tid: cluster.dsn(cluster.table_login(tid).login) for tid in ids}  # one each
        until = time.time() + args.seconds
        out: Any = mp.get_context("fork").Queue()
        procs = [
            mp.get_context("fork").Process(
                target=emulate_lean if args.lean else emulate,
                args=(
                    i,
                    ids[i :: args.procs],
                    str(folder),
                    {tid: dsns[tid] for tid in ids[i :: args.procs]},
                    groups,
                    rounds,
                    args.speed,
                    until,
                    args.tick,
                    out,
                    args.poll_ms,
                    *((args.before,) if args.lean else ()),
                ),
            )
            for i in range(args.procs)
        ]
        # (opened before the tables connect: a floor out of connections still measures)
        admin = psycopg.connect(cluster.conninfo("admin"), autocommit=True)
        sampler_db = psycopg.connect(cluster.conninfo("admin"), autocommit=True)
        waits: dict[str, int] = {}
        samples = [0]

        def sample_waits() -> None:
            """What the tables' server processes wait on, every 2 s of the window."""
            while not measuring.is_set():
                time.sleep(0.1)
            while measuring.is_set():
                samples[0] += 1
                for kind, event, n in sampler_db.execute(
                    "SELECT coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running'), "
                    "count(*) FROM pg_stat_activity WHERE application_name LIKE "
                    "'croupier-shipper %' AND state = 'active' GROUP BY 1, 2"
                ):
                    waits[f"{kind}:{event}"] = waits.get(f"{kind}:{event}", 0) + int(n)
                time.sleep(2.0)

        sampler = threading.Thread(target=sample_waits, daemon=True)
        sampler.start()
        for p in procs:
            p.start()
        warm = args.seconds / 5
        time.sleep(warm)
        measuring.set()
        lsn0 = admin.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        t0 = datetime.now(UTC)
        busy0, self0 = machine_busy_s(), time.process_time()
        cpu0 = postgres_cpu(cluster)
        disk0 = folder_bytes(cluster.data)
        time.sleep(max(1.0, until - time.time() - 2))
        t1 = datetime.now(UTC)
        cpu1 = postgres_cpu(cluster)
        busy1, self1 = machine_busy_s(), time.process_time()
        pss = postgres_pss_mb(cluster)
        load_during = os.getloadavg()
        measuring.clear()
        wal = int(admin.execute("SELECT pg_current_wal_lsn() - %s::pg_lsn", (lsn0,)).fetchone()[0])
        backends = admin.execute("SELECT count(*) FROM pg_stat_activity").fetchone()[0]
        disk1 = folder_bytes(cluster.data)
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        watcher.close()
        with psycopg.connect(cluster.conninfo("floor")) as db:
            lags = [
                float(r[0])
                for r in db.execute(
                    "SELECT extract(epoch FROM received_at - at) FROM croupier.journal_rows "
                    "WHERE received_at >= %s AND received_at < %s",
                    (t0, t1),
                )
            ]
            total = db.execute("SELECT count(*) FROM croupier.journal_rows").fetchone()[0]
            appended = sum(r["appended"] for r in results) + (0 if args.lean else args.tables)
            held = {
                str(t): (int(n), int(d), int(hi))
                for t, n, d, hi in db.execute(
                    "SELECT table_id, count(*), count(DISTINCT seq), max(seq) "
                    "FROM croupier.journal_rows GROUP BY table_id"
                )
            }
        written: dict[str, int] = {}
        for r in results:
            written.update(r.get("written", {}))
        once = [  # every row written is on the floor once: rows 1 to the last, none twice
            t for t, last in written.items() if held.get(t, (0, 0, 0)) != (last, last, last)
        ]
        window = (t1 - t0).total_seconds()
        per_million = 1e6 / max(1, len(lags))
        figures = {
            "label": args.label,
            "rated": not args.unrated,
            "mode": "lean" if args.lean else "journals",
            "revision": "0005" if args.before else args.revision,
            "shipper": "before" if args.before else "this",
            "tables": args.tables,
            "speed": args.speed,
            "poll_ms": args.poll_ms,
            "window_s": round(window, 1),
            "rows_per_s": round(len(lags) / window, 1),
            "lag_p50_s": round(statistics.median(lags), 3) if lags else None,
            "lag_p99_s": round(percentile(lags, 99), 3),
            "lag_max_s": round(max(lags), 3) if lags else None,
            "floor_view_delay_p50_s": round(statistics.median(published), 3) if published else None,
            "floor_view_delay_p99_s": round(percentile(published, 99), 3),
            "postgres_cpu_s": round(cpu1 - cpu0, 1),
            "postgres_cpu_s_per_million_rows": round((cpu1 - cpu0) * per_million, 1),
            "wal_mb_per_million_rows": round(wal * per_million / 2**20, 1),
            "data_growth_mb_per_million_rows": round((disk1 - disk0) * per_million / 2**20, 1),
            "emulators_cpu_s": round(sum(r["cpu_s"] for r in results), 1),
            "emulators_worst_lateness_s": round(max(r["late_s"] for r in results), 3),
            "rows_on_floor": int(total),
            "rows_written": int(appended),
            "watcher_cpu_s": round(self1 - self0, 1),
            "server_processes_at_end": int(backends),
            "postgres_memory_mb": round(pss),
            "shippers_busy_mean": round(sum(waits.values()) / max(1, samples[0]), 1),
            "shippers_busy_on": {
                k: round(v / max(1, samples[0]), 1)
                for k, v in sorted(waits.items(), key=lambda kv: -kv[1])[:6]
            },
            "machine_busy_cpu_s": round(busy1 - busy0, 1),
            "load_before": round(load_before[0], 2),
            "load_during": [round(v, 2) for v in load_during],
        }
        if written:
            figures["tables_not_exactly_once"] = len(once)
            figures["shipper_errors"] = sum(r.get("errors", 0) for r in results)
            kinds: dict[str, int] = {}
            for r in results:
                for k, v in r.get("error_kinds", {}).items():
                    kinds[k] = kinds.get(k, 0) + v
            figures["shipper_error_kinds"] = kinds
            figures["shippers_behind_at_stop"] = sum(
                r.get("not_shipped_at_stop", 0) for r in results
            )
        print(json.dumps(figures, indent=2))
        if args.out is not None:
            with args.out.open("a") as jsonl:
                jsonl.write(json.dumps(figures) + "\n")
    finally:
        cluster.remove()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
