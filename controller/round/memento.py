"""Undo and memento: what a move may change in a round controller, copied and put back.

:class:`RoundData` holds a controller's fields (the round, the table's status, the outbox, the
machine's model): an undo snapshot of the round before an undoable move, and a
:class:`RoundMemento` of all of it, which :meth:`RoundData.restore` puts back (the state through
the machine)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from transitions import Machine

from controller.game.prompts import Prompt
from controller.game.refusals import Why, WhyNot
from controller.game.rules import Variant
from controller.round.errors import Refusal
from controller.round.inputs import Undo
from controller.round.model import RoundState, TableStatus, copy_round
from controller.round.outputs import Output
from controller.round.spec import State

_STATES = {s.value: s for s in State}


@dataclass
class Snapshot:
    state: State
    round: RoundState


@dataclass(frozen=True, slots=True)
class RoundMemento:
    """Everything a move may change in a :class:`RoundController`, copied
    (:meth:`RoundController.memento`); used once, by :meth:`RoundController.restore`."""

    state: str  # the machine's state
    round: RoundState  # the round object of the time (restored in place: it stays the one)
    copy: RoundState  # ... and what it held
    table: dict[str, Any]  # the TableStatus's fields
    undo: list[Snapshot]
    outbox: list[Output]
    told: Prompt | None


class MachineModel:
    """The object the transitions machine drives; private to the controller."""

    state: str
    trigger: Callable[..., bool]


class RoundData:
    """A round controller's fields, with its undo and its memento."""

    rules: Variant
    prompts: bool  # False: a headless controller (the simulator's) that tells nobody anything
    outbox: list[Output]
    told: Prompt | None  # what the dealer is to do now: the last prompt that says so
    table: TableStatus
    round: RoundState
    _undo: list[Snapshot]
    _model: MachineModel
    _machine: Machine

    @property
    def state(self) -> State:
        return _STATES[self._model.state]

    def memento(self) -> RoundMemento:
        """A copy of everything a move may change (the round, the table's status, the undo
        stack, the outbox, the machine's state), for :meth:`restore`."""
        return RoundMemento(
            self._model.state,
            self.round,
            copy_round(self.round),
            copy.deepcopy(vars(self.table)),
            [Snapshot(snap.state, copy_round(snap.round)) for snap in self._undo],
            list(self.outbox),
            self.told,
        )

    def restore(self, memento: RoundMemento) -> None:
        """Put the controller back as it was at :meth:`memento` (once per memento): whatever
        was performed since is undone, without a state change or an output."""
        self._machine.set_state(memento.state, model=self._model)
        self.round = memento.round
        fields = vars(self.round)
        fields.clear()
        fields.update(vars(memento.copy))
        table = vars(self.table)  # in place: the TableStatus is the same object
        table.clear()
        table.update(memento.table)
        self._undo = memento.undo
        self.outbox = memento.outbox
        self.told = memento.told

    def _push_undo(self) -> None:
        self._undo.append(Snapshot(self.state, copy_round(self.round)))

    def _undo_last(self, move: Undo) -> State:
        if not self._undo:
            raise Refusal(WhyNot(Why.NOTHING_TO_UNDO))
        snap = self._undo.pop()
        self.round = snap.round
        # Drop the prompts the undone entry produced from what the dealer sees next.
        return snap.state
