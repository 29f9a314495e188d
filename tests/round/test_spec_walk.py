"""Walk every state x action pair: allowed moves land where SPEC says, the rest change nothing."""

import copy
from collections.abc import Callable
from typing import Any

import pytest

from controller.game.rules import load_variant
from controller.round.controller import RoundController
from controller.round.errors import ActionRefused
from controller.round.spec import SPEC, Action, State
from drivers.tbl21.cards import Card

NZ = load_variant("nz-pontoon")
PA = load_variant("pa-blackjack")


def cards(c: RoundController, *texts: str) -> None:
    for text in texts:
        c.perform(Action.CARD, card=Card.parse(text))


def dealt(rules_id: str, *texts: str, start: State = State.BURN) -> RoundController:
    c = RoundController(NZ if rules_id == "nz" else PA, start=start)
    cards(c, "2C")
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    cards(c, *texts)
    return c


def _playing() -> RoundController:
    return dealt("nz", "5H", "9C", "4D")


def _card_due() -> RoundController:
    c = _playing()
    c.perform(Action.HIT, box=1)
    return c


def _rescue() -> RoundController:
    c = _playing()
    c.perform(Action.DOUBLE, box=1)
    cards(c, "2S")
    return c


def _reveal() -> RoundController:
    c = dealt("pa", "TH", "9C", "8D", "7S")
    c.perform(Action.OK)  # close the surrender window: no peek on a 9
    c.perform(Action.STAND, box=1)
    return c


def _dealer() -> RoundController:
    c = _playing()
    c.perform(Action.STAND, box=1)
    return c


def _settling() -> RoundController:
    c = _dealer()
    cards(c, "8S")  # dealer 9 8 = 17
    return c


def _hold() -> RoundController:
    c = _playing()
    cards(c, "KD")
    return c


def _betting() -> RoundController:
    c = RoundController(NZ)
    cards(c, "2C")
    return c


REACH: dict[State, Callable[[], RoundController]] = {
    State.SHUFFLE: lambda: RoundController(NZ, start=State.SHUFFLE),
    State.BURN: lambda: RoundController(NZ),
    State.BETTING: _betting,
    State.DEALING: lambda: dealt("nz"),
    State.OFFERS: lambda: dealt("nz", "9H", "AC", "8D"),
    State.INSURANCE: lambda: dealt("pa", "9H", "AC", "8D", "7S"),
    State.SURRENDER: lambda: dealt("pa", "9H", "6C", "8D", "7S"),
    State.PEEK: lambda: _peek(),  # noqa: PLW0108 - defined below
    State.PLAYING: _playing,
    State.CARD_DUE: _card_due,
    State.RESCUE: _rescue,
    State.REVEAL: _reveal,
    State.DEALER: _dealer,
    State.SETTLING: _settling,
    State.HOLD: _hold,
}


def _peek() -> RoundController:
    c = dealt("pa", "9H", "TC", "8D", "7S")
    c.perform(Action.OK)  # surrender window
    return c


DATA: dict[Action, dict[str, Any]] = {
    Action.BET: {"box": 2, "player": "bob", "amount_cents": 1000},
    Action.CARD: {"card": Card.parse("3D")},
    Action.PEEK: {"outcome": "N"},
    Action.INSURANCE: {"box": 1, "player": "ann", "amount_cents": 500},
    Action.SURRENDER: {"box": 1},
    Action.HIT: {"box": 1},
    Action.STAND: {"box": 1},
    Action.DOUBLE: {"box": 1},
    Action.SPLIT: {"box": 1},
    Action.RESCUE: {"box": 1, "player": "ann"},
    Action.HOLD: {"kind": "device_lost", "detail": "shoe link lost", "device": "shoe"},
    Action.RESUME: {"kind": "device_lost", "device": "shoe"},
    Action.KEY_CARD: {"card": Card.parse("3D")},
}


def test_every_state_can_be_reached_for_the_walk() -> None:
    assert {state: REACH[state]().state for state in State} == {s: s for s in State}


@pytest.mark.parametrize("state", list(State))
@pytest.mark.parametrize("action", list(Action))
def test_state_action_pair_follows_the_spec(state: State, action: Action) -> None:
    c = REACH[state]()
    c.drain()
    before = (copy.deepcopy(c.round), c.state, repr(c.table))
    allowed = SPEC.get((state, action))
    try:
        after = c.perform(action, **DATA.get(action, {}))
    except ActionRefused:
        assert (c.round, c.state, repr(c.table)) == before, "a refused action changed something"
        assert c.drain() == []
        return
    assert allowed is not None, f"{action} was accepted in {state} but SPEC does not allow it"
    assert after in allowed
    assert c.state is after


def test_spec_pairs_outside_it_are_refused_with_the_state_named() -> None:
    c = REACH[State.BETTING]()
    with pytest.raises(ActionRefused, match="hit is not possible while bets are open"):
        c.perform(Action.HIT, box=1)


def test_the_machine_declares_what_the_spec_says_and_nothing_else() -> None:
    """The machine is built from SPEC, the one table: the walk above walks the machine."""
    for variant in (NZ, PA):
        assert RoundController(variant).declared_moves() == SPEC
