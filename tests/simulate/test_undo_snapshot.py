"""The round controller's undo snapshot (``copy_round``), made fast for the simulator, is still
a deep copy: equal to the round, sharing no list, dict or state object with it."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from fractions import Fraction

from controller.game.settlement import EntryKind, LedgerEntry, Wager
from controller.round.model import (
    BoxState,
    DealerState,
    DealTarget,
    HandState,
    RoundState,
    StakeState,
    copy_round,
)
from drivers.tbl21.cards import parse_cards


def busy_round() -> RoundState:
    """A round with every kind of field filled: split hands, a double, insurance, a ledger."""
    stakes = [StakeState("ann", 1000, 500), StakeState("bob", 500)]
    hands = [
        HandState(parse_cards("8S 3H"), stakes, from_split=True, doubles=1, cards_at_double=2),
        HandState(parse_cards("8D"), [StakeState("ann", 1000)], from_split=True),
    ]
    box = BoxState(1, [Wager("ann", 1000), Wager("bob", 500)], hands, insurance={"ann": 500})
    entry = LedgerEntry(2, "cat", 1, EntryKind.PAYOUT, 1500, 1000, Fraction(3, 2), "natural")
    return RoundState(
        number=7,
        boxes={1: box, 2: BoxState(2, [Wager("cat", 1000)], natural_paid=True)},
        dealer=DealerState(parse_cards("AS"), hole_revealed=False),
        deal_plan=[(DealTarget.DEALER, 2)],
        ledger=[entry],
        turn=(1, 0),
        card_for=(1, 1),
        peek_result="N",
    )


def mutable_parts(obj: object) -> Iterator[object]:
    """Every list, dict and unfrozen dataclass instance reachable from ``obj``."""
    if isinstance(obj, list | dict):
        yield obj
        for item in obj.values() if isinstance(obj, dict) else obj:
            yield from mutable_parts(item)
    elif isinstance(obj, tuple):
        for item in obj:
            yield from mutable_parts(item)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if not type(obj).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            yield obj
        for f in dataclasses.fields(obj):
            yield from mutable_parts(getattr(obj, f.name))


def test_the_snapshot_equals_a_deep_copy() -> None:
    state = busy_round()
    assert copy_round(state) == copy.deepcopy(state)


def test_the_snapshot_shares_nothing_mutable_with_the_round() -> None:
    state = busy_round()
    snapshot = copy_round(state)
    originals = {id(part) for part in mutable_parts(state)}
    shared = [part for part in mutable_parts(snapshot) if id(part) in originals]
    assert shared == []
    assert len(originals) > 10  # the walk did reach the boxes, hands and stakes


def test_changing_the_round_leaves_the_snapshot_as_it_was() -> None:
    state = busy_round()
    snapshot = copy_round(state)
    before = copy.deepcopy(snapshot)
    state.boxes[1].hands[0].cards.append(parse_cards("2C")[0])
    state.boxes[1].hands[0].stakes[0].double_cents = 0
    state.boxes[1].insurance.clear()
    state.dealer.cards.clear()
    state.ledger.clear()
    state.deal_plan.clear()
    state.boxes.pop(2)
    assert snapshot == before
