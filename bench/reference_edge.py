"""House edge of the British-style pontoon variants by the independent reference: one JSON line.

``python bench/reference_edge.py VARIANT [--rounds N] [--seed S] [--set key=value ...]``.
The reference (``tests/simulate/test_reference_pontoon.py``) shares no rules code with the
controller, and a test holds the two to the same result round for round; it is about fifteen
times faster, so it can answer "what is this rule worth" questions (``--set``) with millions
of rounds in a minute. One box, one unit, basic strategy, the variant's shoe and cut card.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.game.rules import load_variant
from controller.play.strategy import strategy_for
from tests.simulate.test_reference_pontoon import (
    WAGER,
    ReferencePontoon,
    stream_for,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variant", choices=["uk-pontoon", "pontoon-blackjack"])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    overrides: dict[str, object] = {}
    for item in args.set:
        key, _, text = item.partition("=")
        overrides[key] = json.loads(text) if text in ("true", "false") or text.isdigit() else text
    rules = load_variant(args.variant, overrides or None)
    reference = ReferencePontoon(rules, strategy_for(rules), stream_for(rules, seed=args.seed))
    start = time.perf_counter()
    net = net_sq = 0
    for _ in range(args.rounds):
        result = reference.play().net
        net += result
        net_sq += result * result
    seconds = time.perf_counter() - start
    mean = net / args.rounds / WAGER
    variance = net_sq / args.rounds / WAGER**2 - mean**2
    line = {
        "benchmark": "reference_edge",
        "variant": args.variant,
        "overrides": overrides,
        "rounds": args.rounds,
        "seed": args.seed,
        "house_edge": -mean,
        "standard_error": math.sqrt(variance / args.rounds),
        "rounds_per_s": round(args.rounds / seconds),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
