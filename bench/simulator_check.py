"""The simulator against the exact analysis: for every variant, the simulator's house edge at
each-round shuffle (bench/results/each-round/, written by bench/simulate_each_round.sh) must
lie within 3 standard errors of the analysis, and the natural and bonus frequencies within 4.

``python bench/simulator_check.py`` prints one JSON line per variant: rounds simulated, both
house edges, the difference in standard errors, and per frequency the simulated and exact
values and their difference in standard errors (binomial, per initial hand).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from combine_runs import combine  # noqa: E402

from controller.analysis.parsheet import Request, par_sheet  # noqa: E402
from controller.game.rules import VARIANT_IDS  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "each-round"
# simulator frequency key -> par sheet event key
FREQUENCIES = {
    "player_natural": "player natural",
    "five_card_trick": "five-card trick",
    "super_bonus": "super bonus",
    "surrender": "surrender",
    "rescue": "rescue",
}


def check(variant: str) -> dict[str, Any] | None:
    reports = [json.loads(p.read_text()) for p in sorted(RESULTS.glob(f"{variant}-seed*.json"))]
    if not reports:
        return None
    sim = combine(reports)
    sheet, _cached = par_sheet(Request(variant, {}, "shipped", sim["wager_cents"], False))
    exact = sheet["house_edge"]
    edge = sim["house_edge"]["with_super_bonus"]
    out: dict[str, Any] = {
        "benchmark": "simulator_check",
        "variant": variant,
        "rounds": sim["rounds"],
        "seeds": sim["seeds"],
        "simulated_edge": edge["edge"],
        "standard_error": edge["standard_error"],
        "exact_edge": exact,
        "edge_in_se": (edge["edge"] - exact) / edge["standard_error"],
        "edge_within_3_se": abs(edge["edge"] - exact) <= 3 * edge["standard_error"],
        "frequencies": {},
    }
    n = sim["rounds"]
    for key, event in FREQUENCIES.items():
        p = sheet["events"].get(event, 0.0)
        f = sim["frequency"][key]
        se = math.sqrt(max(p * (1 - p), 1e-300) / n)
        out["frequencies"][key] = {
            "simulated": f,
            "exact": p,
            "in_se": (f - p) / se if p > 0 else None,
            "within_4_se": abs(f - p) <= 4 * se,
        }
    return out


def main() -> int:
    for variant in VARIANT_IDS:
        result = check(variant)
        print(json.dumps(result or {"variant": variant, "rounds": 0}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
