"""The causes the journal records (in one transaction with what applying them made, before
anyone is shown any of it), as rows, and back into the typed objects.

A cause is a driver event (row kind ``device_event``), a supervisor's :class:`SetAside` at a
table stopped for a supervisor (row kind ``set_aside``), or one of the table's *calls* (row kind
``call``): a bet, a supervisor's (or technician's) decision, the dealer's keyed-in card, a PIN
attempt's outcome, a sign-out, a change of the PIN policy or of the firmware allowed, the
panel's lights told again once the devices are open. Each is journalled as its record
(:func:`controller.journal.records.to_record`: ``{"type": "Bet", "box": 2, ...}``) and read back
into the same object, which :meth:`~controller.table.app.TableApp.apply` is given exactly as the
live one was.

Journals written before the calls were typed hold ``{"method": "place_bet", "args": {...}}``,
``{"method": "supervisor", "action": "void", "args": {...}}``, ``{"method": "pin", ...}``,
``{"method": "sign_out", ...}`` and ``{"method": "require_pins", ...}``: :func:`read_cause` reads
those too, into the same objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.journal.errors import RecordError, RecoveryMismatch
from controller.journal.records import from_record, to_record
from controller.round.inputs import DECISIONS_TYPES, Bet, KeyedCard, parse_input
from controller.round.spec import Action
from controller.table.access import PinAttempt, RequirePins, SignOut
from controller.table.app import Call, Cause, SetAside
from controller.table.commands import Relight
from controller.table.day import DayCall, RequireOpening
from controller.table.firmware import AllowFirmware
from controller.table.integrity import IntegrityAlarm
from controller.table.people import (
    PEOPLE_CALLS,
)
from drivers.tbl21.cards import Card
from drivers.tbl21.events import DeviceEvent

CALL_TYPES: tuple[type, ...] = (
    Bet,
    *DECISIONS_TYPES,
    KeyedCard,
    PinAttempt,
    SignOut,
    RequirePins,
    Relight,
    AllowFirmware,
    IntegrityAlarm,
    *PEOPLE_CALLS,
    DayCall,
    RequireOpening,
)

Entry = tuple[str, dict[str, Any]]


def cause_row(cause: Cause) -> Entry:
    """The journal row of a cause."""
    if isinstance(cause, SetAside):
        return "set_aside", to_record(cause)
    return ("device_event" if isinstance(cause, DeviceEvent) else "call"), to_record(cause)


def read_cause(kind: str, payload: Mapping[str, Any], seq: int = 0) -> Cause:
    """The cause a ``device_event`` or ``call`` row records (either way it was written)."""
    try:
        if kind == "device_event":
            event: object = from_record(payload)
            if isinstance(event, DeviceEvent):
                return event
        elif kind == "set_aside":
            return from_record(payload, SetAside)
        elif "method" in payload:
            return _legacy_call(payload)
        else:
            call: object = from_record(payload)
            if isinstance(call, CALL_TYPES):
                return call  # type: ignore[return-value]
    except (RecordError, KeyError, TypeError, ValueError):
        pass
    raise RecoveryMismatch(seq, (kind, dict(payload)), None)


def _legacy_call(payload: Mapping[str, Any]) -> Call:
    method = payload["method"]
    if method == "place_bet":
        args = payload["args"]
        return Bet(int(args["box"]), str(args["player"]), int(args["amount_cents"]))
    if method == "supervisor":
        data = dict(payload.get("args") or {})
        if isinstance(data.get("card"), str):
            data["card"] = Card.parse(data["card"])
        move = parse_input(Action(payload["action"]), data)
        if not isinstance(move, (*DECISIONS_TYPES, KeyedCard)):
            raise ValueError(f"{payload['action']!r} is no supervisor decision")
        return move
    if method == "pin":
        return PinAttempt.from_payload(payload)
    if method == "sign_out":
        return SignOut(str(payload.get("reason", "")))
    if method == "require_pins":
        return RequirePins(bool(payload["required"]))
    raise ValueError(f"unknown call method {method!r}")
