"""The simulator's deals have the exact frequencies of a shuffled shoe.

A few hundred thousand rounds through the round controller would take minutes here (the
controller plays a few thousand rounds a second), so the frequencies are measured on the deal
stream itself: :class:`ShoeStream` shuffles a fresh shoe, the burn card comes off, and the first
two cards of each box and the dealer's first card are taken in the order of
:func:`deal_plan` - the stream and the function the simulator's controller deals from. The last
test shows that this is exactly what the simulator deals: over whole rounds through the
controller it counts the same naturals, round for round, as this path predicts for the same
seed.
"""

from __future__ import annotations

import math

from controller.game.hands import is_natural
from controller.game.rules import Variant, load_variant
from controller.play.simulate import ShoeStream, SimConfig, chunk_seed, simulate
from controller.round.model import DealTarget, deal_plan
from drivers.tbl21.cards import Card

BOXES = 7  # seven two-card hands per shuffled shoe


def deal(rules: Variant, seed: int, rounds: int) -> tuple[int, int, int]:
    """(two-card naturals, initial hands, dealer first cards A/K/Q/J) over ``rounds`` rounds,
    each from a freshly shuffled shoe, as the simulator's each-round shuffle deals them."""
    stream = ShoeStream(rules.shoe.deck, rules.shoe.decks, seed=chunk_seed(seed, 0))
    plan = deal_plan(rules, list(range(1, BOXES + 1)))
    naturals = hands = picture_or_ace = 0
    for number in range(rounds):
        if number:
            stream.new_shoe()
        for _ in range(rules.shoe.burn_cards):
            stream.draw()
        boxes: dict[int, list[Card]] = {b: [] for b in range(1, BOXES + 1)}
        for target, n in plan:
            card = stream.draw()
            if target is DealTarget.BOX:
                boxes[n].append(card)
            elif n == 1:
                picture_or_ace += card.rank.value in "AKQJ"
        for cards in boxes.values():
            hands += 1
            naturals += is_natural(rules, cards, False)
    return naturals, hands, picture_or_ace


def within_4_se(hits: int, n: int, p: float) -> bool:
    return abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


def test_a_six_deck_spanish_shoe_deals_pontoon_at_0_04181() -> None:
    rules = load_variant("nz-pontoon")  # 6 Spanish 48-card decks
    naturals, hands, _ = deal(rules, seed=11, rounds=45_000)
    assert hands == 315_000
    assert within_4_se(naturals, hands, 0.04181), naturals / hands


def test_a_six_deck_standard_shoe_deals_pontoon_at_0_04749() -> None:
    rules = load_variant("pa-blackjack")  # 6 standard decks
    naturals, hands, _ = deal(rules, seed=12, rounds=45_000)
    assert within_4_se(naturals, hands, 0.04749), naturals / hands


def test_the_dealers_first_card_is_a_k_q_j_a_third_of_the_time_in_a_spanish_shoe() -> None:
    rules = load_variant("nz-pontoon")
    _, _, picture_or_ace = deal(rules, seed=13, rounds=45_000)
    assert within_4_se(picture_or_ace, 45_000, 1 / 3), picture_or_ace / 45_000


def test_the_simulator_deals_exactly_what_the_deal_stream_path_predicts() -> None:
    rules = load_variant("nz-pontoon")
    rounds = 400
    predicted, hands, _ = deal(rules, seed=5, rounds=rounds)
    result = simulate(
        SimConfig("nz-pontoon", rounds=rounds, boxes=BOXES, seed=5, shuffle="each-round")
    )
    assert result.tally.initial_hands == hands
    assert result.tally.naturals == predicted
