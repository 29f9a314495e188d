"""Many emulated tables shipping to one PostgreSQL on this machine (the floor's load test).

    .venv/bin/python bench/floor_load.py [--tables 200] [--speed 4] [--seconds 120] [--procs 4]

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
- the floor's watcher (``FloorWatcher``, LISTEN/NOTIFY) in this process, as ``floor serve`` runs it.

What is measured, after a warm-up of a fifth of the run:

- rows per second that reached PostgreSQL (``received_at`` in the window);
- shipping lag per row: ``received_at`` (PostgreSQL's clock at insert) minus the row's journal
  time ``ts``: p50, p99, max;
- the floor view's update delay: when the watcher publishes a table's view with new rows in
  it, now minus the newest row's ``ts`` (journal write to the floor's view; the WebSocket hop
  to a browser is not included);
- PostgreSQL's CPU seconds (all its processes, /proc) and WAL bytes and data-folder growth per
  million rows; the emulators' CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from datetime import time as dtime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli.scenario import quiet_logs
from controller.floor.cluster import Cluster
from controller.floor.shifts import Shifts
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher, WatchSettings
from controller.journal.store import Journal
from controller.table.config import FloorLink

REAL_ROUND_S = 60.0  # "real pace": a round a minute at a table
PASSWORD_ENV = "CROUPIER_BENCH_FLOOR_PASSWORD"  # noqa: S105 - a variable name

Group = tuple[int | None, list[tuple[str, dict[str, Any]]]]  # (round offset, rows)


def record_template(folder: Path, rounds: int = 30) -> tuple[list[Group], int]:
    """Rows of a real demo table, grouped by transaction; and how many rounds they hold."""
    from controller.play.demo import DemoOptions, demo_dealer  # noqa: PLC0415
    from controller.service.service import TableService  # noqa: PLC0415
    from controller.table.config import table_from_mapping  # noqa: PLC0415

    path = folder / "template.sqlite3"
    table = table_from_mapping(
        {"table_id": "template", "boxes": [1, 2, 3], "journal": {"path": str(path)}},
        "<bench>",
        folder,
    )
    with TableService(table, actors=[demo_dealer(DemoOptions(pace_s=0.0, seed=11))]) as service:
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
        groups[-1][1].append((row.kind, row.payload))
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
                pending += rows
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
    args = parser.parse_args()
    quiet_logs()
    folder = Path(tempfile.mkdtemp(prefix="croupier-floor-bench-"))
    cluster = Cluster(durable=True)
    try:
        print(f"PostgreSQL {cluster.base}: creating", flush=True)
        cluster.create()
        os.environ[PASSWORD_ENV] = cluster.credentials.table
        groups, rounds = record_template(folder)
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
                target=emulate,
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
                ),
            )
            for i in range(args.procs)
        ]
        for p in procs:
            p.start()
        warm = args.seconds / 5
        time.sleep(warm)
        measuring.set()
        with psycopg.connect(cluster.conninfo("admin")) as db:
            lsn0 = db.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        t0 = datetime.now(UTC)
        cpu0 = postgres_cpu(cluster)
        disk0 = folder_bytes(cluster.data)
        time.sleep(max(1.0, until - time.time() - 2))
        t1 = datetime.now(UTC)
        cpu1 = postgres_cpu(cluster)
        measuring.clear()
        with psycopg.connect(cluster.conninfo("admin")) as db:
            wal = int(db.execute("SELECT pg_current_wal_lsn() - %s::pg_lsn", (lsn0,)).fetchone()[0])
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
            appended = sum(r["appended"] for r in results) + args.tables
        window = (t1 - t0).total_seconds()
        per_million = 1e6 / max(1, len(lags))
        figures = {
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
        }
        print(json.dumps(figures, indent=2))
    finally:
        cluster.remove()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
