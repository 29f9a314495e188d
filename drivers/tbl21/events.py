"""Typed events the drivers put on the shared event queue (protocol.md, per device).

Every event names its device (:class:`DeviceRef`: role and port) and the time the driver saw it
(``at``, seconds from the driver's monotonic clock). Events that came from a device frame also
carry the frame's SEQ. Closed sets are enums; the payload text is never passed on unparsed, and a
payload that does not parse becomes a :class:`ProtocolViolation`, never an invented card.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drivers.tbl21.cards import Card, DeckType
from drivers.tbl21.faults import Severity, fault_name


class DeviceType(StrEnum):
    """The device roles of TBL-21; the value is the DEV byte the device sends."""

    SHOE = "S"
    PEEK = "P"
    PANEL = "B"

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class DeviceRef:
    """Which device an event is about: its role and the port URL it was opened on."""

    type: DeviceType
    port: str

    def __str__(self) -> str:
        return f"{self.type.label}@{self.port}"


class DeviceState(StrEnum):
    BOOT = "BOOT"
    IDLE = "IDLE"
    READY = "READY"
    DISABLED = "DISABLED"
    OFFLINE = "OFFLINE"
    FAULT = "FAULT"


class StatusFlag:
    """Bit numbers of the status ``flags`` field."""

    READY = 0
    ENABLED = 1
    FAULT_ACTIVE = 2
    TAMPER_ACTIVE = 3
    QUEUE_NOT_EMPTY = 4
    TIME_VALID = 5
    GATE_LOCKED = 6
    CARD_PRESENT = 7
    KEY_NOT_RUN = 8


class CutKind(StrEnum):
    PHYSICAL = "P"
    VIRTUAL = "V"


class PeekOutcome(StrEnum):
    BLACKJACK = "Y"
    NO_BLACKJACK = "N"
    UNREADABLE = "U"
    NO_CARD = "E"


class CardMotion(StrEnum):
    INSERTED = "I"
    REMOVED = "R"


class Button(StrEnum):
    DEAL = "DEA"
    INSURANCE = "INS"
    SURRENDER = "SUR"
    HIT = "HIT"
    STAND = "STD"
    DOUBLE = "DBL"
    SPLIT = "SPL"
    RESCUE = "RES"
    OK = "OK_"
    CANCEL = "CAN"
    UNDO = "UND"
    SHUFFLE = "SHF"
    CALL = "CAL"
    BOX1 = "B1_"
    BOX2 = "B2_"
    BOX3 = "B3_"
    BOX4 = "B4_"
    BOX5 = "B5_"
    BOX6 = "B6_"
    BOX7 = "B7_"
    WAGER1 = "W1_"
    WAGER2 = "W2_"
    WAGER3 = "W3_"
    DIGIT0 = "D0_"
    DIGIT1 = "D1_"
    DIGIT2 = "D2_"
    DIGIT3 = "D3_"
    DIGIT4 = "D4_"
    DIGIT5 = "D5_"
    DIGIT6 = "D6_"
    DIGIT7 = "D7_"
    DIGIT8 = "D8_"
    DIGIT9 = "D9_"


# The word printed on each key, on the panel and the dealer's screen alike (docs/panel.md):
# one definition, which the screen's keys, the emulator's console and its messages use.
BUTTON_WORDS: dict[Button, str] = {
    Button.HIT: "HIT",
    Button.STAND: "STAND",
    Button.DOUBLE: "DOUBLE",
    Button.SPLIT: "SPLIT",
    Button.SURRENDER: "SURRENDER",
    Button.INSURANCE: "INSURE",
    Button.RESCUE: "RESCUE",
    Button.OK: "OK",
    Button.DEAL: "DEAL",
    Button.UNDO: "UNDO",
    Button.SHUFFLE: "SHUFFLE",
    Button.CANCEL: "CANCEL",
    Button.CALL: "CALL",
    **{Button(f"B{n}_"): f"BOX {n}" for n in range(1, 8)},
    **{Button(f"W{n}_"): f"WAGER {n}" for n in range(1, 4)},
    **{Button(f"D{n}_"): str(n) for n in range(10)},
}


def _spellings() -> dict[str, Button]:
    names: dict[str, Button] = {}
    for button in Button:
        word = BUTTON_WORDS[button]
        for spelling in (
            button.value,  # the wire code: OK_
            button.value.rstrip("_"),  # OK, B1, D5
            button.name,  # INSURANCE, BOX1, DIGIT5
            word.replace(" ", ""),  # INSURE, BOX1, 5
            word.replace(" ", "-"),  # BOX-1
            word.replace(" ", "_"),  # BOX_1
        ):
            names.setdefault(spelling, button)
    return names


_BUTTON_SPELLINGS = _spellings()


def button_named(name: str) -> Button | None:
    """The key a person means by ``name``: its word on the screen (``STAND``, ``OK``,
    ``BOX1``, ``5``), its wire code (``STD``, ``OK_``) or its name (``INSURANCE``), in any case;
    ``None`` if no key is called that."""
    return _BUTTON_SPELLINGS.get(name.strip().upper())


def button_words_help() -> str:
    """The keys as a person may name them, for a message or ``help``."""
    words = [w for b, w in BUTTON_WORDS.items() if not b.name.startswith(("BOX", "WAGER", "DIGIT"))]
    return " ".join(words) + ", BOX1-BOX7, WAGER1-WAGER3, 0-9 (or the panel codes: STD, OK_ ...)"


class ButtonAction(StrEnum):
    PRESSED = "P"
    RELEASED = "R"
    HELD = "H"


class KeyPosition(StrEnum):
    RUN = "RUN"
    SUPERVISOR = "SUP"
    TECHNICIAN = "TEC"


class DoorSensor(StrEnum):
    LID = "LID"
    CASE = "CASE"
    CABLE = "CABLE"
    SEAL = "SEAL"


class PowerUpReason(StrEnum):
    POWER_ON = "PON"
    WATCHDOG = "WDT"
    BROWN_OUT = "BRN"
    SOFTWARE = "SW"


# --- replies (answers to commands; also carried by some events) -------------------------------


@dataclass(frozen=True, slots=True)
class DeviceStatusReport:
    """A parsed ``s`` reply. ``specific`` holds the device-specific fields as sent."""

    state: DeviceState
    flags: int
    active_fault: int
    queue_depth: int
    specific: tuple[str, ...] = ()

    def flag(self, bit: int) -> bool:
        return bool(self.flags >> bit & 1)


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """A parsed ``i`` reply."""

    model: str
    serial: str
    fw_version: str
    fw_hash: str
    boot_count: int
    deck_type: DeckType | None = None  # a shoe's optional 6th field: the decks it holds

    def same_unit_and_firmware(self, other: DeviceIdentity) -> bool:
        return (self.model, self.serial, self.fw_version, self.fw_hash) == (
            other.model,
            other.serial,
            other.fw_version,
            other.fw_hash,
        )


Reply = DeviceStatusReport | DeviceIdentity


# --- events -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceEvent:
    device: DeviceRef
    at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameEvent(DeviceEvent):
    """An event the device sent in a frame; the driver has acknowledged it.

    ``(boot, seq)`` identifies it for duplicate suppression: ``boot`` is the device's
    boot_count the event belongs to (None if not known yet). A controller that journals it can
    hand the last one back to a new driver (``resume=``) after a restart.
    """

    seq: int
    boot: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(FrameEvent):
    card: Card
    draw_no: int
    remaining: int
    quality: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCard(FrameEvent):
    draw_no: int
    kind: CutKind


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEmpty(FrameEvent):
    draw_no: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeLoaded(FrameEvent):
    cards_detected: int | None  # None when the shoe answered ``?``


@dataclass(frozen=True, slots=True, kw_only=True)
class PeekResult(FrameEvent):
    outcome: PeekOutcome
    quality: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardSensed(FrameEvent):
    motion: CardMotion


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonEvent(FrameEvent):
    button: Button
    held_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonPressed(ButtonEvent):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonReleased(ButtonEvent):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonHeld(ButtonEvent):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class KeySwitch(FrameEvent):
    position: KeyPosition


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultEvent(FrameEvent):
    code: int
    severity: Severity
    text: str

    @property
    def name(self) -> str:
        return fault_name(self.code)


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultRaised(FaultEvent):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultCleared(FaultEvent):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class DoorEvent(FrameEvent):
    sensor: DoorSensor
    is_open: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PowerUp(FrameEvent):
    """The device booted. ``boot_count`` starts a new duplicate-suppression epoch."""

    boot_count: int
    reason: PowerUpReason


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceIdentified(DeviceEvent):
    """The device answered ``I``. ``changed`` is true when model, serial or firmware differ
    from the previous identification on this port (an alarm for the controller)."""

    identity: DeviceIdentity
    changed: bool = False

    @property
    def model(self) -> str:
        return self.identity.model

    @property
    def serial(self) -> str:
        return self.identity.serial

    @property
    def fw_version(self) -> str:
        return self.identity.fw_version

    @property
    def fw_hash(self) -> str:
        return self.identity.fw_hash

    @property
    def boot_count(self) -> int:
        return self.identity.boot_count


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceRefused(DeviceEvent):
    """The device on the port is not the expected type; the driver stopped using it."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceStatus(DeviceEvent):
    """The device's status changed (sent when a poll reply differs from the previous one)."""

    status: DeviceStatusReport


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkLost(DeviceEvent):
    """COMM_LOST: three replies missed in a row, or the port failed. Sent once per outage."""

    reason: str
    last_reply_at: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkRestored(DeviceEvent):
    """The device answers again and has been identified again (see the DeviceIdentified
    event just before this one)."""

    down_since: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandFailed(DeviceEvent):
    """A command was not carried out: no answer after every retry, a NAK, or the link down."""

    command: str
    payload: str
    reason: str


class ViolationKind(StrEnum):
    DEV_MISMATCH = "dev_mismatch"  # a frame whose DEV is not the port's device type
    MALFORMED_PAYLOAD = "malformed_payload"
    UNKNOWN_TYPE = "unknown_type"  # a TYPE letter this device does not send
    UNEXPECTED_REPLY = "unexpected_reply"  # a reply of the wrong type to a command
    SEQ_GAP = "seq_gap"  # events the device never delivered (their SEQs were skipped)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProtocolViolation(DeviceEvent):
    """The device sent a well-framed message that breaks the protocol. Nothing was applied."""

    kind: ViolationKind
    detail: str
    raw: bytes = b""
