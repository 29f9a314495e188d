"""Fault injection: every item of protocol.md's last section, scripted as data."""

from __future__ import annotations

import pytest

from drivers.tbl21.framing import DecodeErrorKind, Frame, decode, encode
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, SimConfigError
from sim_hardware.faults import (
    CorruptByte,
    DelayAck,
    DropAck,
    DropFrame,
    DuplicateAck,
    DuplicateCard,
    DuplicateFrame,
    FaultSpec,
    ForeignCard,
    LidOpen,
    Misread,
    PeekAnswer,
    PeekMode,
    Pushback,
    Reboot,
    SplitWrites,
    Stall,
    StuckButton,
    Unplug,
    faults_from_list,
)
from sim_hardware.testing import FakeHost

FIVE = "AS KH 7C 2D 9S"


def shoe_host(*faults: FaultSpec, cards: str = FIVE, auto_ack: bool = True) -> FakeHost:
    host = FakeHost(EmulatedShoe(cards=cards, decks=1, faults=faults), auto_ack=auto_ack)
    host.boot()
    return host


def draw(host: FakeHost, times: int) -> None:
    assert isinstance(host.device, EmulatedShoe)
    for _ in range(times):
        host.device.draw()
        host.advance(0.01)


def card_events(host: FakeHost) -> list[str]:
    return [f"{f.fields[0]}@{int(f.fields[1])}" for f in host.events("c")]


def fault_events(host: FakeHost) -> list[str]:
    return [";".join(f.fields[:3]) for f in host.events("f")]


# ---- shoe -------------------------------------------------------------------------------------


def test_a_misread_sends_no_card_leaves_a_draw_number_gap_and_raises_0x10() -> None:
    host = shoe_host(Misread(draw=2))
    draw(host, 3)
    assert card_events(host) == ["AS@1", "7C@3"]
    assert fault_events(host) == ["10;W;R", "10;W;C"]


def test_a_foreign_card_is_sent_as_read_and_raises_0x13() -> None:
    host = shoe_host(ForeignCard(draw=2, card="QD"))
    draw(host, 3)
    assert card_events(host) == ["AS@1", "QD@2", "7C@3"]
    assert fault_events(host) == ["13;L;R"]


def test_a_duplicate_card_in_a_one_deck_shoe_raises_over_inventory() -> None:
    host = shoe_host(DuplicateCard(draw=3))
    draw(host, 3)
    assert card_events(host) == ["AS@1", "KH@2", "KH@3"]
    assert fault_events(host) == ["14;L;R"]


def test_a_duplicate_card_can_be_forced_to_raise_even_within_inventory() -> None:
    host = FakeHost(
        EmulatedShoe(
            cards=FIVE, decks=6, faults=[DuplicateCard(draw=2, card="9S", force_fault=True)]
        )
    )
    host.boot()
    draw(host, 2)
    assert card_events(host) == ["AS@1", "9S@2"]
    assert fault_events(host) == ["14;L;R"]


def test_a_pushback_raises_0x12_and_the_card_comes_again_under_the_next_draw_no() -> None:
    host = shoe_host(Pushback(draw=2))
    draw(host, 3)
    assert card_events(host) == ["AS@1", "KH@2", "KH@3"]
    assert fault_events(host) == ["12;L;R"]
    assert host.command("Q").fields[0] == "FAULT"


def test_the_lid_opening_while_dealing_is_a_lockup_and_closes_by_itself_later() -> None:
    host = shoe_host(LidOpen(at_draw=1, close_after_s=1.0))
    draw(host, 1)
    tamper = host.command("Q")
    host.advance(1.1, step=0.1)
    assert [f.payload for f in host.events("o")] == ["LID;O", "LID;C"]
    assert fault_events(host) == ["40;L;R", "40;L;C"]
    assert int(tamper.fields[1], 16) & (1 << 3)


def test_the_lid_opening_before_any_draw_is_a_warning() -> None:
    host = shoe_host(LidOpen(at_s=0.5))
    host.advance(0.6, step=0.1)
    assert fault_events(host) == ["40;W;R"]
    assert isinstance(host.device, EmulatedShoe)
    assert host.device.lid_open


def test_a_reboot_at_draw_n_tears_that_frame_keeps_the_queue_and_bumps_boot_count() -> None:
    host = shoe_host(Reboot(at_draw=2))
    draw(host, 1)
    first_card = host.events("c")[0]
    host.device.draw()  # type: ignore[attr-defined]
    host.advance(0.2)
    assert any(e.kind is DecodeErrorKind.STALE_PARTIAL for e in host.errors)
    assert host.device.boot_count == 2
    kinds = [(f.kind, f.payload.split(";")[0]) for f in host.log if f.is_event]
    assert kinds[-2:] == [("c", "KH"), ("p", "2")]  # the kept event first, then power-up
    assert host.events("c")[-1].seq == first_card.seq + 1
    assert host.events("p")[-1].payload == "2;WDT"


