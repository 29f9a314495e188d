"""Properties of the device cores under arbitrary input and a lossy line (Hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.tbl21.cards import DeckType, shoe_cards
from drivers.tbl21.framing import Frame, FrameDecoder, decode, encode
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.device import DeviceCore
from sim_hardware.faults import (
    DelayAck,
    DropAck,
    DropFrame,
    DuplicateAck,
    DuplicateFrame,
    FaultSpec,
)

host_frames = st.builds(
    Frame,
    dev=st.sampled_from("HSPB"),
    seq=st.integers(0, 255),
    kind=st.sampled_from("QITEDANLGKMWZ"),
    payload=st.sampled_from(
        ["", "A", "T", "L", "U", "1;52;0", "6;48;10", "HIT;S;G", "ALL;P;R", "a|b", "250", "x;y"]
    ),
)
chunks = st.one_of(st.binary(max_size=40), host_frames.map(encode))


def make(kind: int) -> DeviceCore:
    if kind == 0:
        return EmulatedShoe(decks=1, seed=1)
    if kind == 1:
        return EmulatedPeekReader(hole_card="AS")
    return EmulatedPanel()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.integers(0, 2), stream=st.lists(chunks, max_size=30), gaps=st.data())
def test_any_input_leaves_the_device_sending_only_well_formed_frames(
    kind: int, stream: list[bytes], gaps: st.DataObject
) -> None:
    device = make(kind)
    now = 0.0
    out = bytearray(device.tick(now))
    for chunk in stream:
        now += gaps.draw(st.floats(0, 0.3))
        out += device.on_bytes(chunk, now)
    out += device.tick(now + 1.0)
    result = decode(bytes(out))
    assert result.errors == []
    assert result.consumed == len(out)
    assert all(f.dev == device.dev_code for f in result.frames)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    drop_ack=st.floats(0, 0.3),
    dup_ack=st.floats(0, 0.3),
    late_ack=st.floats(0, 0.2),
    drop_frame=st.floats(0, 0.3),
    dup_frame=st.floats(0, 0.3),
)
def test_a_host_that_acks_and_dedupes_gets_every_card_once_in_order_over_a_lossy_line(
    seed: int,
    drop_ack: float,
    dup_ack: float,
    late_ack: float,
    drop_frame: float,
    dup_frame: float,
) -> None:
    faults: list[FaultSpec] = []
    if drop_ack:
        faults.append(DropAck(rate=drop_ack))
    if dup_ack:
        faults.append(DuplicateAck(rate=dup_ack))
    if late_ack:
        faults.append(DelayAck(rate=late_ack, delay_s=0.3))
    if drop_frame:
        faults.append(DropFrame(rate=drop_frame))
    if dup_frame:
        faults.append(DuplicateFrame(rate=dup_frame))
    cards = shoe_cards(DeckType.STANDARD_52, 1)[:20]
    shoe = EmulatedShoe(cards=cards, decks=1, seed=seed, faults=faults)
    now = 0.0
    decoder = FrameDecoder(clock=lambda: now)
    applied: list[str] = []
    last_seq: int | None = None
    incoming = shoe.tick(now)
    drawn = 0
    next_poll = 0.5
    while now < 120.0 and not (drawn == len(cards) and shoe.queue_depth == 0):
        events = [f for f in decoder.feed(incoming).frames if f.is_event]
        if events:
            frame = events[0]
            if frame.seq != last_seq:
                last_seq = frame.seq
                if frame.kind == "c":
                    applied.append(frame.fields[0])
            incoming = shoe.on_bytes(encode(Frame("H", frame.seq, "A")), now)
            continue
        now += 0.01
        if drawn < len(cards) and shoe.queue_depth < 4:
            shoe.draw()
            drawn += 1
        incoming = shoe.tick(now)
        if now >= next_poll:  # the host's 500 ms poll: a device that gave up starts again
            next_poll += 0.5
            incoming += shoe.on_bytes(encode(Frame("H", 0, "Q")), now)
    assert applied == [str(c) for c in cards]
