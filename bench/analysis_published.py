"""The exact analysis against the published whole-game figures of the Wizard of Odds'
blackjack appendix 9 (tests/analysis/published.py names the pages): pa-blackjack set to each
published rule set (no surrender; S17 or H17; 1, 2, 5, 6 or 8 decks; the 6- and 8-deck games
without a hole card), composition-dependent optimal play, double after split allowed or not.

``python bench/analysis_published.py [GAME ...]`` prints one JSON line per game and rule: the
analysis, the published figure, the difference (in % of the wager) and the CPU seconds. Also
pa-blackjack as shipped and its H17 what-if (no published figure for late surrender and no
resplit of aces at 6 decks; printed for the record).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.analysis.engine import Analysis
from controller.analysis.shoe import Shoe
from controller.game.rules import load_variant
from tests.analysis.published import GAMES, game_overrides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=sorted(GAMES))
    parser.add_argument("--no-ndas", action="store_true", help="only double after split")
    args = parser.parse_args()
    for game in args.games:
        _base, das, ndas = GAMES[game]
        for allowed, published in ((True, das), (False, ndas)):
            if args.no_ndas and not allowed:
                continue
            rules = load_variant("pa-blackjack", game_overrides(game, das=allowed))
            t = time.process_time()
            ev = Analysis(rules, Shoe.of_variant(rules)).expected_value()
            print(
                json.dumps(
                    {
                        "benchmark": "analysis_published",
                        "game": game,
                        "das": allowed,
                        "analysis": round(ev, 8),
                        "published": published,
                        "difference_pct": round(100 * (ev - published), 5),
                        "cpu_seconds": round(time.process_time() - t, 1),
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
