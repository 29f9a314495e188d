"""Every cell of every shipped strategy gives a legal action for its hands under its variant.

For each section, row, card count and column the test builds representative hands (hard 12 as
T-2, 9-3, 3-4-5...; soft 17 as A-6, A-2-4 and 2-4-A; pairs), in the situations the round meets
(the surrender window open or not, a box already holding its maximum of split hands, a hand
that was doubled and may draw on), asks the strategy, and checks the answer with the round's
own ``why_not_*`` checks. Where the cell's primary action is allowed, it must be the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from controller.game.hands import hand_value
from controller.game.refusals import WhyNot
from controller.game.rules import VARIANT_IDS, CardsAfterDouble, Variant, load_variant
from controller.play.strategy import (
    HARD_ROWS,
    MAX_FROM_CARDS,
    PAIR_ROWS,
    SOFT_ROWS,
    UP_COLUMNS,
    Strategy,
    load_strategy,
)
from controller.round.model import (
    BoxState,
    HandState,
    end_of_hand,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_split,
    why_not_stand,
    why_not_surrender,
)
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Rank, Suit
from tests.strategy.helpers import (
    box_with,
    hands_for,
    make_cards,
    pair_points,
    rank_of,
    up_cards,
)


@dataclass(frozen=True)
class Situation:
    name: str
    window: bool = False
    full_box: bool = False
    doubled: bool = False


SITUATIONS = (
    Situation("first decision, surrender offered", window=True),
    Situation("no surrender window"),
    Situation("box has its maximum of hands", full_box=True),
    Situation("hand already doubled", doubled=True),
)


def why_not(
    rules: Variant, action: Action, box: BoxState, hand: HandState, up: Card | None, window: bool
) -> WhyNot | str | None:
    if action is Action.HIT:
        return why_not_hit(rules, hand)
    if action is Action.STAND:
        return why_not_stand(rules, hand)
    if action is Action.DOUBLE:
        return why_not_double(rules, box, hand, None, [s.player for s in hand.stakes])
    if action is Action.SPLIT:
        return why_not_split(rules, box, hand)
    if action is Action.SURRENDER:
        if not (window and rules.surrender.allowed and surrender_offered(rules, up)):
            return "surrender is not offered now"
        return why_not_surrender(rules, box)
    return f"{action.value} is not a playing decision"


def expected_primary(
    rules: Variant, code: str, box: BoxState, hand: HandState, up: Card | None, window: bool
) -> Action | None:
    """The cell's first choice where the round allows it now, else None (a fallback applies)."""
    first = code[0]
    if first == "R":
        if why_not(rules, Action.SURRENDER, box, hand, up, window) is None:
            return Action.SURRENDER
        return None
    if first == "P":
        if code == "Ph" and not rules.double.after_split:
            return None
        return Action.SPLIT if why_not_split(rules, box, hand) is None else None
    if first == "D":
        if why_not_double(rules, box, hand, None, ["ann"]) is not None:
            return None
        initial_aces = sum(1 for c in hand.cards[:2] if c.is_ace)
        all_aces = sum(1 for c in hand.cards if c.is_ace)
        soft = hand_value(hand.cards).soft
        if rules.double.initial_aces_count_one and soft and initial_aces == all_aces > 0:
            return None  # NZ 12.2 would turn the soft hand hard: the fallback is played
        return Action.DOUBLE
    return {"H": Action.HIT, "S": Action.STAND}[code]


def check(
    rules: Variant,
    strategy: Strategy,
    cards: list[Card],
    up: Card | None,
    code: str,
    situation: Situation,
    *,
    use_pair_cell: bool,
) -> list[str]:
    """Problems with the strategy's answer for this hand (empty when all is well)."""
    if situation.doubled and rules.double.cards_after is CardsAfterDouble.ONE:
        return []  # a doubled hand takes one card and ends there
    box, hand = box_with(
        cards,
        hands_on_box=rules.split.max_hands if situation.full_box else 1,
        doubled=situation.doubled,
    )
    if end_of_hand(rules, hand) is not None:
        return []  # the round ends this hand by itself: no decision is asked for
    action = strategy.decide_hand(rules, box, hand, up, surrender_window=situation.window)
    label = f"{rules.id} {[str(c) for c in cards]} vs {up} ({situation.name}, cell {code})"
    problems = []
    reason = why_not(rules, action, box, hand, up, situation.window)
    if reason is not None:
        problems.append(f"{label}: {action.value} is refused: {reason}")
    if not use_pair_cell and why_not_split(rules, box, hand) is None:
        return problems  # a splittable pair answers from the pair table, checked there
    primary = expected_primary(rules, code, box, hand, up, situation.window)
    if primary is not None and action is not primary:
        problems.append(f"{label}: {action.value}, but the cell's {primary.value} is allowed")
    return problems


