"""The threaded driver of one device: a transport and a link core on one thread.

::

    events: queue.Queue[DeviceEvent] = queue.Queue()
    shoe = ShoeDriver("/dev/serial/by-id/usb-...", events)
    shoe.start()                       # opens the port (PortOpenError if it cannot)
    shoe.wait_identified(timeout=2.0)  # optional: block until the device answered I
    shoe.lock_gate().result(1.0)       # commands return concurrent.futures.Future
    event = events.get()               # CardDrawn, LinkLost, ... from every device, in order
    shoe.close()                       # joins the thread and closes the port

One thread per device reads the port, feeds the link core, writes what it asks for and puts its
events on the ONE queue shared by every device. Between bytes it sleeps until the link's next
timer is due (a poll, a resend, a lost link: :meth:`~drivers.link.Link.next_deadline`), so an idle
device costs a few wake-ups a second, not one every few milliseconds. Commands and confirmations
may be submitted from any thread; they are handed to the device's thread, which is the only one
touching the port and the link, and wake it at once (so does :meth:`DeviceDriver.close`).
Drivers never call game code. The port is reopened with capped exponential back-off when it
fails; the link core reports the outage.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from datetime import UTC, datetime
from typing import ClassVar, Self

import structlog

from drivers.errors import (
    CommandError,
    DeviceTimeoutError,
    DriverConfigError,
    LinkDownError,
    PortIOError,
    WrongDeviceError,
)
from drivers.link import Link, LinkConfig, LinkState, LinkStats, Output, PendingCommand
from drivers.link import validate_command as _validate
from drivers.tbl21.events import (
    DeviceEvent,
    DeviceIdentified,
    DeviceIdentity,
    DeviceRef,
    DeviceRefused,
    DeviceStatusReport,
    DeviceType,
    FrameEvent,
    LinkLost,
    Reply,
)
from drivers.transport import (
    DEFAULT_BAUD,
    DEFAULT_READ_TIMEOUT,
    Backoff,
    Opener,
    SerialTransport,
    open_serial_url,
)

log = structlog.get_logger("croupier.drivers")

EventSink = queue.Queue[DeviceEvent]
# The longest the thread sleeps with nothing due (the link always has a timer while connected:
# this only bounds a link that has none, and a clock the caller replaced).
MAX_IDLE_WAIT_S = 1.0
# A timer found already due after the link ran its timers waits this long, never less: the
# thread does not spin even if a deadline and the link's clock disagreed.
MIN_WAIT_S = 0.001


def format_utc(when: datetime) -> str:
    """``YYYYMMDDThhmmssZ`` for the ``T`` command; ``when`` must be timezone-aware."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise CommandError(f"time sync needs a timezone-aware datetime, got naive {when!r}")
    return when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _utc_now() -> datetime:
    return datetime.now(UTC)


