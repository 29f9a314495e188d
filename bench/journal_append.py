"""How fast the journal appends on this machine: one JSON line on stdout.

``python bench/journal_append.py [--seconds S] [--dir DIR]``. Measures single-row appends (one
commit, so one fsync, each: WAL with synchronous=FULL) and rows appended ten to a transaction with
``append_many`` (the way a table writes everything one device event produced), on a fresh journal
in DIR (a temporary folder on the same disk as the working directory by default: put it where the
real journal will live).

``--sealed``: the same on a sealed journal (the table key's MAC on each row) and an unsealed one,
alternated three times each, in CPU seconds per row (the fsyncs are the same for both), and what
one replacement of the head record costs (wall ms: it is synced; a table writes one a round).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.journal.store import Journal

PAYLOAD: dict[str, Any] = {
    "type": "CardDrawn",
    "device": {"type": "shoe", "port": "/dev/ttyUSB0"},
    "at": 1234.5,
    "seq": 17,
    "boot": 3,
    "card": "TH",
    "draw_no": 41,
    "remaining": 271,
    "quality": 97,
}
BATCH = 10


def measure(journal: Journal, seconds: float, batch: int) -> tuple[int, float]:
    rows = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        if batch == 1:
            journal.append("device_event", PAYLOAD, round_id=1)
        else:
            journal.append_many([("device_event", PAYLOAD)] * batch, round_id=1)
        rows += batch
    return rows, time.perf_counter() - started


def _cpu_per_row(journal: Journal, seconds: float) -> float:
    rows, started = 0, time.process_time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        journal.append_many([("device_event", PAYLOAD)] * BATCH, round_id=1)
        rows += BATCH
    return (time.process_time() - started) / rows


def sealed_against_unsealed(where: Path, seconds: float) -> dict[str, Any]:
    figures: dict[str, list[float]] = {"unsealed": [], "sealed": []}
    heads: list[float] = []
    with tempfile.TemporaryDirectory(dir=where, prefix="journal-bench-") as folder:
        plain = Journal.open(Path(folder) / "plain.sqlite3", table_id="BENCH")
        sealed = Journal.open(Path(folder) / "sealed.sqlite3", table_id="BENCH", sealed=True)
        with plain, sealed:
            for _ in range(3):
                figures["unsealed"].append(_cpu_per_row(plain, seconds))
                figures["sealed"].append(_cpu_per_row(sealed, seconds))
            for _ in range(50):
                started = time.perf_counter()
                sealed.record_head()
                heads.append(time.perf_counter() - started)
            assert sealed.verify().ok
    unsealed_us = sorted(figures["unsealed"])[1] * 1e6
    sealed_us = sorted(figures["sealed"])[1] * 1e6
    heads.sort()
    return {
        "benchmark": "journal_append_sealed",
        "cpu_us_per_row_unsealed": [round(x * 1e6, 2) for x in figures["unsealed"]],
        "cpu_us_per_row_sealed": [round(x * 1e6, 2) for x in figures["sealed"]],
        "sealed_over_unsealed": round(sealed_us / unsealed_us, 3),
        "head_record_ms_p50": round(heads[len(heads) // 2] * 1000, 3),
        "head_record_ms_max": round(heads[-1] * 1000, 3),
        "batch": BATCH,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where to put the journal")
    parser.add_argument("--sealed", action="store_true", help="sealed against unsealed, alternated")
    args = parser.parse_args()
    if args.sealed:
        print(json.dumps(sealed_against_unsealed(args.dir, args.seconds)))
        return 0
    with (
        tempfile.TemporaryDirectory(dir=args.dir, prefix="journal-bench-") as folder,
        Journal.open(Path(folder) / "bench.sqlite3", table_id="BENCH") as journal,
    ):
        single, single_s = measure(journal, args.seconds, 1)
        batched, batched_s = measure(journal, args.seconds, BATCH)
        started = time.perf_counter()
        result = journal.verify()
        verify_s = time.perf_counter() - started
        journal.check_writable()
    line = {
        "benchmark": "journal_append",
        "appends_per_s": round(single / single_s, 1),
        "ms_per_append": round(1000 * single_s / single, 3),
        "batched_rows_per_s": round(batched / batched_s, 1),
        "batch": BATCH,
        "verify_rows_per_s": round(result.rows_checked / verify_s, 1),
        "rows": result.rows_checked,
        "verified": result.ok,
        "journal_mode": "wal",
        "synchronous": "FULL",
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