def test_a_reboot_keeps_unacknowledged_events_with_their_original_seq() -> None:
    host = shoe_host(auto_ack=False)
    host.ack(host.log[0])
    draw(host, 1)
    [card] = host.events("c")
    host.device.reboot("BRN")
    resent = host.advance(0.01)
    assert resent[0] == card
    assert host.ack(card)[0].payload == "2;BRN"


# ---- every device: the wire -------------------------------------------------------------------


def test_a_dropped_ack_makes_the_device_resend_the_event() -> None:
    host = shoe_host(DropAck(nth=2))  # the 1st ACK is the power-up's, the 2nd the card's
    draw(host, 1)
    host.advance(0.3)
    assert card_events(host) == ["AS@1", "AS@1"]
    assert host.device.queue_depth == 0


def test_a_duplicated_ack_releases_one_event_only() -> None:
    device = EmulatedShoe(cards=FIVE, decks=1, faults=[DuplicateAck(nth=2)])
    host = FakeHost(device, auto_ack=False)
    host.boot()
    host.ack(host.log[0])
    device.draw()
    device.draw()
    [first] = host.advance(0.01)
    [second] = host.ack(first)  # processed twice: the second copy must not release it
    assert second.payload.startswith("KH")
    assert device.queue_depth == 1
    assert device.stats["ack_ignored"] == 1


def test_a_delayed_ack_means_the_host_gets_the_event_twice_and_the_queue_moves_on() -> None:
    device = EmulatedShoe(cards=FIVE, decks=1, faults=[DelayAck(nth=2, delay_s=0.4)])
    host = FakeHost(device)
    host.boot()
    device.draw()
    host.advance(0.5)
    assert card_events(host) == ["AS@1", "AS@1"]
    assert device.queue_depth == 0


def test_a_dropped_frame_never_reaches_the_host_and_is_resent() -> None:
    host = shoe_host(DropFrame(nth=1, kind="c"))
    draw(host, 1)
    assert card_events(host) == []
    host.advance(0.3)
    assert card_events(host) == ["AS@1"]


def test_a_duplicated_frame_reaches_the_host_twice_identically() -> None:
    host = shoe_host(DuplicateFrame(nth=1, kind="c"), auto_ack=False)
    host.ack(host.log[0])
    draw(host, 1)
    cards = host.events("c")
    assert len(cards) == 2
    assert cards[0] == cards[1]


def test_a_corrupted_byte_fails_the_crc_and_the_event_comes_again_intact() -> None:
    host = shoe_host(CorruptByte(frame=1, byte=8, kind="c"))
    draw(host, 1)
    assert card_events(host) == []
    assert DecodeErrorKind.BAD_CRC in [e.kind for e in host.errors]
    host.advance(0.3)
    assert card_events(host) == ["AS@1"]


def test_a_corrupted_byte_past_the_end_of_the_frame_is_reported_not_applied() -> None:
    device = EmulatedShoe(faults=[CorruptByte(frame=1, byte=500)])
    FakeHost(device).boot()
    size = len(encode(Frame("S", 0, "p", "1;PON")))
    assert device.problems == [f"CorruptByte: frame 1 has {size} bytes, no byte 500"]


def test_split_writes_come_out_in_small_chunks_that_still_decode_to_the_same_frames() -> None:
    device = EmulatedShoe(cards=FIVE, decks=1, faults=[SplitWrites(max_chunk=3, max_gap_s=0.002)])
    chunks = [device.tick(0.0)]
    device.on_bytes(encode(Frame("H", 0, "A")), 0.0)
    for step in range(1, 400):
        chunks.append(device.tick(step * 0.0005))
        if step == 50:
            device.draw()
    pieces = [c for c in chunks if c]
    assert len(pieces) >= 10  # two frames of 14 and 24 bytes, spread over many ticks
    frames = decode(b"".join(pieces)).frames
    assert [f.kind for f in frames][:2] == ["p", "c"]


def test_a_stall_longer_than_the_heartbeat_answers_nothing_then_recovers() -> None:
    host = shoe_host(Stall(at_s=1.0, duration_s=2.0))
    host.advance(1.0)
    assert host.send("Q") == []
    host.advance(1.0)
    assert host.send("Q") == []
    host.advance(1.1)
    assert host.command("Q").kind == "s"
    assert host.device.boot_count == 1


def test_a_stall_can_end_in_a_watchdog_reboot() -> None:
    host = shoe_host(Stall(duration_s=1.0, then_reboot=True))
    host.advance(1.2)
    assert host.events("p")[-1].payload == "2;WDT"


def test_an_unplug_for_a_while_disconnects_then_reconnects_with_a_power_cycle() -> None:
    host = shoe_host(Unplug(at_s=0.5, duration_s=1.0, power_cycle=True))
    host.advance(0.6)
    unplugged = host.device.cable_connected
    assert host.send("Q") == []
    host.advance(1.0)
    assert not unplugged
    assert host.device.cable_connected
    assert host.events("p")[-1].payload == "2;PON"


