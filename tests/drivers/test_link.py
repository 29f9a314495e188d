"""The sans-IO link core, driven by a fake clock and hand-made device frames."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TypeVar

import pytest
from structlog.testing import capture_logs

from drivers.errors import (
    CommandError,
    CommandRejectedError,
    DeviceTimeoutError,
    LinkDownError,
    WrongDeviceError,
)
from drivers.link import Link, LinkConfig, LinkState, Output, PendingCommand
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    CardDrawn,
    CommandFailed,
    DeviceEvent,
    DeviceIdentified,
    DeviceRef,
    DeviceRefused,
    DeviceStatus,
    DeviceStatusReport,
    DeviceType,
    FrameEvent,
    LinkLost,
    LinkRestored,
    PowerUp,
    PowerUpReason,
    ProtocolViolation,
    ViolationKind,
)
from drivers.tbl21.framing import Frame, decode, encode

E = TypeVar("E", bound=DeviceEvent)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
IDENT = "TBL21-SHOE;SN0001;1.0.0;0123456789ABCDEF;7"
STATUS = "READY;0023;00;00;0042;0371;U"


def host_frames(data: bytes) -> list[Frame]:
    consumed, frames, errors = decode(data)
    assert (consumed, errors) == (len(data), [])
    return frames


def card(seq: int, draw_no: int, rank_suit: str = "AS") -> bytes:
    return encode(Frame("S", seq, "c", f"{rank_suit};{draw_no:04d};{400 - draw_no:04d};97"))


class Harness:
    """A link plus a fake clock; ``sent`` keeps every host frame with the time it was sent."""

    def __init__(
        self,
        device: DeviceRef = SHOE,
        resume: tuple[int, int] | None = None,
        config: LinkConfig | None = None,
    ) -> None:
        self.link = Link(device, config, resume=resume)
        self.now = 0.0
        self.sent: list[tuple[float, Frame]] = []
        self.events: list[DeviceEvent] = []
        self.answer_polls = True

    def _take(self, out: Output) -> list[Frame]:
        frames = host_frames(out.to_send)
        self.sent += [(self.now, f) for f in frames]
        self.events += out.events
        return frames

    def connect(self) -> list[Frame]:
        return self._take(self.link.connection_made(self.now))

    def feed(self, data: bytes) -> list[Frame]:
        return self._take(self.link.receive(data, self.now))

    def up(self) -> None:
        (ident,) = self.connect()
        assert ident.kind == "I"
        self.feed(encode(Frame("S", ident.seq, "i", IDENT)))
        assert self.state() is LinkState.UP

    def state(self) -> LinkState:
        return self.link.state

    def run(self, seconds: float, step: float = 0.01) -> None:
        """Let time pass in small steps, answering polls while ``answer_polls`` is set."""
        end = self.now + seconds
        while self.now < end - 1e-9:
            self.now = round(self.now + step, 6)
            for frame in self._take(self.link.tick(self.now)):
                if self.answer_polls and frame.kind == "Q":
                    self.feed(encode(Frame("S", frame.seq, "s", STATUS)))

    def run_by_deadline(self, seconds: float) -> None:
        """Let time pass jumping from one ``next_deadline()`` to the next (as the driver's thread
        sleeps), answering polls while ``answer_polls`` is set."""
        end = self.now + seconds
        while (due := self.link.next_deadline()) is not None and due <= end:
            assert due > self.now, "after the timers ran, the next one lies ahead"
            self.now = due
            for frame in self._take(self.link.tick(self.now)):
                if self.answer_polls and frame.kind == "Q":
                    self.feed(encode(Frame("S", frame.seq, "s", STATUS)))
        self.now = end

    def command(self, kind: str, payload: str = "") -> tuple[PendingCommand, list[Frame]]:
        pending, out = self.link.command(kind, payload, self.now)
        return pending, self._take(out)

    def of(self, kind: str) -> list[tuple[float, Frame]]:
        return [(t, f) for t, f in self.sent if f.kind == kind]

    def events_of(self, cls: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, cls)]


@pytest.fixture
def h() -> Harness:
    harness = Harness()
    harness.up()
    return harness


# --- identification --------------------------------------------------------------------------


def test_connect_identifies_the_device_at_once_and_reports_it() -> None:
    h = Harness()
    (ident,) = h.connect()
    assert ident == Frame("H", ident.seq, "I")
    h.feed(encode(Frame("S", ident.seq, "i", IDENT)))
    (identified,) = h.events_of(DeviceIdentified)
    assert (identified.model, identified.serial, identified.fw_hash, identified.boot_count) == (
        "TBL21-SHOE",
        "SN0001",
        "0123456789ABCDEF",
        7,
    )
    assert h.state() is LinkState.UP


def test_a_device_of_another_type_is_refused_and_left_alone() -> None:
    h = Harness()
    (ident,) = h.connect()
    pending, _ = h.command("E")
    h.feed(encode(Frame("P", ident.seq, "i", "TBL21-PEEK;SN9;1.0.0;0123456789ABCDEF;1")))
    (refused,) = h.events_of(DeviceRefused)
    assert "not a shoe" in refused.reason
    assert h.state() is LinkState.REFUSED
    assert isinstance(pending.error, WrongDeviceError)
    sent_before = len(h.sent)
    h.run(3.0)
    assert len(h.sent) == sent_before, "nothing more is sent to a refused device"
    assert h.events_of(CardDrawn) == []


def test_a_changed_firmware_on_re_identification_is_flagged(h: Harness) -> None:
    pending, (frame,) = h.command("I")
    h.feed(encode(Frame("S", frame.seq, "i", "TBL21-SHOE;SN0001;1.0.1;FFFF456789ABCDEF;7")))
    assert [e.changed for e in h.events_of(DeviceIdentified)] == [False, True]
    assert pending.result is not None


# --- events: ACK, duplicates, order ------------------------------------------------------------


def test_every_event_is_acknowledged_with_its_own_seq(h: Harness) -> None:
    raw = bytes.fromhex("02 13 01 53 07 63 41 53 3B 30 30 34 32 3B 30 33 37 31 3B 39 37 1B F4 03")
    ack = h.link.receive(raw, h.now).to_send
    assert ack == bytes.fromhex("02 04 01 48 07 41 9A EF 03")  # the protocol's vector


def test_a_card_event_becomes_one_card_drawn(h: Harness) -> None:
    h.feed(card(7, 42))
    (drawn,) = h.events_of(CardDrawn)
    assert (drawn.card, drawn.draw_no, drawn.remaining, drawn.quality, drawn.seq) == (
        Card.parse("AS"),
        42,
        358,
        97,
        7,
    )
    assert drawn.device == SHOE


def test_a_duplicate_event_is_acknowledged_again_but_emitted_once(h: Harness) -> None:
    acks = [f for f in h.feed(card(7, 42)) if f.kind == "A"]
    acks += [f for f in h.feed(card(7, 42)) if f.kind == "A"]
    assert [a.seq for a in acks] == [7, 7]
    assert len(h.events_of(CardDrawn)) == 1
    assert h.link.stats.duplicates == 1


def test_a_new_boot_count_starts_a_new_epoch_for_duplicate_suppression(h: Harness) -> None:
    h.feed(encode(Frame("S", 40, "p", "7;PON")))
    h.feed(card(41, 1))
    h.feed(encode(Frame("S", 0, "p", "8;WDT")))  # rebooted; its SEQ counter restarted
    h.feed(card(1, 2))  # SEQ 1 is "old" in the previous epoch, new in this one
    h.feed(encode(Frame("S", 0, "p", "8;WDT")))  # the power-up again (ACK lost): applied once
    assert [(e.boot_count, e.reason) for e in h.events_of(PowerUp)] == [
        (7, PowerUpReason.POWER_ON),
        (8, PowerUpReason.WATCHDOG),
    ]
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2]
    assert h.link.epoch == (8, 1)


def test_a_power_up_with_a_new_boot_count_makes_the_host_identify_again(h: Harness) -> None:
    h.feed(encode(Frame("S", 3, "p", "7;PON")))  # the boot it was identified in: nothing to do
    assert [f.kind for _, f in h.sent[-1:]] == ["A"]
    frames = h.feed(encode(Frame("S", 4, "p", "8;WDT")))
    assert [f.kind for f in frames] == ["A", "I"]
    h.feed(encode(Frame("S", frames[1].seq, "i", IDENT.replace(";7", ";8"))))
    assert [e.boot_count for e in h.events_of(DeviceIdentified)] == [7, 8]


def test_a_late_copy_of_an_older_power_up_changes_nothing(h: Harness) -> None:
    h.feed(encode(Frame("S", 0, "p", "7;PON")))
    h.feed(encode(Frame("S", 1, "p", "8;WDT")))
    frames = h.feed(encode(Frame("S", 0, "p", "7;PON")))  # a copy still on its way
    assert [(f.kind, f.seq) for f in frames] == [("A", 0)]
    h.feed(card(2, 1))
    assert [e.boot_count for e in h.events_of(PowerUp)] == [7, 8]
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1]
    assert h.link.epoch == (8, 2)


def test_another_unit_on_the_port_starts_afresh(h: Harness) -> None:
    h.feed(card(50, 1))
    _, (ident,) = h.command("I")
    h.feed(encode(Frame("S", ident.seq, "i", "TBL21-SHOE;SN0002;1.0.0;0123456789ABCDEF;3")))
    h.feed(card(0, 1))  # the new unit numbers its events from 0
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 1]


def test_a_gap_the_device_cannot_fill_is_reported_and_then_passed(h: Harness) -> None:
    h.feed(card(10, 1))
    tolerance = h.link.config.gap_tolerance
    for _ in range(tolerance):  # the device resends 12 and never has 11
        h.run(0.25)
        assert "A" not in [f.kind for f in h.feed(card(12, 3))]
    frames = h.feed(card(12, 3))
    assert ("A", 12) in [(f.kind, f.seq) for f in frames]
    (violation,) = h.events_of(ProtocolViolation)
    assert violation.kind is ViolationKind.SEQ_GAP
    assert "SEQ 11..11 never arrived" in violation.detail
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 3]


def test_in_confirm_mode_an_event_is_acked_only_once_the_consumer_confirms_it() -> None:
    h = Harness(config=LinkConfig(confirm_events=True))
    h.up()
    assert h.feed(card(5, 1)) == [], "passed on, not acknowledged yet"
    (drawn,) = h.events_of(CardDrawn)
    h.now += 0.25
    assert h.feed(card(5, 1)) == [], "the device's resend is neither acked nor passed on again"
    assert len(h.events_of(CardDrawn)) == 1
    frames = h._take(h.link.confirm(drawn.seq, h.now))
    assert [(f.kind, f.seq) for f in frames] == [("A", 5)]
    assert [(f.kind, f.seq) for f in h.feed(card(5, 1))] == [("A", 5)], "a late copy: acked"
    assert h._take(h.link.confirm(5, h.now)) == [], "a second confirm sends nothing"


def test_in_confirm_mode_a_declined_event_is_passed_on_again_when_resent_in_order() -> None:
    """The consumer's journal failed: the event is not acked, and the device's next copies of
    it and of the one after it come again, in SEQ order (a frozen table is the alternative)."""
    h = Harness(config=LinkConfig(confirm_events=True))
    h.up()
    h.feed(card(5, 1))
    h.feed(card(6, 2))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2]
    assert h._take(h.link.decline(5, h.now)) == [], "declined: no ack"
    assert h._take(h.link.decline(6, h.now)) == []
    h.now += 0.25
    assert h.feed(card(5, 1)) == []
    assert h.feed(card(6, 2)) == []
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2, 1, 2]
    frames = h._take(h.link.confirm(5, h.now)) + h._take(h.link.confirm(6, h.now))
    assert [(f.kind, f.seq) for f in frames] == [("A", 5), ("A", 6)]
    assert h._take(h.link.decline(6, h.now)) == [], "a confirmed event cannot be declined"
    assert [(f.kind, f.seq) for f in h.feed(card(6, 2))] == [("A", 6)]


def test_events_carry_the_boot_they_belong_to(h: Harness) -> None:
    h.feed(card(1, 1))  # before any p: the boot the device identified with
    h.feed(encode(Frame("S", 2, "p", "8;SW")))
    h.feed(card(3, 2))
    assert [(type(e).__name__, e.boot) for e in h.events_of(FrameEvent)] == [
        ("CardDrawn", 7),
        ("PowerUp", 8),
        ("CardDrawn", 8),
    ]


def test_a_driver_resumed_from_the_journal_applies_nothing_twice() -> None:
    h = Harness(resume=(7, 41))
    h.up()
    acks = [f for f in h.feed(card(41, 90)) if f.kind == "A"]  # applied before the restart
    assert [a.seq for a in acks] == [41]
    h.feed(card(42, 91))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [91]


def test_an_event_that_skips_a_seq_is_not_acked_and_the_missing_one_is_asked_for(
    h: Harness,
) -> None:
    h.feed(card(10, 1))
    frames = h.feed(card(12, 3))
    assert [(f.kind, f.seq) for f in frames] == [("N", 11)]
    h.feed(card(11, 2))
    h.feed(card(12, 3))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2, 3]


def test_event_seq_wraps_from_255_to_0(h: Harness) -> None:
    h.feed(card(255, 1))
    h.feed(card(0, 2))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2]


# --- rejected input ------------------------------------------------------------------------------


def test_a_frame_from_another_device_type_is_rejected_and_reported(h: Harness) -> None:
    frames = h.feed(encode(Frame("P", 3, "c", "AS;0001;0311;97")))
    assert frames == []  # not acknowledged
    (violation,) = h.events_of(ProtocolViolation)
    assert violation.kind is ViolationKind.DEV_MISMATCH
    assert h.events_of(CardDrawn) == []
    assert h.link.stats.rejected_frames == 1


@pytest.mark.parametrize(
    "payload",
    [
        "AX;0042;0371;97",  # no such suit
        "1S;0042;0371;97",  # ten is T
        "as;0042;0371;97",  # lower case
        "AS;42;0371;97",  # draw_no not 4 digits
        "AS;0042;371;97",
        "AS;0042;0371;9",
        "AS;0042;0371",  # a field missing
        "AS;0042;0371;97;1",
        "",
        "AS;00x2;0371;97",
    ],
)
def test_a_malformed_card_payload_is_reported_and_no_card_is_invented(
    h: Harness, payload: str
) -> None:
    frames = h.feed(encode(Frame("S", 9, "c", payload)))
    assert [(f.kind, f.seq) for f in frames] == [("A", 9)]  # acknowledged so the device moves on
    (violation,) = h.events_of(ProtocolViolation)
    assert violation.kind is ViolationKind.MALFORMED_PAYLOAD
    assert payload in violation.detail
    assert h.events_of(CardDrawn) == []


def test_an_event_type_the_device_does_not_send_is_reported(h: Harness) -> None:
    h.feed(encode(Frame("S", 9, "k", "Y;99")))  # a peek result from the shoe
    (violation,) = h.events_of(ProtocolViolation)
    assert violation.kind is ViolationKind.UNKNOWN_TYPE


def test_garbage_bytes_are_counted_and_never_trusted(h: Harness) -> None:
    h.feed(b"\x00hello\xff" + card(1, 1) + b"junk")
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1]
    assert h.link.stats.garbage_bytes == len(b"\x00hello\xff") + len(b"junk")


def test_a_damaged_event_frame_is_nakked_and_the_resend_accepted(h: Harness) -> None:
    h.feed(card(4, 1))
    damaged = bytearray(card(5, 2))
    damaged[8] ^= 0x01  # flip a payload bit: the CRC fails
    frames = h.feed(bytes(damaged))
    assert [(f.kind, f.seq) for f in frames] == [("N", 5)]
    h.feed(card(5, 2))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2]


# --- commands --------------------------------------------------------------------------------


def test_a_command_is_resolved_by_its_status_reply(h: Harness) -> None:
    pending, (frame,) = h.command("G", "L")
    assert (frame.kind, frame.payload) == ("G", "L")
    h.feed(encode(Frame("S", frame.seq, "s", "READY;0063;00;00;0000;0312;L")))
    assert pending.done
    assert isinstance(pending.result, DeviceStatusReport)
    assert pending.result.specific == ("0000", "0312", "L")
    assert h.events_of(DeviceStatus)


def test_a_command_refused_by_the_device_fails_with_its_reason(h: Harness) -> None:
    pending, (frame,) = h.command("L", "6;52;0")
    h.feed(encode(Frame("S", frame.seq, "n", "ROUND_OPEN")))
    assert isinstance(pending.error, CommandRejectedError)
    assert pending.error.reason == "ROUND_OPEN"
    (failed,) = h.events_of(CommandFailed)
    assert failed.command == "L"


def test_an_unanswered_command_is_resent_3_times_250ms_apart_then_fails(h: Harness) -> None:
    pending, _ = h.command("E")
    h.run(2.0)  # polls are answered, so the link stays up
    sends = h.of("E")
    assert len(sends) == 4
    assert len({f.seq for _, f in sends}) == 1, "a resend is the identical frame"
    gaps = [round(b[0] - a[0], 3) for a, b in itertools.pairwise(sends)]
    assert gaps == [0.25, 0.25, 0.25]
    assert isinstance(pending.error, DeviceTimeoutError)
    assert not isinstance(pending.error, LinkDownError)
    assert h.state() is LinkState.UP
    assert len(h.events_of(CommandFailed)) == 1


def test_commands_go_out_one_at_a_time_in_submission_order(h: Harness) -> None:
    first, (f1,) = h.command("G", "L")
    second, more = h.command("G", "U")
    assert more == [], "the second waits for the first's reply"
    frames = h.feed(encode(Frame("S", f1.seq, "s", STATUS)))
    assert [(f.kind, f.payload) for f in frames] == [("G", "U")]
    assert first.done
    assert not second.done


def test_host_seq_counts_0_to_255_and_wraps(h: Harness) -> None:
    seqs = []
    for _ in range(300):
        pending, (frame,) = h.command("E")
        seqs.append(frame.seq)
        h.feed(encode(Frame("S", frame.seq, "s", STATUS)))
        assert pending.done
    assert all((b - a) % 256 == 1 for a, b in itertools.pairwise(seqs))
    assert max(seqs) == 255
    assert 0 in seqs


@pytest.mark.parametrize(("kind", "payload"), [("A", ""), ("N", "X"), ("q", ""), ("E", "é")])
def test_a_bad_command_is_refused_and_nothing_is_sent(h: Harness, kind: str, payload: str) -> None:
    sent_before = len(h.sent)
    with pytest.raises(CommandError):
        h.command(kind, payload)
    h.now += 0.001
    h.feed(b"")
    assert len(h.sent) == sent_before


# --- supervision -----------------------------------------------------------------------------


def test_the_device_is_polled_every_500ms(h: Harness) -> None:
    h.run(3.0)
    times = [t for t, _ in h.of("Q")]
    assert len(times) == 6
    assert all(abs((b - a) - 0.5) < 0.011 for a, b in itertools.pairwise(times))
    assert h.events_of(LinkLost) == []


def test_three_missed_replies_lose_the_link_once_within_1_5s_of_the_last_reply(
    h: Harness,
) -> None:
    h.run(2.0)
    last_reply = h.link.last_reply_at
    assert last_reply is not None
    h.answer_polls = False
    pending, _ = h.command("E")
    h.run(5.0)
    (lost,) = h.events_of(LinkLost)
    assert lost.last_reply_at == last_reply
    assert lost.at - last_reply <= 1.5
    assert h.state() is LinkState.LOST
    assert isinstance(pending.error, DeviceTimeoutError)
    later, _ = h.command("E")
    assert isinstance(later.error, LinkDownError), "no command is accepted while the link is lost"
    after = [f.kind for t, f in h.sent if t > lost.at]
    assert after, "the host keeps trying"
    assert set(after) == {"I"}, "while lost the host asks the device to identify itself"


def test_the_link_is_restored_when_the_device_identifies_itself_again(h: Harness) -> None:
    h.answer_polls = False
    h.run(2.0)
    assert h.state() is LinkState.LOST
    (probe,) = [f for t, f in h.sent[-1:]]
    assert probe.kind == "I"
    h.feed(encode(Frame("S", probe.seq, "i", IDENT)))
    kinds = [type(e) for e in h.events if isinstance(e, LinkLost | DeviceIdentified | LinkRestored)]
    assert kinds == [DeviceIdentified, LinkLost, DeviceIdentified, LinkRestored]
    assert h.state() is LinkState.UP


def test_events_during_a_loss_are_held_back_then_asked_for_again(h: Harness) -> None:
    h.feed(card(20, 1))
    h.answer_polls = False
    h.run(2.0)
    frames = h.feed(card(21, 2))
    assert "A" not in [f.kind for f in frames], "not acknowledged while the link is lost"
    assert h.events_of(CardDrawn)[-1].draw_no == 1
    probe = [f for _, f in h.sent if f.kind == "I"][-1]
    frames = h.feed(encode(Frame("S", probe.seq, "i", IDENT)))
    assert ("N", 21) in [(f.kind, f.seq) for f in frames]
    h.feed(card(21, 2))
    assert [c.draw_no for c in h.events_of(CardDrawn)] == [1, 2]


def test_a_failed_port_loses_the_link_at_once(h: Harness) -> None:
    h.now = 1.0
    out = h.link.connection_lost(h.now, "read failed")
    (lost,) = [e for e in out.events if isinstance(e, LinkLost)]
    assert "read failed" in lost.reason
    h.run(1.0)
    assert h.sent[-1][0] < 1.0, "nothing is written to a closed port"
    frames = h.connect()
    assert [f.kind for f in frames] == ["I"]


def test_close_fails_pending_commands() -> None:
    h = Harness()
    h.connect()
    pending, _ = h.command("E")
    h.link.close(h.now)
    assert isinstance(pending.error, LinkDownError)
    assert h.state() is LinkState.CLOSED


# --- the next deadline -----------------------------------------------------------------------


def _a_session(h: Harness, advance: Callable[[Harness, float], None]) -> None:
    """Polls answered, a command never answered, a frame cut off midway, polls unanswered
    until the link is lost, the device back: every timer of the link fires at least once."""
    h.up()
    advance(h, 1.2)
    h.command("E")
    advance(h, 1.5)
    h.feed(card(1, 1)[:6])
    advance(h, 0.3)
    h.answer_polls = False
    advance(h, 3.0)
    probe = [f for _, f in h.sent if f.kind == "I"][-1]
    h.feed(encode(Frame("S", probe.seq, "i", IDENT)))
    h.answer_polls = True
    advance(h, 1.0)


def test_ticking_only_at_the_next_deadline_does_what_ticking_every_millisecond_does() -> None:
    stepped, by_deadline = Harness(), Harness()
    _a_session(stepped, lambda h, seconds: h.run(seconds, step=0.001))
    _a_session(by_deadline, Harness.run_by_deadline)
    assert [(f.kind, f.seq) for _, f in by_deadline.sent] == [
        (f.kind, f.seq) for _, f in stepped.sent
    ]
    for (at, _), (stepped_at, _) in zip(by_deadline.sent, stepped.sent, strict=True):
        assert stepped_at - 0.0011 <= at <= stepped_at, "never later than a 1 ms tick"
    assert [type(e) for e in by_deadline.events] == [type(e) for e in stepped.events]
    assert by_deadline.link.stats == stepped.link.stats
    assert stepped.link.stats.retries > 0
    assert stepped.link.stats.links_lost == 1
    assert stepped.link.stats.bad_frames == 1, "the cut-off frame was dropped as stale"


def test_the_next_deadline_is_the_earliest_of_poll_resend_and_stale_partial() -> None:
    h = Harness()
    assert h.link.next_deadline() is None, "not connected yet"
    h.up()
    assert h.link.next_deadline() == pytest.approx(0.5), "the next poll"
    h.now = 0.1
    h.command("E")
    assert h.link.next_deadline() == pytest.approx(0.35), "the command's resend"
    h.now = 0.2
    h.feed(card(1, 1)[:6])
    assert h.link.next_deadline() == pytest.approx(0.25, abs=1e-5), "the partial turns stale"
    h.run_by_deadline(0.06)
    assert h.link.stats.bad_frames == 1
    h.link.close(h.now)
    assert h.link.next_deadline() is None, "a closed link has nothing to time"


def test_closing_the_link_drops_a_command_in_flight_without_a_warning() -> None:
    """The time sync sent on identification may still be in flight when its owner closes the
    driver (croupier doctor does, at once): it fails for its caller, and the log says so at
    info level, never as a warning (doctor printed one, a stray line, once in four runs)."""
    h = Harness()
    h.up()
    pending, _ = h.command("T", "20261203T120000Z")
    with capture_logs() as logs:
        h.link.close(h.now)
    assert isinstance(pending.error, LinkDownError)
    assert "the driver was closed" in str(pending.error)
    assert [(e["log_level"], e["event"]) for e in logs] == [
        ("info", "command dropped: the driver was closed")
    ]
    assert not [e for e in h.events if isinstance(e, CommandFailed)]
