"""The link core against the emulated shoe's sans-IO core over a hostile simulated line.

Both sides are sans-IO, so one fake clock drives them and Hypothesis can explore: random read
splits, bytes flipped in either direction, host writes lost, device frames dropped or sent
twice, ACKs dropped or delayed, reboots, stalls past the link-loss time. Whatever happens,
the host must see every card exactly once, in draw order.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.link import Link, LinkState
from drivers.tbl21.cards import DeckType, shoe_cards
from drivers.tbl21.events import CardDrawn, DeviceEvent, DeviceRef, DeviceType, LinkLost, PowerUp
from sim_hardware import Draw, EmulatedShoe
from sim_hardware.faults import (
    DelayAck,
    DropAck,
    DropFrame,
    DuplicateFrame,
    FaultSpec,
    Reboot,
    Stall,
)

STEP_S = 0.005
SHOE = DeviceRef(DeviceType.SHOE, "sim://fake")


class Line:
    """One direction of the cable: splits, flips bits in and loses whole writes."""

    def __init__(self, rng: random.Random, flip: float, lose: float) -> None:
        self.rng = rng
        self.flip = flip
        self.lose = lose

    def carry(self, data: bytes) -> list[bytes]:
        if not data or self.rng.random() < self.lose:
            return []
        damaged = bytearray(data)
        for i in range(len(damaged)):
            if self.rng.random() < self.flip:
                damaged[i] ^= 1 << self.rng.randrange(8)
        chunks, pos = [], 0
        while pos < len(damaged):
            size = self.rng.randint(1, 16)
            chunks.append(bytes(damaged[pos : pos + size]))
            pos += size
        return chunks


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    flip=st.sampled_from([0.0, 0.0005, 0.002, 0.005]),
    lose=st.sampled_from([0.0, 0.02, 0.1]),
    drop=st.sampled_from([0.0, 0.03]),
    dup=st.sampled_from([0.0, 0.05]),
    reboot_at=st.one_of(st.none(), st.integers(1, 100)),
    stall_at=st.one_of(st.none(), st.integers(1, 100)),
)
def test_every_card_arrives_exactly_once_in_order_whatever_the_line_does(
    seed: int,
    flip: float,
    lose: float,
    drop: float,
    dup: float,
    reboot_at: int | None,
    stall_at: int | None,
) -> None:
    rng = random.Random(seed)
    cards = shoe_cards(DeckType.STANDARD_52, 2)
    rng.shuffle(cards)
    faults: list[FaultSpec] = []
    if drop:
        faults += [DropFrame(rate=drop), DropAck(rate=drop)]
    if dup:
        faults += [DuplicateFrame(rate=dup), DelayAck(rate=dup, delay_s=0.3)]
    if reboot_at is not None:
        faults.append(Reboot(at_draw=reboot_at))
    if stall_at is not None and stall_at != reboot_at:
        faults.append(Stall(duration_s=2.0, at_draw=stall_at))  # past the 1.5 s link loss
    shoe = EmulatedShoe(cards=cards, decks=2, seed=seed, faults=faults)
    link = Link(SHOE)
    to_host, to_device = Line(rng, flip, lose), Line(rng, flip, lose)
    events: list[DeviceEvent] = []
    draws: list[Draw] = []
    now = 100.0
    dealing = False

    def host_writes(data: bytes) -> None:
        for chunk in to_device.carry(data):
            for piece in to_host.carry(shoe.on_bytes(chunk, now)):
                host_reads(piece)

    def host_reads(data: bytes) -> None:
        out = link.receive(data, now)
        events.extend(out.events)
        host_writes(out.to_send)

    out = link.connection_made(now)
    events.extend(out.events)
    host_writes(out.to_send)
    end = now + 240.0
    while now < end:
        now = round(now + STEP_S, 6)
        dealing = dealing or link.state is LinkState.UP  # the dealer starts once it is up
        if dealing and len(draws) < len(cards) and shoe.queue_depth < 4 and rng.random() < 0.3:
            draws.append(shoe.draw())
        for piece in to_host.carry(shoe.tick(now)):
            host_reads(piece)
        out = link.tick(now)
        events.extend(out.events)
        host_writes(out.to_send)
        got = [e for e in events if isinstance(e, CardDrawn)]
        if len(got) == len(cards) and shoe.queue_depth == 0:
            break

    got = [e for e in events if isinstance(e, CardDrawn)]
    assert [(c.draw_no, c.card) for c in got] == [(d.draw_no, d.card) for d in draws]
    assert len(got) == len(cards), f"only {len(got)} of {len(cards)} cards by the end"
    power_ups = [e.boot_count for e in events if isinstance(e, PowerUp)]
    assert power_ups == ([1] if reboot_at is None else [1, 2])
    lost = [e for e in events if isinstance(e, LinkLost)]
    if stall_at is not None and reboot_at is None:  # (a reboot would end the hang early)
        assert lost, "a 2 s stall loses the link"
    for outage in lost:
        assert outage.last_reply_at is not None
        assert outage.at - outage.last_reply_at <= 1.5