# Each shipped file with the rules it is for: (file, variant, variant settings).
CASES: list[tuple[str, str, dict[str, object]]] = [(v, v, {}) for v in VARIANT_IDS] + [
    ("pa-blackjack-h17", "pa-blackjack", {"dealer.hits_soft_17": True}),
]
CASE_IDS = [c[0] for c in CASES]


def loaded(name: str, variant_id: str, overrides: dict[str, object]) -> tuple[Variant, Strategy]:
    rules = load_variant(variant_id, overrides)
    return rules, load_strategy(name, rules)


@pytest.mark.parametrize(("name", "variant_id", "overrides"), CASES, ids=CASE_IDS)
def test_every_hard_and_soft_cell_is_legal_and_played_as_written(
    name: str, variant_id: str, overrides: dict[str, object]
) -> None:
    rules, strategy = loaded(name, variant_id, overrides)
    most_cards = MAX_FROM_CARDS if strategy.by_up_card else 6
    problems: list[str] = []
    checked = 0
    for kind, rows in (("hard", HARD_ROWS), ("soft", SOFT_ROWS)):
        for row in rows:
            for ncards in range(2, most_cards + 1):
                for points in hands_for(kind, int(row), ncards):
                    cards = make_cards(points, rules.shoe.deck)
                    for column in UP_COLUMNS if strategy.by_up_card else ("-",):
                        code = strategy.cell(kind, row, ncards, column)
                        for up in up_cards(strategy, rules, column):
                            for situation in SITUATIONS:
                                problems += check(
                                    rules, strategy, cards, up, code, situation, use_pair_cell=False
                                )
                                checked += 1
    assert not problems, "\n".join(problems[:20])
    assert checked > 1000


@pytest.mark.parametrize(("name", "variant_id", "overrides"), CASES, ids=CASE_IDS)
def test_every_pair_cell_is_legal_and_played_as_written(
    name: str, variant_id: str, overrides: dict[str, object]
) -> None:
    rules, strategy = loaded(name, variant_id, overrides)
    problems: list[str] = []
    for row in PAIR_ROWS:
        points = pair_points(row)
        pairs = [make_cards((points, points), rules.shoe.deck)]
        if points == 10 and rules.split.match.value == "value":  # K-Q splits where value matches
            pairs.append([Card(Rank.KING, Suit.SPADES), Card(Rank.QUEEN, Suit.HEARTS)])
        for cards in pairs:
            for column in UP_COLUMNS if strategy.by_up_card else ("-",):
                for up in up_cards(strategy, rules, column):
                    for situation in SITUATIONS[:2]:  # a pair that may split
                        code = strategy.cell("pairs", row, 2, column)
                        problems += check(
                            rules, strategy, cards, up, code, situation, use_pair_cell=True
                        )
                    # the box is full: the pair is played as its total
                    value = hand_value(cards)
                    kind = "soft" if value.soft else "hard"
                    code = strategy.cell(kind, str(value.total), 2, column)
                    problems += check(
                        rules, strategy, cards, up, code, SITUATIONS[2], use_pair_cell=False
                    )
    assert not problems, "\n".join(problems[:20])


def test_the_representative_hands_are_the_ones_named() -> None:
    assert (10, 2) in hands_for("hard", 12, 2) or (2, 10) in hands_for("hard", 12, 2)
    assert all(sum(p) == 12 and 1 not in p for p in hands_for("hard", 12, 3)[:3])
    assert (1, 6) in hands_for("soft", 17, 2)
    three_card_soft_17 = hands_for("soft", 17, 3)
    assert any(p[0] == 1 for p in three_card_soft_17)  # an ace among the first two cards
    assert any(p[-1] == 1 and 1 not in p[:2] for p in three_card_soft_17)  # an ace drawn later
    assert rank_of(10, load_variant("nz-pontoon").shoe.deck) is Rank.KING  # no tens in NZ