class DeviceDriver:
    """Base of :class:`~drivers.shoe.ShoeDriver`, :class:`~drivers.peek.PeekDriver` and
    :class:`~drivers.panel.PanelDriver`; subclasses set ``device_type`` and add commands."""

    device_type: ClassVar[DeviceType]

    def __init__(
        self,
        url: str,
        events: EventSink,
        *,
        baudrate: int = DEFAULT_BAUD,
        link_config: LinkConfig | None = None,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
        utc_now: Callable[[], datetime] | None = _utc_now,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        opener: Opener = open_serial_url,
        resume: tuple[int, int] | None = None,
        confirm_events: bool = False,
    ) -> None:
        """``utc_now``: after each identification the driver sends ``T`` with this time (pass
        None to leave time sync to the caller). ``read_timeout``: the port's own read timeout
        (the thread's waits are set by the link's timers). ``resume``: the ``(boot, seq)`` of
        the last
        event of this device the controller applied before it restarted (see
        :class:`~drivers.tbl21.events.FrameEvent`). ``confirm_events``: acknowledge an event to the
        device only when :meth:`confirm` is called for it (after the controller has journaled
        it); otherwise on receipt."""
        if not isinstance(events, queue.Queue):
            raise DriverConfigError(f"events must be a queue.Queue, got {type(events).__name__}")
        self.ref = DeviceRef(self.device_type, url)
        self.events = events
        self._transport = SerialTransport(
            url, baudrate=baudrate, read_timeout=read_timeout, opener=opener
        )
        config = link_config or LinkConfig()
        if confirm_events and not config.confirm_events:
            config = replace(config, confirm_events=True)
        self._link = Link(self.ref, config, resume=resume)
        self._confirms: queue.SimpleQueue[tuple[int, bool]] = queue.SimpleQueue()
        self._backoff = backoff or Backoff()
        self._clock = clock
        self._utc_now = utc_now
        self._inbox: queue.SimpleQueue[tuple[str, str, Future[Reply] | None]] = queue.SimpleQueue()
        self._inbox_lock = threading.Lock()
        self._accepting = False  # True while the thread runs and takes commands
        self._stop = threading.Event()
        self._nudge = threading.Event()  # wakes the back-off wait while the port is gone
        self._identified = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._log = log.bind(device=str(self.ref))
        # Reads the thread has made (each ends with bytes, a timer due or a wake-up): an idle
        # driver makes a few a second; a spinning one would show here.
        self.reads = 0

    # --- life cycle -----------------------------------------------------------------------------

    def start(self) -> Self:
        """Open the port (raises :class:`~drivers.errors.PortOpenError`) and start the thread."""
        if self._closed:
            raise DriverConfigError(f"{self.ref}: a closed driver cannot be started again")
        if self._thread is not None:
            return self
        self._transport.open()
        self._accepting = True
        self._thread = threading.Thread(
            target=self._run, name=f"croupier-{self.ref.type.label}-{self.ref.port}", daemon=True
        )
        self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread, fail pending commands, close the port. Safe to call twice."""
        self._closed = True
        with self._inbox_lock:
            self._accepting = False
        self._stop.set()
        self._wake()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                self._log.error("driver thread did not stop", timeout=timeout)
        self._transport.close()
        self._fail_inbox()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- state (read from any thread) -----------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self._link.state

    @property
    def identity(self) -> DeviceIdentity | None:
        return self._link.identity

    @property
    def status(self) -> DeviceStatusReport | None:
        return self._link.status

    @property
    def stats(self) -> LinkStats:
        return self._link.stats

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_identified(self, timeout: float) -> DeviceIdentity:
        """Block until the device has answered ``I``.

        Raises :class:`WrongDeviceError` if it was refused, :class:`DeviceTimeoutError` if it
        did not answer within ``timeout`` seconds.
        """
        self._identified.wait(timeout)
        if self._link.state is LinkState.REFUSED:
            raise WrongDeviceError(
                f"{self.ref}: the device on the port is not a {self.ref.type.label}",
                url=self.ref.port,
            )
        identity = self._link.identity
        if identity is None:
            raise DeviceTimeoutError(
                f"{self.ref}: no identification within {timeout} s; check that the device is "
                "powered, connected to this port and set to the right baud rate",
                url=self.ref.port,
            )
        return identity

    # --- commands (any thread) ------------------------------------------------------------------

    def send(self, kind: str, payload: str = "") -> Future[Reply]:
        """Send a raw command. Raises :class:`CommandError` at once for a malformed one."""
        _validate(kind, payload, self.ref)
        future: Future[Reply] = Future()
        with self._inbox_lock:
            if self._accepting:
                self._inbox.put((kind, payload, future))
                self._wake()
                return future
        if self._link.state is LinkState.REFUSED:
            message = f"{self.ref}: the device was refused (wrong type); nothing is sent to it"
        elif self._thread is None and not self._closed:
            message = f"{self.ref}: the driver is not started; call start() first"
        else:
            message = f"{self.ref}: the driver is closed"
        future.set_exception(LinkDownError(message, url=self.ref.port))
        return future

    def confirm(self, event: FrameEvent) -> None:
        """Confirm mode: ``event`` is safely stored; the driver may acknowledge it now."""
        self._check_confirmable(event)
        self._confirms.put((event.seq, True))
        self._wake()

    def _check_confirmable(self, event: FrameEvent) -> None:
        if event.device != self.ref:
            raise CommandError(
                f"{self.ref}: cannot confirm an event of {event.device}", url=self.ref.port
            )
        if not self._link.config.confirm_events:
            raise CommandError(
                f"{self.ref}: confirm() needs confirm_events=True; events are acknowledged "
                "on receipt",
                url=self.ref.port,
            )

    def decline(self, event: FrameEvent) -> None:
        """Confirm mode: ``event`` could not be stored and was not applied; the driver does not
        acknowledge it and passes the device's next copy on again."""
        self._check_confirmable(event)
        self._confirms.put((event.seq, False))
        self._wake()

    def poll(self) -> Future[Reply]:
        return self.send("Q")

    def identify(self) -> Future[Reply]:
        return self.send("I")

    def enable(self) -> Future[Reply]:
        return self.send("E")

    def disable(self) -> Future[Reply]:
        return self.send("D")

    def sync_time(self, when: datetime | None = None) -> Future[Reply]:
        """``T`` with ``when`` (timezone-aware; default now) in UTC."""
        return self.send("T", format_utc(when or datetime.now(UTC)))

    # --- the device's thread --------------------------------------------------------------------

    def _run(self) -> None:
        link, transport = self._link, self._transport
        try:
            self._deliver(link.connection_made(self._clock()))
            while not self._stop.is_set():
                if link.state is LinkState.REFUSED:
                    transport.close()
                    break
                if not transport.is_open:
                    if not transport.reconnect(
                        self._backoff,
                        sleep=self._serve_while_waiting,
                        should_stop=self._stop.is_set,
                    ):
                        break
                    self._deliver(link.connection_made(self._clock()))
                    continue
                self._take_commands()
                self.reads += 1
                try:
                    data = transport.read(self._wait_s())
                except PortIOError as exc:
                    self._deliver(link.connection_lost(self._clock(), str(exc)))
                    continue
                self._deliver(link.receive(data, self._clock()))
        except Exception as exc:
            self._log.exception("driver thread failed")
            if link.state is LinkState.UP:
                self.events.put(
                    LinkLost(
                        device=self.ref,
                        at=self._clock(),
                        reason=f"driver failed: {exc!r}",
                        last_reply_at=link.last_reply_at,
                    )
                )
        finally:
            with self._inbox_lock:
                self._accepting = False
            link.close(self._clock())
            transport.close()
            self._fail_inbox()
            self._identified.set()

    def _wake(self) -> None:
        """Any thread: the device's thread should look at its inbox (or its stop flag) now."""
        self._nudge.set()
        self._transport.wake()

    def _wait_s(self) -> float:
        """How long the thread may wait for bytes: until the link's next timer is due."""
        due = self._link.next_deadline()
        if due is None:
            return MAX_IDLE_WAIT_S
        return min(MAX_IDLE_WAIT_S, max(MIN_WAIT_S, due - self._clock()))

    def _deliver(self, out: Output) -> None:
        if out.to_send:
            try:
                self._transport.write(out.to_send)
            except PortIOError as exc:
                lost = self._link.connection_lost(self._clock(), str(exc))
                out = Output(b"", out.events + lost.events)
        for event in out.events:
            self.events.put(event)
            if isinstance(event, DeviceIdentified | DeviceRefused):
                self._identified.set()
                if isinstance(event, DeviceIdentified) and self._utc_now is not None:
                    self._queue_time_sync()

    def _queue_time_sync(self) -> None:
        assert self._utc_now is not None
        try:
            payload = format_utc(self._utc_now())
        except CommandError as exc:
            self._log.error("time sync skipped", error=str(exc))
            return
        _, out = self._link.command("T", payload, self._clock())
        self._deliver(out)

    def _take_commands(self) -> None:
        while True:
            try:
                seq, stored = self._confirms.get_nowait()
            except queue.Empty:
                break
            if stored:
                self._deliver(self._link.confirm(seq, self._clock()))
            else:
                self._deliver(self._link.decline(seq, self._clock()))
        while True:
            try:
                kind, payload, future = self._inbox.get_nowait()
            except queue.Empty:
                return
            if future is not None and not future.set_running_or_notify_cancel():
                continue
            _, out = self._link.command(kind, payload, self._clock(), _resolver(future))
            self._deliver(out)

    def _serve_while_waiting(self, delay: float) -> None:
        """Back-off sleep that still answers submitted commands (they fail: link down); a
        command, a confirmation or close ends the sleep early."""
        end = time.monotonic() + delay
        while not self._stop.is_set():
            self._nudge.clear()
            self._take_commands()
            left = end - time.monotonic()
            if left <= 0:
                return
            self._nudge.wait(left)

    def _fail_inbox(self) -> None:
        while True:
            try:
                _, _, future = self._inbox.get_nowait()
            except queue.Empty:
                return
            if future is not None and future.set_running_or_notify_cancel():
                future.set_exception(
                    LinkDownError(f"{self.ref}: the driver is closed", url=self.ref.port)
                )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.ref} {self.state}>"


def _resolver(future: Future[Reply] | None) -> Callable[[PendingCommand], None] | None:
    if future is None:
        return None

    def resolve(pending: PendingCommand) -> None:
        if pending.error is not None:
            future.set_exception(pending.error)
        else:
            assert pending.result is not None
            future.set_result(pending.result)

    return resolve
