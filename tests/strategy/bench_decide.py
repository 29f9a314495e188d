"""Measure Strategy.decide() and decide_hand() calls per second (not a test; one JSON line).

``python -m tests.strategy.bench_decide`` plays 20,000 random live hands (2-4 cards) per variant
ten times through each entry point and prints the rates.
"""

from __future__ import annotations

import json
import platform
import random
import time

from controller.game.hands import hand_value
from controller.game.rules import VARIANT_IDS, load_variant
from controller.play.strategy import load_strategy
from drivers.tbl21.cards import Card, shoe_cards
from tests.strategy.helpers import box_with

HANDS = 20_000
ROUNDS = 10


def main() -> None:
    out: dict[str, object] = {"machine": platform.processor() or platform.machine()}
    for variant_id in VARIANT_IDS:
        rules = load_variant(variant_id)
        strategy = load_strategy(variant_id)
        cards = shoe_cards(rules.shoe.deck, 2)
        rng = random.Random(7)
        hands: list[tuple[list[Card], Card]] = []
        while len(hands) < HANDS:
            hand = rng.sample(cards, rng.choice((2, 2, 2, 2, 3, 3, 4)))
            if hand_value(hand).total < 21:
                hands.append((hand, rng.choice(cards)))
        start = time.perf_counter()
        for _ in range(ROUNDS):
            for hand, up in hands:
                strategy.decide(rules, hand, up, can_double=True, can_split=True)
        fast = HANDS * ROUNDS / (time.perf_counter() - start)
        boxes = [(box_with(hand), up) for hand, up in hands]
        start = time.perf_counter()
        for (box, hand_state), up in boxes:
            strategy.decide_hand(rules, box, hand_state, up)
        checked = HANDS / (time.perf_counter() - start)
        out[variant_id] = {"decide_per_s": round(fast), "decide_hand_per_s": round(checked)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
