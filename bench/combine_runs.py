"""Combine ``croupier simulate --json`` reports of independent runs into one line per variant.

``python bench/combine_runs.py REPORT.json ...``: runs of one variant with different seeds (or
from different machines) are independent samples, so the house edge of all of them is the
round-weighted mean, and its standard error ``sqrt(sum(n_i^2 * se_i^2)) / sum(n_i)``. Prints one
JSON line per variant (and configuration), with the frequencies weighted by initial hands.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def combine(reports: list[dict[str, Any]]) -> dict[str, Any]:
    rounds = sum(r["rounds"] for r in reports)
    hands = sum(r["initial_hands"] for r in reports)
    edges: dict[str, dict[str, float]] = {}
    for key in ("with_super_bonus", "without_super_bonus"):
        edge = sum(r["rounds"] * r["house_edge"][key]["edge"] for r in reports) / rounds
        spread = sum((r["rounds"] * r["house_edge"][key]["standard_error"]) ** 2 for r in reports)
        edges[key] = {"edge": edge, "standard_error": math.sqrt(spread) / rounds}
    frequency = {
        key: sum(r["initial_hands"] * r["frequency"][key] for r in reports) / hands
        for key in ("player_natural", "surrender", "insurance", "rescue", "super_bonus",
                    "five_card_trick")
    }  # fmt: skip
    dealer_hands = sum(r["dealer_final"]["overall"]["hands"] for r in reports)
    dealer = {
        key: sum(r["dealer_final"]["overall"]["hands"] * r["dealer_final"]["overall"][key]
                 for r in reports) / dealer_hands
        for key in reports[0]["dealer_final"]["overall"] if key != "hands"
    }  # fmt: skip
    first = reports[0]
    return {
        "benchmark": "simulate_combined",
        "variant": first["variant"],
        "overrides": first["overrides"],
        "shuffle": first["shuffle"],
        "boxes": first["boxes"],
        "wager_cents": first["wager_cents"],
        "runs": len(reports),
        "seeds": [r["seed"] for r in reports],
        "rounds": rounds,
        "house_edge": edges,
        "variance_per_round": {
            key: sum(r["rounds"] * r["variance_per_round"][key] for r in reports) / rounds
            for key in ("with_super_bonus", "without_super_bonus")
        },
        "frequency": frequency,
        "super_bonuses": sum(r["counts"]["super_bonus"] for r in reports),
        "dealer_final_overall": dealer,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("reports", nargs="+", type=Path)
    args = parser.parse_args()
    groups: dict[str, list[dict[str, Any]]] = {}
    for path in args.reports:
        report = json.loads(path.read_text())
        key = json.dumps(
            [report[k] for k in ("variant", "overrides", "shuffle", "boxes", "wager_cents")]
        )
        groups.setdefault(key, []).append(report)
    for reports in groups.values():
        print(json.dumps(combine(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
