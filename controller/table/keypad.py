"""The panel's keys, and the dealer's key sequences that make a decision (``docs/panel.md``).

The dealer panel has no keyboard, so a decision is entered as a short sequence: an optional box
key ``B1_``..``B7_``, optional wager-position keys ``W1_``..``W3_`` (the players on the box, in
the order they bet), optional amount digits keyed like a till (``D2_ D5_ D0_`` is $2.50), then
the decision key (``HIT``, ``STD``, ``DBL``, ``SPL``, ``SUR``, ``INS``, ``RES``, ``OK_``,
``UND``, ``SHF``, ``DEA``). ``CAN`` clears the entry. :class:`PanelEntry` collects a sequence
and makes the round's input of it; :func:`keys_for` is the other way round (the keys a script's
or the demo's fingers press); :func:`dealer_keys` the keys that may be pressed now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.game.refusals import Why, WhyNot
from controller.game.words import KEY_ACTIONS
from controller.round.controller import RoundController
from controller.round.inputs import Input, parse_input
from controller.round.spec import Action, State
from controller.table.errors import EntryError
from drivers.tbl21.events import Button

DECISION_KEYS: dict[Button, Action] = {b: Action(a) for b, a in KEY_ACTIONS.items()}
ACTION_KEYS = {action: button for button, action in DECISION_KEYS.items()}
BOX_KEYS = [Button(f"B{n}_") for n in range(1, 8)]
WAGER_KEYS = [Button(f"W{n}_") for n in range(1, 4)]
DIGIT_KEYS = [Button(f"D{n}_") for n in range(10)]
# The states whose decisions may name a box, a wager position or an amount.
ENTRY_STATES = {State.OFFERS, State.INSURANCE, State.SURRENDER, State.PLAYING, State.RESCUE}
HAND_DECISIONS = (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT)
# The decisions that are for one box: keyed with no box in play, they need a box key.
BOX_DECISIONS = {*HAND_DECISIONS, Action.SURRENDER, Action.INSURANCE, Action.RESCUE}


@dataclass
class PanelEntry:
    """The keys of a decision keyed so far."""

    box: int | None = None
    wagers: list[int] = field(default_factory=list)
    digits: str = ""
    keys: list[str] = field(default_factory=list)
    refused: Button | None = None  # the dark key whose refusal cleared the entry

    def clear(self, refused: Button | None = None) -> None:
        """Start again (``refused``: because that key was dark, and the keys before it went)."""
        had_keys = bool(self.keys)
        self.box = None
        self.wagers.clear()
        self.digits = ""
        self.keys.clear()
        self.refused = refused if had_keys else None

    def take(self, button: Button, *, legacy: bool = False) -> bool:
        """Note a key of the entry: a box, wager-position or digit key is kept and CAN clears
        (True); False for any other, which is not kept (the decision key goes with the keys
        when it is used; ``legacy``: as journals before format 5, every key pressed is kept)."""
        if legacy:
            self.keys.append(button.value)
        if button is Button.CANCEL:
            self.clear()
            return True
        if button in BOX_KEYS:
            self.box = BOX_KEYS.index(button) + 1
        elif button in WAGER_KEYS:
            self.wagers.append(WAGER_KEYS.index(button) + 1)
        elif button in DIGIT_KEYS:
            self.digits += str(DIGIT_KEYS.index(button))
        else:
            return False
        if not legacy:
            self.keys.append(button.value)
        return True

    def input_for(self, action: Action, controller: RoundController) -> Input:
        """The round's input for ``action`` with the keys entered (the box in play unless a box
        key named another); :class:`EntryError` or the input's own error if they make none."""
        round_ = controller.round
        data: dict[str, Any] = {}
        box_no = self.box
        if box_no is None and round_.turn is not None:
            box_no = round_.turn[0]
        if box_no is not None:
            data["box"] = box_no
        elif action in BOX_DECISIONS:
            key = self.refused.value if self.refused is not None else ""
            raise EntryError(WhyNot(Why.ENTRY_NEEDS_BOX, action=action.value, key=key))
        players: list[str] = []
        if self.wagers:
            box = round_.boxes.get(box_no or 0)
            for position in self.wagers:
                if box is None or position > len(box.wagers):
                    held = len(box.wagers) if box is not None else 0
                    raise EntryError(
                        WhyNot(Why.ENTRY_NO_WAGER, box=box_no or 0, number=position, held=held)
                    )
                players.append(box.wagers[position - 1].player)
        if self.digits:
            data["amount_cents"] = int(self.digits)
        if action is Action.DOUBLE and players:
            data["players"] = players
        elif action in (Action.INSURANCE, Action.RESCUE) and players:
            data["player"] = players[0]
        return parse_input(action, data)


