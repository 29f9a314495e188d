"""Procedures handled with the panel: a shipped scenario played on the real table, the trainee
pressing the panel's keys at each stop, scored on the steps taken (issue 27).

The table is built like ``croupier run``'s, with its shoe, hole-card reader and button panel
emulated (:func:`~controller.play.scenario_runner.emulated_table`, the scenario runner's own
wiring: a temporary journal, the production drivers, the table app and its keypad). The scenario's
script deals and decides as in ``croupier scenario run``, until a stop where its supervisor
decides (a card out of turn, a card keyed in, a lockup): there, the trainee takes over and
presses keys on the emulated panel exactly as the TBL-21 panel sends them (``KEY_SUP`` /
``KEY_RUN`` turn the key switch, ``HOLD_DEA`` holds ``DEA`` for two seconds, any other is a
button's code: ``HIT``, ``CAN``, ``OK_``, ``B1_``...). Each key the table refuses is a mistake,
kept with the table's own refusal words; the stop is over when the table no longer holds.

Every procedure the table accepts is taken, not only the script's: at a card out of turn the
supervisor may assign it, burn it or void the round. The procedure reaches the scenario's
outcome when the rest of the script then plays the rounds to their end (after a void, the
decisions left in the voided round are not asked for). The script's own keys are kept as the
correct steps, to be shown after.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.game.rules import Variant
from controller.game.words import hold_what
from controller.play.autoplay import SUPERVISOR_ACTIONS, TableEvent, play_rounds
from controller.play.errors import PlayError
from controller.play.lab import PACK as SCENARIO_PACK
from controller.play.scenario_file import Scenario, ScriptedShoe, load_scenario
from controller.play.scenario_runner import (
    DeviceHands,
    emulated_table,
    output_cursor,
    scenario_rules,
)
from controller.play.scenario_runner import scripted_rounds as device_rounds
from controller.round.errors import ActionRefused
from controller.round.model import RoundState
from controller.round.spec import Action, State
from controller.table.app import InputResult
from controller.table.keypad import ACTION_KEYS
from controller.training.errors import TrainingError
from drivers.tbl21.events import Button

KEY_SWITCH = {"KEY_SUP": "SUP", "KEY_RUN": "RUN"}
HOLD_DEAL = "HOLD_DEA"  # DEA held for two seconds: the supervisor's void
HELD_S = 2.2
ANSWER_S = 1.0  # how long a key's answer (accepted or refused) may take to come
# The supervisor's decision keys (docs/panel.md), as the script's correct steps show them.
DECISION_PRESS = {
    Action.ASSIGN_CARD: ACTION_KEYS[Action.HIT].value,
    Action.BURN_CARD: Button.CANCEL.value,
    Action.CONFIRM_CARD: ACTION_KEYS[Action.OK].value,
    Action.CLEAR_LOCKUP: ACTION_KEYS[Action.OK].value,
    Action.VOID: HOLD_DEAL,
}


@dataclass(frozen=True, slots=True)
class KeyTaken:
    """One key the trainee pressed: whether the table took it, and its refusal in its words."""

    key: str
    accepted: bool
    refusal: str = ""
    decided: Action | None = None  # the supervisor's decision this key made


@dataclass
class Stop:
    """A stop of the scenario, as the trainee handled it."""

    hold: str  # what the hold banner says happened
    correct_steps: tuple[str, ...]  # the script's own keys
    round: RoundState  # the round as it stood at the stop
    keys: list[KeyTaken] = field(default_factory=list)

    @property
    def mistakes(self) -> int:
        return sum(1 for k in self.keys if not k.accepted)

    @property
    def decided(self) -> list[Action]:
        return [k.decided for k in self.keys if k.decided is not None]


@dataclass
class ProcedureResult:
    name: str
    stops: list[Stop]
    reached: bool  # the rest of the scenario played to its end
    why_not: str = ""  # when it did not: the table's words

    @property
    def mistakes(self) -> int:
        return sum(s.mistakes for s in self.stops)

    @property
    def correct(self) -> bool:
        return self.reached and self.mistakes == 0 and all(s.decided for s in self.stops)


class StopPanel:
    """The panel at a stop, under the trainee's fingers: :meth:`press` a key, see the answer."""

    def __init__(self, hands: DeviceHands, stop: Stop) -> None:
        self._hands = hands
        self.stop = stop

    @property
    def holding(self) -> bool:
        return self._hands.app.controller.state is State.HOLD

    def press(self, key: str) -> KeyTaken:
        taken = self._press(key)
        self.stop.keys.append(taken)
        return taken

    def _press(self, key: str) -> KeyTaken:
        hands = self._hands
        app = hands.app
        panel = hands.panel
        if key in KEY_SWITCH:
            position = KEY_SWITCH[key]
            panel.turn_key(position)
            hands.pump(lambda: app.access.key == position, f"the key switch at {position}")
            return KeyTaken(key, True)
        button = Button.DEAL.value if key == HOLD_DEAL else key
        try:
            Button(button)
        except ValueError:
            raise TrainingError(f"{key!r} is not a key of the panel") from None
        start = app.output_mark()

        def results() -> list[InputResult]:
            return [i for i in app.outputs_since(start) if isinstance(i, InputResult)]

        def answered() -> InputResult | None:
            found = results()  # a decision taken, else the last refusal
            return next((r for r in found if r.accepted), found[-1] if found else None)

        if key == HOLD_DEAL:  # the press may be refused before the hold decides
            panel.hold(button, HELD_S)
            hands.pump(lambda: button not in panel.pressed, "DEA released")
            hands.service.pump_until(lambda: any(r.accepted for r in results()), ANSWER_S)
        else:
            panel.tap(button)
            hands.service.pump_until(lambda: answered() is not None, ANSWER_S)
        result = answered()
        if result is None:  # a box, wager or digit key kept for the entry
            return KeyTaken(key, True)
        if not result.accepted:
            return KeyTaken(key, False, result.reason)
        decided = result.action if result.by is not None else None
        return KeyTaken(key, True, decided=decided)


