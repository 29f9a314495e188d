"""A journal commit with a busy thread beside it: one JSON line on stdout.

``python bench/journal_convoy.py [--commits N] [--spinners K] [--switch-interval S]``

The owner thread commits a card's rows (a cause and six effects, ``append_groups`` as the
journaled table does) ``N`` times on a fresh journal (WAL, ``synchronous=FULL``) in a temporary
folder, while ``K`` threads of the same process spin in pure Python (the GIL's worst neighbour).
Every call into SQLite gives the GIL up; on the way back the owner waits for a spinner to give
it back, which CPython forces after the switch interval (``sys.setswitchinterval``, 5 ms by
default). Wall time of each commit: p50, p99, max. Run it with and without ``--switch-interval``
alternated to see what the interval costs a commit.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.journal.store import Journal

CAUSE: dict[str, Any] = {"type": "CardDrawn", "card": "TH", "seq": 17, "device": {"type": "shoe"}}
EFFECT: dict[str, Any] = {"code": "DEAL", "text": "Deal a card to box 1", "box": 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=1500)
    parser.add_argument("--spinners", type=int, default=1)
    parser.add_argument("--switch-interval", type=float, default=None, metavar="S")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    stop = threading.Event()

    def spin() -> None:
        n = 0
        while not stop.is_set():
            n += 1

    spinners = [threading.Thread(target=spin, daemon=True) for _ in range(args.spinners)]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as work:
        journal = Journal.open(Path(work) / "journal.sqlite3", table_id="T1")
        for t in spinners:
            t.start()
        cpu = time.process_time()
        try:
            for _ in range(args.commits):
                start = time.perf_counter()
                journal.append_groups(
                    [([("device_event", CAUSE)], 1), ([("prompt", EFFECT)] * 6, 1)]
                )
                times.append((time.perf_counter() - start) * 1000)
        finally:
            stop.set()
            for t in spinners:
                t.join()
            journal.close()
        cpu = time.process_time() - cpu
    times.sort()
    print(
        json.dumps(
            {
                "benchmark": "journal_commit_beside_busy_threads",
                "python": platform.python_version(),
                "commits": args.commits,
                "spinners": args.spinners,
                "switch_interval_s": sys.getswitchinterval(),
                "p50_ms": round(times[len(times) // 2], 3),
                "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
                "max_ms": round(times[-1], 3),
                "cpu_s": round(cpu, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
