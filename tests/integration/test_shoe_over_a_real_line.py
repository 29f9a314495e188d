"""The shoe driver over an emulated shoe, in-process (``sim://``) and on a real pty.

Each test body runs against both backends (the ``backend`` fixture). Real time is unavoidable:
every wait ends as soon as its event arrives, and the bounds are generous except the one the
protocol sets (link loss within 1.5 s of the last reply), which is measured, not slept.
"""

from __future__ import annotations

import queue
import random
import time
from typing import TypeVar

import pytest

from drivers.shoe import ShoeDriver
from drivers.tbl21.cards import Card, DeckType, shoe_cards
from drivers.tbl21.events import (
    CardDrawn,
    DeviceEvent,
    DeviceIdentified,
    LinkLost,
    LinkRestored,
    PowerUp,
    ProtocolViolation,
)
from sim_hardware import Draw, EmulatedShoe
from sim_hardware.faults import (
    CorruptByte,
    DelayAck,
    DropAck,
    DuplicateAck,
    DuplicateFrame,
    Reboot,
    SplitWrites,
)

from .conftest import Backend

E = TypeVar("E", bound=DeviceEvent)
WAIT_S = 10.0
QUIET_S = 0.6  # longer than a device resend (250 ms): a duplicate would show up by then


class Dealer:
    """Draws cards from the emulated shoe (pacing to its queue, as a dealer's hand would) and
    gathers what the driver puts on the event queue."""

    def __init__(self, shoe: EmulatedShoe, events: queue.Queue[DeviceEvent]) -> None:
        self.shoe = shoe
        self.events = events
        self.draws: list[Draw] = []
        self.seen: list[DeviceEvent] = []

    @property
    def cards(self) -> list[CardDrawn]:
        return [e for e in self.seen if isinstance(e, CardDrawn)]

    def of(self, cls: type[E]) -> list[E]:
        return [e for e in self.seen if isinstance(e, cls)]

    def pump(self, timeout: float = 0.02) -> None:
        try:
            self.seen.append(self.events.get(timeout=timeout))
        except queue.Empty:
            return
        while True:
            try:
                self.seen.append(self.events.get_nowait())
            except queue.Empty:
                return

    def deal(self, count: int, timeout: float = WAIT_S * 3) -> None:
        """Draw ``count`` cards and wait until as many CardDrawn have arrived, then a quiet
        spell so that any duplicate would have arrived too."""
        target = len(self.draws) + count
        end = time.monotonic() + timeout
        while len(self.cards) < target and time.monotonic() < end:
            while len(self.draws) < target and self.shoe.queue_depth < 8:
                self.draws.append(self.shoe.draw())
            self.pump()
        quiet_end = time.monotonic() + QUIET_S
        while time.monotonic() < quiet_end:
            self.pump()

    def wait_for(self, cls: type[E], after: int = 0) -> E:
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            found = self.of(cls)[after:]
            if found:
                return found[0]
            self.pump()
        pytest.fail(f"no {cls.__name__} within {WAIT_S} s")

    def assert_each_card_once_in_draw_order(self) -> None:
        assert [c.draw_no for c in self.cards] == [d.draw_no for d in self.draws]
        assert [c.card for c in self.cards] == [d.card for d in self.draws]
        assert [c.draw_no for c in self.cards] == list(range(1, len(self.draws) + 1))


def shoe_of(count: int, seed: int) -> list[Card]:
    cards = shoe_cards(DeckType.STANDARD_52, 8) * 2
    random.Random(seed).shuffle(cards)
    return cards[:count]


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    return queue.Queue()