Trainee = Callable[[StopPanel], None]


class _TraineeHands(DeviceHands):
    """The scenario's hands, except at its supervisor's stops: the trainee's there."""

    def __init__(self, hands: DeviceHands, trainee: Trainee, stops: list[Stop]) -> None:
        super().__init__(hands.service, hands.wait_s, scripted=hands.scripted)
        self.trainee = trainee
        self.stops = stops

    def table_event(self, event: TableEvent) -> None:
        if event.kind != "supervisor":
            super().table_event(event)
            return
        c = self.app.controller
        if c.state is not State.HOLD:
            raise PlayError("the scenario's supervisor has no hold to decide")
        action = SUPERVISOR_ACTIONS[event.data["decision"]]
        stop = Stop(
            "; ".join(hold_what(h) for h in c.hold_reasons),
            ("KEY_SUP", DECISION_PRESS[action], "KEY_RUN"),
            copy.deepcopy(c.round),
        )
        self.stops.append(stop)
        panel = StopPanel(self, stop)
        self.trainee(panel)
        if panel.holding:
            raise PlayError("the table still holds: nobody decided")


def panel_procedures(rules: Variant) -> list[str]:
    """The shipped scenarios of the variant (its rules as shipped) with a supervisor's stop."""
    names = []
    for path in sorted(SCENARIO_PACK.glob("*.yaml")):
        scenario = load_scenario(path)
        if scenario.variant != rules.id or scenario.rules:
            continue
        if isinstance(scenario.shoe, ScriptedShoe) and _has_stop(scenario):
            names.append(path.stem)
    return names


def _has_stop(scenario: Scenario) -> bool:
    return any(a.kind == "supervisor" for r in scenario.rounds for a in r.actions)


def run_procedure(name: str, trainee: Trainee) -> ProcedureResult:
    """Play the shipped scenario ``name`` on an emulated table, ``trainee`` pressing the keys at
    each of its supervisor's stops."""
    path = SCENARIO_PACK / f"{name}.yaml"
    if not path.is_file():
        raise TrainingError(f"no shipped scenario {name!r}")
    scenario = load_scenario(path)
    if not isinstance(scenario.shoe, ScriptedShoe) or not _has_stop(scenario):
        raise TrainingError(f"the scenario {name} has no stop for a supervisor")
    rules = scenario_rules(scenario)
    stops: list[Stop] = []
    with emulated_table(rules, scenario.shoe) as hands:
        trainee_hands = _TraineeHands(hands, trainee, stops)
        try:
            _, refused = play_rounds(
                hands.app.controller,
                trainee_hands,
                device_rounds(scenario),
                drain=output_cursor(hands.app),
            )
        except (PlayError, ActionRefused) as exc:
            return ProcedureResult(name, stops, False, str(exc))
    voided = Action.VOID in [a for s in stops for a in s.decided]
    left = [r.reason for r in refused if not voided]
    return ProcedureResult(name, stops, not left, "; ".join(left))


def panel_keys(typed: str) -> list[str] | None:
    """The keys of a typed procedure (codes with spaces); None when one is not a panel key."""
    keys = typed.upper().split()
    for key in keys:
        if key not in KEY_SWITCH and key != HOLD_DEAL and key not in _BUTTONS:
            return None
    return keys


_BUTTONS = frozenset(b.value for b in Button)


def pressing(keys: Sequence[str]) -> Trainee:
    """A trainee who presses ``keys`` in order at the first stop, and none at a later one."""
    left = list(keys)

    def trainee(panel: StopPanel) -> None:
        while left:
            panel.press(left.pop(0))

    return trainee


def script_keys(panel: StopPanel) -> None:
    """The scenario's own procedure: its supervisor's keys."""
    for key in panel.stop.correct_steps:
        panel.press(key)
