"""The TBL-21 behaviour every emulated device shares, driven with a fake clock."""

from __future__ import annotations

import pytest

from drivers.tbl21.events import DeviceState
from drivers.tbl21.framing import Frame, encode
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, SimConfigError
from sim_hardware.device import DeviceCore
from sim_hardware.faults import DropAck
from sim_hardware.testing import FakeHost


def booted(device: DeviceCore, *, auto_ack: bool = True) -> FakeHost:
    host = FakeHost(device, auto_ack=auto_ack)
    host.boot()
    return host


@pytest.mark.parametrize(
    ("device", "dev"),
    [(EmulatedShoe(), "S"), (EmulatedPeekReader(), "P"), (EmulatedPanel(), "B")],
    ids=["shoe", "peek", "panel"],
)
def test_every_device_sends_power_up_with_its_own_dev_code_at_boot(
    device: DeviceCore, dev: str
) -> None:
    host = FakeHost(device, auto_ack=False)
    frames = host.boot()
    assert [(f.dev, f.kind, f.payload, f.seq) for f in frames] == [(dev, "p", "1;PON", 0)]


def test_power_up_carries_the_configured_boot_count() -> None:
    host = FakeHost(EmulatedShoe(boot_count=41), auto_ack=False)
    assert host.boot()[0].payload == "41;PON"


def test_poll_is_answered_with_status_carrying_the_poll_seq() -> None:
    host = booted(EmulatedShoe(cards="AS KH 7C", decks=1))
    reply = host.command("Q", seq=0x2A)
    assert (reply.kind, reply.seq) == ("s", 0x2A)
    assert reply.payload == "IDLE;0002;00;00;0000;0003;U"


def test_status_after_time_sync_is_ready_with_the_flags_of_the_protocol_vector() -> None:
    host = booted(EmulatedShoe(cards="AS KH 7C", decks=1))
    assert host.command("T", "20261129T120000Z").kind == "s"
    state, flags, fault, depth, *_ = host.command("Q").fields
    assert (state, flags, fault, depth) == ("READY", "0023", "00", "00")


def test_identify_answers_model_serial_firmware_hash_and_boot_count() -> None:
    host = booted(EmulatedPanel(serial_no="PNL-7", fw_version="2.1.0", boot_count=3))
    model, serial_no, fw, fw_hash, boot = host.command("I").fields
    assert (model, serial_no, fw, boot) == ("SIM-PANEL", "PNL-7", "2.1.0", "3")
    assert len(fw_hash) == 16
    assert all(c in "0123456789abcdef" for c in fw_hash)


def test_a_malformed_time_is_refused_with_a_nak_and_time_stays_invalid() -> None:
    device = EmulatedShoe()
    host = booted(device)
    reply = host.command("T", "2026-11-29 12:00")
    assert (reply.kind, reply.payload) == ("n", "BAD_TIME")
    assert not device.time_valid


def test_disable_and_enable_change_state_and_the_enabled_flag() -> None:
    host = booted(EmulatedPeekReader())
    host.command("T", "20261129T120000Z")
    disabled = host.command("D")
    assert disabled.fields[0] == "DISABLED"
    assert int(disabled.fields[1], 16) & 0b10 == 0
    enabled = host.command("E")
    assert enabled.fields[0] == "READY"
    assert int(enabled.fields[1], 16) & 0b10


def test_an_unknown_command_gets_a_nak() -> None:
    reply = booted(EmulatedPanel()).command("Z")
    assert (reply.kind, reply.payload) == ("n", "UNKNOWN_COMMAND")


def test_a_frame_from_another_device_is_ignored_and_counted() -> None:
    device = EmulatedShoe()
    host = booted(device)
    assert host.send_bytes(encode(Frame("P", 1, "Q"))) == []
    assert device.stats["rx_not_from_host"] == 1


def test_events_carry_the_devices_own_seq_and_wrap_after_255() -> None:
    device = EmulatedPanel()
    host = booted(device)
    for _ in range(300):
        device.tap("HIT")
        host.advance(0.001)
    seqs = [f.seq for f in host.events("b")]
    assert len(seqs) == 600
    assert seqs[:3] == [1, 2, 3]  # 0 was the power-up
    assert seqs[254:257] == [255, 0, 1]


def test_an_unacknowledged_event_is_resent_identically_five_times_250ms_apart() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.ack(host.log[0])  # the power-up
    device.draw()
    frames = host.advance(3.0, step=0.01)
    cards = [f for f in frames if f.kind == "c"]
    assert len(cards) == 6  # the first send and 5 resends
    assert len({encode(f) for f in cards}) == 1
    assert device.stats["resent"] == 5


def test_after_five_resends_the_event_stays_queued_and_fault_0x50_is_reported() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.ack(host.log[0])
    device.draw()
    host.advance(3.0)
    assert device.queued_events[0].kind == "c"
    assert 0x50 in device.active_faults
    status = device.on_bytes(b"", host.now)  # nothing more is sent meanwhile
    assert status == b""
    assert host.advance(1.0) == []


