"""Every prompt the round machine can emit is an instruction in the dealer's words (issue 13.10).

The prompts are collected from rounds of every variant played by a random dealer, with a hold of
every kind (a device lost or refused and back, a lockup cleared, a card nobody asked for, a card
the shoe could not read, a card pushed back) in the middle of every state; the collection must
hold every prompt code the round machine's source names. None may contain a state or action
identifier (``tests/round/jargon.py``).
"""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path

from controller.game.holds import HoldCause, HoldKind
from controller.game.prompts import Prompt, PromptCode
from controller.game.rules import load_variant
from controller.game.words import GO_ON, hold_text, line
from controller.round import controller as round_controller
from controller.round.inputs import (
    AssignCard,
    BurnCard,
    ClearLockup,
    ConfirmCard,
    Hold,
    Input,
    KeyedCard,
    Resume,
    Void,
)
from controller.round.spec import State
from controller.table.commands import Relight
from tests.round.jargon import jargon
from tests.round.walk import CARD_STATES, Walk

VARIANTS = ("nz-pontoon", "uk-pontoon", "pa-blackjack", "pontoon-blackjack")
DEVICES = ("shoe", "peek", "panel")


def _do(walk: Walk, *moves: Input) -> None:
    for move in moves:
        if walk.app.controller.state is State.HOLD or move.action.value == "hold":
            try:
                walk.app.controller.perform(move)
            except Exception as refused:  # a supervisor decision the moment does not allow
                raise AssertionError(f"{move} refused: {refused}") from None
    walk.app.apply(Relight())  # (the table's own outputs of the moves)


def detour(walk: Walk, rng: random.Random) -> None:
    """A hold of some kind, and its end, in the middle of whatever the round is doing."""
    state = walk.app.controller.state
    device = rng.choice(DEVICES)
    kind = rng.randrange(6)
    if kind == 0:
        _do(walk, Hold(HoldKind.DEVICE_LOST, f"{device} link lost", device),
            Resume(HoldKind.DEVICE_LOST, device))  # fmt: skip
    elif kind == 1:
        _do(walk, Hold(HoldKind.DEVICE_LOST, f"{device} refused", device),
            Resume(HoldKind.DEVICE_LOST, device))  # fmt: skip
    elif kind == 2:
        _do(walk, Hold(HoldKind.LOCKUP, "LAMP_FAIL: a lamp failed", "panel"), ClearLockup())
    elif kind == 3:
        _do(walk, Hold(HoldKind.REDRAW, "the card went back", "shoe"),
            Resume(HoldKind.REDRAW, "shoe"))  # fmt: skip
    elif kind == 4 and state in CARD_STATES:
        card = rng.choice(walk.deck)
        _do(walk, Hold(HoldKind.UNREADABLE_CARD, "the shoe could not read a card", "shoe"),
            KeyedCard(card), ConfirmCard())  # fmt: skip
    elif kind == 5 and state not in CARD_STATES and state is not State.SHUFFLE:
        walk.card()  # nobody asked for it: the table holds for the supervisor
        c = walk.app.controller
        if c.state is not State.HOLD:
            return
        dealt = any(box.hands for box in c.round.boxes.values())
        choice = rng.randrange(3)
        if choice == 0 and c.table.resume_state is State.PLAYING and c.round.turn is not None:
            _do(walk, AssignCard())
        elif choice == 1 and dealt:
            _do(walk, Void())
        else:
            _do(walk, BurnCard())


def prompts_of_random_rounds() -> list[Prompt]:
    seen: list[Prompt] = []
    for variant in VARIANTS:
        for seed in range(8):
            rng = random.Random(seed)
            walk = Walk(load_variant(variant), rng)
            for _ in range(600):
                if walk.rounds > 3:
                    break
                if walk.app.controller.state is not State.HOLD and rng.random() < 0.3:
                    detour(walk, rng)
                if rng.random() < 0.01:
                    walk.cut_card()
                walk.step()
                seen += [o for o in walk.app.outputs if isinstance(o, Prompt)]
                walk.app.trim_outputs(0)
    return seen


def test_no_prompt_of_the_round_machine_holds_a_state_or_action_identifier() -> None:
    seen = prompts_of_random_rounds()
    source = Path(round_controller.__file__).read_text()
    emitted = {PromptCode(c) for c in re.findall(r"PromptCode\.([A-Z_]+)", source)}
    assert emitted <= {p.code for p in seen}, emitted - {p.code for p in seen}
    texts = sorted({line(p) for p in seen})
    assert [(t, jargon(t)) for t in texts if jargon(t)] == []
    # A hold says what to do, and the end of one where the round goes back to.
    assert any(t.startswith("Stop: the shoe is not answering. Check its cable") for t in texts)
    assert any(
        re.match(r"The (shoe|button panel|hole-card reader) reconnected\. ", t) for t in texts
    )


def test_every_hold_and_every_way_back_is_said_in_the_dealers_words() -> None:
    said = [GO_ON[state.value] for state in State]
    for kind in HoldKind:
        for device in (*DEVICES, None):
            for cause in HoldCause:
                said.append(hold_text(kind, "LAMP_FAIL: a lamp failed", device, cause))
    assert [(t, jargon(t)) for t in said if jargon(t)] == []


def test_a_keyed_in_hole_card_is_not_named_when_the_supervisor_confirms_it() -> None:
    """The shoe could not read the dealer's face-down card, the dealer keyed it in and the
    supervisor confirmed it: the prompt that follows says so without naming the card (the
    stateful test once found 'Keyed-in card AS confirmed.' before the reveal)."""
    hidden = 0
    for variant in ("uk-pontoon", "pa-blackjack", "nz-pontoon"):
        rules = load_variant(variant)
        for seed in range(6):
            walk = Walk(rules, random.Random(seed))
            for _ in range(200):
                if walk.rounds > 1:
                    break
                c = walk.app.controller
                if c.state is State.DEALING:
                    trial = copy.deepcopy(walk)
                    dealer = trial.app.controller.round.dealer
                    before = len(dealer.cards)
                    card = trial.deck[seed]
                    trial.app.trim_outputs(0)
                    _do(trial, Hold(HoldKind.UNREADABLE_CARD, "the shoe could not read a card",
                                    "shoe"), KeyedCard(card), ConfirmCard())  # fmt: skip
                    tc = trial.app.controller
                    dealer = tc.round.dealer
                    if (
                        len(dealer.cards) > before
                        and dealer.cards[before] not in tc.dealer_visible_cards()
                    ):
                        hidden += 1
                        texts = [line(o) for o in trial.app.outputs if isinstance(o, Prompt)]
                        assert texts
                        assert all(str(card) not in t for t in texts), texts
                        assert any("dealer's face-down card" in t for t in texts), texts
                walk.step()
    assert hidden > 0  # the walk reached the hole card's deal at least once
