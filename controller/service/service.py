"""The table service: devices, the one table owner, and the commands of the display.

One thread (``table-owner``) is the only consumer of the drivers' event queue and the only
caller of the :class:`~controller.table.TableApp`. Everything else that wants to act on the
table - the display's on-screen buttons and bets, the demo dealer - goes through it:

* the display calls :meth:`TableService.submit` with a :class:`Press` (one panel key, fed to
  the table exactly as the panel's own ``ButtonPressed`` event), a :class:`Bet`, a
  :class:`Pin` (a sign-in), a :class:`Decide` (a supervisor's or technician's decision) or a
  :class:`KeyCard` (the dealer keys in a card the shoe could not read); the owner carries it
  out between two device events and answers through a ``Future``;
* the demo dealer (:class:`~controller.demo.DemoDealer`) is ticked by the owner and acts on the
  emulated devices only.

After every event or command the owner builds the display state
(:func:`controller.display.state.table_state`) and publishes it (:class:`StateHub`), so the web
server never reads the round controller.

The table enforces the table file's PINs (:func:`controller.access.pin_policy`): a supervisor's
or technician's decision needs the key and that role signed in; a role without a PIN in the file
decides nothing.

Devices named ``"emulated"`` in the table configuration are served in-process (``sim://``);
any other value is a pyserial URL (a real port, or a pty of ``croupier emulate``).
"""

from __future__ import annotations

import hashlib
import itertools
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import structlog

from controller import __version__
from controller.display.state import DeviceHealth, RoundSummary, summarize, table_state
from controller.game.prompts import Prompt, PromptCode, money
from controller.game.rules import resolve_variant_path
from controller.journal.journaled import JournaledTable, resume_points
from controller.journal.logs import bind_round
from controller.journal.store import Journal
from controller.play.demo import DemoDealer
from controller.play.scenario_file import ScriptedShoe, SeededShoe
from controller.play.scenario_runner import DriverCommands, emulated_shoe
from controller.play.strategy import strategy_for
from controller.round.spec import Action, State
from controller.table.access import DECISIONS, AccessEvent, pin_policy
from controller.table.app import InputResult, TableApp
from controller.table.config import EMULATED, LoadedTable
from drivers.table import TableDevices, open_table
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    DeviceEvent,
    DeviceIdentified,
    DeviceRef,
    DeviceRefused,
    DeviceType,
    FaultCleared,
    FaultRaised,
    FrameEvent,
    LinkLost,
    LinkRestored,
)
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, serve
from sim_hardware.device import DeviceCore

log = structlog.get_logger("croupier.service")

POLL_S = 0.02  # the owner checks the display's commands at least this often
IDENTIFY_S = 10.0
DISPLAY_REF = DeviceRef(DeviceType.PANEL, "display")
_service_ids = itertools.count()


# --- what the display may ask ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Press:
    """One panel key pressed on the display."""

    button: Button


@dataclass(frozen=True, slots=True)
class Bet:
    box: int
    player: str
    amount_cents: int


@dataclass(frozen=True, slots=True)
class Pin:
    """A PIN keyed on the display for the role the key switch is at (never kept)."""

    pin: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Decide:
    """A supervisor's or technician's decision from the display (a name of ``DECISIONS``)."""

    decision: str


@dataclass(frozen=True, slots=True)
class KeyCard:
    """The dealer keys in the card the shoe could not read."""

    card: Card


Command = Press | Bet | Pin | Decide | KeyCard


@dataclass(frozen=True, slots=True)
class Reply:
    accepted: bool
    reason: str = ""


# --- the published state -----------------------------------------------------------------------


