"""CPU seconds of ``croupier analyze`` per variant (one core, no cache): the shipped strategy
alone (``--quick``), the optimal strategy alone (``--quick --strategy optimal``) and the full
par sheet (every rule toggled, the decks curve). Run side by side, one after the other.

``python bench/analysis_speed.py [VARIANT ...]`` prints one JSON line per variant and mode.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.analysis.parsheet import Request, build
from controller.game.rules import VARIANT_IDS


def main() -> int:
    variants = sys.argv[1:] or list(VARIANT_IDS)
    for mode, strategy, full in (
        ("quick", "shipped", False),
        ("optimal", "optimal", False),
        ("full", "shipped", True),
    ):
        for variant in variants:
            cpu, wall = time.process_time(), time.monotonic()
            sheet = build(Request(variant, {}, strategy, 1000, full))
            print(
                json.dumps(
                    {
                        "benchmark": "analysis_speed",
                        "variant": variant,
                        "mode": mode,
                        "cpu_seconds": round(time.process_time() - cpu, 1),
                        "wall_seconds": round(time.monotonic() - wall, 1),
                        "house_edge": sheet["house_edge"],
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
