"""The table service: the journal, the devices, and the one owner of the table.

One loop is the only code that touches the :class:`~controller.table.app.TableApp` (through
the :class:`~controller.journal.journaled.JournaledTable`, so every cause is journalled before
it is applied and every effect before anyone sees it). It takes everything from ONE inbox: the
drivers' events (the devices were opened onto it), the commands of the display
(:meth:`TableService.submit`: a :class:`Press` of a panel key, a :class:`Pin`, an
:class:`Acknowledge` of a notice, or one of the round's own inputs - a bet, a supervisor's
decision, a keyed-in card, :mod:`controller.round.inputs` - each answered through a
``Future``), and wake-ups.

The loop runs in a thread of its own (:meth:`TableService.start`, what ``croupier run`` does), or
in the caller's thread (:meth:`TableService.open`, then :meth:`TableService.pump_until`: the
scenario runner, which is then the owner and may read the table between two pumps). It is the
same loop either way, with the same journal, devices and table.

What runs beside the table plugs in without the service knowing what it is:

* *actors* (``actors=``): people at the table who act between events on the owner's thread, such
  as the demo dealer (:mod:`controller.play.demo`), ticked after every pass;
* *monitors* (``monitors=``): things with a thread of their own whose health shows beside the
  devices' (the journal's shipping to the floor);
* *observers* (:meth:`TableService.observe`): called on the owner's thread after every pass that
  changed something, such as the display, which builds its state there
  (:mod:`controller.display.hub`).

The table enforces the table file's PINs (:func:`controller.table.access.pin_policy`) unless an
``access`` policy is given (a scripted session decides with the key alone).
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import structlog

from controller.game.errors import ConfigError
from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.refusals import Why, WhyNot
from controller.game.rules import resolve_variant_path
from controller.game.words import line, refusal_words
from controller.journal.errors import ChainBroken, JournalUnavailable, RecoveryMismatch
from controller.journal.journaled import (
    JOURNAL_FORMAT,
    JournaledTable,
    check_variant,
    resume_points,
)
from controller.journal.lock import JournalLock
from controller.journal.logs import bind_round
from controller.journal.store import Journal
from controller.round.inputs import Bet, Decision, KeyedCard
from controller.service import integrity
from controller.service.devices import check_device_urls, open_devices, shown_urls
from controller.service.history import RoundSummary, summarize
from controller.service.notices import Notice, NoticeKind, Notices
from controller.service.retention import prune_confirmed
from controller.table import identity
from controller.table.access import AccessEvent, AccessPolicy, pin_policy
from controller.table.app import Applied, Cause, InputResult, TableApp
from controller.table.bets import BetLimits
from controller.table.commands import DriverCommands
from controller.table.config import LoadedTable, live_table_problem
from controller.table.day import DayEvent, DayRequest
from controller.table.firmware import AllowFirmware
from controller.table.health import DeviceHealth
from controller.table.integrity import IntegrityAlarm
from controller.table.people import PEOPLE_REQUESTS, PeopleEvent, PeopleRequest
from controller.table.shoewatch import committed_cut
from controller.table.staff import table_staff
from drivers.table import TableDevices
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    DeviceEvent,
    DeviceRef,
    DeviceType,
    FrameEvent,
)
from sim_hardware import DeviceCore

log = structlog.get_logger("croupier.service")

ACTOR_TICK_S = 0.02  # with actors at the table, the owner ticks them at least this often
IDENTIFY_S = 10.0
MAX_BATCH = 256  # inbox items handled in one pass before the observers are told
# The owner thread gives the GIL up on every call into SQLite (each statement of a commit) and on
# every queue wait. With another thread of the process busy in Python at that moment (the web
# server encoding a state, a driver, emulated devices) the owner gets it back only when that
# thread is made to let go: after the interpreter's switch interval, 5 ms by default, each time.
# A table process runs with 1 ms (bench/journal_convoy.py; bench/README.md, "switch interval").
OWNER_SWITCH_INTERVAL_S = 0.001


def prefer_the_owner() -> None:
    """Set the process's GIL switch interval for a table (:data:`OWNER_SWITCH_INTERVAL_S`): a
    thread that wants the GIL back waits 1 ms at most for a busy one, not 5. For the process
    that runs a table (``croupier run``), not for a library caller."""
    sys.setswitchinterval(OWNER_SWITCH_INTERVAL_S)


DISPLAY_REF = DeviceRef(DeviceType.PANEL, "display")


# --- what the display may ask ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Press:
    """One panel key pressed on the display."""

    button: Button


@dataclass(frozen=True, slots=True)
class Pin:
    """A PIN keyed on the display for the role the key switch is at (never kept)."""

    pin: str = field(repr=False)
    staff_id: str = ""  # the staff number keyed with it, where the role signs in by person


@dataclass(frozen=True, slots=True)
class Acknowledge:
    """The dealer has read a notice (its id)."""

    notice: int


Command = Press | Bet | Pin | Decision | KeyedCard | Acknowledge | PeopleRequest | DayRequest


@dataclass(frozen=True, slots=True)
class CommandReply:
    accepted: bool
    reason: str = ""


# --- what plugs in ----------------------------------------------------------------------------


class Actor(Protocol):
    """Someone at the table who acts between events, on the owner's thread."""

    name: str

    def tick(self, now: float) -> None: ...


