"""Resident memory of the controller: after start and after 100,000 simulated rounds.

``python bench/memory.py [--rounds N] [--variant V]``: one JSON line. Read from
``/proc/self/status`` (VmRSS now, VmHWM the peak), no psutil. "After start": the controller's
modules imported, the variant and its strategy loaded and a round controller built, as a table
has them before its first round. The rounds are then played in this process (one worker).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

TARGET_MB = 80


def status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def mb(kb: int) -> float:
    return round(kb / 1024, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--variant", default="nz-pontoon")
    args = parser.parse_args()
    bare = status_kb("VmRSS")
    from controller.game.rules import load_variant  # noqa: PLC0415
    from controller.play.simulate import SimConfig, simulate  # noqa: PLC0415
    from controller.play.strategy import strategy_for  # noqa: PLC0415
    from controller.round.controller import RoundController  # noqa: PLC0415
    from controller.table.app import TableApp  # noqa: PLC0415

    rules = load_variant(args.variant)
    strategy_for(rules)
    RoundController(rules)
    TableApp(rules)
    started = status_kb("VmRSS")
    t0 = time.perf_counter()
    simulate(SimConfig(args.variant, rounds=args.rounds, seed=1))
    seconds = time.perf_counter() - t0
    line = {
        "benchmark": "resident_memory",
        "variant": args.variant,
        "python_only_mb": mb(bare),
        "after_start_mb": mb(started),
        "rounds": args.rounds,
        "after_rounds_mb": mb(status_kb("VmRSS")),
        "peak_mb": mb(status_kb("VmHWM")),
        "target_mb": TARGET_MB,
        "seconds": round(seconds, 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