def test_an_unplug_at_draw_n_disconnects_right_after_that_card() -> None:
    host = shoe_host(Unplug(at_draw=2))
    draw(host, 2)
    assert not host.device.cable_connected
    assert card_events(host) == ["AS@1"]


# ---- panel and peek ---------------------------------------------------------------------------


def test_a_stuck_button_is_pressed_held_and_reported_as_0x70_until_released() -> None:
    panel = EmulatedPanel(faults=[StuckButton("DEA", at_s=0.1, stuck_after_s=3.0)])
    host = FakeHost(panel)
    host.boot()
    host.advance(3.5, step=0.1)
    assert [f.payload[:5] for f in host.events("b")] == ["DEA;P", "DEA;H"]
    assert [f.payload for f in host.events("f")] == ["70;W;R;BUTTON_STUCK DEA"]
    panel.release("DEA")
    host.advance(0.01)
    assert host.events("b")[-1].payload.startswith("DEA;R;")
    assert host.events("f")[-1].payload == "70;W;C;BUTTON_STUCK"


def test_a_peek_told_to_answer_unreadable_does_so() -> None:
    reader = EmulatedPeekReader(hole_card="AS", faults=[PeekAnswer(PeekMode.UNREADABLE)])
    host = FakeHost(reader)
    host.boot()
    host.send("K", "T")
    assert [f.fields[0] for f in host.events("k")] == ["U"]


def test_a_peek_answer_can_disagree_with_the_real_hole_card() -> None:
    reader = EmulatedPeekReader(hole_card="AS", faults=[PeekAnswer(PeekMode.LIE)])
    host = FakeHost(reader)
    host.boot()
    host.send("K", "T")
    assert reader.answers == ["N"]  # the real card makes blackjack with a ten up


# ---- specs are checked ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (DropAck, "give nth"),
        (lambda: DropAck(nth=1, rate=0.5), "not both"),
        (lambda: DropFrame(rate=1.5), "within 0..1"),
        (lambda: Misread(draw=0), "1-based"),
        (lambda: ForeignCard(draw=1, card="ZZ"), "ForeignCard: card 'ZZ'"),
        (lambda: DuplicateCard(draw=1), "draw 1 has no card before it"),
        (lambda: Reboot(reason="OOPS"), "PON, WDT, BRN or SW"),
        (lambda: Reboot(at_draw=1, at_s=1.0), "not both"),
        (lambda: CorruptByte(frame=1, byte=-1), "0-based"),
        (lambda: DropFrame(nth=1, kind="cc"), "one TYPE letter"),
        (lambda: StuckButton("DEA", stuck_after_s=1.0), ">= 2.0"),
        (lambda: Stall(duration_s=0), "> 0"),
    ],
)
def test_an_impossible_fault_spec_is_refused_with_a_reason(make: object, says: str) -> None:
    with pytest.raises(SimConfigError, match=says):
        make()  # type: ignore[operator]


def test_a_device_refuses_a_fault_it_cannot_have() -> None:
    with pytest.raises(SimConfigError, match="EmulatedPanel cannot take Misread"):
        EmulatedPanel(faults=[Misread(draw=1)])


def test_a_draw_moment_needs_a_shoe() -> None:
    with pytest.raises(SimConfigError, match=r"at_draw=\.\.\.\) needs a shoe"):
        EmulatedPeekReader().inject(Reboot(at_draw=3))


# ---- specs from plain data (scenario or lab files) ---------------------------------------------


def test_fault_specs_can_be_written_as_plain_data() -> None:
    specs = faults_from_list(
        [
            {"fault": "misread", "draw": 3},
            {"fault": "peek_answer", "mode": "lie", "count": None},
            {"fault": "delay_ack", "rate": 0.1, "delay_s": 1},
            {"fault": "reboot", "at_draw": 60, "reason": "BRN"},
        ],
        where="lab.yaml",
    )
    assert specs == [
        Misread(draw=3),
        PeekAnswer(PeekMode.LIE, count=None),
        DelayAck(rate=0.1, delay_s=1.0),
        Reboot(at_draw=60, reason="BRN"),
    ]


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"fault": "misreed", "draw": 3}, r"lab.yaml, entry 1: 'fault' must be one of misread"),
        ({"fault": "misread", "drew": 3}, r"misread has no key 'drew'; its keys are draw"),
        ({"fault": "misread"}, r"misread needs draw"),
        ({"fault": "misread", "draw": "3"}, r"misread.draw must be a whole number, got '3'"),
        ({"fault": "stall", "duration_s": True}, r"stall.duration_s must be a number"),
        ({"fault": "peek_answer", "mode": "fib"}, r"peek_answer.mode must be one of honest"),
        ({"fault": "duplicate_card", "draw": 2, "force_fault": 1}, r"must be true or false"),
    ],
)
def test_a_bad_fault_entry_names_the_file_entry_key_and_what_is_allowed(
    entry: dict[str, object], says: str
) -> None:
    with pytest.raises(SimConfigError, match=says):
        faults_from_list([entry], where="lab.yaml")