class Monitor(Protocol):
    """Something beside the table, with a thread of its own, whose health the dealer sees."""

    def start(self, wake: Callable[[], None]) -> None:
        """Start; call ``wake`` (from any thread) when the health changed."""

    def close(self) -> None: ...

    def health(self) -> DeviceHealth: ...


ActorFactory = Callable[["TableService"], Actor]
Observer = Callable[["TableService"], None]


@dataclass(frozen=True, slots=True)
class _Call:
    command: Command
    future: Future[CommandReply]


class _Wake:
    """Something outside changed (a monitor's health, a new observer): publish."""


class _Stop:
    """The owner's last item."""


# --- the service ---------------------------------------------------------------------------------


class TableService:
    """The journal, devices and owner of one table. ``start()`` (or ``open()`` and pump), then
    ``close()`` (or ``with``)."""

    keep_outputs = 1_000  # table outputs kept in memory (twice as many before they are trimmed)

    def __init__(
        self,
        table: LoadedTable,
        *,
        actors: Sequence[ActorFactory] = (),
        monitors: Sequence[Monitor] = (),
        access: AccessPolicy | None = None,
        identify_s: float = IDENTIFY_S,
        demo_day: bool = False,
    ) -> None:
        refused = live_table_problem(table)
        if refused is not None:
            raise ConfigError(table.source, [refused])
        self.table = table
        # a demo (or the shipped example) opens its gaming day itself at start, journalled
        self.demo_day = demo_day
        self.config = table.config
        self.rules = table.rules
        self.identify_s = identify_s
        self.access = (
            access
            if access is not None
            else pin_policy(self.config, pepper=table.pepper(), staff=table_staff(table))
        )
        self.errors: list[str] = []  # bugs the owner caught (an event it could not handle)
        self.notices = Notices()  # a rebuilt round, journal trouble: until read
        check_device_urls(self.config.devices.urls, table.source)
        self.health = {
            role: DeviceHealth(
                role,
                url,
                firmware_allow=AllowFirmware.of(self.config.devices.firmware_allow).hashes,
            )
            for role, url in shown_urls(self.config.devices.urls).items()
        }
        self.monitors = list(monitors)
        self.last_rounds: list[RoundSummary] = []
        self.rounds_completed = 0
        self.rounds_at_start = 0
        self.emulated: dict[str, DeviceCore] = {}  # the devices made in this process, by role
        self.devices: TableDevices | None = None
        self.app: TableApp | None = None
        self.actors: list[Actor] = []
        self._actor_factories = list(actors)
        self._observers: list[Observer] = []
        # One inbox for everything: device events (the drivers put them here), commands, wakes.
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._stopping = threading.Event()
        self._opened = False
        self._stop_journalled = False
        # why the stop row could not be written (a full disk), once close() tried
        self.stop_not_journalled: str | None = None
        self._thread: threading.Thread | None = None
        self._stack = ExitStack()
        self._claims = ExitStack()  # the journal's lock: released last, by close()
        self._pending_notices: list[tuple[NoticeKind, str]] = []
        self._unjournalled: list[tuple[str, Notice]] = []
        self.lock: JournalLock | None = None  # this table's hold on its journal, once open
        self.software: identity.Software | None = None  # what this start runs, once open
        self.config_row: dict[str, Any] = {}  # the start's config row (the rules files' hashes)
        # per device, the event the journal could not take: the next one to apply
        self._declined: dict[DeviceRef, tuple[int | None, int]] = {}
        self.integrity: integrity.IntegrityChecker | None = None  # the live check, once open

    # --- life cycle ------------------------------------------------------------------------------

    def open(self) -> None:
        """Open the journal, rebuild the table from it, open the devices and seat the actors.
        The caller is the owner until :meth:`start` (or for good, pumping the inbox itself).

        When the open fails, what it opened is closed again; a journal :meth:`claim` the caller
        took before stays the caller's until :meth:`close` (a start stopped for a supervisor
        keeps it), one the open took itself is released."""
        claimed = self.lock is not None
        try:
            self._open()
        except BaseException:
            self._stack.close()
            if not claimed:
                self._claims.close()
            raise
        self._opened = True
        self._publish()

    def start(self) -> None:
        """Open (if not yet) and run the owner loop in a thread of its own."""
        if not self._opened:
            self.open()
        self._thread = threading.Thread(target=self._run, name="table-owner", daemon=True)
        self._thread.start()

    def claim(self) -> JournalLock:
        """Take this table's journal for this process (:class:`JournalLock`, held until
        :meth:`close`), or raise :class:`~controller.journal.lock.JournalInUse` naming the
        running table that has it. :meth:`open` claims it first if nobody did."""
        if self.lock is None:
            self.lock = JournalLock.acquire(self.table.journal_path, table_id=self.config.table_id)
            self._claims.callback(self._release)
        return self.lock

    def _release(self) -> None:
        lock, self.lock = self.lock, None
        if lock is not None:
            lock.release()

    def _open(self) -> None:
        # Everything a start can refuse is checked before the journal gets a row: this table
        # owns the journal (the lock), the chain holds, the journal is of this variant, its
        # replay matches it, the devices open. Then the start's rows, then the table.
        path = self.table.journal_path
        self.claim()
        journal = self._stack.enter_context(
            Journal.open(
                path, table_id=self.config.table_id, sealed=True, key_path=self.table.key_path
            )
        )
        chain = journal.verify_from_anchor()
        if not chain.ok:
            raise ChainBroken(str(path), chain.first_bad_seq, chain.reason)
        verified = None if chain.last_seq is None else (chain.last_seq, str(chain.last_hash))
        check_variant(journal, self.rules.id)
        # the installed files against their record (SoftwareChanged: nothing is dealt)
        software = self.software = identity.check(identity.at_start())
        try:
            prepared = JournaledTable.prepare(self.rules, journal, access=self.access)
        except RecoveryMismatch:
            # Rows before the verified point are not hashed again at each start: a replay that
            # differs asks whether the whole chain still holds (it names an edited row).
            whole = journal.verify()
            if not whole.ok:
                raise ChainBroken(str(path), whole.first_bad_seq, whole.reason) from None
            raise
        opened = open_devices(
            self._stack,
            self.config.devices.urls,
            self.rules,
            name=self.config.table_id,
            events=self._inbox,
            baudrate=self.config.devices.baudrate,
            confirm_events=True,  # acknowledged only once journaled
            resume=resume_points(journal),
            drawn=prepared.drawn,
        )
        prune_confirmed(journal, self.table)  # only rows the floor holds, past the retention
        journal.append_many(
            [
                ("software", {**software.as_row(), "journal_format": JOURNAL_FORMAT}),
                ("config", self._config_row(journal, software)),
            ]
        )
        self.journaled = prepared.commit(show=self._told, limits=BetLimits.of(self.config))
        # Before any device event is applied: which firmware may deal (checked at each
        # identification, this start's included).
        self.journaled.allow_firmware(self.config.devices.firmware_allow)
        # Whether the table deals only in an open gaming day (controller.table.day).
        self.journaled.require_opening(self.config.gaming_day.required)
        if self.demo_day:  # a demo (or the shipped example) opens its day itself, journalled
            self.journaled.demo_opening()
        # What the display showed before a restart: the finished rounds, from the journal.
        finished, self.rounds_completed = prepared.finished
        keep = self.config.display.last_rounds
        self.last_rounds = [summarize(r) for r in finished[-keep:]] if keep > 0 else []
        self.rounds_at_start = self.rounds_completed  # (finished before this start)
        for kind, text in self._pending_notices:
            self._notice(kind, text)
        self._pending_notices.clear()
        if self.journaled.recovery is not None:
            log.info("table recovered", detail=self.journaled.recovery.describe())
        self.devices = opened.drivers
        self.emulated = opened.emulated
        for role, driver in zip(("shoe", "peek", "panel"), opened.drivers.drivers, strict=True):
            if role in self.emulated:
                driver.wait_identified(self.identify_s)
        # The table's commands go to the devices from now on (the replay sent none).
        self.journaled.app.commands = DriverCommands(opened.drivers, self.rules)
        self.journaled.devices_ready()
        self.app = self.journaled.app
        self.actors = [make(self) for make in self._actor_factories]
        for monitor in self.monitors:
            monitor.start(self.wake)
            self._stack.callback(monitor.close)
        if self.config.integrity.enabled:  # the journal and the rules files, checked again
            self.integrity = integrity.checker(self, journal, verified, self._inbox.put)
            self.integrity.start()
            self._stack.callback(self.integrity.close)

    def close(self, reason: str = "the table was stopped") -> None:
        """Stop the owner, journal the clean stop (``reason``, where the table stood), close
        the drivers, the emulated devices and the monitors (idempotent)."""
        self._stopping.set()
        self._inbox.put(_Stop())
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._journal_stop(reason)
        while True:  # nobody will answer these any more
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Call):
                item.future.set_result(_refused(WhyNot(Why.TABLE_SHUTTING_DOWN)))
        self._stack.close()
        self._claims.close()

    def _journal_stop(self, reason: str) -> None:
        """A ``stop`` row, once: a later start knows the table stopped, and did not crash."""
        if not self._opened or self._stop_journalled or self.app is None:
            return
        self._stop_journalled = True
        controller = self.app.controller
        number = controller.round_number()
        row = {
            "reason": reason,
            "round": number,
            "state": controller.state.value,
            "rounds_completed": self.rounds_completed,
        }
        try:
            self.journaled.journal.append("stop", row, round_id=number)
        except JournalUnavailable as exc:
            self.stop_not_journalled = str(exc)
            log.warning("the stop was not journalled", error=str(exc))

    def __enter__(self) -> TableService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- doors -----------------------------------------------------------------------------------

    def submit(self, command: Command) -> Future[CommandReply]:
        """Queue a command for the owner (from any thread); the future holds its reply."""
        future: Future[CommandReply] = Future()
        if self._stopping.is_set() or not self._opened:
            future.set_result(_refused(WhyNot(Why.TABLE_NOT_RUNNING)))
            return future
        self._inbox.put(_Call(command, future))
        return future

    def execute(self, command: Command) -> CommandReply:
        """Carry out a command now. Only the owner may (the caller that pumps the inbox)."""
        if self._thread is not None:
            raise RuntimeError("the owner thread runs this table: submit() the command")
        reply = self._command(command)
        self._publish()
        return reply

    def observe(self, observer: Observer) -> None:
        """Call ``observer(service)`` on the owner's thread after every pass that changed
        something (and now, if the table is open)."""
        self._observers.append(observer)
        if self._opened:
            self.wake()

    def wake(self) -> None:
        """Have the owner publish again (from any thread)."""
        self._inbox.put(_Wake())

    def device_health(self) -> list[DeviceHealth]:
        """The devices' health, then the monitors'."""
        return [*self.health.values(), *(m.health() for m in self.monitors)]

    # --- the owner -------------------------------------------------------------------------------

    def pump_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Be the owner until ``done()`` (checked after every pass) or ``timeout_s`` passed;
        whether it was done."""
        deadline = time.monotonic() + timeout_s
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                item = self._inbox.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            self._pass(item)
        return True

    def pump_quiet(self, quiet_s: float = 0.05) -> None:
        """Be the owner until nothing arrived for ``quiet_s``."""
        while True:
            try:
                item = self._inbox.get(timeout=quiet_s)
            except queue.Empty:
                return
            self._pass(item)

    def _run(self) -> None:
        assert self.app is not None
        # Every record the owner logs names the table and the round (thread-local binding).
        bind_round(table_id=self.config.table_id, round_id=self.app.round_number)
        while not self._stopping.is_set():
            try:
                item = self._inbox.get(timeout=ACTOR_TICK_S if self.actors else None)
            except queue.Empty:
                item = None
            self._pass(item)

    def _pass(self, first: object | None) -> None:
        """One pass of the owner: ``first`` and whatever else is waiting, the actors' turn,
        then the observers if anything changed."""
        changed = False
        item = first
        for _ in range(MAX_BATCH):
            if item is not None:
                changed = self._dispatch(item) or changed
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
        else:
            if item is not None:
                changed = self._dispatch(item) or changed
        if self.actors:
            before = self._marker()
            self._guarded(self._tick_actors, "an actor at the table")
            changed = changed or self._marker() != before
        if changed:
            self._publish()

    def _dispatch(self, item: object) -> bool:
        """Handle one inbox item; whether anything may have changed."""
        if isinstance(item, _Stop):
            self._stopping.set()
            return False
        if isinstance(item, _Wake):
            return True
        if isinstance(item, _Call):
            reply = _refused(WhyNot(Why.INTERNAL_ERROR))
            try:
                reply = self._command(item.command)
            except Exception as exc:
                self._error(f"command {item.command}", exc)
            item.future.set_result(reply)
            return True
        if isinstance(item, DeviceEvent):
            self._guarded(partial(self._event, item), f"event {type(item).__name__}")
            return True
        if isinstance(item, IntegrityAlarm):  # something changed behind the table's back
            self._guarded(partial(self._applying, partial(self._alarm, item)), "an alarm")
            return True
        self._error("the inbox", TypeError(f"not an inbox item: {item!r}"))
        return False

    def _marker(self) -> tuple[int, int]:
        assert self.app is not None
        return self.app.output_mark(), self.app.round_number

    def _alarm(self, alarm: IntegrityAlarm) -> None:
        self.journaled.apply(alarm)

    def _tick_actors(self) -> None:
        now = time.monotonic()
        for actor in self.actors:
            self._applying(partial(actor.tick, now))

    def _guarded(self, fn: Callable[[], None], what: str) -> None:
        try:
            fn()
        except Exception as exc:
            self._error(what, exc)

    def _error(self, what: str, exc: Exception) -> None:
        text = f"{what}: {type(exc).__name__}: {exc}"
        self.errors.append(text)
        log.exception("table owner caught an error", what=what)

    def _event(self, event: DeviceEvent) -> None:
        health = self.health.get(event.device.type.label)
        if health is not None and event.device.port != DISPLAY_REF.port:
            health.observe(event)
        self._applying(lambda: self._handle(event))

    def _handle(self, event: DeviceEvent) -> None:
        assert self.devices is not None
        # Journal first, then acknowledge: an event the journal could not take is declined (left
        # unacknowledged), and the device sends it again. Until that one is taken, the device's
        # later events are declined too, so its events are applied in the order it sent them.
        if not isinstance(event, FrameEvent):
            self.journaled.handle(event)
            return
        waiting = self._declined.get(event.device)
        if waiting is not None and waiting != (event.boot, event.seq):
            self.devices.decline(event)
            return
        if self.journaled.handle(event):
            self._declined.pop(event.device, None)
            self.devices.confirm(event)
        else:
            self._declined[event.device] = (event.boot, event.seq)
            self.devices.decline(event)

    def _cut_position(self) -> int:
        """Where this table commits each shoe's cut card (:func:`committed_cut`)."""
        shoe = self.rules.shoe
        return committed_cut(shoe.decks, shoe.deck.size, shoe.cut_card_reserve)

    def _config_row(self, journal: Journal, software: identity.Software) -> dict[str, Any]:
        """The configuration this start runs with, hashed (the software's identity too: the
        floor keeps these rows as the table's identity history), and the rules it deals by; a
        file changed since the last start is named in the row and told to the dealer (and
        logged)."""
        variant_path = resolve_variant_path(self.config.variant)
        row: dict[str, Any] = {
            "variant": self.rules.id,
            "variant_path": str(variant_path),
            "table": self.table.source,
            **identity.rules_files(variant_path, self.rules.id, Path(self.table.source)),
            "software": software.version,
            "software_sha256": software.sha256,
            "software_recorded": software.recorded,
            # the cut position of the shoe already loaded, committed before its first card (each
            # later shoe's is on its new_shoe order): journal format 14 on
            "cut_position": self._cut_position(),
            # the rules this table deals by, as validated (a custom variant file's, overrides
            # included): the floor rates its play by them (journal format 15 on)
            "rules": self.rules.model_dump(mode="json"),
        }
        last = None
        for previous in journal.iter_rows(kinds=["config"]):
            last = previous.payload
        changed = [
            name
            for name in identity.WATCHED
            if last is not None and last.get(name) not in (None, row[name])
        ]
        row["changed"] = changed
        self.config_row = row
        if changed:
            what = _and(list(dict.fromkeys(identity.CHANGE_WORDS[name] for name in changed)))
            text = (
                f"Since the last start {what} changed (the table's record keeps both versions' "
                "fingerprints)."
            )
            log.warning("configuration changed", changed=changed)
            self._pending_notices.append((NoticeKind.CONFIG, text))
        return row

    def _told(self, item: object) -> None:
        """What the table tells the dealer outside the round (recovery, journal trouble)."""
        if not isinstance(item, Prompt):
            return
        if item.code is PromptCode.JOURNAL_UNAVAILABLE:
            self._notice(NoticeKind.JOURNAL, line(item))
        elif item.say is Say.RECOVERED:
            self._notice(NoticeKind.RECOVERED, line(item))

    def _notice(self, kind: NoticeKind, text: str) -> None:
        """Open a notice for the dealer, and journal it (if the journal takes it)."""
        notice = self.notices.add(kind, text)
        if notice is not None:
            self._journal_notice("opened", notice)

    def _journal_notice(self, event: str, notice: Notice | None, *, keep: bool = True) -> bool:
        """Journal a notice's opening or acknowledgement (and those still waiting); whether the
        journal took it. One it could not take waits for the journal if ``keep`` (an opening),
        or is dropped (an acknowledgement refused: the notice stays open)."""
        waiting = [] if notice is None else [(event, notice)]
        journaled = getattr(self, "journaled", None)
        if journaled is None:  # before the table exists: journalled once it does
            self._unjournalled += waiting
            return False
        rows = [*self._unjournalled, *waiting]
        if not rows:
            return True
        try:
            journaled.journal.append_many(
                [("notice", {"event": e, **n.as_json()}) for e, n in rows],
                round_id=journaled.app.round_number,
            )
        except JournalUnavailable:
            log.warning("notice not journalled: the journal is unavailable", what=event)
            if keep:
                self._unjournalled += waiting
            return False
        self._unjournalled.clear()
        return True

    def _signal(self) -> None:
        """The panel's side of the notices: ``CAL`` blinks while one is open; and notices the
        journal could not take yet are written as soon as it can."""
        commands = getattr(self.app, "commands", None)
        if isinstance(commands, DriverCommands):
            commands.notice(bool(self.notices.open()))
        if self._unjournalled and self.journaled.unavailable is None:
            self._journal_notice("", None)

    def _applying(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` against the table; note a round that ended in it."""
        assert self.app is not None
        fn()
        for text in self.journaled.journal.clock_reports():
            self._notice(NoticeKind.CLOCK, text)
        if self._unjournalled and self.journaled.unavailable is None:
            self._journal_notice("", None)
        if len(self.app.outputs) > 2 * self.keep_outputs:
            # The journal has every output; the display reads the last few dozen. Without this
            # a table that runs for days grows by about 10 KB a round (the soak run showed it).
            self.app.trim_outputs(self.keep_outputs)
        for before in self.journaled.marks.take_closed():
            self.rounds_completed += 1
            summary = summarize(before)
            self.last_rounds.append(summary)
            # the audit log's line per round (the journal has every step)
            log.info(
                "round over", round=summary.number, net_cents=dict(summary.net), void=summary.void
            )
            bind_round(round_id=self.app.round_number)
            del self.last_rounds[: -self.config.display.last_rounds]

    def _command(self, command: Command) -> CommandReply:
        """Carry out a command: each is a typed cause for the journaled table (a key pressed on
        the display is the panel's key press), but acknowledging a notice, which is the
        service's own."""
        assert self.app is not None
        if isinstance(command, Acknowledge):
            notice = self.notices.find(command.notice)
            if notice is None:
                return _refused(WhyNot(Why.NO_SUCH_NOTICE, number=command.notice))
            if not self._journal_notice("acknowledged", notice, keep=False):
                trouble = self.journaled.unavailable or ""
                return _refused(WhyNot(Why.NOTICE_NOT_RECORDED, detail=trouble))
            self.notices.acknowledge(command.notice)
            return CommandReply(True, "")
        if isinstance(command, DayRequest):
            made: list[DayEvent] = []
            self._applying(lambda: made.append(self.journaled.day_request(command)))
            return CommandReply(made[0].accepted, made[0].text)
        if isinstance(command, PEOPLE_REQUESTS):
            said: list[PeopleEvent] = []
            self._applying(lambda: said.append(self.journaled.people_request(command)))
            return CommandReply(said[0].accepted, said[0].text)
        cause: Cause
        if isinstance(command, Pin):
            cause = self.app.access.check_pin(
                command.pin, source="display", staff_id=command.staff_id
            )
        elif isinstance(command, Press):
            cause = ButtonPressed(
                device=DISPLAY_REF, at=time.monotonic(), seq=0, button=command.button, held_ms=0
            )
        else:
            cause = command
        done: list[Applied | None] = []
        self._applying(lambda: done.append(self.journaled.apply(cause)))
        applied = done[0]
        if isinstance(command, Press):
            if applied is None:
                trouble = self.journaled.unavailable or ""
                why = WhyNot(Why.NOT_RECORDED, key=command.button.value, detail=trouble)
                return _refused(why)
            results = [o for o in applied.outputs if isinstance(o, (InputResult, AccessEvent))]
            refused = next((r for r in results if not r.accepted), None)
            if refused is not None:
                return CommandReply(False, _why(refused))
            return CommandReply(True, _why(results[-1]) if results else "")
        if applied is None or applied.result is None:
            trouble = self.journaled.unavailable or ""
            code = Why.JOURNAL_UNAVAILABLE if isinstance(command, Pin) else Why.JOURNAL_CANNOT_WRITE
            return _refused(WhyNot(code, detail=trouble))
        return CommandReply(applied.result.accepted, _why(applied.result))

    def _publish(self) -> None:
        if self.app is not None:
            self._guarded(self._signal, "the notice lamp")
        for observer in self._observers:
            self._guarded(partial(observer, self), "an observer")


def _refused(why: WhyNot) -> CommandReply:
    """A command refused for ``why``, said by the words module."""
    return CommandReply(False, refusal_words(why))


def _why(item: InputResult | AccessEvent | PeopleEvent | DayEvent) -> str:
    return item.reason if isinstance(item, InputResult) else item.text


def _and(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