class StateHub:
    """The latest display state, published by the owner and read by the web server.

    ``publish`` may be called from any thread; ``subscribe`` registers a callback (the web
    server's wake-up, which hops onto its own event loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._version = 0
        self._listeners: list[Callable[[], None]] = []

    def publish(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._version += 1
            self._state = {**state, "version": self._version}
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def latest(self) -> tuple[int, dict[str, Any]]:
        with self._lock:
            return self._version, self._state

    def subscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)


# --- the service ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """Emulated players and dealer: how fast they act, which boxes they play."""

    pace_s: float = 0.8
    boxes: tuple[int, ...] = (1, 2, 3)
    seed: int = 7


class TableService:
    keep_outputs = 1_000  # table outputs kept in memory (twice as many before they are trimmed)
    """Devices, the table and its owner thread. ``start()``, then ``close()`` (or ``with``)."""

    def __init__(
        self,
        table: LoadedTable,
        *,
        shoe: ScriptedShoe | SeededShoe | None = None,
        demo: DemoOptions | None = None,
        identify_s: float = IDENTIFY_S,
    ) -> None:
        self.table = table
        self.config = table.config
        self.rules = table.rules
        self.shoe_spec = shoe if shoe is not None else SeededShoe(demo.seed if demo else 7)
        self.demo_options = demo
        self.identify_s = identify_s
        self.hub = StateHub()
        self.errors: list[str] = []  # bugs the owner caught (an event it could not handle)
        self.notices: list[str] = []  # "round N recovered at ...", journal trouble
        self.health = {
            role: DeviceHealth(role, url) for role, url in self.config.devices.urls.items()
        }
        self.last_rounds: list[RoundSummary] = []
        self.rounds_completed = 0
        # Emulated devices served in-process (the test's or the demo dealer's hands).
        self.emulated: dict[str, DeviceCore] = {}
        self.devices: TableDevices | None = None
        self.app: TableApp | None = None
        self.demo: DemoDealer | None = None
        self._commands: queue.SimpleQueue[tuple[Command, Future[Reply]]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._stack = ExitStack()
        self._id = next(_service_ids)
        if demo is not None and not self.config.devices.all_emulated:
            raise ValueError(
                "--demo needs the emulated devices: the demo dealer's hands act on them "
                "(devices in the table file must all be 'emulated')"
            )

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        try:
            self._open()
        except BaseException:
            self._stack.close()
            raise
        self._thread = threading.Thread(target=self._run, name="table-owner", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        # The journal first: the table is what the journal says it is (a fresh table on a new
        # journal, the rebuilt table after a restart).
        journal = self._stack.enter_context(
            Journal.open(self.table.journal_path, table_id=self.config.table_id)
        )
        journal.prune(timedelta(days=self.config.journal.retention_days))
        journal.append_many(
            [("software", {"version": __version__}), ("config", self._config_row(journal))]
        )
        self.journaled = JournaledTable.start(
            self.rules, journal, show=self._told, access=pin_policy(self.config)
        )
        if self.journaled.recovery is not None:
            log.info("table recovered", detail=self.journaled.recovery.describe())
        resume = resume_points(journal)
        urls = dict(self.config.devices.urls)

        # An emulated device made anew in this process has booted again: its boot count goes
        # on from the journal's, so the drivers do not take its new events for old ones.
        def boot(role: str) -> int:
            return resume[role][0] + 1 if role in resume else 1

        makers: dict[str, Callable[[], DeviceCore]] = {
            "shoe": lambda: emulated_shoe(self.rules, self.shoe_spec, boot_count=boot("shoe")),
            "peek": lambda: EmulatedPeekReader(boot_count=boot("peek")),
            "panel": lambda: EmulatedPanel(boot_count=boot("panel")),
        }
        for role, url in urls.items():
            if url == EMULATED:
                device = makers[role]()
                if role == "shoe" and isinstance(device, EmulatedShoe):
                    self._catch_up(device)
                runner = self._stack.enter_context(
                    serve(device, f"{self.config.table_id}-{self._id}-{role}")
                )
                self.emulated[role] = device
                urls[role] = runner.url
        devices = self._stack.enter_context(
            open_table(
                urls["shoe"],
                urls["peek"],
                urls["panel"],
                baudrate=self.config.devices.baudrate,
                confirm_events=True,  # acknowledged only once journaled
                resume=resume,
            )
        )
        self.devices = devices
        for role, driver in zip(("shoe", "peek", "panel"), devices.drivers, strict=True):
            if self.config.devices.urls[role] == EMULATED:
                driver.wait_identified(self.identify_s)
        # The table's commands go to the devices from now on (the replay sent none).
        self.journaled.app.commands = DriverCommands(devices, self.rules)
        self.app = self.journaled.app
        if self.demo_options is not None:
            opts = self.demo_options
            shoe, reader, panel = (self.emulated[r] for r in ("shoe", "peek", "panel"))
            assert isinstance(shoe, EmulatedShoe)
            assert isinstance(reader, EmulatedPeekReader)
            assert isinstance(panel, EmulatedPanel)
            boxes = tuple(b for b in opts.boxes if b in self.config.boxes) or self.config.boxes[:3]
            self.demo = DemoDealer(
                self.app,
                shoe,
                reader,
                panel,
                strategy_for(self.rules),
                boxes=boxes,
                min_cents=self.config.limits.min_cents,
                max_cents=self.config.limits.max_cents,
                increment_cents=self.config.limits.increment_cents,
                pace_s=opts.pace_s,
                seed=opts.seed,
                place_bet=self.journaled.place_bet,
            )
        self._publish()

    def close(self) -> None:
        """Stop the owner, close the drivers and the emulated devices (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        while True:  # nobody will answer these any more
            try:
                _, future = self._commands.get_nowait()
            except queue.Empty:
                break
            future.set_result(Reply(False, "the table is shutting down"))
        self._stack.close()

    def __enter__(self) -> TableService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the display's door ----------------------------------------------------------------------

    def submit(self, command: Command) -> Future[Reply]:
        """Queue a command for the owner; the future holds its reply."""
        future: Future[Reply] = Future()
        if self._stop.is_set() or self._thread is None:
            future.set_result(Reply(False, "the table is not running"))
            return future
        self._commands.put((command, future))
        return future

    def state(self) -> dict[str, Any]:
        return self.hub.latest()[1]

    # --- the owner -------------------------------------------------------------------------------

    def _run(self) -> None:
        assert self.devices is not None
        assert self.app is not None
        # Every record the owner logs names the table and the round (thread-local binding).
        bind_round(table_id=self.config.table_id, round_id=self.app.controller.round.number)
        events = self.devices.events
        while not self._stop.is_set():
            changed = False
            try:
                event: DeviceEvent | None = events.get(timeout=POLL_S)
            except queue.Empty:
                event = None
            if event is not None:
                self._guarded(partial(self._event, event), f"event {type(event).__name__}")
                changed = True
            while True:
                try:
                    command, future = self._commands.get_nowait()
                except queue.Empty:
                    break
                reply = Reply(False, "internal error: see the log")
                try:
                    reply = self._command(command)
                except Exception as exc:
                    self._error(f"command {command}", exc)
                future.set_result(reply)
                changed = True
            if self.demo is not None:
                before = self._marker()
                self._guarded(self._demo_tick, "the demo dealer")
                changed = changed or self._marker() != before
            if changed:
                self._publish()

    def _marker(self) -> tuple[int, int]:
        assert self.app is not None
        return self.app.output_mark(), self.app.controller.round.number

    def _demo_tick(self) -> None:
        assert self.demo is not None
        self._applying(lambda: self.demo.tick(time.monotonic()) if self.demo else None)

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
        self._track_health(event)
        self._applying(lambda: self._handle(event))

    def _handle(self, event: DeviceEvent) -> None:
        assert self.devices is not None
        # Journal first, then acknowledge: an event the journal could not take is left
        # unacknowledged, and the device sends it again.
        if self.journaled.handle(event) and isinstance(event, FrameEvent):
            self.devices.confirm(event)

    def _config_row(self, journal: Journal) -> dict[str, Any]:
        """The configuration this start runs with, hashed; a file changed since the last start
        is named in the row and told to the dealer (and logged)."""
        variant_path = resolve_variant_path(self.config.variant)
        row: dict[str, Any] = {
            "variant": self.rules.id,
            "variant_path": str(variant_path),
            "variant_sha256": _file_hash(variant_path),
            "table": self.table.source,
            "table_sha256": _file_hash(Path(self.table.source)),
            "software": __version__,
        }
        last = None
        for previous in journal.iter_rows(kinds=["config"]):
            last = previous.payload
        changed = [
            name
            for name in ("variant_sha256", "table_sha256", "software")
            if last is not None and last.get(name) not in (None, row[name])
        ]
        row["changed"] = changed
        if changed:
            what = ", ".join(name.removesuffix("_sha256") for name in changed)
            text = f"changed since the last start: {what} (see the journal's config rows)"
            log.warning("configuration changed", changed=changed)
            self.notices.append(text)
        return row

    def _told(self, item: object) -> None:
        """What the table tells the dealer outside the round (recovery, journal trouble)."""
        if isinstance(item, Prompt) and item.code in (
            PromptCode.RESUMED,
            PromptCode.JOURNAL_UNAVAILABLE,
        ):
            self.notices.append(item.text)
            del self.notices[:-5]

    def _catch_up(self, shoe: EmulatedShoe) -> None:
        """An emulated shoe starts full; after a restart it must be where the journal left the
        table's shoe: the cards already drawn come out again (the table, knowing their draw
        numbers, does not apply them twice)."""
        drawn = self.journaled.app.last_draw_no or 0
        for _ in range(min(drawn, shoe.remaining)):
            shoe.draw()

    def _applying(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` against the table; note a round that ended in it."""
        assert self.app is not None
        before = self.app.controller.round
        fn()
        if len(self.app.outputs) > 2 * self.keep_outputs:
            # The journal has every output; the display reads the last few dozen. Without this
            # a table that runs for days grows by about 10 KB a round (the soak run showed it).
            self.app.trim_outputs(self.keep_outputs)
        if self.app.controller.round is not before and self.app.controller.round.number != (
            before.number
        ):
            self.rounds_completed += 1
            self.last_rounds.append(summarize(before))
            bind_round(round_id=self.app.controller.round.number)
            del self.last_rounds[: -self.config.display.last_rounds]

    def _command(self, command: Command) -> Reply:
        assert self.app is not None
        app = self.app
        if isinstance(command, Press):
            start = app.output_mark()
            press = ButtonPressed(
                device=DISPLAY_REF, at=time.monotonic(), seq=0, button=command.button, held_ms=0
            )

            def press_it() -> None:
                self.journaled.handle(press)

            self._applying(press_it)
            results = [
                o for o in app.outputs_since(start) if isinstance(o, (InputResult, AccessEvent))
            ]
            refused = next((r for r in results if not r.accepted), None)
            if refused is not None:
                return Reply(False, _why(refused))
            return Reply(True, _why(results[-1]) if results else "")
        if isinstance(command, Pin):
            event = self.journaled.enter_pin(command.pin)
            return Reply(event.accepted, event.text)
        if isinstance(command, (Decide, KeyCard)):
            if isinstance(command, Decide):
                action, data = DECISIONS[command.decision], {}
            else:
                action, data = Action.KEY_CARD, {"card": command.card}
            outcome: list[InputResult] = []

            def decide() -> None:
                outcome.append(self.journaled.supervisor(action, **data))

            self._applying(decide)
            return Reply(outcome[0].accepted, outcome[0].reason)
        limits = self.config.limits
        problem = None
        if command.box not in self.config.boxes:
            problem = f"box {command.box} is not in use at this table (boxes {self.config.boxes})"
        elif not limits.min_cents <= command.amount_cents <= limits.max_cents:
            problem = (
                f"a bet must be {money(limits.min_cents)} to {money(limits.max_cents)}, "
                f"got {money(command.amount_cents)}"
            )
        elif command.amount_cents % limits.increment_cents:
            problem = f"a bet must be in steps of {money(limits.increment_cents)}"
        elif app.controller.state is not State.BETTING:
            problem = "bets are closed"
        if problem is not None:
            return Reply(False, problem)
        result = self.journaled.place_bet(command.box, command.player, command.amount_cents)
        return Reply(result.accepted, result.reason)

    def _track_health(self, event: DeviceEvent) -> None:
        role = event.device.type.label
        health = self.health.get(role)
        if health is None or event.device.port == DISPLAY_REF.port:
            return
        if isinstance(event, DeviceIdentified):
            health.status = "connected"
            health.identity = f"{event.model} {event.serial} fw {event.fw_version}"
            health.detail = ""
        elif isinstance(event, LinkLost):
            health.status = "lost"
            health.detail = event.reason
        elif isinstance(event, LinkRestored):
            health.status = "connected"
            health.detail = ""
        elif isinstance(event, DeviceRefused):
            health.status = "refused"
            health.detail = event.reason
        elif isinstance(event, FaultRaised):
            health.faults[event.name] = event.severity.name.lower()
        elif isinstance(event, FaultCleared):
            health.faults.pop(event.name, None)

    def _publish(self) -> None:
        assert self.app is not None
        self.hub.publish(
            table_state(
                self.app,
                self.config,
                list(self.health.values()),
                self.last_rounds,
                rounds_completed=self.rounds_completed,
                demo=self.demo is not None,
            )
        )


def _why(item: InputResult | AccessEvent) -> str:
    return item.text if isinstance(item, AccessEvent) else item.reason


def _file_hash(path: Path) -> str:
    """SHA-256 of a configuration file, journalled at start (a changed file shows)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""
