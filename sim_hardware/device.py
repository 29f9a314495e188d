"""The sans-IO core every emulated TBL-21 device shares (protocol.md is the spec).

A device never reads a clock and never touches a port. Its owner feeds it what arrived on the
line and the time, and writes back whatever it returns::

    out = device.on_bytes(data, now)   # bytes the host sent -> bytes to send back
    out = device.tick(now)             # timers only (resends, offline, holds) -> bytes to send

``now`` is seconds on any monotonic clock; tests pass a fake one and never sleep. Scripted
actions (``shoe.draw()``, ``panel.press("HIT")``...) only queue events; the next ``tick`` or
``on_bytes`` puts them on the wire. Every public method takes the device's lock, so a runner's
pump thread and a test thread may both drive one device.

Choices this module makes where protocol.md is silent (the project's own docs for them):

- Events go out one at a time (stop-and-wait): the next event is sent only after the head of the
  queue is acknowledged, so the host always gets events in the order they happened.
- After 5 resends without an ACK the device stops sending, keeps the event queued and raises
  fault 0x50. Anything heard from the host afterwards restarts the head (resend count from 0)
  and clears 0x50; so does coming back from OFFLINE.
- Every host command except ``A`` and ``N`` gets an answer: ``s`` (``i`` for ``I``) when it
  was carried out, ``n`` with a reason (``UNKNOWN_COMMAND``, ``BAD_ARG``, ``BAD_TIME``) when
  not. A repeated command (same SEQ, TYPE and payload within 2 s, i.e. a host retry) is
  answered again with the first reply and not carried out twice; ``Q`` and ``I`` are always
  answered afresh.
- State: BOOT before the first tick; OFFLINE after 5 s without the host; FAULT while a lockup
  fault is active; DISABLED after ``D``; READY once enabled with valid time (after ``T``),
  otherwise IDLE. A device powers up enabled.
- The event SEQ counter and the event queue survive a reboot (non-volatile, like the queue), so
  kept events go out with their original SEQ, followed by the new ``p``.
- ``queue_depth`` in ``s`` is decimal, at least two digits; ``active_fault`` is the most
  recently raised fault still active.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import itertools
import random
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import IntFlag
from typing import ClassVar, Concatenate, ParamSpec, TypedDict, TypeVar

from drivers.tbl21.events import DeviceState
from drivers.tbl21.faults import SEVERITY, FaultCode, Severity, fault_name
from drivers.tbl21.framing import Frame, FrameDecoder, encode
from sim_hardware.errors import SimConfigError
from sim_hardware.faults import (
    COMMON_FAULTS,
    CorruptByte,
    DelayAck,
    DropAck,
    DropFrame,
    DuplicateAck,
    DuplicateFrame,
    FaultSpec,
    LidOpen,
    Reboot,
    SplitWrites,
    Stall,
    StuckButton,
    Unplug,
)

RESEND_AFTER_S = 0.250
MAX_RESENDS = 5
OFFLINE_AFTER_S = 5.0
REPEAT_WINDOW_S = 2.0  # a host retry comes within 3 x 250 ms; later, the same SEQ is new
DEFAULT_QUEUE_CAPACITY = 128
LOG_LENGTH = 5000


class Flag(IntFlag):
    READY = 1 << 0
    ENABLED = 1 << 1
    FAULT_ACTIVE = 1 << 2
    TAMPER_ACTIVE = 1 << 3
    QUEUE_NOT_EMPTY = 1 << 4
    TIME_VALID = 1 << 5
    GATE_LOCKED = 1 << 6
    CARD_PRESENT = 1 << 7
    KEY_NOT_RUN = 1 << 8


COMM_HOST_TIMEOUT = FaultCode.COMM_HOST_TIMEOUT
QUEUE_OVERFLOW = FaultCode.QUEUE_OVERFLOW


class DeviceOptions(TypedDict, total=False):
    """Keyword arguments every device type takes (besides ``seed``)."""

    serial_no: str | None
    fw_version: str
    boot_count: int
    faults: Iterable[FaultSpec]
    queue_capacity: int


_D = TypeVar("_D", bound="DeviceCore")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def firmware_hash(model: str, fw_version: str) -> str:
    """The ``fw_hash16`` an emulated device of ``model`` reports for firmware ``fw_version``
    (the first 16 hex digits of SHA-256 of ``"<model>/<fw_version>"``, in lower case)."""
    return hashlib.sha256(f"{model}/{fw_version}".encode()).hexdigest()[:16]


def locked(fn: Callable[Concatenate[_D, _P], _R]) -> Callable[Concatenate[_D, _P], _R]:
    """Run a method under the device lock (the pump side: on_bytes, tick, next_deadline)."""

    @functools.wraps(fn)
    def wrapper(self: _D, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self.lock:
            return fn(self, *args, **kwargs)

    return wrapper


def action(fn: Callable[Concatenate[_D, _P], _R]) -> Callable[Concatenate[_D, _P], _R]:
    """A scripted action: run it under the device lock, then wake the runners (outside the
    lock) so that what it queued goes on the wire at once. The pump side never wakes them:
    that would make the pump wake itself forever."""

    @functools.wraps(fn)
    def wrapper(self: _D, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self.lock:
            result = fn(self, *args, **kwargs)
        self._notify()
        return result

    return wrapper


@dataclass(slots=True)
class _Queued:
    frame: Frame
    sends: int = 0
    sent_at: float | None = None


class DeviceCore:
    """Common TBL-21 device behaviour: Q/I/T/E/D/A/N, the event queue, offline, faults.

    Subclasses set ``dev_code`` and ``model`` and override the ``_device_*`` hooks.
    """

    dev_code: ClassVar[str] = "?"
    model: ClassVar[str] = "SIM"
    accepted_faults: ClassVar[tuple[type, ...]] = COMMON_FAULTS

    def __init__(
        self,
        *,
        serial_no: str | None = None,
        fw_version: str = "1.0.0",
        boot_count: int = 1,
        faults: Iterable[FaultSpec] = (),
        seed: int | None = 0,
        queue_capacity: int = DEFAULT_QUEUE_CAPACITY,
    ) -> None:
        if boot_count < 1:
            raise SimConfigError(f"boot_count must be >= 1, got {boot_count}")
        if queue_capacity < 64:
            raise SimConfigError(
                f"queue_capacity must be >= 64 (protocol.md), got {queue_capacity}"
            )
        for text, what in ((fw_version, "fw_version"), (serial_no or "", "serial_no")):
            if ";" in text or not text.isascii() or not text.isprintable():
                raise SimConfigError(f"{what} must be printable ASCII without ';', got {text!r}")
        self.lock = threading.RLock()
        self.serial_no = serial_no or f"SIM-{self.dev_code}-0001"
        self.fw_version = fw_version
        self.fw_hash16 = firmware_hash(self.model, fw_version)
        self.queue_capacity = queue_capacity
        self.rng = random.Random(seed)
        self.transmitted: deque[Frame] = deque(maxlen=LOG_LENGTH)  # as meant, before wire faults
        self.received: deque[Frame] = deque(maxlen=LOG_LENGTH)
        self.stats: Counter[str] = Counter()
        self.problems: list[str] = []
        self._listeners: list[Callable[[], None]] = []
        self._runner: object | None = None
        self._boot_count = boot_count
        self._seq = 0
        self._queue: deque[_Queued] = deque()
        self._now = 0.0
        self._booted_at: float | None = None
        self._injections: list[FaultSpec] = []
        self._tx_all = 0
        self._tx_kind: Counter[str] = Counter()
        self._acks_seen = 0
        self._outbox: deque[tuple[float, bytes]] = deque()
        self._out_free_at = 0.0
        self._timers: list[tuple[float, int, Callable[[float], None]]] = []
        self._timer_ids = itertools.count()
        self._cable = True
        self._unplugs = 0
        self._deferring = False
        self._reset_volatile()
        self._emit("p", f"{self._boot_count};PON")
        for spec in faults:
            self._add_injection(spec)

    # ---- volatile state (lost on reboot) --------------------------------------------------

    def _reset_volatile(self) -> None:
        self._decoder = FrameDecoder(clock=lambda: self._now)
        self._enabled = True
        self._time_valid = False
        self._offline = False
        self._given_up = False
        self._last_heard = self._now
        self._faults: dict[int, Severity] = {}
        self._tamper: set[str] = set()
        self._reply_cache: dict[tuple[int, str, str], tuple[Frame, float]] = {}
        self._stall_until: float | None = None
        self._stall_then_reboot = False
        self._delayed_acks: list[tuple[float, Frame]] = []

    # ---- the sans-IO interface ----------------------------------------------------------------

    @locked
    def on_bytes(self, data: bytes, now: float) -> bytes:
        """Take bytes the host sent at ``now``; return the bytes to send back."""
        self._advance(now)
        if self._stall_until is not None or not self._cable:
            self.stats["bytes_ignored"] += len(data)
            return self._flush(now)
        result = self._decoder.feed(bytes(data))
        for error in result.errors:
            self.stats[f"rx_{error.kind.value}"] += 1
        for frame in result.frames:
            self._handle_frame(frame, now)
        self._pump_queue(now)
        return self._flush(now)

    @locked
    def tick(self, now: float) -> bytes:
        """Let time pass to ``now``; return the bytes to send (events, resends, chunks)."""
        self._advance(now)
        return self._flush(now)

    @locked
    def next_deadline(self) -> float | None:
        """The earliest time a ``tick`` may have something to do (None: nothing scheduled)."""
        times: list[float] = []
        if self._booted_at is None:
            return self._now
        if self._stall_until is not None:
            return self._stall_until
        if self._outbox:
            times.append(self._outbox[0][0])
        if self._timers:
            times.append(self._timers[0][0])
        times.extend(t for t, _ in self._delayed_acks)
        if self._queue and not self._given_up:
            sent_at = self._queue[0].sent_at
            times.append(self._now if sent_at is None else sent_at + RESEND_AFTER_S)
        if not self._offline:
            times.append(self._last_heard + OFFLINE_AFTER_S)
        for spec in self._injections:
            at_s = getattr(spec, "at_s", None)
            if at_s is not None:
                times.append(self._booted_at + at_s)
        device_next = self._device_deadline()
        if device_next is not None:
            times.append(device_next)
        return min(times) if times else None

    def claim_cable(self, runner: object) -> None:
        """A runner takes the device's one cable; a second runner at once is refused."""
        with self.lock:
            if self._runner is not None and self._runner is not runner:
                raise SimConfigError(
                    f"{type(self).__name__} is already served by {self._runner!r}; a device has "
                    f"one cable: close that runner first"
                )
            self._runner = runner

    def release_cable(self, runner: object) -> None:
        with self.lock:
            if self._runner is runner:
                self._runner = None

    def add_listener(self, callback: Callable[[], None]) -> None:
        """``callback()`` is called (outside the lock) after every scripted action: a runner
        uses it to wake its pump. It must not block."""
        self._listeners.append(callback)

    def remove_listener(self, callback: Callable[[], None]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def _notify(self) -> None:
        for callback in list(self._listeners):
            callback()

    # ---- what tests and people look at ----------------------------------------------------

    @property
    def boot_count(self) -> int:
        return self._boot_count

    @property
    def state(self) -> DeviceState:
        with self.lock:
            return self._state()

    @property
    def offline(self) -> bool:
        return self._offline

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def time_valid(self) -> bool:
        return self._time_valid

    @property
    def queue_depth(self) -> int:
        return len(self._queue)

    @property
    def queued_events(self) -> list[Frame]:
        with self.lock:
            return [q.frame for q in self._queue]

    @property
    def active_faults(self) -> dict[int, Severity]:
        with self.lock:
            return dict(self._faults)

    @property
    def acks_seen(self) -> int:
        """ACKs received so far (what an ``nth=`` ACK spec counts; ``nth=acks_seen + 1`` is
        the next one)."""
        with self.lock:
            return self._acks_seen

    def transmitted_of(self, kind: str) -> int:
        """Frames of TYPE ``kind`` sent so far, resends included (what ``CorruptByte(kind=)``
        counts)."""
        with self.lock:
            return self._tx_kind[kind]

    @property
    def cable_connected(self) -> bool:
        return self._cable

    @property
    def unplug_count(self) -> int:
        """How many times the cable was pulled (a runner notices a quick unplug-replug)."""
        return self._unplugs

    @property
    def stalled(self) -> bool:
        return self._stall_until is not None

    # ---- scripting --------------------------------------------------------------------------

    @action
    def inject(self, *specs: FaultSpec) -> None:
        """Add fault specs (see :mod:`sim_hardware.faults`)."""
        for spec in specs:
            self._add_injection(spec)

    @action
    def clear_injections(self) -> None:
        """Forget every fault spec not yet used (and every persistent one)."""
        self._injections.clear()

    @property
    def injections(self) -> list[FaultSpec]:
        with self.lock:
            return list(self._injections)

    @action
    def reboot(
        self,
        reason: str = "SW",
        *,
        cut_after_bytes: int | None = None,
        forget_draw_no: bool = False,
    ) -> None:
        """Reboot now (see :class:`sim_hardware.faults.Reboot`)."""
        spec = Reboot(reason=reason, cut_after_bytes=cut_after_bytes, forget_draw_no=forget_draw_no)
        self._check_shoe_only(spec)
        self._fire(spec, self._now)

    @action
    def swap_unit(self, serial_no: str, fw_version: str | None = None) -> None:
        """Another unit takes this one's place on the cable (another serial, perhaps other
        firmware): it powers up (PON) and identifies as itself."""
        for text, what in ((fw_version or "", "fw_version"), (serial_no, "serial_no")):
            if ";" in text or not text.isascii() or not text.isprintable() or not serial_no:
                raise SimConfigError(f"{what} must be printable ASCII without ';', got {text!r}")
        self.serial_no = serial_no
        if fw_version is not None:
            self.fw_version = fw_version
            self.fw_hash16 = firmware_hash(self.model, fw_version)
        self._reboot("PON", cut_after_bytes=0)

    @action
    def stall(self, duration_s: float, *, then_reboot: bool = False) -> None:
        """Hang now for ``duration_s``: ignore everything, send nothing."""
        self._fire(Stall(duration_s=duration_s, then_reboot=then_reboot), self._now)

    @action
    def unplug(self) -> None:
        """Pull the cable: the runner closes the port until :meth:`replug`."""
        self._set_cable(False)

    @action
    def replug(self, *, power_cycle: bool = False) -> None:
        """Plug the cable back in (rebooting with reason PON if ``power_cycle``)."""
        self._set_cable(True)
        if power_cycle:
            self._reboot("PON", cut_after_bytes=0)

    @action
    def raise_fault(self, code: int, severity: Severity | None = None, text: str = "") -> None:
        """Raise a fault (``f code;sev;R;text``) unless it is already active."""
        self._raise(code, severity, text)

    @action
    def clear_fault(self, code: int) -> None:
        """Clear an active fault (``f code;sev;C;text``), e.g. a supervisor resetting the shoe."""
        self._clear(code)

    # ---- internals: time --------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        now = max(now, self._now)
        self._now = now
        if self._booted_at is None:
            self._booted_at = now
            self._last_heard = now
        if self._stall_until is not None:
            if now < self._stall_until:
                return
            self._stall_until = None
            if self._stall_then_reboot:
                self._stall_then_reboot = False
                self._reboot("WDT", cut_after_bytes=0)
        while self._timers and self._timers[0][0] <= now:
            at, _, action = heapq.heappop(self._timers)
            action(at)  # at the time it was due: a 1.0 s hold reports 1000 ms
            if self.stalled:
                return
        for spec in list(self._injections):
            if not isinstance(spec, (Reboot, Stall, Unplug, LidOpen, StuckButton)):
                continue
            if getattr(spec, "at_draw", None) is not None:
                continue
            if spec.at_s is None or now >= self._booted_at + spec.at_s:
                self._injections.remove(spec)
                self._fire(spec, now)
                if self.stalled:
                    return
        due_acks = [(t, f) for t, f in self._delayed_acks if t <= now]
        if due_acks:
            self._delayed_acks = [(t, f) for t, f in self._delayed_acks if t > now]
            for _, ack in due_acks:
                self._heard(now)
                self._ack(ack, now)
        if not self._offline and now - self._last_heard >= OFFLINE_AFTER_S:
            self._go_offline(True)
        self._device_advance(now)
        self._pump_queue(now)

    def _schedule(self, at: float, action: Callable[[float], None]) -> None:
        heapq.heappush(self._timers, (at, next(self._timer_ids), action))

    # ---- internals: host frames -------------------------------------------------------------

    def _handle_frame(self, frame: Frame, now: float) -> None:
        self.received.append(frame)
        if frame.dev != "H":
            self.stats["rx_not_from_host"] += 1
            return
        if frame.kind == "A":
            self._receive_ack(frame, now)  # heard only if the ACK is not lost on the way
            return
        self._heard(now)
        if frame.kind == "N":
            self.stats["rx_nak"] += 1
            if self._queue and self._queue[0].sent_at is not None:
                head = self._queue[0]
                head.sent_at = now
                self._transmit(head.frame, now)
        else:
            key = (frame.seq, frame.kind, frame.payload)
            cached = self._reply_cache.get(key)
            if (
                frame.kind not in ("Q", "I")
                and cached is not None
                and now - cached[1] <= REPEAT_WINDOW_S
            ):
                self.stats["rx_repeated_command"] += 1
                self._transmit(cached[0], now)
                return
            self._deferring = True
            try:
                reply = self._command(frame, now)
            finally:
                self._deferring = False
            if frame.kind not in ("Q", "I"):
                # Remember every command of the last REPEAT_WINDOW_S, not only the last one: a
                # poll or another command between a lost reply and the host's retry must not
                # make the retry look new (a shoe would load a second new shoe).
                # The cache is in the order the commands came (a repeat moves to the end), so
                # the expired ones are at its front: drop those, not a copy of it per command.
                cache = self._reply_cache
                cache.pop(key, None)
                while cache:
                    oldest = next(iter(cache))
                    if now - cache[oldest][1] <= REPEAT_WINDOW_S:
                        break
                    del cache[oldest]
                cache[key] = (reply, now)
            self._transmit(reply, now)
            self._pump_queue(now)

    def _heard(self, now: float) -> None:
        self._last_heard = now
        if self._offline:
            self._go_offline(False)
        if self._given_up and self._queue:
            self._given_up = False
            head = self._queue[0]
            head.sends = 0
            head.sent_at = None
        self._given_up = False
        self._clear(COMM_HOST_TIMEOUT)

    def _receive_ack(self, frame: Frame, now: float) -> None:
        self._acks_seen += 1
        n = self._acks_seen
        for spec in list(self._injections):
            if isinstance(spec, DropAck) and self._matches(spec, n, spec.rate):
                self.stats["ack_dropped"] += 1
                return
            if isinstance(spec, DelayAck) and self._matches(spec, n, spec.rate):
                self.stats["ack_delayed"] += 1
                self._delayed_acks.append((now + spec.delay_s, frame))
                return
            if isinstance(spec, DuplicateAck) and self._matches(spec, n, spec.rate):
                self.stats["ack_duplicated"] += 1
                self._heard(now)
                self._ack(frame, now)
        self._heard(now)
        self._ack(frame, now)

    def _ack(self, frame: Frame, now: float) -> None:
        if (
            self._queue
            and self._queue[0].sent_at is not None
            and self._queue[0].frame.seq == (frame.seq)
        ):
            self._queue.popleft()
            self.stats["acked"] += 1
            if self._faults.get(QUEUE_OVERFLOW) and len(self._queue) < self.queue_capacity:
                self._clear(QUEUE_OVERFLOW)
            self._pump_queue(now)
        else:
            self.stats["ack_ignored"] += 1

    def _matches(self, spec: FaultSpec, n: int, rate: float) -> bool:
        """Whether an nth/rate spec applies to the n-th item; one-shot specs are used up."""
        nth: int | None = getattr(spec, "nth", None)
        if nth is not None:
            if n == nth:
                self._injections.remove(spec)
                return True
            return False
        return self.rng.random() < rate

    def _command(self, frame: Frame, now: float) -> Frame:
        kind = frame.kind
        if kind == "Q":
            return self._status(frame.seq)
        if kind == "I":
            return self._reply(
                frame.seq,
                "i",
                f"{self.model};{self.serial_no};{self.fw_version};{self.fw_hash16};"
                f"{self._boot_count}{self._identity_extra()}",
            )
        if kind == "T":
            try:
                datetime.strptime(frame.payload, "%Y%m%dT%H%M%SZ")
            except ValueError:
                return self._nak(frame.seq, "BAD_TIME")
            self._time_valid = True
            return self._status(frame.seq)
        if kind in ("E", "D"):
            self._enabled = kind == "E"
            self._device_enabled_changed()
            return self._status(frame.seq)
        outcome = self._device_command(frame, now)
        if outcome is None:
            return self._nak(frame.seq, "UNKNOWN_COMMAND")
        if isinstance(outcome, str):
            return self._nak(frame.seq, outcome)
        return self._status(frame.seq)

    def _reply(self, seq: int, kind: str, payload: str) -> Frame:
        return Frame(dev=self.dev_code, seq=seq, kind=kind, payload=payload)

    def _nak(self, seq: int, reason: str) -> Frame:
        self.stats["tx_nak"] += 1
        return self._reply(seq, "n", reason)

    def _state(self) -> DeviceState:
        if self._booted_at is None:
            return DeviceState.BOOT
        if self._offline:
            return DeviceState.OFFLINE
        if Severity.LOCKUP in self._faults.values():
            return DeviceState.FAULT
        if not self._enabled:
            return DeviceState.DISABLED
        return DeviceState.READY if self._time_valid else DeviceState.IDLE

    def _flags(self) -> int:
        flags = Flag(0)
        if self._state() is DeviceState.READY:
            flags |= Flag.READY
        if self._enabled:
            flags |= Flag.ENABLED
        if self._faults:
            flags |= Flag.FAULT_ACTIVE
        if self._tamper:
            flags |= Flag.TAMPER_ACTIVE
        if self._queue:
            flags |= Flag.QUEUE_NOT_EMPTY
        if self._time_valid:
            flags |= Flag.TIME_VALID
        return int(flags | self._device_flags())

    def _identity_extra(self) -> str:
        """Fields a device type adds to its ``i`` reply (``;deck_type`` for the shoe)."""
        return ""

    def _status(self, seq: int) -> Frame:
        fault = next(reversed(self._faults), 0) if self._faults else 0
        payload = (
            f"{self._state().value};{self._flags():04X};{fault:02X};{len(self._queue):02d};"
            f"{self._device_specific()}"
        )
        return self._reply(seq, "s", payload)

    # ---- internals: events and the wire ----------------------------------------------------

    def _emit(self, kind: str, payload: str) -> None:
        """Queue an event with the device's own SEQ; send it at once if the line is free."""
        if len(self._queue) >= self.queue_capacity:
            self.stats["events_lost"] += 1
            self.problems.append(f"queue full: event {kind} {payload!r} lost")
            self._faults[QUEUE_OVERFLOW] = Severity.LOCKUP
            return
        frame = Frame(dev=self.dev_code, seq=self._seq, kind=kind, payload=payload)
        self._seq = (self._seq + 1) % 256
        self._queue.append(_Queued(frame))
        if self._booted_at is not None and len(self._queue) == 1 and not self._deferring:
            self._pump_queue(self._now)

    def _pump_queue(self, now: float) -> None:
        if not self._queue or self._given_up or self._stall_until is not None:
            return
        if self._booted_at is None:
            return
        head = self._queue[0]
        if head.sent_at is None:
            head.sends, head.sent_at = 1, now
            self._transmit(head.frame, now)
        elif now - head.sent_at >= RESEND_AFTER_S:
            if head.sends <= MAX_RESENDS:
                head.sends += 1
                head.sent_at = now
                self.stats["resent"] += 1
                self._transmit(head.frame, now)
            else:
                self._given_up = True
                self._raise(COMM_HOST_TIMEOUT)

    def _transmit(self, frame: Frame, now: float) -> None:
        self.transmitted.append(frame)
        self._tx_all += 1
        self._tx_kind[frame.kind] += 1
        raw = encode(frame)
        copies = 1
        for spec in list(self._injections):
            if isinstance(spec, (DropFrame, DuplicateFrame, CorruptByte)):
                n = self._tx_all if spec.kind is None else self._tx_kind[frame.kind]
                if spec.kind is not None and spec.kind != frame.kind:
                    continue
                if isinstance(spec, CorruptByte):
                    if n != spec.frame:
                        continue
                    self._injections.remove(spec)
                    if spec.byte >= len(raw):
                        self.problems.append(
                            f"CorruptByte: frame {n} has {len(raw)} bytes, no byte {spec.byte}"
                        )
                        continue
                    damaged = bytearray(raw)
                    damaged[spec.byte] ^= spec.xor
                    raw = bytes(damaged)
                    self.stats["tx_corrupted"] += 1
                elif self._matches(spec, n, spec.rate):
                    if isinstance(spec, DropFrame):
                        self.stats["tx_dropped"] += 1
                        return
                    self.stats["tx_duplicated"] += 1
                    copies = 2
        for _ in range(copies):
            self._put_on_wire(raw, now)

    def _put_on_wire(self, raw: bytes, now: float) -> None:
        at = max(now, self._out_free_at)
        split = next((s for s in self._injections if isinstance(s, SplitWrites)), None)
        if split is None:
            self._outbox.append((at, raw))
        else:
            self.stats["tx_split_frames"] += 1
            pos = 0
            while pos < len(raw):
                size = self.rng.randint(1, split.max_chunk)
                self._outbox.append((at, raw[pos : pos + size]))
                pos += size
                at += self.rng.uniform(0, split.max_gap_s)
        self._out_free_at = at

    def _flush(self, now: float) -> bytes:
        if self._stall_until is not None:
            return b""
        out = bytearray()
        while self._outbox and self._outbox[0][0] <= now:
            out += self._outbox.popleft()[1]
        if not self._cable:
            self.stats["tx_bytes_lost_unplugged"] += len(out)
            return b""
        return bytes(out)

    # ---- internals: faults and life cycle -------------------------------------------------

    def _raise(
        self, code: int, severity: Severity | None = None, text: str = "", *, repeat: bool = False
    ) -> None:
        """Raise a fault; one already active is reported again only if ``repeat``."""
        if code in self._faults and not repeat:
            return
        self._faults.pop(code, None)
        name = fault_name(code)
        known = next((s for c, s in SEVERITY.items() if c == code), Severity.WARNING)
        sev = severity or known
        self._faults[code] = sev
        self._emit("f", f"{code:02X};{sev.value};R;{text or name}")

    def _clear(self, code: int, text: str = "") -> None:
        sev = self._faults.pop(code, None)
        if sev is None:
            return
        name = fault_name(code)
        self._emit("f", f"{code:02X};{sev.value};C;{text or name}")

    def _door(self, which: str, is_open: bool) -> None:
        if is_open:
            self._tamper.add(which)
        else:
            self._tamper.discard(which)
        self._emit("o", f"{which};{'O' if is_open else 'C'}")

    def _go_offline(self, offline: bool) -> None:
        self._offline = offline
        if offline:
            self._raise(COMM_HOST_TIMEOUT)
        self._device_offline_changed()

    def _set_cable(self, connected: bool) -> None:
        if self._cable and not connected:
            self._unplugs += 1
        self._cable = connected
        self.stats["unplugged" if not connected else "replugged"] += 1

    def _check_shoe_only(self, spec: FaultSpec) -> None:
        if getattr(spec, "forget_draw_no", False) and self.dev_code != "S":
            raise SimConfigError(
                f"Reboot(forget_draw_no=True) needs a shoe; a {type(self).__name__} has no "
                "draw number"
            )

    def _add_injection(self, spec: FaultSpec) -> None:
        if not isinstance(spec, self.accepted_faults):
            names = ", ".join(t.__name__ for t in self.accepted_faults)
            raise SimConfigError(
                f"{type(self).__name__} cannot take {type(spec).__name__}; it takes {names}"
            )
        if getattr(spec, "at_draw", None) is not None and self.dev_code != "S":
            raise SimConfigError(
                f"{type(spec).__name__}(at_draw=...) needs a shoe; use at_s on "
                f"{type(self).__name__}"
            )
        self._check_shoe_only(spec)
        self._injections.append(spec)

    def _fire_at_draw(self, draw_no: int) -> None:
        """Fire the moment specs (Reboot, Stall, Unplug, LidOpen) waiting for this draw."""
        for spec in list(self._injections):
            if getattr(spec, "at_draw", None) == draw_no and isinstance(
                spec, (Reboot, Stall, Unplug, LidOpen)
            ):
                self._injections.remove(spec)
                self._fire(spec, self._now)

    def _fire(self, spec: FaultSpec, now: float) -> None:
        if isinstance(spec, Reboot):
            self._reboot(
                spec.reason,
                cut_after_bytes=spec.cut_after_bytes,
                forget_draw_no=spec.forget_draw_no,
            )
        elif isinstance(spec, Stall):
            self._stall_until = now + spec.duration_s
            self._stall_then_reboot = spec.then_reboot
            self.stats["stalls"] += 1
        elif isinstance(spec, Unplug):
            self._set_cable(False)
            if spec.duration_s is not None:
                power_cycle = spec.power_cycle

                def replug(at: float) -> None:
                    self._set_cable(True)
                    if power_cycle:
                        self._reboot("PON", cut_after_bytes=0)

                self._schedule(now + spec.duration_s, replug)
        else:
            self._device_fire(spec, now)

    def _reboot(
        self, reason: str, *, cut_after_bytes: int | None, forget_draw_no: bool = False
    ) -> None:
        pending = b"".join(chunk for _, chunk in self._outbox)
        self._outbox.clear()
        cut = len(pending) // 2 if cut_after_bytes is None else min(cut_after_bytes, len(pending))
        if cut:
            self._outbox.append((self._now, pending[:cut]))
        self._out_free_at = self._now
        self._boot_count += 1
        self.stats["reboots"] += 1
        self._reset_volatile()
        for queued in self._queue:
            queued.sends, queued.sent_at = 0, None
        self._device_reboot()
        if forget_draw_no:
            self._device_forget_draw_no()
        self._emit("p", f"{self._boot_count};{reason}")
        self._device_after_boot()

    # ---- hooks for the device types -------------------------------------------------------

    def _device_command(self, frame: Frame, now: float) -> bool | str | None:
        """Carry out a device-specific command: True (answer ``s``), a NAK reason, or None
        (unknown command)."""
        return None

    def _device_specific(self) -> str:
        return ""

    def _device_flags(self) -> int:
        return 0

    def _device_advance(self, now: float) -> None:
        return None

    def _device_deadline(self) -> float | None:
        return None

    def _device_fire(self, spec: FaultSpec, now: float) -> None:
        raise SimConfigError(f"{type(self).__name__} cannot fire {spec!r}")

    def _device_reboot(self) -> None:
        """Reset device-specific volatile state (called before the new ``p`` is queued)."""

    def _device_forget_draw_no(self) -> None:
        """A shoe comes back with its draw number at 0 (a reboot that forgets it)."""

    def _device_after_boot(self) -> None:
        """Report conditions still physically present after a reboot (after ``p``)."""

    def _device_offline_changed(self) -> None:
        return None

    def _device_enabled_changed(self) -> None:
        return None
