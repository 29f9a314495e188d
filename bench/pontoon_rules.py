"""Rule by rule from pontoon-blackjack and uk-pontoon as configured to the online Pontoon whose
publisher (the Wizard of Odds) states 0.38 %: the house edge of each step by exact analysis, for
the best play (composition-dependent) and for the shipped chart. Used by docs/analysis.md.

``python bench/pontoon_rules.py`` prints one JSON line per step.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.analysis.engine import Analysis
from controller.analysis.parsheet import shipped_strategy
from controller.analysis.shoe import Shoe
from controller.game.rules import load_variant

STEPS: list[tuple[str, str, dict[str, Any]]] = [
    ("pontoon-blackjack", "as configured", {}),
    ("pontoon-blackjack", "8 decks", {"shoe.decks": 8, "shoe.cut_card_reserve": 104}),
    (
        "pontoon-blackjack",
        "8 decks, double on any number of cards (the publisher's rules)",
        {"shoe.decks": 8, "shoe.cut_card_reserve": 104, "double.max_cards": 0},
    ),
    (
        "pontoon-blackjack",
        "8 decks, one double at any point on any total, and a 21 does not end the hand (the "
        "publisher's chart)",
        {
            "shoe.decks": 8,
            "shoe.cut_card_reserve": 104,
            "double.max_cards": 0,
            "double.max_total_after_two": 21,
            "hands.twenty_one_ends_hand": False,
        },
    ),
    (
        "pontoon-blackjack",
        "... and split aces take one card, no resplit of aces",
        {
            "shoe.decks": 8,
            "shoe.cut_card_reserve": 104,
            "double.max_cards": 0,
            "split.split_aces_one_card": True,
            "split.resplit_aces": False,
            "double.on_split_aces": False,
        },
    ),
    ("uk-pontoon", "as configured", {}),
    ("uk-pontoon", "no dealer five-card trick", {"hands.dealer_five_card_trick": False}),
    (
        "uk-pontoon",
        "... dealer draws past five cards",
        {"hands.dealer_five_card_trick": False, "dealer.stands_on_five_cards": False},
    ),
    (
        "uk-pontoon",
        "... player may draw past five cards",
        {
            "hands.dealer_five_card_trick": False,
            "dealer.stands_on_five_cards": False,
            "hands.max_cards": 0,
        },
    ),
    (
        "uk-pontoon",
        "... no pontoon after a split, pairs by value (= pontoon-blackjack at 8 decks)",
        {
            "hands.dealer_five_card_trick": False,
            "dealer.stands_on_five_cards": False,
            "hands.max_cards": 0,
            "hands.natural_after_split": False,
            "split.match": "value",
        },
    ),
    (
        "uk-pontoon",
        "... double on any number of cards (the publisher's rules)",
        {
            "hands.dealer_five_card_trick": False,
            "dealer.stands_on_five_cards": False,
            "hands.max_cards": 0,
            "hands.natural_after_split": False,
            "split.match": "value",
            "double.max_cards": 0,
        },
    ),
]


def main() -> int:
    for variant, step, overrides in STEPS:
        rules = load_variant(variant, overrides or None, analysis=True)
        shipped = load_variant(variant)
        t = time.process_time()
        best = Analysis(rules, Shoe.of_variant(rules)).house_edge()
        chart, note = shipped_strategy(rules, shipped)
        with_chart = Analysis(rules, Shoe.of_variant(rules), strategy=chart).house_edge()
        print(
            json.dumps(
                {
                    "benchmark": "pontoon_rules",
                    "variant": variant,
                    "step": step,
                    "overrides": overrides,
                    "best_play": round(best, 6),
                    "shipped_chart": round(with_chart, 6),
                    "chart": note,
                    "cpu_seconds": round(time.process_time() - t, 1),
                }
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