def dealer_keys(controller: RoundController, wagers_per_box: int) -> frozenset[Button]:
    """The keys the dealer may press now: the decisions the round would take, and the entry
    keys where a decision may name a box, a wager or an amount."""
    allowed = controller.allowed_actions()
    lit: set[Button] = {Button.CALL, Button.CANCEL}
    for action, button in ACTION_KEYS.items():
        # The rules of the moment, not the state alone: INS only against the up cards insurance
        # is offered against and while a box may still take it, UND only with something to
        # undo, DEA only with bets, SHF only without.
        if action in allowed and controller.can(action):
            lit.add(button)
    if controller.state in ENTRY_STATES:
        lit.update(BOX_KEYS[n - 1] for n in controller.bet_boxes())
        lit.update(WAGER_KEYS[:wagers_per_box])
        lit.update(DIGIT_KEYS)
    return frozenset(lit)


def why_dark(button: Button, controller: RoundController, wagers_per_box: int) -> WhyNot:
    """Why a key the dealer pressed is not lit now (:func:`~controller.game.words.
    refusal_words` says it)."""
    action = DECISION_KEYS.get(button)
    state = controller.state.value
    if action is not None:
        why = controller.why_not(action)
        if why is not None:
            return why
        return WhyNot(Why.KEY_DECISION_NOT_TAKEN, state=state)
    entry = controller.state in ENTRY_STATES
    if button in BOX_KEYS:
        if not entry:
            return WhyNot(Why.KEY_BOX_NOT_NOW, state=state)
        return WhyNot(Why.NO_BET_ON_BOX, box=BOX_KEYS.index(button) + 1)
    if button in WAGER_KEYS:
        if not entry:
            return WhyNot(Why.KEY_WAGER_NOT_NOW, state=state)
        return WhyNot(Why.KEY_WAGERS_AT_TABLE, number=wagers_per_box)
    if button in DIGIT_KEYS:
        return WhyNot(Why.KEY_AMOUNT_NOT_NOW, state=state)
    return WhyNot(Why.KEY_DOES_NOTHING, state=state)


def keys_for(action: Action, data: dict[str, Any], box_players: list[str]) -> list[Button]:
    """The panel keys that enter ``action`` with ``data`` (the scenario runner's fingers)."""
    keys: list[Button] = []
    box = data.get("box")
    if isinstance(box, int) and 1 <= box <= len(BOX_KEYS):
        keys.append(BOX_KEYS[box - 1])
    players: list[str] = []
    if action is Action.DOUBLE and data.get("players") is not None:
        players = list(data["players"])
    elif action in (Action.INSURANCE, Action.RESCUE) and data.get("player"):
        players = [str(data["player"])]
    for player in players:
        if player in box_players:
            keys.append(WAGER_KEYS[box_players.index(player)])
    amount = data.get("amount_cents")
    if isinstance(amount, int) and amount > 0:
        keys.extend(DIGIT_KEYS[int(d)] for d in str(amount))
    keys.append(ACTION_KEYS[action])
    return keys
