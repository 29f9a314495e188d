"""Every TBL-21 message type: built from its fields, framed, decoded and parsed back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.panel import LedColour, LedMode, buzzer_payload, led_payload, text_payload
from drivers.shoe import new_shoe_payload
from drivers.tbl21.cards import RANKS, SUITS, Card, DeckType
from drivers.tbl21.errors import PayloadError
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    ButtonReleased,
    CardDrawn,
    CardMotion,
    CardSensed,
    CutCard,
    CutKind,
    DeviceRef,
    DeviceState,
    DeviceType,
    DoorEvent,
    DoorSensor,
    FaultCleared,
    FaultRaised,
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
from drivers.tbl21.framing import Frame, decode, encode
from drivers.tbl21.payloads import EVENT_PARSERS, parse_identity, parse_status

SHOE = DeviceRef(DeviceType.SHOE, "x")
PEEK = DeviceRef(DeviceType.PEEK, "x")
PANEL = DeviceRef(DeviceType.PANEL, "x")
TEXT = st.text(alphabet="".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in ";|"))
seqs = st.integers(0, 255)


def through_the_wire(frame: Frame) -> Frame:
    raw = encode(frame)
    consumed, frames, errors = decode(raw)
    assert (consumed, errors) == (len(raw), [])
    (decoded,) = frames
    assert decoded == frame
    return decoded


def parse(device: DeviceRef, frame: Frame) -> object:
    return EVENT_PARSERS[device.type][frame.kind](through_the_wire(frame), device, 1.0)


# --- device events, property-based ------------------------------------------------------------


@given(
    seqs,
    st.sampled_from(RANKS),
    st.sampled_from(SUITS),
    st.integers(0, 9999),
    st.integers(0, 9999),
    st.integers(0, 99),
)
def test_card_events_round_trip(
    seq: int, rank: str, suit: str, draw: int, left: int, quality: int
) -> None:
    frame = Frame("S", seq, "c", f"{rank}{suit};{draw:04d};{left:04d};{quality:02d}")
    event = parse(SHOE, frame)
    assert event == CardDrawn(
        device=SHOE,
        at=1.0,
        seq=seq,
        card=Card.parse(rank + suit),
        draw_no=draw,
        remaining=left,
        quality=quality,
    )


@given(seqs, st.integers(0, 9999), st.sampled_from(CutKind))
def test_cut_card_events_round_trip(seq: int, draw: int, kind: CutKind) -> None:
    event = parse(SHOE, Frame("S", seq, "x", f"{draw:04d};{kind.value}"))
    assert event == CutCard(device=SHOE, at=1.0, seq=seq, draw_no=draw, kind=kind)


@given(seqs, st.integers(0, 9999))
def test_empty_events_round_trip(seq: int, draw: int) -> None:
    event = parse(SHOE, Frame("S", seq, "e", f"{draw:04d}"))
    assert event == ShoeEmpty(device=SHOE, at=1.0, seq=seq, draw_no=draw)


@given(seqs, st.one_of(st.none(), st.integers(0, 9999)))
def test_loaded_events_round_trip(seq: int, count: int | None) -> None:
    event = parse(SHOE, Frame("S", seq, "l", "?" if count is None else str(count)))
    assert event == ShoeLoaded(device=SHOE, at=1.0, seq=seq, cards_detected=count)


@given(seqs, st.sampled_from(PeekOutcome), st.integers(0, 99))
def test_peek_results_round_trip(seq: int, outcome: PeekOutcome, quality: int) -> None:
    event = parse(PEEK, Frame("P", seq, "k", f"{outcome.value};{quality:02d}"))
    assert event == PeekResult(device=PEEK, at=1.0, seq=seq, outcome=outcome, quality=quality)


@given(seqs, st.sampled_from(CardMotion))
def test_card_sensed_events_round_trip(seq: int, motion: CardMotion) -> None:
    event = parse(PEEK, Frame("P", seq, "h", motion.value))
    assert event == CardSensed(device=PEEK, at=1.0, seq=seq, motion=motion)


@given(seqs, st.sampled_from(Button), st.sampled_from("PRH"), st.integers(0, 99999))
def test_button_events_round_trip(seq: int, button: Button, action: str, held: int) -> None:
    event = parse(PANEL, Frame("B", seq, "b", f"{button.value};{action};{held:04d}"))
    cls = {"P": ButtonPressed, "R": ButtonReleased, "H": ButtonHeld}[action]
    assert event == cls(device=PANEL, at=1.0, seq=seq, button=button, held_ms=held)


@given(seqs, st.sampled_from(KeyPosition))
def test_key_switch_events_round_trip(seq: int, position: KeyPosition) -> None:
    event = parse(PANEL, Frame("B", seq, "y", position.value))
    assert event == KeySwitch(device=PANEL, at=1.0, seq=seq, position=position)


@given(
    st.sampled_from([SHOE, PEEK, PANEL]),
    seqs,
    st.integers(0, 255),
    st.sampled_from(Severity),
    st.booleans(),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_ ;0123456789", max_size=60),
)
def test_fault_events_round_trip_on_every_device(
    device: DeviceRef, seq: int, code: int, severity: Severity, raised: bool, text: str
) -> None:
    payload = f"{code:02X};{severity.value};{'R' if raised else 'C'};{text}"
    event = parse(device, Frame(device.type.value, seq, "f", payload))
    cls = FaultRaised if raised else FaultCleared
    assert event == cls(device=device, at=1.0, seq=seq, code=code, severity=severity, text=text)


@given(st.sampled_from([SHOE, PEEK, PANEL]), seqs, st.sampled_from(DoorSensor), st.booleans())
def test_door_events_round_trip_on_every_device(
    device: DeviceRef, seq: int, sensor: DoorSensor, is_open: bool
) -> None:
    frame = Frame(device.type.value, seq, "o", f"{sensor.value};{'O' if is_open else 'C'}")
    event = parse(device, frame)
    assert event == DoorEvent(device=device, at=1.0, seq=seq, sensor=sensor, is_open=is_open)


@given(
    st.sampled_from([SHOE, PEEK, PANEL]),
    seqs,
    st.integers(0, 10**9),
    st.sampled_from(PowerUpReason),
)
def test_power_up_events_round_trip_on_every_device(
    device: DeviceRef, seq: int, boot: int, reason: PowerUpReason
) -> None:
    event = parse(device, Frame(device.type.value, seq, "p", f"{boot};{reason.value}"))
    assert event == PowerUp(device=device, at=1.0, seq=seq, boot_count=boot, reason=reason)


# --- replies ----------------------------------------------------------------------------------


@given(
    seqs,
    st.sampled_from(DeviceState),
    st.integers(0, 0xFFFF),
    st.integers(0, 255),
    st.integers(0, 999),
    st.lists(st.text(alphabet="0123456789LUYN-", max_size=5), max_size=3),
)
def test_status_replies_round_trip(
    seq: int, state: DeviceState, flags: int, fault: int, depth: int, specific: list[str]
) -> None:
    payload = ";".join([state.value, f"{flags:04X}", f"{fault:02X}", f"{depth:02d}", *specific])
    status = parse_status(through_the_wire(Frame("S", seq, "s", payload)))
    assert (status.state, status.flags, status.active_fault, status.queue_depth) == (
        state,
        flags,
        fault,
        depth,
    )
    assert status.specific == tuple(specific)


@given(
    seqs,
    TEXT.filter(bool),
    TEXT.filter(bool),
    TEXT.filter(bool),
    st.text("0123456789ABCDEF", min_size=16, max_size=16),
    st.integers(0, 10**9),
)
def test_ident_replies_round_trip(
    seq: int, model: str, serial: str, fw: str, fw_hash: str, boot: int
) -> None:
    frame = Frame("S", seq, "i", f"{model};{serial};{fw};{fw_hash};{boot}")
    identity = parse_identity(through_the_wire(frame))
    assert (identity.model, identity.serial, identity.fw_version) == (model, serial, fw)
    assert (identity.fw_hash, identity.boot_count) == (fw_hash, boot)


# --- host commands ----------------------------------------------------------------------------


@given(st.integers(1, 8), st.sampled_from(["52", "48"]), st.integers(0, 415), st.sampled_from("LU"))
def test_shoe_commands_round_trip(decks: int, deck_type: str, cut: int, gate: str) -> None:
    cut %= decks * int(deck_type)
    payload = new_shoe_payload(decks, deck_type, cut)
    assert through_the_wire(Frame("H", 1, "L", payload)).fields == [str(decks), deck_type, str(cut)]
    assert through_the_wire(Frame("H", 2, "G", gate)).payload == gate


@given(
    st.one_of(st.just("ALL"), st.sampled_from(Button)),
    st.sampled_from(LedMode),
    st.sampled_from(LedColour),
    TEXT.filter(lambda t: len(t) <= 16),
    TEXT.filter(lambda t: len(t) <= 16),
    st.integers(1, 10_000),
)
def test_panel_commands_round_trip(
    button: Button | str, mode: LedMode, colour: LedColour, line1: str, line2: str, ms: int
) -> None:
    led = through_the_wire(Frame("H", 3, "L", led_payload(button, mode, colour)))
    assert led.fields == [str(button), mode.value, colour.value]
    text = through_the_wire(Frame("H", 4, "M", text_payload(line1, line2)))
    assert text.payload.split("|") == [line1.ljust(16), line2.ljust(16)]
    assert through_the_wire(Frame("H", 5, "W", buzzer_payload(ms))).payload == str(ms)


@pytest.mark.parametrize(
    ("kind", "payload"),
    [("Q", ""), ("I", ""), ("E", ""), ("D", ""), ("A", ""), ("N", "CRC"), ("K", "A"), ("K", "T")],
)
def test_common_and_peek_commands_round_trip(kind: str, payload: str) -> None:
    frame = Frame("H", 9, kind, payload)
    assert through_the_wire(frame) == frame


# --- malformed payloads ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "kind", "payload", "message"),
    [
        (SHOE, "x", "0042;Q", "cut kind 'Q' is not one of P, V"),
        (SHOE, "e", "42", "bad draw_no"),
        (SHOE, "l", "many", "bad cards_detected"),
        (PEEK, "k", "M;99", "peek outcome 'M'"),
        (PEEK, "k", "Y", "expected 2 field"),
        (PEEK, "h", "X", "motion 'X'"),
        (PANEL, "b", "XYZ;P;0000", "button 'XYZ'"),
        (PANEL, "b", "HIT;Z;0000", "button action 'Z'"),
        (PANEL, "y", "OFF", "key position 'OFF'"),
        (SHOE, "f", "1G;W;R;X", "bad fault code '1G'"),
        (SHOE, "f", "10;X;R;X", "severity 'X'"),
        (SHOE, "f", "10;W;Q;X", "'Q' is not R or C"),
        (SHOE, "f", "10;W", "expected code;severity"),
        (SHOE, "o", "DOOR;O", "sensor 'DOOR'"),
        (SHOE, "o", "LID;X", "'X' is not O or C"),
        (SHOE, "p", "x;PON", "bad boot_count"),
        (SHOE, "p", "3;ZAP", "reason 'ZAP'"),
    ],
)
def test_a_malformed_event_payload_names_the_bad_field(
    device: DeviceRef, kind: str, payload: str, message: str
) -> None:
    frame = Frame(device.type.value, 1, kind, payload)
    with pytest.raises(PayloadError, match=message):
        EVENT_PARSERS[device.type][kind](frame, device, 0.0)


@pytest.mark.parametrize(
    "payload",
    ["READY;0023;00", "SLEEPY;0023;00;00", "READY;23;00;00", "READY;0023;0;00", "READY;0023;00;x"],
)
def test_a_malformed_status_is_refused(payload: str) -> None:
    with pytest.raises(PayloadError):
        parse_status(Frame("S", 1, "s", payload))


@pytest.mark.parametrize(
    "payload",
    ["M;S;1.0;0123456789ABCDEF", "M;S;1.0;0123456789ABCDEG;1", ";S;1.0;0123456789ABCDEF;1"],
)
def test_a_malformed_ident_is_refused(payload: str) -> None:
    with pytest.raises(PayloadError):
        parse_identity(Frame("S", 1, "i", payload))


def test_a_shoe_ident_may_say_which_decks_it_holds() -> None:
    five = parse_identity(Frame("S", 1, "i", "TBL21-S;S1;1.0;0123456789ABCDEF;4"))
    six = parse_identity(Frame("S", 1, "i", "TBL21-S;S1;1.0;0123456789ABCDEF;4;48"))
    assert five.deck_type is None
    assert six.deck_type is DeckType.SPANISH_48
    assert (six.model, six.boot_count) == ("TBL21-S", 4)
    with pytest.raises(PayloadError, match="bad deck type '50'"):
        parse_identity(Frame("S", 1, "i", "TBL21-S;S1;1.0;0123456789ABCDEF;4;50"))
