"""The table with its journal: written first, and rebuilt from it after a crash.

:class:`JournaledTable` puts the journal between the world and the table:

- every *cause* (a device event, a bet or a supervisor decision from the display) is committed
  to the journal before the table applies it (row kinds ``device_event`` and ``call``);
- every *effect* (prompt, ledger entry, state change, input result, device command, note) the
  table produces while applying it is committed, in one transaction, before anyone is shown it;
- ``round_start`` / ``round_end`` rows mark each round.

:func:`recover` rebuilds the table after a restart by replaying the causes through a fresh
:class:`~controller.table.TableApp` (the same code as at the table; no pickles). The replayed
effects must match what the journal holds: the journal may miss a tail (the process died after
a cause was committed and before its effects were), which is then written; any other difference
is a :class:`RecoveryMismatch`, and the table does not guess.

A PIN never reaches the journal: the digits keyed on the panel's PIN pad are neither journalled
nor logged, and a PIN attempt (``OK_`` after them, or a PIN from the display) is checked first and
journalled as its outcome (a ``call`` row with ``method: "pin"``), which the replay applies as
it is. A rebuilt table signs out whoever was signed in (a restart is not the same person's shift).
Whether PINs are required is journalled too (``method: "require_pins"``) when it changes: a table
starts key-only and the first start that requires PINs says so, so a journal written before PINs
(or by a key-only table) replays as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from controller.game.prompts import Prompt, PromptCode
from controller.game.rules import Variant
from controller.journal.errors import JournalUnavailable, RecoveryMismatch
from controller.journal.logs import bind_round
from controller.journal.records import from_record, to_record, to_value
from controller.journal.store import Journal, entry_for
from controller.round.controller import StateChanged
from controller.round.spec import Action, State
from controller.table.access import KEY_ONLY, AccessEvent, AccessPolicy, PinAttempt
from controller.table.app import (
    DIGIT_KEYS,
    DeviceCommands,
    InputResult,
    NoDevices,
    TableApp,
    TableOutput,
)
from drivers.tbl21.cards import Card
from drivers.tbl21.events import Button, ButtonPressed, DeviceEvent

log = structlog.get_logger("croupier.journal")

CAUSE_KINDS = ("device_event", "call")
EFFECT_KINDS = ("prompt", "ledger", "state", "input", "supervisor", "access", "command", "note")
MARK_KINDS = ("round_start", "round_end")

Entry = tuple[str, dict[str, Any]]


class JournaledTable:
    """A :class:`TableApp` whose causes and effects are journaled first."""

    def __init__(
        self,
        app: TableApp,
        journal: Journal,
        *,
        show: Callable[[TableOutput], None] | None = None,
    ) -> None:
        self.app = app
        self.journal = journal
        self.show = show
        self.recovery: RecoveryReport | None = None  # set when the table was rebuilt
        self.unavailable: str | None = None  # why the journal could not be written last time
        self._pending: list[TableOutput] = []
        app.set_output_sink(self._pending.append)
        self._flush()

    @classmethod
    def start(
        cls,
        rules: Variant,
        journal: Journal,
        commands: DeviceCommands | None = None,
        *,
        show: Callable[[TableOutput], None] | None = None,
        start: State = State.BURN,
        access: AccessPolicy = KEY_ONLY,
    ) -> JournaledTable:
        """A fresh table on an empty journal, or the table the journal describes."""
        if next(journal.iter_rows(kinds=[*CAUSE_KINDS, *EFFECT_KINDS]), None) is None:
            # nothing of a table in it yet (perhaps the start-up's software and config rows)
            app = TableApp(rules, commands, start=start, access=_key_only(access))
            table = cls(app, journal, show=show)
            table.require_pins(access.pins_required)
            return table
        return recover(rules, journal, commands, show=show, start=start, access=access)

    @property
    def controller(self) -> Any:
        return self.app.controller

    # --- causes ---------------------------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> bool:
        """Journal and apply a device event. False when the journal cannot be written: the
        event is not applied (and must not be acknowledged, so the device sends it again).

        On the PIN pad a digit is applied unjournalled (it is part of a PIN), and ``OK_`` after
        digits is journalled as the attempt's outcome instead of as the key press."""
        if isinstance(event, ButtonPressed) and self.app.pin_pad_role() is not None:
            if event.button in DIGIT_KEYS:
                self.app.handle(event)
                return True
            if event.button is Button.OK and self.app.pin_keyed():
                return self._attempt(self.app.check_pin(source="panel")) is not None
        if not self._cause("device_event", to_record(event)):
            return False
        self.app.handle(event)
        self._flush()
        return True

    def enter_pin(self, pin: str, *, source: str = "display") -> AccessEvent:
        """A PIN from the display: checked, its outcome journalled, then applied."""
        event = self._attempt(self.app.check_pin(pin, source=source))
        if event is None:
            return AccessEvent(None, "refused", False, self.unavailable or "journal unavailable")
        return event

    def _attempt(self, attempt: PinAttempt) -> AccessEvent | None:
        if not self._cause("call", attempt.payload()):
            return None
        event = self.app.apply_pin(attempt)
        self._flush()
        return event

    def require_pins(self, required: bool) -> None:
        """Journal (as a cause) and apply a change of the table's PIN policy."""
        if required is self.app.access.pins_required:
            return
        if self._cause("call", {"method": "require_pins", "required": required}):
            self.app.require_pins(required)
            self._flush()

    def sign_out(self, reason: str) -> None:
        """Sign out whoever is signed in (journalled as a cause first)."""
        if self.app.signin.role is None:
            return
        if self._cause("call", {"method": "sign_out", "reason": reason}):
            self.app.sign_out(reason)
            self._flush()

    def place_bet(self, box: int, player: str, amount_cents: int) -> InputResult:
        args = {"box": box, "player": player, "amount_cents": amount_cents}
        if not self._cause("call", {"method": "place_bet", "args": args}):
            return self._unrecorded(Action.BET)
        result = self.app.place_bet(box, player, amount_cents)
        self._flush()
        return result

    def supervisor(self, action: Action, **data: Any) -> InputResult:
        payload = {"method": "supervisor", "action": action.value, "args": to_value(data)}
        if not self._cause("call", payload):
            return self._unrecorded(action)
        result = self.app.supervisor(action, **data)
        self._flush()
        return result

    def _unrecorded(self, action: Action) -> InputResult:
        reason = self.unavailable or "the journal cannot be written"
        return InputResult(action, False, reason)

    def replay(self, kind: str, payload: dict[str, Any]) -> None:
        """Feed a recorded cause (a ``device_event`` or ``call`` row's payload) to the table,
        journaled like a live one (a restarted session catching up with its script)."""
        self._cause(kind, payload)
        apply_cause(self.app, kind, payload)
        self._flush()

    def _cause(self, kind: str, payload: dict[str, Any]) -> bool:
        """Commit a cause before it is applied; on failure tell the dealer and apply nothing."""
        try:
            self.journal.append(kind, payload, round_id=self.app.controller.round.number)
        except JournalUnavailable as exc:
            message = str(exc)
            log.error("journal unavailable: input not applied", kind=kind, error=message)
            if message != self.unavailable and self.show is not None:
                self.show(Prompt(PromptCode.JOURNAL_UNAVAILABLE, message))
            self.unavailable = message
            return False
        self.unavailable = None
        return True

    # --- effects --------------------------------------------------------------------------------

    def _flush(self) -> None:
        if not self._pending:
            return
        outputs = list(self._pending)
        self._pending.clear()  # (the table's sink holds this very list)
        round_id = self.app.controller.round.number
        entries = journal_entries(self.app, outputs)
        self.journal.append_many(entries, round_id=round_id)
        if any(kind == "round_start" for kind, _ in entries):
            table = self.app.controller.table
            bind_round(
                table_id=self.journal.table_id,
                shoe_id=f"{self.journal.table_id}-shoe{table.shoe_number}",
                round_id=round_id,
            )
        if self.show is not None:
            for item in outputs:
                self.show(item)


