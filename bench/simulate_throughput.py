"""Throughput of ``croupier simulate`` with one worker and with two, per variant: one JSON line.

``python bench/simulate_throughput.py [--rounds N] [--boxes K]``. One box by default (the
target: 10,000 rounds per second per worker with one box). ``--rounds`` should cover several
chunks (:data:`controller.play.simulate.CHUNK_ROUNDS`) so that two workers have work to share.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

from controller.game.rules import VARIANT_IDS
from controller.play.simulate import CHUNK_ROUNDS, SimConfig, simulate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4 * CHUNK_ROUNDS)
    parser.add_argument("--boxes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for variant in VARIANT_IDS:
        row: dict[str, float] = {}
        for workers in (1, 2):
            config = SimConfig(
                variant, rounds=args.rounds, boxes=args.boxes, seed=args.seed, workers=workers
            )
            cpu = time.process_time()
            result = simulate(config)
            cpu = time.process_time() - cpu
            row[f"rounds_per_s_{workers}w"] = round(args.rounds / result.seconds, 1)
            if workers == 1:  # on a shared machine the CPU time is the steadier figure
                row["rounds_per_cpu_s_1w"] = round(args.rounds / cpu, 1)
        row["speedup_2w"] = round(row["rounds_per_s_2w"] / row["rounds_per_s_1w"], 2)
        results[variant] = row
    line = {
        "benchmark": "simulate_throughput",
        "rounds": args.rounds,
        "boxes": args.boxes,
        "chunk_rounds": CHUNK_ROUNDS,
        "variants": results,
        "target_rounds_per_s_per_worker": 10_000,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
