"""The sans-IO core of one TBL-21 device link: bytes and time in, bytes and events out.

:class:`Link` never touches a port, a thread or the real clock. The caller feeds it what the port
delivered (``receive(data, now)``), calls ``tick(now)`` by ``next_deadline()`` (the moment its next
timer is due; ticking more often is harmless), writes ``Output.to_send`` to the port and hands
``Output.events`` on. That keeps every timer testable with a fake clock.

What it does (protocol.md, "Sequencing..." and "Link supervision"):

- identifies the device on connect (``I``), and again after it reports a reboot (``p`` with a
  boot_count other than the identified one); refuses a device of another type;
- acknowledges every device event with ``A`` and the event's SEQ (in confirm mode only once
  the consumer has confirmed it, e.g. after journaling), and applies it once: it keeps
  the last applied (boot_count, SEQ); a duplicate is acknowledged again but not passed on; a
  ``p`` event with a new boot_count starts a new epoch;
- accepts events strictly in SEQ order: an event that skips a SEQ is not acknowledged (the
  device resends it) and the missing one is asked for with ``N``, so a card is never lost and
  never applied out of order; only if the device keeps sending the later event and never the
  missing one (it no longer has it) is the gap reported (``SEQ_GAP``) and the later one taken;
- a ``p`` starts a new epoch only with a boot_count above the current one (a late copy of an
  older ``p`` is a duplicate), and a different unit (model or serial) on the port resets it;
- sends ``N`` for a damaged event frame from its device;
- numbers host commands 0-255 (wrapping), sends one command at a time in submission order and
  resends an unanswered one (same bytes, same SEQ) every 250 ms, at most 3 times;
- polls with ``Q`` every 500 ms (a poll unanswered for 250 ms is resent); three missed replies in
  a row mean the link is lost: :class:`LinkLost` once, pending commands fail, events are held
  back (not acknowledged, so the device keeps them) until the device answers ``I`` again, then
  :class:`DeviceIdentified` and :class:`LinkRestored`;
- rejects and reports a frame whose DEV is not the port's device type, and a well-framed
  message whose payload does not parse; counts and logs bytes outside frames.

Assumptions where protocol.md is silent (the emulated devices follow them too):

- Event SEQs are consecutive per device. A device resends its kept queue in order, and after a
  reboot it sends the events kept from the previous boot before its ``p`` event.
- Every host command other than ``A`` and ``N`` is answered: ``I`` with ``i``, the rest with
  ``s``, or with ``n`` when refused. A resent command carries the same SEQ, so a device can tell a
  repeat from a new command.
- ``N`` carries in its SEQ the event the host wants again and a short reason as payload.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import NamedTuple

import structlog

from drivers.errors import (
    CommandError,
    CommandRejectedError,
    DeviceError,
    DeviceTimeoutError,
    LinkDownError,
    ProtocolError,
    WrongDeviceError,
)
from drivers.tbl21.errors import PayloadError
from drivers.tbl21.events import (
    CommandFailed,
    DeviceEvent,
    DeviceIdentified,
    DeviceIdentity,
    DeviceRef,
    DeviceRefused,
    DeviceStatus,
    DeviceStatusReport,
    LinkLost,
    LinkRestored,
    PowerUp,
    ProtocolViolation,
    Reply,
    ViolationKind,
)
from drivers.tbl21.framing import (
    STALE_PARTIAL_S,
    DecodeError,
    DecodeErrorKind,
    Frame,
    FrameDecoder,
    encode,
)
from drivers.tbl21.payloads import EVENT_PARSERS, EventParser, parse_identity, parse_status

log = structlog.get_logger("croupier.drivers")

REPLY_KINDS = frozenset("sin")
LINK_KINDS = frozenset("AN")  # sent by the link itself, never by a caller


def validate_command(kind: str, payload: str, device: DeviceRef) -> None:
    """Raise :class:`CommandError` unless ``kind``/``payload`` make a command a caller may send."""
    if len(kind) != 1 or not ("A" <= kind <= "Z") or kind in LINK_KINDS:
        raise CommandError(
            f"{device}: command TYPE must be one upper-case letter other than A and N "
            f"(those are sent by the link itself), got {kind!r}",
            url=device.port,
        )
    try:
        Frame("H", 0, kind, payload)
    except ValueError as exc:
        raise CommandError(f"{device}: command {kind}: {exc}", url=device.port) from exc


def _earlier(due: float | None, at: float) -> float:
    return at if due is None or at < due else due


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """Timing of a link (protocol defaults). Seconds."""

    poll_interval: float = 0.5
    retry_after: float = 0.25
    max_retries: int = 3
    missed_replies_for_loss: int = 3
    stale_partial: float = STALE_PARTIAL_S
    gap_tolerance: int = 6  # copies of an event beyond a missing SEQ before giving up on it
    # Confirm mode: an event is acknowledged only when the consumer calls ``confirm`` (after
    # writing it to its journal), so a host crash never loses an event the device dropped.
    confirm_events: bool = False

    def __post_init__(self) -> None:
        for name in ("poll_interval", "retry_after", "stale_partial"):
            if getattr(self, name) <= 0:
                raise ValueError(f"LinkConfig.{name} must be > 0, got {getattr(self, name)}")
        if self.max_retries < 0 or self.missed_replies_for_loss < 1 or self.gap_tolerance < 0:
            raise ValueError(
                "LinkConfig: max_retries >= 0, missed_replies_for_loss >= 1, gap_tolerance >= 0"
            )


class LinkState(StrEnum):
    CONNECTING = "connecting"  # port open, device not identified yet
    UP = "up"
    LOST = "lost"  # was up; waiting for the device to answer I again
    REFUSED = "refused"  # the device is of another type; nothing more is done
    CLOSED = "closed"


class Output(NamedTuple):
    """What the caller must do: write ``to_send`` to the port, deliver ``events`` in order."""

    to_send: bytes
    events: list[DeviceEvent]


@dataclass(slots=True)
class LinkStats:
    frames_in: int = 0
    events_applied: int = 0
    duplicates: int = 0
    seq_gaps: int = 0
    garbage_bytes: int = 0
    bad_frames: int = 0
    rejected_frames: int = 0
    acks_sent: int = 0
    naks_sent: int = 0
    commands_sent: int = 0
    retries: int = 0
    unexpected_replies: int = 0
    links_lost: int = 0


class PendingCommand:
    """A host command on its way. ``on_done`` is called once with the reply or the error."""

    def __init__(
        self,
        kind: str,
        payload: str,
        on_done: Callable[[PendingCommand], None] | None = None,
    ) -> None:
        self.kind = kind
        self.payload = payload
        self.on_done = on_done
        self.seq: int | None = None
        self.frame_bytes = b""
        self.attempts = 0
        self.first_sent_at: float | None = None
        self.sent_at: float | None = None
        self.result: Reply | None = None
        self.error: DeviceError | None = None
        self.done = False

    @property
    def expected_reply(self) -> str:
        return "i" if self.kind == "I" else "s"

    def _finish(self, result: Reply | None, error: DeviceError | None) -> None:
        if self.done:
            return
        self.done = True
        self.result = result
        self.error = error
        if self.on_done is not None:
            self.on_done(self)

    def __repr__(self) -> str:
        return f"PendingCommand({self.kind}{self.payload!r} seq={self.seq} tries={self.attempts})"


@dataclass(slots=True)
class _Epoch:
    """Duplicate suppression: the boot_count and SEQ of the last applied event."""

    boot_count: int | None = None
    last_seq: int | None = None

    @property
    def expected(self) -> int | None:
        return None if self.last_seq is None else (self.last_seq + 1) % 256


class _SeqVerdict(StrEnum):
    NEW = "new"
    DUPLICATE = "duplicate"
    GAP = "gap"


@dataclass(slots=True)
class _Outbox:
    data: bytearray = field(default_factory=bytearray)
    events: list[DeviceEvent] = field(default_factory=list)


class Link:
    """One device link's protocol logic. See the module docstring."""

    def __init__(
        self,
        device: DeviceRef,
        config: LinkConfig | None = None,
        parsers: Mapping[str, EventParser] | None = None,
        resume: tuple[int, int] | None = None,
    ) -> None:
        """``resume``: the (boot, seq) of the last event applied before a restart (from the
        controller's journal), so that a resend of it is recognised as a duplicate."""
        self.device = device
        self.config = config or LinkConfig()
        self._parsers = parsers if parsers is not None else EVENT_PARSERS[device.type]
        self._dev = device.type.value
        self._log = log.bind(device=str(device))
        self._now = 0.0
        self._decoder = self._new_decoder()
        self._out = _Outbox()
        self.state = LinkState.CONNECTING
        self.connected = False
        self.stats = LinkStats()
        self.identity: DeviceIdentity | None = None
        self.status: DeviceStatusReport | None = None
        self.last_reply_at: float | None = None
        self.down_since: float | None = None
        self._host_seq = 0
        self._epoch = _Epoch() if resume is None else _Epoch(*resume)
        self._held: list[int] = []  # SEQs of events seen while not up, in arrival order
        self._probe: PendingCommand | None = None
        self._last_probe_at: float | None = None
        self._misses = 0
        self._inflight: PendingCommand | None = None
        self._queue: deque[PendingCommand] = deque()
        self._last_nak_at: float | None = None
        self._gap_expected: int | None = None  # the SEQ a gap waits for, and how many
        self._gap_seen = 0  # frames beyond it arrived meanwhile
        self._unconfirmed: set[int] = set()  # confirm mode: passed on, not yet ACKed

    # --- public interface ------------------------------------------------------------------

    @property
    def epoch(self) -> tuple[int | None, int | None]:
        """(boot_count, SEQ) of the last applied event."""
        return (self._epoch.boot_count, self._epoch.last_seq)

    def connection_made(self, now: float) -> Output:
        """The port is open (again): identify the device at once."""
        self._now = now
        if self.state in (LinkState.CLOSED, LinkState.REFUSED):
            return self._take()
        self.connected = True
        self._decoder = self._new_decoder()
        self._probe = None
        self._last_probe_at = None
        self._run_timers(now)
        return self._take()

    def connection_lost(self, now: float, reason: str) -> Output:
        """The port failed or closed. Lost at once if the link was up."""
        self._now = now
        self.connected = False
        self._probe = None
        if self.state is LinkState.UP:
            self._lose_link(now, f"port failed: {reason}")
        return self._take()

    def receive(self, data: bytes, now: float) -> Output:
        """Bytes from the port. Also runs the timers."""
        self._now = now
        if self.state in (LinkState.CLOSED, LinkState.REFUSED):
            return self._take()
        result = self._decoder.feed(data)
        for error in result.errors:
            self._on_decode_error(error, now)
        for frame in result.frames:
            self._on_frame(frame, now)
            if self._stopped():
                break
        self._run_timers(now)
        return self._take()

    def tick(self, now: float) -> Output:
        """Let time pass: stale partial frames, retries, polls, link loss."""
        return self.receive(b"", now)

    def next_deadline(self) -> float | None:
        """The earliest ``now`` at which :meth:`tick` has something to do: resend a command or
        a poll, poll again, declare the link lost, drop a stale partial frame. None: nothing
        until bytes arrive, a command is queued or the port is (re)connected.

        On the clock of the ``now`` values passed in. A caller may sleep until then or until
        bytes arrive, whichever comes first, instead of ticking every few milliseconds; after
        any call that ran the timers the deadline lies after that call's ``now``.
        """
        if self.state in (LinkState.CLOSED, LinkState.REFUSED) or not self.connected:
            return None
        cfg = self.config
        due = self._decoder.stale_at
        probe = self._probe
        if probe is not None:
            if probe.sent_at is not None:
                due = _earlier(due, probe.sent_at + cfg.retry_after)
        elif self._last_probe_at is None:
            due = _earlier(due, self._now)
        else:
            due = _earlier(due, self._last_probe_at + cfg.poll_interval)
        if self.state is LinkState.UP:
            current = self._inflight
            if current is not None:
                if current.sent_at is not None:
                    due = _earlier(due, current.sent_at + cfg.retry_after)
            elif self._queue:
                due = _earlier(due, self._now)
        return due

    def command(
        self,
        kind: str,
        payload: str,
        now: float,
        on_done: Callable[[PendingCommand], None] | None = None,
    ) -> tuple[PendingCommand, Output]:
        """Queue a host command. Raises :class:`CommandError` (nothing queued) for a bad one.

        While the device is not identified yet the command waits; while the link is lost or the
        device refused, it fails at once with :class:`LinkDownError`.
        """
        self._now = now
        validate_command(kind, payload, self.device)
        pending = PendingCommand(kind, payload, on_done)
        if self.state in (LinkState.UP, LinkState.CONNECTING):
            self._queue.append(pending)
            self._run_timers(now)
        else:
            self._fail(pending, LinkDownError(self._down_message(), url=self.device.port))
        return pending, self._take()

    def confirm(self, seq: int, now: float) -> Output:
        """Confirm-mode only: the consumer has stored the event with this SEQ; ACK it now."""
        self._now = now
        if seq not in self._unconfirmed:
            self._log.info("confirm of an event not awaiting one ignored", seq=seq)
            return self._take()
        self._unconfirmed.discard(seq)
        if self.connected and not self._stopped():
            self._ack(seq)
        return self._take()

    def decline(self, seq: int, now: float) -> Output:
        """Confirm-mode only: the consumer could not store the event with this SEQ (its journal
        failed) and applied nothing. It is not acknowledged, and the device's next copy of it is
        passed on again, as are the copies of any event passed on after it (the consumer
        declines those too, so the events still arrive in SEQ order)."""
        self._now = now
        if seq not in self._unconfirmed:
            self._log.info("decline of an event not awaiting a confirm ignored", seq=seq)
            return self._take()
        self._unconfirmed.discard(seq)
        if self._classify(seq) is _SeqVerdict.DUPLICATE:  # at or before the last one passed on
            self._epoch.last_seq = (seq - 1) % 256
        self._log.info("event declined by the consumer: taken again when resent", seq=seq)
        return self._take()

    def close(self, now: float) -> Output:
        """Stop: every pending command fails with :class:`LinkDownError`."""
        self._now = now
        if self.state is not LinkState.REFUSED:  # a refusal stays visible after closing
            self.state = LinkState.CLOSED
        self.connected = False
        self._fail_all(f"{self.device}: the driver was closed", emit=False, closing=True)
        self._probe = None
        return self._take()

    # --- frames in ---------------------------------------------------------------------------

    def _on_decode_error(self, error: DecodeError, now: float) -> None:
        if error.kind is DecodeErrorKind.GARBAGE:
            self.stats.garbage_bytes += len(error.data)
            self._log.warning("garbage bytes outside a frame", count=len(error.data))
            return
        self.stats.bad_frames += 1
        self._log.warning("damaged frame dropped", kind=str(error.kind), detail=error.detail)
        raw = error.data
        if (
            error.kind in (DecodeErrorKind.BAD_CRC, DecodeErrorKind.BAD_ETX)
            and self.state is LinkState.UP
            and len(raw) >= 6
            and raw[3] == ord(self._dev)
            and chr(raw[5]).islower()
            and chr(raw[5]) not in REPLY_KINDS
        ):
            expected = self._epoch.expected
            self._nak(raw[4] if expected is None else expected, "CRC", now)

    def _on_frame(self, frame: Frame, now: float) -> None:
        self.stats.frames_in += 1
        if frame.dev != self._dev:
            probe = self._probe
            if (
                frame.kind == "i"
                and frame.dev != "H"
                and probe is not None
                and probe.seq == frame.seq
            ):
                self._refuse(frame, now)
                return
            self.stats.rejected_frames += 1
            self._violation(
                ViolationKind.DEV_MISMATCH,
                f"frame from DEV {frame.dev!r} on the {self.device.type.label} port "
                f"(expected {self._dev!r}); rejected",
                frame,
                now,
            )
            return
        if frame.kind in REPLY_KINDS:
            self._on_reply(frame, now)
        elif frame.kind.islower():
            self._on_event(frame, now)
        else:
            self.stats.rejected_frames += 1
            self._violation(
                ViolationKind.UNKNOWN_TYPE,
                f"device sent a host command letter {frame.kind!r}; rejected",
                frame,
                now,
            )

    def _on_reply(self, frame: Frame, now: float) -> None:
        pending: PendingCommand | None = None
        for candidate in (self._probe, self._inflight):
            if candidate is not None and candidate.seq == frame.seq:
                pending = candidate
                break
        if pending is None:
            self.stats.unexpected_replies += 1
            self._log.info("reply to no pending command", kind=frame.kind, seq=frame.seq)
            return
        self._misses = 0
        self.last_reply_at = now
        if pending is self._probe:
            self._probe = None
        else:
            self._inflight = None
        if frame.kind == "n":
            self._fail(
                pending,
                CommandRejectedError(
                    f"{self.device}: the device refused command {pending.kind} "
                    f"{pending.payload!r}: {frame.payload or 'no reason given'}",
                    url=self.device.port,
                    reason=frame.payload,
                ),
            )
            return
        if frame.kind != pending.expected_reply:
            self._violation(
                ViolationKind.UNEXPECTED_REPLY,
                f"command {pending.kind} answered with {frame.kind!r}, "
                f"expected {pending.expected_reply!r}",
                frame,
                now,
            )
            self._fail(
                pending, ProtocolError(f"{self.device}: wrong reply type", url=self.device.port)
            )
            return
        try:
            reply: Reply = parse_identity(frame) if frame.kind == "i" else parse_status(frame)
        except PayloadError as exc:
            self._violation(ViolationKind.MALFORMED_PAYLOAD, str(exc), frame, now)
            self._fail(pending, ProtocolError(f"{self.device}: {exc}", url=self.device.port))
            return
        if isinstance(reply, DeviceIdentity):
            self._on_identity(reply, now)
        else:
            self._on_status(reply, now)
        pending._finish(reply, None)

    def _on_identity(self, identity: DeviceIdentity, now: float) -> None:
        previous = self.identity
        changed = previous is not None and not previous.same_unit_and_firmware(identity)
        self.identity = identity
        if previous is not None and (previous.model, previous.serial) != (
            identity.model,
            identity.serial,
        ):
            # Another unit on this port: its SEQs and boots have nothing to do with the old one.
            self._log.warning(
                "another device unit on the port", was=previous.serial, now=identity.serial
            )
            self._epoch = _Epoch(identity.boot_count, None)
        if self._epoch.boot_count is None:
            # Events before the first ``p`` belong to the boot the device reports now. (A later
            # ``i`` never changes the epoch: kept events of the old boot still come before
            # the ``p`` of the new one.)
            self._epoch.boot_count = identity.boot_count
        self._emit(DeviceIdentified(device=self.device, at=now, identity=identity, changed=changed))
        self._log.info(
            "device identified",
            model=identity.model,
            serial=identity.serial,
            fw=identity.fw_version,
            fw_hash=identity.fw_hash,
            boot_count=identity.boot_count,
            changed=changed,
        )
        was = self.state
        if was in (LinkState.CONNECTING, LinkState.LOST):
            self.state = LinkState.UP
            self._misses = 0
            if was is LinkState.LOST:
                down_since = self.down_since if self.down_since is not None else now
                self._emit(LinkRestored(device=self.device, at=now, down_since=down_since))
                self._log.info("link restored", down_for=round(now - down_since, 3))
            self.down_since = None
            # Ask again at once for the events held back while the link was not up.
            held, self._held = self._held, []
            for seq in held:
                self._nak(seq, "HELD", now, force=True)

    def _on_status(self, status: DeviceStatusReport, now: float) -> None:
        previous = self.status
        self.status = status
        key = (status.state, status.flags, status.active_fault, status.specific)
        if previous is None or key != (
            previous.state,
            previous.flags,
            previous.active_fault,
            previous.specific,
        ):
            self._emit(DeviceStatus(device=self.device, at=now, status=status))

    def _on_event(self, frame: Frame, now: float) -> None:
        if self.state is not LinkState.UP:
            if frame.seq not in self._held:
                self._held.append(frame.seq)
            self._log.info(
                "event held back until the device is identified", kind=frame.kind, seq=frame.seq
            )
            if self._probe is None:
                self._last_probe_at = None  # probe at once: the device is talking
            return
        parser = self._parsers.get(frame.kind)
        if frame.kind == "p" and parser is not None:
            try:
                event = parser(frame, self.device, now)
            except PayloadError:
                pass
            else:
                assert isinstance(event, PowerUp)
                current = self._epoch.boot_count
                if current is None or event.boot_count > current:
                    # A boot later than the one we know. (A ``p`` of an earlier boot is a late
                    # copy of one already seen, or kept from before the reboot: the SEQ rule
                    # below decides.)
                    self._epoch = _Epoch(event.boot_count, frame.seq)
                    self._ack_applied(frame.seq)
                    self.stats.events_applied += 1
                    self._log.info("device powered up", boot_count=event.boot_count)
                    self._emit(replace(event, boot=event.boot_count))
                    if self.identity is not None and self.identity.boot_count != event.boot_count:
                        # Rebooted since we identified it: identify again (recovery step 2),
                        # which also brings the time sync the driver sends after each ``i``.
                        self._queue.append(PendingCommand("I", ""))
                    return
        verdict = self._classify(frame.seq)
        if verdict is _SeqVerdict.DUPLICATE:
            self.stats.duplicates += 1
            if frame.seq in self._unconfirmed:
                self._log.debug("duplicate of an unconfirmed event", kind=frame.kind, seq=frame.seq)
            else:
                self._log.debug(
                    "duplicate event acknowledged again", kind=frame.kind, seq=frame.seq
                )
                self._ack(frame.seq)
            return
        if verdict is _SeqVerdict.GAP:
            self.stats.seq_gaps += 1
            expected = self._epoch.expected
            assert expected is not None
            if self._gap_expected != expected:
                self._gap_expected, self._gap_seen = expected, 0
            self._gap_seen += 1
            if self._gap_seen <= self.config.gap_tolerance:
                self._log.warning(
                    "event out of order held back",
                    kind=frame.kind,
                    seq=frame.seq,
                    expected=expected,
                )
                self._nak(expected, "GAP", now)
                return
            # The device keeps sending this one and never the missing ones: they are gone.
            # Say so and go on, rather than stall the device for ever.
            self._violation(
                ViolationKind.SEQ_GAP,
                f"events with SEQ {expected}..{(frame.seq - 1) % 256} never arrived after "
                f"{self._gap_seen} copies of SEQ {frame.seq}; accepted SEQ {frame.seq}",
                frame,
                now,
            )
        self._gap_expected, self._gap_seen = None, 0
        self._epoch.last_seq = frame.seq
        if parser is None:
            self._ack(frame.seq)
            self.stats.rejected_frames += 1
            self._violation(
                ViolationKind.UNKNOWN_TYPE,
                f"a {self.device.type.label} does not send {frame.kind!r} events; "
                "acknowledged and dropped",
                frame,
                now,
            )
            return
        try:
            event = parser(frame, self.device, now)
        except PayloadError as exc:
            self._ack(frame.seq)
            self.stats.rejected_frames += 1
            self._violation(ViolationKind.MALFORMED_PAYLOAD, str(exc), frame, now)
            return
        self._ack_applied(frame.seq)
        self.stats.events_applied += 1
        self._emit(replace(event, boot=self._epoch.boot_count))

    def _classify(self, seq: int) -> _SeqVerdict:
        last = self._epoch.last_seq
        if last is None or seq == (last + 1) % 256:
            return _SeqVerdict.NEW
        if (last - seq) % 256 < 128:
            return _SeqVerdict.DUPLICATE
        return _SeqVerdict.GAP

    def _refuse(self, frame: Frame, now: float) -> None:
        reason = (
            f"the device on {self.device.port} identifies as DEV {frame.dev!r} "
            f"({frame.payload!r}), not a {self.device.type.label} ({self._dev!r}); check the "
            "cabling and the port configured for each device"
        )
        self._log.error("wrong device type refused", reason=reason)
        self.state = LinkState.REFUSED
        self._probe = None
        self._fail_all(reason, emit=False, error_type=WrongDeviceError)
        self._emit(DeviceRefused(device=self.device, at=now, reason=reason))

    # --- timers and frames out -------------------------------------------------------------------

    def _run_timers(self, now: float) -> None:
        # Each timer is due at the very moment next_deadline() names (same sums, so the float
        # rounding agrees): a caller that sleeps until then finds it due.
        if self.state in (LinkState.CLOSED, LinkState.REFUSED) or not self.connected:
            return
        cfg = self.config
        probe = self._probe
        if (
            probe is not None
            and probe.sent_at is not None
            and now >= probe.sent_at + cfg.retry_after
        ):
            self._misses += 1
            if self.state is LinkState.UP and self._misses >= cfg.missed_replies_for_loss:
                self._lose_link(now, f"{self._misses} replies missed in a row")
            elif probe.attempts <= cfg.max_retries:
                self._resend(probe, now)
            else:
                self._probe = None
        if self._probe is None and (
            self._last_probe_at is None or now >= self._last_probe_at + cfg.poll_interval
        ):
            self._probe = PendingCommand("Q" if self.state is LinkState.UP else "I", "")
            self._send_new(self._probe, now)
            self._last_probe_at = now
        if self.state is not LinkState.UP:
            return
        current = self._inflight
        if (
            current is not None
            and current.sent_at is not None
            and now >= current.sent_at + cfg.retry_after
        ):
            if current.attempts <= cfg.max_retries:
                self._resend(current, now)
            else:
                self._inflight = None
                self._fail(
                    current,
                    DeviceTimeoutError(
                        f"{self.device}: no answer to command {current.kind} "
                        f"{current.payload!r} after {current.attempts} tries",
                        url=self.device.port,
                    ),
                )
        if self._inflight is None and self._queue:
            self._inflight = self._queue.popleft()
            self._send_new(self._inflight, now)

    def _send_new(self, pending: PendingCommand, now: float) -> None:
        pending.seq = self._host_seq
        self._host_seq = (self._host_seq + 1) % 256
        pending.frame_bytes = encode(Frame("H", pending.seq, pending.kind, pending.payload))
        pending.first_sent_at = now
        self.stats.commands_sent += 1
        self._transmit(pending, now)

    def _resend(self, pending: PendingCommand, now: float) -> None:
        self.stats.retries += 1
        self._log.debug(
            "command resent", kind=pending.kind, seq=pending.seq, tries=pending.attempts
        )
        self._transmit(pending, now)

    def _transmit(self, pending: PendingCommand, now: float) -> None:
        pending.attempts += 1
        pending.sent_at = now
        self._out.data += pending.frame_bytes

    def _ack_applied(self, seq: int) -> None:
        """ACK an event just passed on, or keep it for :meth:`confirm` in confirm mode."""
        if self.config.confirm_events:
            self._unconfirmed.add(seq)
        else:
            self._ack(seq)

    def _ack(self, seq: int) -> None:
        self.stats.acks_sent += 1
        self._out.data += encode(Frame("H", seq, "A"))

    def _nak(self, seq: int, reason: str, now: float, *, force: bool = False) -> None:
        last = self._last_nak_at
        if not force and last is not None and now - last < self.config.retry_after:
            return
        self._last_nak_at = now
        self.stats.naks_sent += 1
        self._out.data += encode(Frame("H", seq, "N", reason))

    def _lose_link(self, now: float, reason: str) -> None:
        self.state = LinkState.LOST
        self.down_since = now
        self.stats.links_lost += 1
        self._probe = None
        self._last_probe_at = None
        self._misses = 0
        self._log.warning("link lost", reason=reason, last_reply_at=self.last_reply_at)
        self._emit(
            LinkLost(device=self.device, at=now, reason=reason, last_reply_at=self.last_reply_at)
        )
        self._fail_all(self._down_message(), emit=True)

    def _down_message(self) -> str:
        if self.state is LinkState.REFUSED:
            return f"{self.device}: the device was refused (wrong type); nothing is sent to it"
        if self.state is LinkState.CLOSED:
            return f"{self.device}: the driver was closed"
        return (
            f"{self.device}: the link is down (no reply from the device); the command was not "
            "sent. Resend it after LinkRestored"
        )

    def _fail_all(
        self,
        message: str,
        *,
        emit: bool,
        error_type: type[DeviceError] = LinkDownError,
        closing: bool = False,
    ) -> None:
        pending = [self._inflight, *self._queue] if self._inflight else list(self._queue)
        self._inflight = None
        self._queue.clear()
        for command in pending:
            assert command is not None
            error = error_type(message, url=self.device.port)
            self._fail(command, error, emit=emit, closing=closing)

    def _fail(
        self,
        pending: PendingCommand,
        error: DeviceError,
        *,
        emit: bool = True,
        closing: bool = False,
    ) -> None:
        if emit:
            self._emit(
                CommandFailed(
                    device=self.device,
                    at=self._now,
                    command=pending.kind,
                    payload=pending.payload,
                    reason=str(error),
                )
            )
        if closing:
            # The owner closed the driver (doctor, a clean stop): a command still in flight, such
            # as the time sync sent on identification, is dropped. Nothing went wrong with the
            # device, so it is no warning (doctor once printed one after its summary).
            self._log.info("command dropped: the driver was closed", kind=pending.kind)
        else:
            self._log.warning("command failed", kind=pending.kind, error=str(error))
        pending._finish(None, error)

    def _violation(self, kind: ViolationKind, detail: str, frame: Frame, now: float) -> None:
        self._log.warning("protocol violation", kind=str(kind), detail=detail)
        raw = encode(frame)
        self._emit(ProtocolViolation(device=self.device, at=now, kind=kind, detail=detail, raw=raw))

    def _emit(self, event: DeviceEvent) -> None:
        self._out.events.append(event)

    def _take(self) -> Output:
        out = Output(bytes(self._out.data), self._out.events)
        self._out = _Outbox()
        return out

    def _stopped(self) -> bool:
        return self.state in (LinkState.CLOSED, LinkState.REFUSED)

    def _new_decoder(self) -> FrameDecoder:
        return FrameDecoder(clock=lambda: self._now, stale_after=self.config.stale_partial)
