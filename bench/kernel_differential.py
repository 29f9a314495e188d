"""The kernel held to the round controller at scale: one JSON line.

``python bench/kernel_differential.py [--recorded] [--outputs N] [--workers W]``

* ``--recorded``: every long run of ``bench/results/`` (``VARIANT-seedS-*.json``: reports of
  ``croupier simulate`` made with the round controller, ten million rounds per variant) is
  played again with the kernel (``--engine kernel``, same variant, seed, rounds, boxes,
  wager, shuffle), and the new report must equal the recorded one in everything but the
  ``performance`` part: every count, net, squared net and dealer total (the bonus rows on
  the rows the variant pays: the recorded reports list every row, reports since only those).
  A variant whose rules changed after its runs were recorded is replayed under the rules of
  then (:data:`RULES_THEN`, given to the kernel as overrides, like ``--set``).
* ``--outputs N``: ``N`` rounds per variant through both engines output for output
  (``controller.play.differential.compare_engines``: every state change, ledger entry and
  device command, and the tallies), in chunks of 5,000 rounds over 1 to 7 boxes and both
  shuffles (half the rounds with one box, half of them with each shuffle), each chunk its own
  seed.

Both run in a process pool of ``--workers`` processes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.game.rules import VARIANT_IDS  # noqa: E402
from controller.play.differential import compare_engines  # noqa: E402
from controller.play.simulate import SimConfig, report, simulate  # noqa: E402

CHUNK = 5_000
# (boxes, share of the rounds), for each of the two shuffles
SPREAD = ((1, 0.5), (2, 0.15), (3, 0.1), (4, 0.075), (5, 0.06), (6, 0.055), (7, 0.06))


# The rules of a variant as they were when its runs in bench/results/ were recorded, where they
# have changed since: Pontoon Blackjack split to three hands until issue 13 (commit 841fc48,
# 2026-12-01) made it four ("re-split at most twice"); its runs were recorded on 2026-11-29.
RULES_THEN: dict[str, dict[str, Any]] = {"pontoon-blackjack": {"split.max_hands": 3}}


def replay(path: str) -> dict[str, Any]:
    recorded = json.loads(Path(path).read_text())
    then = RULES_THEN.get(recorded["variant"], {})
    config = SimConfig(
        recorded["variant"],
        rounds=recorded["rounds"],
        boxes=recorded["boxes"],
        wager_cents=recorded["wager_cents"],
        seed=recorded["seed"],
        overrides={**recorded["overrides"], **then},
        shuffle=recorded["shuffle"],
    )
    started = time.process_time()
    again = report(simulate(config))
    cpu = time.process_time() - started
    ignored = {"performance", *(("overrides",) if then else ())}  # (the rules then, as a --set)
    differs = [key for key in again if key not in ignored and not same(recorded, again, key)]
    return {
        "file": Path(path).name,
        "rounds": recorded["rounds"],
        "rules_then": then,
        "equal": not differs,
        "differs": differs,
        "cpu_seconds": round(cpu, 1),
    }


def same(recorded: dict[str, Any], again: dict[str, Any], key: str) -> bool:
    """Equal, but for the bonus rows: reports since list only the rows the variant pays (the
    recorded ones list all), so those are compared on the rows the new report has."""
    old, new = recorded.get(key), again[key]
    if key in ("frequency", "counts") and isinstance(old, dict):
        rows = new["bonus_hands"]
        return {k: v for k, v in old.items() if k != "bonus_hands"} == {
            k: v for k, v in new.items() if k != "bonus_hands"
        } and {k: old["bonus_hands"].get(k) for k in rows} == rows
    return bool(old == new)


def output_chunks(variant: str, rounds: int) -> list[tuple[SimConfig, int]]:
    jobs: list[tuple[SimConfig, int]] = []
    chunk = 0
    for shuffle in ("cut-card", "each-round"):
        for boxes, share in SPREAD:
            left = round(rounds / 2 * share)
            while left > 0:
                n = min(CHUNK, left)
                config = SimConfig(variant, rounds=n, boxes=boxes, shuffle=shuffle, seed=77)
                jobs.append((config, chunk))
                chunk += 1
                left -= n
    return jobs


def compare(job: tuple[SimConfig, int]) -> dict[str, Any]:
    config, chunk = job
    difference = compare_engines(config, chunk)
    return {
        "variant": config.variant,
        "rounds": config.rounds,
        "boxes": config.boxes,
        "shuffle": config.shuffle,
        "chunk": chunk,
        "difference": None if difference is None else str(difference),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recorded", action="store_true")
    parser.add_argument("--outputs", type=int, default=0, help="rounds per variant")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--variants", default=",".join(VARIANT_IDS))
    args = parser.parse_args()
    variants = args.variants.split(",")
    line: dict[str, Any] = {"benchmark": "kernel_differential"}
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        if args.recorded:
            files = sorted(
                str(p)
                for v in variants
                for p in (ROOT / "bench" / "results").glob(f"{v}-seed*.json")
            )
            replays = list(pool.map(replay, files))
            by_variant: dict[str, dict[str, Any]] = {}
            for v in variants:
                mine = [r for r in replays if r["file"].startswith(f"{v}-seed")]
                by_variant[v] = {
                    "rounds": sum(r["rounds"] for r in mine),
                    "runs": len(mine),
                    "all_equal": all(r["equal"] for r in mine),
                }
            line["recorded"] = {"by_variant": by_variant, "runs": replays}
        if args.outputs:
            jobs = [job for v in variants for job in output_chunks(v, args.outputs)]
            results = list(pool.map(compare, jobs))
            found = [r for r in results if r["difference"] is not None]
            line["outputs"] = {
                "rounds_per_variant": {
                    v: sum(r["rounds"] for r in results if r["variant"] == v) for v in variants
                },
                "chunks": len(results),
                "differences": found[:10],
                "all_equal": not found,
            }
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    ).stdout.strip()
    line.update(
        {
            "seconds": round(time.perf_counter() - started, 1),
            "workers": args.workers,
            "commit": commit,
            "python": platform.python_version(),
            "load_average": os.getloadavg(),
        }
    )
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