def test_500_cards_arrive_once_each_in_draw_order_over_a_noisy_line(
    backend: Backend, events: queue.Queue[DeviceEvent]
) -> None:
    """Writes split at random, ACKs dropped, duplicated and delayed, frames sent twice, and
    card frames damaged in the STX, LEN, payload, CRC and ETX bytes."""
    shoe = EmulatedShoe(
        cards=shoe_of(500, seed=5),
        decks=8,
        seed=5,
        faults=[
            SplitWrites(max_chunk=5, max_gap_s=0.001),
            DropAck(rate=0.02),
            DuplicateAck(rate=0.03),
            DelayAck(rate=0.006, delay_s=0.3),
            DuplicateFrame(rate=0.03),
            *(
                CorruptByte(frame=n, byte=b, kind="c")
                for n, b in ((50, 0), (120, 1), (200, 8), (300, 21), (400, 23))
            ),
        ],
    )
    url = backend.serve(shoe)
    dealer = Dealer(shoe, events)
    with ShoeDriver(url, events) as driver:
        driver.wait_identified(WAIT_S)
        dealer.deal(500)
        assert driver.stats.duplicates > 0, "the noise did reach the driver"
    assert len(dealer.draws) == 500
    dealer.assert_each_card_once_in_draw_order()
    assert dealer.of(ProtocolViolation) == []
    assert dealer.of(LinkLost) == [], "noise is not an outage"
    assert shoe.stats["ack_dropped"] > 0
    assert shoe.stats["tx_duplicated"] > 0
    assert shoe.stats["tx_corrupted"] == 5


def test_an_unplugged_shoe_is_lost_within_1_5s_and_restored_with_nothing_lost(
    backend: Backend, events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(cards=shoe_of(30, seed=8), decks=8)
    url = backend.serve(shoe)
    dealer = Dealer(shoe, events)
    with ShoeDriver(url, events) as driver:
        driver.wait_identified(WAIT_S)
        dealer.deal(10)
        unplugged_at = time.monotonic()
        shoe.unplug()
        lost = dealer.wait_for(LinkLost)
        assert lost.last_reply_at is not None
        assert lost.at - lost.last_reply_at <= 1.5
        assert lost.at - unplugged_at <= 1.5
        dealer.draws += [shoe.draw() for _ in range(3)]  # dealt while the cable is out
        time.sleep(0.3)
        shoe.replug()
        restored = dealer.wait_for(LinkRestored)
        assert restored.at > lost.at
        assert len(dealer.of(DeviceIdentified)) == 2
        dealer.deal(10)
    assert len(dealer.of(LinkLost)) == 1
    dealer.assert_each_card_once_in_draw_order()


def test_a_silent_shoe_is_lost_after_three_missed_polls_and_restored_when_it_answers(
    backend: Backend, events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(cards=shoe_of(20, seed=9), decks=8)
    url = backend.serve(shoe)
    dealer = Dealer(shoe, events)
    with ShoeDriver(url, events) as driver:
        driver.wait_identified(WAIT_S)
        dealer.deal(5)
        shoe.stall(2.0)
        lost = dealer.wait_for(LinkLost)
        assert "missed" in lost.reason
        assert lost.last_reply_at is not None
        assert lost.at - lost.last_reply_at <= 1.5
        dealer.wait_for(LinkRestored)
        dealer.deal(5)
    dealer.assert_each_card_once_in_draw_order()


def test_a_reboot_mid_stream_is_seen_from_the_power_up_and_nothing_applies_twice(
    backend: Backend, events: queue.Queue[DeviceEvent]
) -> None:
    shoe = EmulatedShoe(
        cards=shoe_of(120, seed=12),
        decks=8,
        seed=12,
        boot_count=4,
        faults=[Reboot(at_draw=60), SplitWrites(max_chunk=6), DropAck(rate=0.05)],
    )
    url = backend.serve(shoe)
    dealer = Dealer(shoe, events)
    with ShoeDriver(url, events) as driver:
        driver.wait_identified(WAIT_S)
        dealer.deal(120)
        identity = driver.identity
    power_ups = dealer.of(PowerUp)
    assert [p.boot_count for p in power_ups] == [4, 5]
    reboot = dealer.seen.index(power_ups[1])
    drawn_before = [e.draw_no for e in dealer.seen[:reboot] if isinstance(e, CardDrawn)]
    assert drawn_before[-1] >= 60, "the events kept from before the reboot come first"
    assert identity is not None
    assert identity.boot_count == 5, "identified again after the reboot"
    dealer.assert_each_card_once_in_draw_order()
