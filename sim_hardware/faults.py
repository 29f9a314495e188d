"""Fault injection as data: one small frozen dataclass per fault of protocol.md's last section.

A test or a scenario hands a list of these to an emulated device (``faults=[...]`` or
``device.inject(spec)``); the device applies each when its trigger comes. Triggers:

- ``draw`` / ``at_draw``: when the shoe hands out the card of that draw number (1-based);
- ``at_s``: seconds after the device booted (its first ``tick``), on the device's own clock;
- ``nth``: the n-th matching frame or ACK (1-based), counted since the device was created;
- ``rate``: each matching frame or ACK with that probability, from the device's seeded RNG;
- neither: at once (the next ``tick``).

One-shot specs are used up when they fire; ``rate`` specs and :class:`SplitWrites` stay until
``device.clear_injections()``.

Which device takes which spec:

============================  ======================================================
shoe only                     Misread, ForeignCard, DuplicateCard, Pushback, LidOpen
hole-card reader only         PeekAnswer
button panel only             StuckButton
every device                  Reboot, Stall, Unplug, DropAck, DuplicateAck, DelayAck,
                              DropFrame, DuplicateFrame, CorruptByte, SplitWrites
============================  ======================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from drivers.tbl21.cards import Card
from drivers.tbl21.errors import CardNotationError
from sim_hardware.errors import SimConfigError


def _check_positive(name: str, value: int | None, what: str) -> None:
    if value is not None and value < 1:
        raise SimConfigError(f"{what}: {name} is 1-based and must be >= 1, got {value}")


def _check_moment(what: str, at_draw: int | None, at_s: float | None) -> None:
    if at_draw is not None and at_s is not None:
        raise SimConfigError(f"{what}: give at_draw or at_s, not both")
    _check_positive("at_draw", at_draw, what)
    if at_s is not None and at_s < 0:
        raise SimConfigError(f"{what}: at_s must be >= 0 seconds, got {at_s}")


def _check_nth_rate(what: str, nth: int | None, rate: float) -> None:
    if nth is not None and rate:
        raise SimConfigError(f"{what}: give nth or rate, not both")
    if nth is None and not rate:
        raise SimConfigError(f"{what}: give nth (the n-th one, 1-based) or rate (0 < rate <= 1)")
    _check_positive("nth", nth, what)
    if not 0 <= rate <= 1:
        raise SimConfigError(f"{what}: rate must be within 0..1, got {rate}")


def _check_kind(what: str, kind: str | None) -> None:
    if kind is not None and (len(kind) != 1 or not kind.isascii() or not kind.isalpha()):
        raise SimConfigError(f"{what}: kind must be one TYPE letter such as 'c', got {kind!r}")


# --- shoe ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Misread:
    """The card of draw ``draw`` leaves the shoe unread: no ``c`` for it (the host sees a gap in
    draw_no) and fault 0x10 CARD_UNREADABLE is raised; it clears at the next good read."""

    draw: int

    def __post_init__(self) -> None:
        _check_positive("draw", self.draw, "Misread")


@dataclass(frozen=True, slots=True)
class ForeignCard:
    """The card of draw ``draw`` is a foreign card (wrong back): the shoe reads it as ``card``,
    sends ``c`` for it and raises fault 0x13 CARD_UNEXPECTED. It replaces the card the order had
    at that position."""

    draw: int
    card: str = "AS"

    def __post_init__(self) -> None:
        _check_positive("draw", self.draw, "ForeignCard")
        parse_card_field(self.card, "ForeignCard")


@dataclass(frozen=True, slots=True)
class DuplicateCard:
    """The card of draw ``draw`` is a second copy of ``card`` (default: the card of the draw
    before). It replaces the card the order had there. The shoe's own inventory check raises
    0x14 CARD_OVER_INVENTORY only when the copy exceeds the number of decks (so use a one-deck
    shoe, or ``force_fault=True`` for a shoe whose sensors recognise the copy anyway)."""

    draw: int
    card: str | None = None
    force_fault: bool = False

    def __post_init__(self) -> None:
        _check_positive("draw", self.draw, "DuplicateCard")
        if self.card is None and self.draw == 1:
            raise SimConfigError("DuplicateCard: draw 1 has no card before it; name the card")
        if self.card is not None:
            parse_card_field(self.card, "DuplicateCard")


@dataclass(frozen=True, slots=True)
class Pushback:
    """The card of draw ``draw`` is read (``c`` sent), then pushed back into the shoe: fault
    0x12 CARD_PUSHBACK (lockup). The card goes back on top, so the next draw reads it again
    under a new draw_no."""

    draw: int

    def __post_init__(self) -> None:
        _check_positive("draw", self.draw, "Pushback")


@dataclass(frozen=True, slots=True)
class LidOpen:
    """The shoe lid opens: ``o LID;O`` and fault 0x40 LID_OPEN (lockup while dealing, i.e. after
    the first draw of a shoe with the gate unlocked; warning otherwise). It closes again
    (``o LID;C``, 0x40 cleared) after ``close_after_s`` if given, or on ``shoe.close_lid()``."""

    at_draw: int | None = None
    at_s: float | None = None
    close_after_s: float | None = None

    def __post_init__(self) -> None:
        _check_moment("LidOpen", self.at_draw, self.at_s)


# --- hole-card reader --------------------------------------------------------------------------


class PeekMode(StrEnum):
    HONEST = "honest"  # Y/N from the real hole card (E without one)
    LIE = "lie"  # the opposite of the honest Y/N
    UNREADABLE = "unreadable"  # U
    NO_CARD = "no_card"  # E even with a card inserted


@dataclass(frozen=True, slots=True)
class PeekAnswer:
    """The next ``count`` peeks (every peek if None) answer as ``mode`` says."""

    mode: PeekMode
    count: int | None = 1

    def __post_init__(self) -> None:
        _check_positive("count", self.count, "PeekAnswer")


# --- button panel ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StuckButton:
    """``button`` goes down and stays down: ``b P``, ``b H`` at 2000 ms, then fault 0x70
    BUTTON_STUCK (text ``BUTTON_STUCK <button>``) after ``stuck_after_s``. ``panel.release``
    frees it (``b R`` and 0x70 cleared)."""

    button: str
    at_s: float | None = None
    stuck_after_s: float = 5.0

    def __post_init__(self) -> None:
        _check_moment("StuckButton", None, self.at_s)
        if self.stuck_after_s < 2.0:
            raise SimConfigError("StuckButton: stuck_after_s must be >= 2.0 (a hold is 2 s)")


# --- every device ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reboot:
    """The device reboots (boot_count + 1, ``p boot_count;reason`` queued behind the kept
    events). The bytes not yet on the wire are lost; ``cut_after_bytes`` of them still go out
    first (default: half of what is pending), so the host sees a torn frame. With ``at_draw``
    the frame in flight is the ``c`` of that draw (or whatever the shoe was sending). With
    ``forget_draw_no`` (a shoe only) the shoe comes back with its draw number at 0, as a
    replacement unit or one that does not keep its numbers: the next card is draw 1."""

    at_draw: int | None = None
    at_s: float | None = None
    reason: str = "WDT"
    cut_after_bytes: int | None = None
    forget_draw_no: bool = False

    def __post_init__(self) -> None:
        _check_moment("Reboot", self.at_draw, self.at_s)
        if self.reason not in ("PON", "WDT", "BRN", "SW"):
            raise SimConfigError(f"Reboot: reason must be PON, WDT, BRN or SW, got {self.reason!r}")
        if self.cut_after_bytes is not None and self.cut_after_bytes < 0:
            raise SimConfigError("Reboot: cut_after_bytes must be >= 0")


@dataclass(frozen=True, slots=True)
class Stall:
    """The device hangs for ``duration_s``: it ignores every byte and sends nothing (make it
    longer than the host's 1.5 s link-loss time to test COMM_LOST). Afterwards it carries on
    (or reboots with reason WDT if ``then_reboot``)."""

    duration_s: float
    at_draw: int | None = None
    at_s: float | None = None
    then_reboot: bool = False

    def __post_init__(self) -> None:
        _check_moment("Stall", self.at_draw, self.at_s)
        if self.duration_s <= 0:
            raise SimConfigError(f"Stall: duration_s must be > 0, got {self.duration_s}")


@dataclass(frozen=True, slots=True)
class Unplug:
    """The cable is pulled: the runner closes the port (reads and writes on the host side raise)
    and the device hears and sends nothing. It is plugged back after ``duration_s`` (never if
    None: call ``device.replug()``); with ``power_cycle`` the device reboots (PON) on replug."""

    at_draw: int | None = None
    at_s: float | None = None
    duration_s: float | None = None
    power_cycle: bool = False

    def __post_init__(self) -> None:
        _check_moment("Unplug", self.at_draw, self.at_s)
        if self.duration_s is not None and self.duration_s <= 0:
            raise SimConfigError(f"Unplug: duration_s must be > 0, got {self.duration_s}")


@dataclass(frozen=True, slots=True)
class DropAck:
    """The device ignores an ACK it receives (as if the line lost it), so it resends."""

    nth: int | None = None
    rate: float = 0.0

    def __post_init__(self) -> None:
        _check_nth_rate("DropAck", self.nth, self.rate)


@dataclass(frozen=True, slots=True)
class DuplicateAck:
    """The device receives an ACK twice (the second must change nothing)."""

    nth: int | None = None
    rate: float = 0.0

    def __post_init__(self) -> None:
        _check_nth_rate("DuplicateAck", self.nth, self.rate)


@dataclass(frozen=True, slots=True)
class DelayAck:
    """An ACK reaches the device ``delay_s`` late (past the 250 ms resend, so the host gets
    the event twice and must apply it once)."""

    nth: int | None = None
    rate: float = 0.0
    delay_s: float = 0.4

    def __post_init__(self) -> None:
        _check_nth_rate("DelayAck", self.nth, self.rate)
        if self.delay_s <= 0:
            raise SimConfigError(f"DelayAck: delay_s must be > 0, got {self.delay_s}")


@dataclass(frozen=True, slots=True)
class DropFrame:
    """A frame the device sends is lost on the wire (of TYPE ``kind`` if given)."""

    nth: int | None = None
    rate: float = 0.0
    kind: str | None = None

    def __post_init__(self) -> None:
        _check_nth_rate("DropFrame", self.nth, self.rate)
        _check_kind("DropFrame", self.kind)


@dataclass(frozen=True, slots=True)
class DuplicateFrame:
    """A frame the device sends arrives twice (of TYPE ``kind`` if given)."""

    nth: int | None = None
    rate: float = 0.0
    kind: str | None = None

    def __post_init__(self) -> None:
        _check_nth_rate("DuplicateFrame", self.nth, self.rate)
        _check_kind("DuplicateFrame", self.kind)


@dataclass(frozen=True, slots=True)
class CorruptByte:
    """Byte ``byte`` (0 = STX) of the ``frame``-th frame the device sends (counting only TYPE
    ``kind`` if given, resends included) is XORed with ``xor`` on the wire."""

    frame: int
    byte: int
    kind: str | None = None
    xor: int = 0xFF

    def __post_init__(self) -> None:
        _check_positive("frame", self.frame, "CorruptByte")
        _check_kind("CorruptByte", self.kind)
        if self.byte < 0:
            raise SimConfigError(f"CorruptByte: byte is 0-based (0 = STX), got {self.byte}")
        if not 1 <= self.xor <= 0xFF:
            raise SimConfigError(f"CorruptByte: xor must be 1..255, got {self.xor}")


@dataclass(frozen=True, slots=True)
class SplitWrites:
    """Every frame goes out in random chunks of 1..``max_chunk`` bytes, ``max_gap_s`` apart at
    most (keep it under the host's 50 ms stale-partial time unless that is the test)."""

    max_chunk: int = 4
    max_gap_s: float = 0.002

    def __post_init__(self) -> None:
        if self.max_chunk < 1:
            raise SimConfigError(f"SplitWrites: max_chunk must be >= 1, got {self.max_chunk}")
        if self.max_gap_s < 0:
            raise SimConfigError(f"SplitWrites: max_gap_s must be >= 0, got {self.max_gap_s}")


FaultSpec = (
    Misread
    | ForeignCard
    | DuplicateCard
    | Pushback
    | LidOpen
    | PeekAnswer
    | StuckButton
    | Reboot
    | Stall
    | Unplug
    | DropAck
    | DuplicateAck
    | DelayAck
    | DropFrame
    | DuplicateFrame
    | CorruptByte
    | SplitWrites
)

COMMON_FAULTS: tuple[type, ...] = (
    Reboot,
    Stall,
    Unplug,
    DropAck,
    DuplicateAck,
    DelayAck,
    DropFrame,
    DuplicateFrame,
    CorruptByte,
    SplitWrites,
)


def parse_card_field(text: str, what: str) -> None:
    """Check that ``text`` is a card in the two-character notation (for spec fields)."""
    try:
        Card.parse(text)
    except CardNotationError as exc:
        raise SimConfigError(f"{what}: {exc}") from exc


FAULT_TYPES: dict[str, type] = {
    "misread": Misread,
    "foreign_card": ForeignCard,
    "duplicate_card": DuplicateCard,
    "pushback": Pushback,
    "lid_open": LidOpen,
    "peek_answer": PeekAnswer,
    "stuck_button": StuckButton,
    "reboot": Reboot,
    "stall": Stall,
    "unplug": Unplug,
    "drop_ack": DropAck,
    "duplicate_ack": DuplicateAck,
    "delay_ack": DelayAck,
    "drop_frame": DropFrame,
    "duplicate_frame": DuplicateFrame,
    "corrupt_byte": CorruptByte,
    "split_writes": SplitWrites,
}


def fault_from_mapping(entry: Mapping[str, object], *, where: str = "fault") -> FaultSpec:
    """Build a spec from plain data, e.g. ``{"fault": "misread", "draw": 3}`` or
    ``{"fault": "peek_answer", "mode": "lie", "count": 2}`` (for scenario or lab files).

    Errors name ``where``, the key and what is allowed.
    """
    kind = entry.get("fault")
    if not isinstance(kind, str) or kind not in FAULT_TYPES:
        raise SimConfigError(
            f"{where}: 'fault' must be one of {', '.join(FAULT_TYPES)}, got {kind!r}"
        )
    cls = FAULT_TYPES[kind]
    allowed = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, object] = {}
    for key, value in entry.items():
        if key == "fault":
            continue
        if key not in allowed:
            raise SimConfigError(
                f"{where}: {kind} has no key {key!r}; its keys are {', '.join(allowed)}"
            )
        values[key] = _coerce(where, kind, key, value, str(allowed[key].type))
    try:
        spec: FaultSpec = cls(**values)
    except TypeError as exc:
        missing = [n for n, f in allowed.items() if _required(f) and n not in values]
        raise SimConfigError(f"{where}: {kind} needs {', '.join(missing)}") from exc
    return spec


def faults_from_list(entries: Sequence[Mapping[str, object]], *, where: str) -> list[FaultSpec]:
    """Build every spec of a list; errors say which entry (1-based) of ``where``."""
    return [
        fault_from_mapping(entry, where=f"{where}, entry {i}")
        for i, entry in enumerate(entries, start=1)
    ]


def _required(field: dataclasses.Field[object]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def _coerce(where: str, kind: str, key: str, value: object, annotation: str) -> object:
    def wrong(expected: str) -> SimConfigError:
        return SimConfigError(f"{where}: {kind}.{key} must be {expected}, got {value!r}")

    if key == "mode":
        try:
            return PeekMode(str(value))
        except ValueError:
            modes = ", ".join(m.value for m in PeekMode)
            raise wrong(f"one of {modes}") from None
    if value is None and "None" in annotation:
        return None
    if annotation.startswith("int") or annotation == "int | None":
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("a whole number")
        return value
    if annotation.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong("a number")
        return float(value)
    if annotation == "bool":
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if annotation.startswith("str"):
        if not isinstance(value, str):
            raise wrong("text")
        return value
    return value