def journal_entries(app: TableApp, outputs: Iterable[TableOutput]) -> list[Entry]:
    """The rows for a batch of table outputs, with the round marks where a round starts/ends."""
    entries: list[Entry] = []
    for item in outputs:
        entries.append(entry_for(item))
        if (
            isinstance(item, StateChanged)
            and item.source is State.BETTING
            and (item.dest is State.DEALING)
        ):
            entries.append(
                ("round_start", {"round": app.controller.round.number, "variant": app.rules.id})
            )
        elif (
            isinstance(item, StateChanged)
            and item.dest is State.SETTLING
            # A hold while settling resumes into SETTLING: a round ends once, at the first.
            and app.round_end_journaled != app.controller.round.number
        ):
            app.round_end_journaled = app.controller.round.number
            net: dict[str, int] = {}
            for e in app.controller.round.ledger:
                net[e.player] = net.get(e.player, 0) + e.amount_cents
            end = {
                "round": app.controller.round.number,
                "net_cents": sum(net.values()),  # to the players, all of them
                "net_by_player": net,
            }
            entries.append(("round_end", end))
    return entries


def apply_cause(app: TableApp, kind: str, payload: Mapping[str, Any], seq: int = 0) -> None:
    """Apply one recorded cause to a table."""
    if kind == "device_event":
        app.handle(from_record(payload))
    elif payload.get("method") == "place_bet":
        args = payload["args"]
        app.place_bet(int(args["box"]), str(args["player"]), int(args["amount_cents"]))
    elif payload.get("method") == "supervisor":
        data = dict(payload.get("args") or {})
        if isinstance(data.get("card"), str):
            data["card"] = Card.parse(data["card"])
        app.supervisor(Action(payload["action"]), **data)
    elif payload.get("method") == "pin":
        app.apply_pin(PinAttempt.from_payload(payload))
    elif payload.get("method") == "sign_out":
        app.sign_out(str(payload.get("reason", "")))
    elif payload.get("method") == "require_pins":
        app.require_pins(bool(payload["required"]))
    else:
        raise RecoveryMismatch(seq, (kind, dict(payload)), None)


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    causes: int  # causes replayed
    effects_checked: int  # journaled effect rows matched by the replay
    effects_written: int  # effects the journal was missing (written now)
    round_number: int
    state: State

    def describe(self) -> str:
        return (
            f"round {self.round_number} recovered at {self.state.value} "
            f"({self.causes} inputs replayed, {self.effects_checked} records matched"
            + (f", {self.effects_written} written" if self.effects_written else "")
            + ")"
        )