def test_hearing_the_host_after_giving_up_resends_the_kept_event_and_clears_0x50() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.ack(host.log[0])
    device.draw()
    host.advance(3.0)
    frames = host.send("Q")
    assert [f.kind for f in frames] == ["s", "c"]
    raised = host.ack(frames[1])  # the ACK releases the fault events behind the card
    assert [(f.kind, f.payload) for f in raised] == [("f", "50;W;R;COMM_HOST_TIMEOUT")]
    cleared = host.ack(raised[0])
    assert [(f.kind, f.payload) for f in cleared] == [("f", "50;W;C;COMM_HOST_TIMEOUT")]
    assert 0x50 not in device.active_faults


def test_the_queue_keeps_at_least_64_events_while_the_host_is_silent() -> None:
    device = EmulatedPanel()
    host = booted(device, auto_ack=False)
    for _ in range(40):
        device.tap("D1_")
    host.advance(2.0)
    assert device.queue_depth >= 64
    assert device.stats["events_lost"] == 0
    assert [f.kind for f in device.queued_events[:2]] == ["p", "b"]


def test_a_nak_from_the_host_makes_the_device_resend_the_event_at_once() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.ack(host.log[0])
    device.draw()
    [card] = host.advance(0.01)
    again = host.send("N", "BAD_CRC")
    assert again == [card]


def test_an_ack_with_the_wrong_seq_does_not_release_the_event() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.send("A", seq=99)
    assert device.queued_events[0].kind == "p"
    assert device.stats["ack_ignored"] == 1


def test_after_5_s_without_the_host_the_device_goes_offline_and_keeps_its_queue() -> None:
    device = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(device, auto_ack=False)
    host.advance(4.9, step=0.1)
    before = device.state
    host.advance(0.2, step=0.1)
    assert (before, device.state) == (DeviceState.IDLE, DeviceState.OFFLINE)
    assert device.gate_locked
    assert [f.kind for f in device.queued_events] == ["p", "f"]


def test_polls_keep_the_device_online() -> None:
    device = EmulatedShoe()
    host = booted(device)
    for _ in range(20):
        host.advance(0.5, step=0.5)
        host.command("Q")
    assert device.state is not DeviceState.OFFLINE


def test_an_offline_device_comes_back_when_it_hears_the_host() -> None:
    device = EmulatedShoe()
    host = booted(device, auto_ack=False)
    host.advance(6.0, step=0.5)
    was_offline = device.offline
    reply = host.command("Q")
    assert was_offline
    assert reply.fields[0] == "IDLE"
    assert not device.offline
    assert not device.gate_locked


def test_a_repeated_command_is_answered_again_but_carried_out_once() -> None:
    device = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = booted(device)
    first = host.send("L", "1;52;0", seq=9)
    again = host.send("L", "1;52;0", seq=9)
    assert [f.kind for f in first] == ["s", "l"]
    assert [f.kind for f in again] == ["s"]
    assert again[0] == first[0]
    assert len(host.events("l")) == 1


def test_the_reply_to_a_command_goes_out_before_the_event_it_causes() -> None:
    host = booted(EmulatedPeekReader(hole_card="KS"))
    frames = host.send("K", "A")
    assert [f.kind for f in frames] == ["s", "k"]


def test_a_torn_frame_from_the_host_is_dropped_after_50_ms_and_the_next_one_answered() -> None:
    host = booted(EmulatedShoe())
    whole = encode(Frame("H", 3, "Q"))
    assert host.send_bytes(whole[:5]) == []
    host.advance(0.06)
    [reply] = host.send_bytes(encode(Frame("H", 4, "Q")))
    assert reply.seq == 4


def test_the_queue_capacity_must_be_at_least_64() -> None:
    with pytest.raises(SimConfigError, match="queue_capacity must be >= 64"):
        EmulatedPanel(queue_capacity=10)


def test_the_same_command_and_seq_long_after_is_a_new_command_not_a_retry() -> None:
    device = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = booted(device)
    host.send("L", "1;52;0", seq=9)
    host.advance(3.0, step=0.5)
    host.command("Q", seq=10)
    again = host.send("L", "1;52;0", seq=9)  # e.g. a restarted host counting from the same SEQ
    assert [f.kind for f in again] == ["s", "l"]


def test_a_retry_after_other_commands_is_still_a_retry_and_an_old_one_is_forgotten() -> None:
    device = EmulatedPanel()
    host = booted(device)
    first = host.send("L", "OK_;S;G", seq=20)
    host.advance(1.0, step=0.5)
    host.send("L", "HIT;S;G", seq=21)  # another command between the lost reply and the retry
    again = host.send("L", "OK_;S;G", seq=20)
    assert again == first  # the same reply, not carried out again
    host.advance(1.5, step=0.5)
    host.send("L", "STD;S;G", seq=22)  # the first is now 2.5 s old: out of the window
    assert [f.kind for f in host.send("L", "HIT;S;G", seq=21)] == ["s"]  # 1.5 s: still a retry
    assert device.stats["rx_repeated_command"] == 2
    host.advance(2.5, step=0.5)
    host.send("L", "OK_;S;G", seq=20)
    assert device.stats["rx_repeated_command"] == 2  # 4.5 s later: a new command


def test_an_ack_lost_on_the_line_does_not_count_as_hearing_the_host() -> None:
    device = EmulatedShoe(faults=[DropAck(rate=1.0)])
    host = booted(device)  # the host ACKs everything, the line loses every ACK
    host.advance(5.5, step=0.1)
    assert device.offline
