"""Strict parsers for device payloads (protocol.md tables), one per message TYPE.

Each parser takes a decoded :class:`~drivers.tbl21.framing.Frame` and returns a typed event or
reply, or raises :class:`~drivers.tbl21.errors.PayloadError` naming the field that is wrong.
Nothing is ever guessed: a card event that does not parse is reported, not turned into some card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from enum import StrEnum
from typing import TypeVar

from drivers.tbl21.cards import Card, DeckType
from drivers.tbl21.errors import CardNotationError, PayloadError
from drivers.tbl21.events import (
    Button,
    ButtonAction,
    ButtonEvent,
    ButtonHeld,
    ButtonPressed,
    ButtonReleased,
    CardDrawn,
    CardMotion,
    CardSensed,
    CutCard,
    CutKind,
    DeviceIdentity,
    DeviceRef,
    DeviceState,
    DeviceStatusReport,
    DeviceType,
    DoorEvent,
    DoorSensor,
    FaultCleared,
    FaultRaised,
    FrameEvent,
    KeyPosition,
    KeySwitch,
    PeekOutcome,
    PeekResult,
    PowerUp,
    PowerUpReason,
    ShoeEmpty,
    ShoeLoaded,
)
from drivers.tbl21.faults import Severity
from drivers.tbl21.framing import Frame

E = TypeVar("E", bound=StrEnum)

EventParser = Callable[[Frame, DeviceRef, float], FrameEvent]

_DIGITS4 = re.compile(r"[0-9]{4}")
_DIGITS2 = re.compile(r"[0-9]{2}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_HEX16 = re.compile(r"[0-9A-Fa-f]{16}")
_COUNT = re.compile(r"[0-9]{1,10}")


def _fields(frame: Frame, count: int, names: str) -> list[str]:
    fields = frame.payload.split(";")
    if len(fields) != count:
        raise PayloadError(
            f"'{frame.kind}' payload {frame.payload!r}: expected {count} "
            f"field{'' if count == 1 else 's'} ({names}), "
            f"got {len(fields)}"
        )
    return fields


def _match(pattern: re.Pattern[str], value: str, what: str, frame: Frame) -> str:
    if not pattern.fullmatch(value):
        raise PayloadError(f"'{frame.kind}' payload {frame.payload!r}: bad {what} {value!r}")
    return value


def _enum(enum: type[E], value: str, what: str, frame: Frame) -> E:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(m.value for m in enum)
        raise PayloadError(
            f"'{frame.kind}' payload {frame.payload!r}: {what} {value!r} is not one of {allowed}"
        ) from None


# --- replies -------------------------------------------------------------------------------------


def parse_status(frame: Frame) -> DeviceStatusReport:
    """``state;flags_hex4;active_fault_hex2;queue_depth;device_specific...``"""
    fields = frame.payload.split(";")
    if len(fields) < 4:
        raise PayloadError(
            f"'s' payload {frame.payload!r}: expected at least 4 fields "
            "(state;flags;active_fault;queue_depth)"
        )
    state = _enum(DeviceState, fields[0], "state", frame)
    flags = int(_match(_HEX4, fields[1], "flags", frame), 16)
    fault = int(_match(_HEX2, fields[2], "active fault", frame), 16)
    depth = int(_match(_COUNT, fields[3], "queue depth", frame))
    return DeviceStatusReport(state, flags, fault, depth, tuple(fields[4:]))


def parse_identity(frame: Frame) -> DeviceIdentity:
    """``model;serial;fw_version;fw_hash16;boot_count``, and for a shoe that says which decks
    it holds, ``;deck_type`` (``52`` or ``48``)."""
    names = "model;serial;fw_version;fw_hash16;boot_count"
    deck_type: DeckType | None = None
    if frame.payload.count(";") == 5:
        *five, deck = _fields(frame, 6, names + ";deck_type")
        try:
            deck_type = DeckType(deck)
        except ValueError:
            raise PayloadError(
                f"'i' payload {frame.payload!r}: bad deck type {deck!r} (52 or 48)"
            ) from None
        frame = replace(frame, payload=";".join(five))
    model, serial, fw, fw_hash, boot = _fields(frame, 5, names)
    if not model or not serial or not fw:
        raise PayloadError(f"'i' payload {frame.payload!r}: model, serial and fw must be set")
    _match(_HEX16, fw_hash, "firmware hash (16 hex digits)", frame)
    boot_count = int(_match(_COUNT, boot, "boot_count", frame))
    return DeviceIdentity(model, serial, fw, fw_hash.upper(), boot_count, deck_type)


# --- events common to every device ----------------------------------------------------------


def parse_power_up(frame: Frame, device: DeviceRef, at: float) -> PowerUp:
    boot, reason = _fields(frame, 2, "boot_count;reason")
    return PowerUp(
        device=device,
        at=at,
        seq=frame.seq,
        boot_count=int(_match(_COUNT, boot, "boot_count", frame)),
        reason=_enum(PowerUpReason, reason, "reason", frame),
    )


def parse_fault(frame: Frame, device: DeviceRef, at: float) -> FaultRaised | FaultCleared:
    """``code_hex2;severity;R or C;text`` (the text may itself contain ``;``)."""
    fields = frame.payload.split(";")
    if len(fields) < 4:
        raise PayloadError(f"'f' payload {frame.payload!r}: expected code;severity;R or C;text")
    code = int(_match(_HEX2, fields[0], "fault code", frame), 16)
    severity = _enum(Severity, fields[1], "severity", frame)
    text = ";".join(fields[3:])
    if fields[2] == "R":
        return FaultRaised(
            device=device, at=at, seq=frame.seq, code=code, severity=severity, text=text
        )
    if fields[2] == "C":
        return FaultCleared(
            device=device, at=at, seq=frame.seq, code=code, severity=severity, text=text
        )
    raise PayloadError(f"'f' payload {frame.payload!r}: {fields[2]!r} is not R or C")


def parse_door(frame: Frame, device: DeviceRef, at: float) -> DoorEvent:
    sensor, state = _fields(frame, 2, "sensor;O or C")
    if state not in ("O", "C"):
        raise PayloadError(f"'o' payload {frame.payload!r}: {state!r} is not O or C")
    return DoorEvent(
        device=device,
        at=at,
        seq=frame.seq,
        sensor=_enum(DoorSensor, sensor, "sensor", frame),
        is_open=state == "O",
    )


# --- shoe ----------------------------------------------------------------------------------------


def parse_card(frame: Frame, device: DeviceRef, at: float) -> CardDrawn:
    """``RS;draw_no;remaining;quality``"""
    rs, draw, remaining, quality = _fields(frame, 4, "card;draw_no;remaining;quality")
    try:
        card = Card.parse(rs)
    except CardNotationError as exc:
        raise PayloadError(f"'c' payload {frame.payload!r}: {exc}") from exc
    return CardDrawn(
        device=device,
        at=at,
        seq=frame.seq,
        card=card,
        draw_no=int(_match(_DIGITS4, draw, "draw_no (4 digits)", frame)),
        remaining=int(_match(_DIGITS4, remaining, "remaining (4 digits)", frame)),
        quality=int(_match(_DIGITS2, quality, "quality (2 digits)", frame)),
    )


def parse_cut(frame: Frame, device: DeviceRef, at: float) -> CutCard:
    draw, kind = _fields(frame, 2, "draw_no;P or V")
    return CutCard(
        device=device,
        at=at,
        seq=frame.seq,
        draw_no=int(_match(_DIGITS4, draw, "draw_no (4 digits)", frame)),
        kind=_enum(CutKind, kind, "cut kind", frame),
    )


def parse_empty(frame: Frame, device: DeviceRef, at: float) -> ShoeEmpty:
    (draw,) = _fields(frame, 1, "draw_no")
    return ShoeEmpty(
        device=device,
        at=at,
        seq=frame.seq,
        draw_no=int(_match(_DIGITS4, draw, "draw_no (4 digits)", frame)),
    )


def parse_loaded(frame: Frame, device: DeviceRef, at: float) -> ShoeLoaded:
    (count,) = _fields(frame, 1, "cards_detected or ?")
    detected = None if count == "?" else int(_match(_COUNT, count, "cards_detected", frame))
    return ShoeLoaded(device=device, at=at, seq=frame.seq, cards_detected=detected)


# --- hole-card reader ----------------------------------------------------------------------------


def parse_peek(frame: Frame, device: DeviceRef, at: float) -> PeekResult:
    outcome, quality = _fields(frame, 2, "Y, N, U or E;quality")
    return PeekResult(
        device=device,
        at=at,
        seq=frame.seq,
        outcome=_enum(PeekOutcome, outcome, "peek outcome", frame),
        quality=int(_match(_DIGITS2, quality, "quality (2 digits)", frame)),
    )


def parse_sensed(frame: Frame, device: DeviceRef, at: float) -> CardSensed:
    (motion,) = _fields(frame, 1, "I or R")
    return CardSensed(
        device=device, at=at, seq=frame.seq, motion=_enum(CardMotion, motion, "motion", frame)
    )


# --- button panel --------------------------------------------------------------------------------

_BUTTON_EVENTS: dict[ButtonAction, type[ButtonEvent]] = {
    ButtonAction.PRESSED: ButtonPressed,
    ButtonAction.RELEASED: ButtonReleased,
    ButtonAction.HELD: ButtonHeld,
}


def parse_button(frame: Frame, device: DeviceRef, at: float) -> ButtonEvent:
    """``button;P, R or H;held_ms``"""
    button, action, held = _fields(frame, 3, "button;P, R or H;held_ms")
    cls = _BUTTON_EVENTS[_enum(ButtonAction, action, "button action", frame)]
    return cls(
        device=device,
        at=at,
        seq=frame.seq,
        button=_enum(Button, button, "button", frame),
        held_ms=int(_match(_COUNT, held, "held_ms", frame)),
    )


def parse_key_switch(frame: Frame, device: DeviceRef, at: float) -> KeySwitch:
    (position,) = _fields(frame, 1, "RUN, SUP or TEC")
    return KeySwitch(
        device=device,
        at=at,
        seq=frame.seq,
        position=_enum(KeyPosition, position, "key position", frame),
    )


_COMMON: dict[str, EventParser] = {"p": parse_power_up, "f": parse_fault, "o": parse_door}

EVENT_PARSERS: Mapping[DeviceType, Mapping[str, EventParser]] = {
    DeviceType.SHOE: _COMMON
    | {"c": parse_card, "x": parse_cut, "e": parse_empty, "l": parse_loaded},
    DeviceType.PEEK: _COMMON | {"k": parse_peek, "h": parse_sensed},
    DeviceType.PANEL: _COMMON | {"b": parse_button, "y": parse_key_switch},
}
