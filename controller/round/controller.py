"""The round controller: a ``transitions`` state machine behind a small typed facade.

:class:`RoundController` is the only code that touches the machine. Its facade is
``state``, ``allowed_actions()`` and ``perform(action, **data)``; every input (a card from the
shoe, a peek result, a button decision, a supervisor's resolution) is an :class:`Action`.
An action that is not allowed now raises :class:`ActionRefused` with the reason and changes
nothing.

The machine is built once from :data:`SPEC`, the one table of what may happen: one trigger per
action, one transition per declared (state, action) -> destination. How an action runs, all of
it inside the machine's trigger:

* a trigger the state does not declare is refused by the machine (``MachineError``);
* the machine's ``prepare_event`` callback decides the move: the action's handler checks it
  against the rules (a refusal raises before anything changes), applies it to the round data
  and works out where the procedure goes next;
* each declared transition's condition accepts only that destination, so the machine takes the
  one transition the procedure chose (a destination outside the spec takes none: a bug);
* ``before_state_change`` records the move (:class:`StateChanged`, and the supervisor's
  decision); a move that stays in its state is an internal transition (no exit, no entry),
  except another hand's turn, which enters ``playing`` again;
* the states' ``on_enter`` callbacks tell the dealer what the state waits for (a headless
  controller has none).

What the controller emits goes to ``outbox`` in order (prompts, ledger entries, device commands,
panel lights); the caller drains it (the journal first, then the display and the panel).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
from transitions import Event, Machine, MachineError, Transition
from transitions import State as MachineState

from controller.game.hands import hand_value
from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.refusals import Why, WhyNot
from controller.game.rules import Variant
from controller.game.settlement import net_by_player
from controller.game.words import GO_ON, refusal_words
from controller.round.errors import ActionRefused, InputError, Refusal, SpecViolation
from controller.round.inputs import Decision, Input, parse_input
from controller.round.memento import MachineModel, RoundMemento, Snapshot
from controller.round.model import BoxState, HandState, RoundState, TableStatus, total
from controller.round.offers import Offers
from controller.round.outputs import (
    DeviceCommand,
    Output,
    RoundEnded,
    RoundStarted,
    StateChanged,
    SupervisorAction,
)
from controller.round.spec import SPEC, A, Action, S, State
from drivers.tbl21.cards import Card

__all__ = [
    "DeviceCommand",
    "Output",
    "RoundController",
    "RoundEnded",
    "RoundMemento",
    "RoundStarted",
    "StateChanged",
    "SupervisorAction",
]

log = structlog.get_logger("croupier.round")


_STATES = {s.value: s for s in State}
_ACTIONS: dict[object, Action] = {a.value: a for a in Action}


def _machine_dest(source: State, dest: State) -> str | None:
    """The transition's destination for the machine: a move that stays in its state is internal
    (``None``: no exit, no entry), except another hand's turn, which enters ``playing`` again
    (its entry tells the dealer which hand)."""
    return None if dest is source and dest is not S.PLAYING else dest.value


def _lands_in(dest: State) -> Callable[[Any], bool]:
    """The condition of a transition to ``dest``: the procedure decided on ``dest``."""
    return lambda event: event.dest is dest


class _DecidedEvent(Event):
    """An action's event: of the transitions declared from the state, the one tried is the one
    to the destination the procedure decided (looked up rather than each declared destination's
    condition tried in turn: a round's moves are the controller engine's hot path); its
    condition is checked all the same, and no such transition means none is taken."""

    def __init__(self, name: str, machine: Machine) -> None:
        super().__init__(name, machine)
        self.to: dict[tuple[str, str], Transition] = {}

    def add_transition(self, transition: Transition) -> None:
        super().add_transition(transition)
        self.to[transition.source, transition.dest or transition.source] = transition

    def _process(self, event_data: Any) -> bool:  # (an EventData with the decided dest)
        self.machine.callbacks(self.machine.prepare_event, event_data)
        transition = self.to.get((event_data.state.name, event_data.dest))
        if transition is not None:
            event_data.transition = transition
            event_data.result = transition.execute(event_data)
        return bool(event_data.result)


class _RoundMachine(Machine):
    event_cls = _DecidedEvent


class RoundController(Offers):
    """Runs rounds of one variant at one table: the facade and the machine. Its bases are the
    other jobs: the offers and their reasons (:mod:`controller.round.offers`), the procedure
    (:mod:`controller.round.procedure`), undo and memento (:mod:`controller.round.memento`)."""

    def __init__(self, rules: Variant, *, start: State = State.BURN, prompts: bool = True) -> None:
        """``prompts=False`` makes a headless controller (the simulator's) that emits no prompt
        for anybody to read; the round, its ledger and its state changes are the same."""
        self.rules = rules
        self.prompts = prompts
        self.outbox: list[Output] = []
        # What the dealer is to do now: the last prompt that says so (the prompt bar's).
        self.told: Prompt | None = None
        self.table = TableStatus(burn_left=rules.shoe.burn_cards)
        self.round = RoundState(number=1)
        self.table.round_number = 1
        self._undo: list[Snapshot] = []
        self._model = MachineModel()
        if start is State.BURN and rules.shoe.burn_cards == 0:
            start = State.BETTING
        entries = {
            S.SHUFFLE: self._on_enter_shuffle,
            S.BURN: self._on_enter_burn,
            S.BETTING: self._on_enter_betting,
            S.PLAYING: self._on_enter_playing,
        }
        self._machine = _RoundMachine(
            model=self._model,
            states=[
                MachineState(s.value, on_enter=entries[s] if prompts and s in entries else None)
                for s in State
            ],
            initial=start.value,
            auto_transitions=False,
            queued=False,  # no callback triggers the machine again
            send_event=True,
            prepare_event=self._decide,
            before_state_change=self._record_change,
        )
        for (source, action), dests in SPEC.items():
            for dest in dests:
                self._machine.add_transition(
                    action.value,
                    source.value,
                    _machine_dest(source, dest),
                    conditions=_lands_in(dest),
                )
        self._handlers: dict[Action, Callable[[Any], State]] = {
            A.SHUFFLE: self._shuffle,
            A.BET: self._bet,
            A.DEAL: self._deal,
            A.CARD: self._card,
            A.PEEK: self._peek,
            A.INSURANCE: self._insurance,
            A.SURRENDER: self._surrender,
            A.OK: self._ok,
            A.HIT: self._hit,
            A.STAND: self._stand,
            A.DOUBLE: self._double,
            A.SPLIT: self._split,
            A.RESCUE: self._rescue,
            A.UNDO: self._undo_last,
            A.HOLD: self._hold,
            A.RESUME: self._resume,
            A.ASSIGN_CARD: self._assign_card,
            A.BURN_CARD: self._burn_card,
            A.KEY_CARD: self._key_card,
            A.CONFIRM_CARD: self._confirm_card,
            A.CLEAR_LOCKUP: self._clear_lockup,
            A.VOID: self._void,
        }
        if prompts and start in entries:
            entries[start](None)  # the machine enters its initial state without callbacks

    def declared_moves(self) -> dict[tuple[State, Action], tuple[State, ...]]:
        """What the machine declares: (state, action) -> the states it may lead to (a move
        that stays in its state is an internal transition). Built from :data:`SPEC`: equal to
        it."""
        moves: dict[tuple[State, Action], tuple[State, ...]] = {}
        for name, event in self._machine.events.items():
            for source, transitions in event.transitions.items():
                moves[_STATES[source], _ACTIONS[name]] = tuple(
                    _STATES[t.dest or source] for t in transitions
                )
        return moves

    # --- what the table's hands and screens ask of the round (not its data: issue 23) ------

    def box_players(self, box: int) -> list[str]:
        """The players with a wager on ``box`` this round, in the order they bet (the panel's
        wager positions WAGER 1, 2, 3); [] for a box without bets."""
        placed = self.round.boxes.get(box)
        return [] if placed is None else [w.player for w in placed.wagers]

    def players(self) -> list[str]:
        """Every player with a wager this round, box by box in the order they bet."""
        return [w.player for b in self.round.boxes.values() for w in b.wagers]

    def bets_placed(self) -> int:
        """How many wagers are on the table this round."""
        return sum(len(b.wagers) for b in self.round.boxes.values())

    def hole_card(self) -> Card | None:
        """The dealer's second card where it is dealt (the card a dealer's hands slide into the
        hole-card reader), or None before it is."""
        cards = self.round.dealer.cards
        return cards[1] if len(cards) > 1 else None

    def round_number(self) -> int:
        """The number of the round under way (or the next, between rounds)."""
        return self.round.number

    def voided(self) -> bool:
        """The round was voided."""
        return self.round.voided

    def bet_boxes(self) -> list[int]:
        """The boxes with a wager this round, by number ([] before the first bet)."""
        return self.round.box_numbers()

    def box(self, number: int) -> BoxState | None:
        """Box ``number`` as the round has it (None: no wager on it this round)."""
        return self.round.boxes.get(number)

    def dealer_up(self) -> Card | None:
        """The dealer's first card, or None before it is dealt."""
        return self.round.dealer.first

    def hand_in_play(self) -> tuple[int, HandState] | None:
        """The box in play and its hand in play (None: no hand is in play)."""
        if self.round.turn is None:
            return None
        number, index = self.round.turn
        return number, self.round.boxes[number].hands[index]

    def allowed_actions(self) -> set[Action]:
        """The actions the spec allows now (a decision may still be refused by the rules)."""
        return {a for (s, a) in SPEC if s is self.state}

    def perform(self, action: Input | Action | str, **data: Any) -> State:
        """Carry out an input (or an action with its data, made into one:
        :func:`~controller.round.inputs.parse_input`); return the new state. Refused inputs
        change nothing."""
        given: Input | None = None
        if isinstance(action, str):
            action = _ACTIONS.get(action) or Action(action)  # Action() raises on an unknown name
        else:
            given, action = action, action.action
        source = self.state
        try:
            event = self._machine.events[action.value]  # (model.trigger(name) without its hop)
            moved = event.trigger(self._model, given=given, data=data)
        except MachineError:
            why = WhyNot(Why.NOT_NOW, action=action.value, state=source.value)
            raise ActionRefused(action, source, refusal_words(why), why) from None
        except Refusal as refusal:
            raise ActionRefused(action, source, str(refusal), refusal.why) from None
        except InputError as refusal:
            raise ActionRefused(action, source, str(refusal), refusal.why) from None
        if not moved:
            raise SpecViolation(f"{source.value} --{action.value}--> no declared state in SPEC")
        return self.state

    def drain(self) -> list[Output]:
        out, self.outbox = self.outbox, []
        return out

    def _decide(self, event: Any) -> None:
        """The machine's ``prepare_event``: check the move against the rules (a refusal raises
        before anything changes), apply it and decide the destination (``event.dest``), which
        the conditions of the declared transitions then choose among."""
        action = _ACTIONS[event.event.name]
        given: Input | None = event.kwargs["given"]
        event.move = given if given is not None else parse_input(action, event.kwargs["data"])
        event.dest = self._handlers[action](event.move)

    def _record_change(self, event: Any) -> None:
        """The machine's ``before_state_change``: the move, as it is recorded."""
        action = _ACTIONS[event.event.name]
        source, dest = _STATES[event.transition.source], event.dest
        self._emit(StateChanged(source, dest, action))
        number = self.round.number
        if source is S.BETTING and dest is S.DEALING:
            self._emit(RoundStarted(number, self.rules.id))
        elif dest is S.SETTLING and self.table.ended_round != number:
            self.table.ended_round = number
            self._emit(RoundEnded(number, tuple(net_by_player(self.round.ledger).items())))
        move = event.move
        if isinstance(move, Decision):
            self._emit(SupervisorAction(action, move.by or "supervisor", move.detail()))

    def _on_enter_shuffle(self, event: Any) -> None:
        self._prompt(PromptCode.SHUFFLE, Say.LOAD_SHOE)

    def _on_enter_burn(self, event: Any) -> None:
        self._prompt(PromptCode.BURN, Say.BURN, count=self.table.burn_left)

    def _on_enter_betting(self, event: Any) -> None:
        self._prompt(PromptCode.PLACE_BETS, Say.TAKE_BETS, count=self.round.number)

    def _on_enter_playing(self, event: Any) -> None:
        if self.round.turn is None:
            return
        box, index = self.round.turn
        hand = self.round.hand(box, index)
        options = tuple(a.value for a in (A.HIT, A.STAND, A.DOUBLE, A.SPLIT) if self.can(a))
        self._prompt(
            PromptCode.PLAYER_TURN,
            Say.TURN,
            box=box,
            hand=index + 1,
            player=self.round.boxes[box].controller,
            count=len(self.round.boxes[box].hands),
            cards=tuple(hand.cards),
            total=total(self.rules, hand),
            soft=hand_value(hand.cards).soft and not hand.doubles,
            options=options,
        )


assert set(GO_ON) == {s.value for s in State}  # where a hold ends, said for every state