def recover(
    rules: Variant,
    journal: Journal,
    commands: DeviceCommands | None = None,
    *,
    show: Callable[[TableOutput], None] | None = None,
    start: State = State.BURN,
    access: AccessPolicy = KEY_ONLY,
) -> JournaledTable:
    """Rebuild the table from its journal (see the module docstring)."""
    # The journal says when PINs became required (a journal from before them replays as it was).
    app = TableApp(rules, NoDevices(), start=start, access=_key_only(access))
    replayed: list[Entry] = []
    journaled: list[tuple[int, Entry]] = []
    causes = 0
    app.set_output_sink(lambda item: replayed.extend(journal_entries(app, [item])))
    for row in journal.iter_rows():
        if row.kind in CAUSE_KINDS:
            apply_cause(app, row.kind, row.payload, row.seq)
            causes += 1
        elif row.kind in EFFECT_KINDS or row.kind in MARK_KINDS:
            journaled.append((row.seq, (row.kind, dict(row.payload))))
    for index, (seq, expected) in enumerate(journaled):
        got = replayed[index] if index < len(replayed) else None
        if got is None or _normal(got) != _normal(expected):
            raise RecoveryMismatch(seq, expected, got)
    missing = replayed[len(journaled) :]
    if missing:
        journal.append_many(missing, round_id=app.controller.round.number)
    app.commands = commands if commands is not None else NoDevices()
    table = JournaledTable(app, journal, show=show)
    report = RecoveryReport(
        causes, len(journaled), len(missing), app.controller.round.number, app.controller.state
    )
    table.recovery = report
    journal.append(
        "recovery",
        {
            "round": report.round_number,
            "state": report.state.value,
            "causes": report.causes,
            "effects_checked": report.effects_checked,
            "effects_written": report.effects_written,
            "text": report.describe(),
        },
        round_id=report.round_number,
    )
    if show is not None:
        show(Prompt(PromptCode.RESUMED, report.describe()))
    table.sign_out("the table restarted")
    table.require_pins(access.pins_required)
    return table


def _key_only(access: AccessPolicy) -> AccessPolicy:
    return replace(access, pins_required=False)


def _normal(entry: Entry) -> tuple[str, Any]:
    """Compare through canonical JSON (what the journal stores)."""
    kind, payload = entry
    return kind, json.loads(json.dumps(to_value(payload), sort_keys=True))


def resume_points(journal: Journal) -> dict[str, tuple[int, int]]:
    """Per device role, the ``(boot, seq)`` of the last device event the journal holds: a new
    driver given these does not apply a resend of it again (``drivers.table.open_table``)."""
    points: dict[str, tuple[int, int]] = {}
    for row in journal.iter_rows(kinds=["device_event"]):
        payload = row.payload
        device = payload.get("device")
        boot, seq = payload.get("boot"), payload.get("seq")
        if isinstance(device, dict) and isinstance(boot, int) and isinstance(seq, int):
            points[str(device.get("type"))] = (boot, seq)
    return points
