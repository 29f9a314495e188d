"""Throughput of ``croupier simulate`` per variant, one worker and two: one JSON line.

``python bench/simulate_throughput.py [--rounds N] [--boxes K] [--engine kernel|controller]
[--reps R] [--variants a,b]``

One box, seed 1, cut-card shuffle, each variant's own shoe, basic strategy. For each variant
the runs alternate (one worker, two workers, ``--reps`` times) so the machine's load falls on
both alike; the figures are medians:

* ``rounds_per_cpu_second_1w``: rounds per CPU second of the one process that played them,
  its tables built before the clock by 20,000 rounds of other seeds (the target: 40,000 with
  the kernel; ``bench/peers.py`` measures fresh processes, building included);
* ``rounds_per_cpu_second_2w``: the same per worker with two workers (their CPU seconds added
  up): equal to the one-worker figure when nothing is lost to sharing;
* ``rounds_per_s_1w``, ``rounds_per_s_2w``, ``speedup_2w``: wall-clock rounds per second and
  their ratio (x2 is linear; the target, on an idle machine: x1.8 or better);
* ``first_chunk_cpu_s`` and ``warm_chunk_cpu_s``: the CPU seconds of the first chunk of a
  fresh process (its tables built from nothing) and of a later one: the cost of building the
  tables is their difference.

``--rounds`` should be many chunks (:data:`controller.play.simulate.CHUNK_ROUNDS`, 5,000) so
that two workers share them evenly and building the tables weighs little.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.game.rules import VARIANT_IDS  # noqa: E402
from controller.play.simulate import CHUNK_ROUNDS, SimConfig, run_chunk, simulate  # noqa: E402

FRESH = """
import json, sys, time
from controller.play.simulate import SimConfig, run_chunk
config = SimConfig(sys.argv[1], rounds=5000, boxes=int(sys.argv[2]), engine=sys.argv[3])
cpu = []
for chunk in range(3):
    started = time.process_time()
    run_chunk(config, chunk, 5000)
    cpu.append(time.process_time() - started)
print(json.dumps(cpu))
"""


def once(config: SimConfig) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one simulate() run."""
    cpu = time.process_time()
    result = simulate(config)
    cpu = time.process_time() - cpu
    return result.seconds, cpu if config.workers == 1 else result.cpu_seconds


def fresh_chunks(variant: str, boxes: int, engine: str) -> list[float]:
    """CPU seconds of the first three chunks of a new process."""
    done = subprocess.run(  # noqa: S603 - this interpreter and this script's code
        [sys.executable, "-c", FRESH, variant, str(boxes), engine],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    chunks: list[float] = json.loads(done.stdout)
    return chunks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=80 * CHUNK_ROUNDS)
    parser.add_argument("--boxes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=("kernel", "controller"), default="kernel")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANT_IDS))
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = {}
    for variant in args.variants.split(","):
        runs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
        warm = SimConfig(variant, rounds=CHUNK_ROUNDS, boxes=args.boxes, engine=args.engine)
        for chunk in range(4):  # this process's tables, before the clock (the workers fork it)
            run_chunk(warm, 10_000 + chunk, CHUNK_ROUNDS)
        for rep in range(args.reps):
            for workers in (1, 2) if rep % 2 == 0 else (2, 1):
                config = SimConfig(
                    variant,
                    rounds=args.rounds,
                    boxes=args.boxes,
                    seed=args.seed,
                    workers=workers,
                    engine=args.engine,
                )
                runs[workers].append(once(config))
        row: dict[str, Any] = {}
        for workers in (1, 2):
            walls = [wall for wall, _ in runs[workers]]
            cpus = [cpu for _, cpu in runs[workers]]
            row[f"rounds_per_s_{workers}w"] = round(args.rounds / statistics.median(walls), 1)
            row[f"rounds_per_cpu_second_{workers}w"] = round(
                args.rounds / statistics.median(cpus), 1
            )
        row["speedup_2w"] = round(row["rounds_per_s_2w"] / row["rounds_per_s_1w"], 2)
        chunks = fresh_chunks(variant, args.boxes, args.engine)
        row["first_chunk_cpu_s"] = round(chunks[0], 3)
        row["warm_chunk_cpu_s"] = round(min(chunks[1:]), 3)
        results[variant] = row
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    ).stdout.strip()
    line = {
        "benchmark": "simulate_throughput",
        "engine": args.engine,
        "rounds": args.rounds,
        "boxes": args.boxes,
        "chunk_rounds": CHUNK_ROUNDS,
        "reps": args.reps,
        "variants": results,
        "target_rounds_per_cpu_second": 40_000,
        "commit": commit,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
