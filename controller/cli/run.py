"""``croupier run [--config FILE] [--demo]``: the table with its dealer display.

Starts the devices (emulated in-process where the table file says ``"emulated"``, the default;
otherwise the serial ports it names), the round controller on its one owner thread, and the
dealer display; prints where the display is, and runs until Ctrl-C or SIGTERM, when it stops the
display, joins the owner and releases the devices.

``--demo`` adds emulated players who bet and decide by basic strategy and an emulated dealer
who draws, peeks and acknowledges at a human pace (``--pace``), so rounds play by themselves in
the browser. Without ``--demo``, emulated devices take the dealer's hands on stdin (the commands
of ``croupier emulate``: ``d`` draws a card, ``p HIT`` presses a panel key...). ``--rounds N``
stops after N rounds (for scripts and tests).

A table that holds (a stray card, a lost device) waits for a supervisor or a technician, so a
live start needs both PINs in the table file (``croupier passwd --pin ROLE``) and is refused
without them, or with the demo PINs, naming the commands (status 2). ``--demo`` and the shipped
example (no ``--config``) take the demo PINs (:data:`~controller.table.config.DEMO_PINS`) for
the roles their file leaves without one, and print them at start.

One journal serves one running table: ``run`` locks it (:mod:`controller.journal.lock`) and a
second ``run`` on the same journal is refused, naming the running one. Every start-up failure a
user can cause prints one message (what, where, what to do) and exits with its status:

== =================================================================================
0  stopped cleanly (Ctrl-C, SIGTERM, ``q``, or ``--rounds`` done)
1  the devices or the display could not be opened, or the table caught errors while running
2  a wrong command line or table file (the option or key is named)
3  the journal belongs to a table that is running now (its process and display are named)
4  the journal cannot be used: a read-only folder, a damaged or foreign file, or a new one
   would be made while the table's last journal is elsewhere (both are named; ``--new-journal``
   starts one on purpose; :mod:`controller.journal.whereabouts`)
5  the journal disagrees with this start: its rounds are of another variant (at once), or its
   hash chain is broken or its replay does not match it, or the software's files are not as
   the wheel installed them (:mod:`controller.table.identity`) - then the table stops for a
   supervisor first (below), and the status is 5 when it is stopped
6  stopped, but not everything was written: the journal could not take the stop row, or a
   log could not be written (a full or failing disk); each is named
70 a bug in croupier: the traceback, then a line saying it is a bug
== =================================================================================

A failed start writes no row to the journal: everything is checked before the first row.

A broken hash chain or a replay that does not match the journal stops the table for a
supervisor (:mod:`controller.service.halt`): ``run`` keeps the journal's lock, opens no device,
writes no row, prints the problem, and serves the dealer display, which shows the problem and the
supervisor's choices (sign in with the supervisor PIN; check the chain again, void the open
round, or stop). It runs until the supervisor chooses stop, or Ctrl-C or SIGTERM, and exits with
status 5; after a void (a ``set_aside`` row, the only row written) the table starts as any start
does, on the same display.
"""

from __future__ import annotations

import argparse
import secrets
import select
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any

from controller.cli.scenario import quiet_logs
from controller.display.hub import StateHub
from controller.display.web import DisplayServer
from controller.floor.shipper import Shipper
from controller.game.errors import ConfigError
from controller.game.prompts import money
from controller.game.rules import load_variant
from controller.game.words import card_shown
from controller.journal.errors import (
    ChainBroken,
    JournalUnavailable,
    RecoveryMismatch,
    VariantConflict,
)
from controller.journal.lock import JournalInUse
from controller.journal.logs import configure_logging, log_failures, reset_logging
from controller.journal.whereabouts import STATE_ENV, new_journal_problem, remember
from controller.play.counter import DEMO_COUNTERS
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.devices import check_device_urls, emulated_roles, shown_urls
from controller.service.halt import Halted, Problem
from controller.service.service import TableService, prefer_the_owner
from controller.table.access import pin_policy
from controller.table.config import (
    DEMO_PINS,
    Display,
    LoadedTable,
    hash_secret,
    live_pin_problems,
    load_table_config,
    with_demo_pins,
)
from controller.table.identity import SoftwareChanged
from controller.table.staff import Person, table_staff, with_demo_dealer
from drivers.errors import DeviceError
from drivers.transport import show_wire_cards
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.emulate import Console


def _check(args: argparse.Namespace) -> str | None:
    if not 0 <= args.pace <= 10:
        return f"--pace must be 0-10 seconds, got {args.pace}"
    if args.rounds is not None and not 1 <= args.rounds <= 100_000:
        return f"--rounds must be 1-100000, got {args.rounds}"
    return None


EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2
EXIT_IN_USE = 3
EXIT_JOURNAL = 4
EXIT_DISAGREES = 5
EXIT_UNWRITTEN = 6
EXIT_BUG = 70  # EX_SOFTWARE


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except Exception:
        traceback.print_exc()
        print(
            "croupier run: this is a bug in croupier, not something you did: please report it "
            "with the lines above and the audit log",
            file=sys.stderr,
        )
        return EXIT_BUG


def _fail(status: int, text: str) -> int:
    print(f"croupier run: {text}", file=sys.stderr)
    return status


def _run(args: argparse.Namespace) -> int:
    quiet_logs()
    prefer_the_owner()
    problem = _check(args)
    if problem:
        return _fail(EXIT_USAGE, problem)
    if args.variant is not None:
        try:
            load_variant(args.variant)
        except ConfigError as exc:
            return _fail(EXIT_USAGE, f"--variant {args.variant}: {'; '.join(exc.problems)}")
    overrides: dict[str, Any] = {}
    if args.variant is not None:
        overrides["variant"] = args.variant
    if args.port is not None:
        overrides["display.port"] = args.port
    try:
        table = load_table_config(args.config, overrides)
        check_device_urls(table.config.devices.urls, table.source)
        if args.demo:
            if emulated_roles(table.config.devices.urls) != {"shoe", "peek", "panel"}:
                raise ConfigError(
                    table.source,
                    [
                        "--demo needs the emulated devices: the demo dealer's hands act on them "
                        "(devices in the table file must all be 'emulated')"
                    ],
                )
            if table.config.devices.shoe == "emulated":
                # the demo's seed shuffles the shoe too
                table = load_table_config(
                    args.config, {**overrides, "devices.shoe": f"sim://shoe?seed={args.seed}"}
                )
        # A table that can hold must be released by a supervisor or a technician: a demo (or
        # the shipped example) has demo PINs for the roles its file leaves without one, printed
        # below; a live table needs PINs of its own.
        demo_pins: dict[str, str] = {}
        demo_view: str | None = None
        if args.demo:
            table, demo_view = _with_demo_view(table)
        staff = table_staff(table)
        demo_person: Person | None = None
        if args.demo or table.shipped:
            table, demo_pins = with_demo_pins(table)
            staff, demo_person = with_demo_dealer(staff)
        else:
            refused = live_pin_problems(table, {p.role for p in staff})
            if refused:
                raise ConfigError(table.source, refused)
        demo = DemoOptions(
            pace_s=args.pace,
            seed=args.seed,
            counters=DEMO_COUNTERS if getattr(args, "demo_counter", False) else (),
            rated=bool(getattr(args, "rated", False)),
        )
        shipper = _shipper(table)
        service = TableService(
            table,
            access=pin_policy(table.config, pepper=table.pepper(), staff=staff),
            actors=[demo_dealer(demo)] if args.demo else (),
            monitors=[shipper] if shipper is not None else (),
            demo_day=args.demo or table.shipped,
        )
    except (ConfigError, ValueError) as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    # A new, empty journal while the table's last one is elsewhere (the table file started
    # from another folder, or a copy of it) would leave its rounds behind: refused.
    journal_path = table.journal_path.absolute()
    if args.new_journal and journal_path.exists():
        return _fail(
            EXIT_USAGE,
            f"--new-journal: there is a journal at {journal_path} already; leave out "
            "--new-journal to go on with it, or set journal.path in the table file to a new file",
        )
    elsewhere = (
        None
        if args.new_journal
        else new_journal_problem(table.config.table_id, journal_path, table.source)
    )
    if elsewhere is not None:
        return _fail(EXIT_JOURNAL, elsewhere)
    audit = table.path(table.config.logs.audit)
    debug_log = table.path(table.config.logs.debug)
    try:
        # What the controller logs (and the libraries' warnings) goes to the audit log as JSON
        # lines; everything, the libraries' chatter included, to the rotated debug log; the
        # console keeps what this command prints.
        logs = table.config.logs
        configure_logging(
            console=False,
            json_path=audit,
            level="INFO",
            debug_path=debug_log,
            audit_max_bytes=logs.audit_max_bytes,
            audit_backups=logs.audit_backups,
            debug_max_bytes=logs.debug_max_bytes,
            debug_backups=logs.debug_backups,
            repeat_limit=logs.repeat_limit,
            repeat_window_s=logs.repeat_window_s,
        )
        show_wire_cards(logs.wire_cards)
    except OSError as exc:
        print(
            f"croupier run: cannot write the logs {audit} and {debug_log}: {exc} "
            "(set [logs] audit and debug in the table file to a folder croupier may write)",
            file=sys.stderr,
        )
        return 2
    stop = threading.Event()
    why: list[str] = []  # what stopped the table, for the journal's stop row
    restore = _on_signals(stop, why)
    display = DisplayServer(service, table.config.display)
    try:
        voided = False  # a supervisor voided the open round at a halted start
        while True:
            try:
                if not voided:
                    lock = service.claim()  # before anything else: is this journal ours?
                    try:
                        display.bind()
                    except OSError as exc:
                        return _fail(
                            EXIT_RUNTIME,
                            f"cannot serve the display on {table.config.display.host}:"
                            f"{table.config.display.port}: {exc.strerror or exc} (another "
                            "program uses it: set display.port in the table file or use --port)",
                        )
                    lock.update(display=display.url)
                service.start()
            except DeviceError as exc:
                return _fail(EXIT_RUNTIME, f"cannot open the devices: {exc}")
            except JournalInUse as exc:
                return _fail(EXIT_IN_USE, str(exc))
            except JournalUnavailable as exc:
                return _fail(EXIT_JOURNAL, str(exc))
            except VariantConflict as exc:
                return _fail(EXIT_DISAGREES, str(exc))
            except (ChainBroken, RecoveryMismatch, SoftwareChanged) as exc:
                if voided:  # (the void's replay was checked: this is a bug, or the file moved)
                    return _fail(EXIT_DISAGREES, f"after the void: {exc}")
                status = _halted(
                    Problem.of(exc, table.journal_path), service, display, stop, demo_pins
                )
                if status is not None:
                    return status
                voided = True
                continue
            break
        unrecorded = remember(table.config.table_id, journal_path)
        if not voided:
            display.start()
        if not display.wait_started():
            print("croupier run: the display did not start", file=sys.stderr)
            return 1
        config = table.config
        print(f"croupier: table {config.table_id}, {table.rules.name}", flush=True)
        devices = ", ".join(f"{r} {u}" for r, u in shown_urls(config.devices.urls).items())
        print(f"devices: {devices}", flush=True)
        print(f"journal: {table.journal_path}", flush=True)
        if unrecorded is not None:
            print(
                f"warning: the journal's place could not be recorded ({unrecorded}): a later "
                "start that would make a new journal elsewhere cannot be caught "
                f"(set {STATE_ENV} to a folder croupier may write)",
                flush=True,
            )
        print(f"audit log: {audit} (debug log: {debug_log})", flush=True)
        if shipper is not None:
            print(f"floor: shipping the journal to {shipper.settings.where}", flush=True)
        _print_demo_pins(demo_pins)
        if demo_person is not None:
            print(
                f"demo dealer: staff number {demo_person.id}, PIN {DEMO_PINS['dealer']} (PEOPLE "
                "on the display, between rounds) - a demo's, refused by a live table",
                flush=True,
            )
        if config.logs.wire_cards:
            print(
                "warning: the debug log shows every card read, the hole card before it is "
                "turned over (logs.wire_cards = true in the table file): a bench, never a table",
                flush=True,
            )
        if not config.display.loopback and not config.display.tls:
            print(
                f"warning: the display is served WITHOUT TLS on {config.display.host} "
                "(allow_insecure_remote = true in the table file)",
                flush=True,
            )
        print(f"display: {display.url}", flush=True)
        if demo_view is not None:
            print(
                f"pit view: {display.url}view?token={demo_view} (a demo's token, new each start)",
                flush=True,
            )
        else:
            print(f"pit view: {_pit_view(config.display, display.url)}", flush=True)
        console = _console(service) if not args.demo else None
        if args.demo:
            print("demo: emulated players and dealer are playing; Ctrl-C to stop", flush=True)
        elif console is not None:
            print(
                "the devices are emulated in this process: type the dealer's hands here - "
                "d (draw a card), i KH (hole card in the reader), r (take it out), p HIT "
                "(a panel key), help, q (quit)",
                flush=True,
            )
        ended = _watch(display.hub, stop, args.rounds, console)
        if ended is not None:
            why.append(ended)
    except KeyboardInterrupt:
        why.append("Ctrl-C")
    finally:
        display.close()
        service.close(f"the table was stopped ({why[0]})" if why else "the table was stopped")
        restore()
        reset_logging()
    if shipper is not None and shipper.at_stop is not None:
        # a clean stop shipped what it wrote, or says what waits in the journal and why
        shown = "floor" if shipper.shipped_all_at_stop else "warning: floor"
        print(f"{shown}: {shipper.at_stop}", flush=True)
    unwritten = _unwritten(service)
    if service.errors:
        print("croupier run: the table owner caught errors:", file=sys.stderr)
        for error in service.errors:
            print(f"  {error}", file=sys.stderr)
    if unwritten:
        print(
            "croupier run: stopped, but not everything was written (each line says why; a "
            "full disk: free space where the journal and the logs are, then start again):",
            file=sys.stderr,
        )
        for line in unwritten:
            print(f"  {line}", file=sys.stderr)
        return EXIT_UNWRITTEN
    if service.errors:
        return 1
    print("stopped cleanly: display closed, devices released", flush=True)
    return 0


def _unwritten(service: TableService) -> list[str]:
    """What could not be written at this run: the stop row, and the logs that lost records."""
    lines = list(log_failures())
    if service.stop_not_journalled is not None:
        lines.insert(0, f"the stop was not journalled: {service.stop_not_journalled}")
    return lines


def _print_demo_pins(pins: dict[str, str]) -> None:
    """The demo PINs this start took, on the banner (a live table refuses them)."""
    if pins:
        shown = ", ".join(f"{role} PIN {pin}" for role, pin in pins.items())
        print(
            f"demo {shown} - a demo's, refused by a live table (turn the key to SUP or TEC, "
            "then key the PIN and OK)",
            flush=True,
        )


def _halted(
    problem: Problem,
    service: TableService,
    display: DisplayServer,
    stop: threading.Event,
    demo_pins: dict[str, str],
) -> int | None:
    """Stopped for a supervisor: the display shows ``problem`` and the choices until the
    supervisor chooses stop (or Ctrl-C, SIGTERM: the exit status) or voids the open round (None:
    the table starts, the display still served); nothing opened, nothing written but the
    void."""
    print(f"croupier run: {problem.message}", file=sys.stderr, flush=True)
    if problem.kind != "software_changed":
        where = "the journal" if problem.seq is None else f"row {problem.seq}"
        print(f"  where: {where} of {problem.journal}", file=sys.stderr)
    print(f"  expected: {problem.expected}", file=sys.stderr)
    print(f"  found: {problem.found}", file=sys.stderr, flush=True)
    halted = Halted(
        problem,
        service.table.journal_path,
        service.access,
        service.rules,
        key_path=service.table.key_path,
    )
    display.halt(halted)
    try:
        display.start()
        if not display.wait_started():
            return _fail(EXIT_RUNTIME, "the display did not start")
        print(
            "stopped for a supervisor: nothing is dealt and no device is opened; the display "
            "shows the problem and the supervisor's choices (sign in with the supervisor PIN); "
            "Ctrl-C stops",
            flush=True,
        )
        _print_demo_pins(demo_pins)
        print(f"display: {display.url}", flush=True)
        while not (stop.is_set() or halted.stopped.is_set() or halted.resumed.is_set()):
            stop.wait(0.2)
        if halted.resumed.is_set() and not stop.is_set():
            assert halted.void is not None
            print(
                f"voided by {halted.signed_in} at the display: {halted.void.describe()}",
                flush=True,
            )
            display.resume()
            return None
        print("stopped: the journal is left as it was found", flush=True)
    finally:
        halted.close()
    return EXIT_DISAGREES


def _shipper(table: LoadedTable) -> Shipper | None:
    """The journal's shipper to the floor when the table file has a [floor] section."""
    config = table.config
    if config.floor is None:
        return None
    limits = config.limits
    about = {
        "variant": table.rules.id,
        "game": table.rules.name,
        "boxes": list(config.boxes),
        "limits": {"min_cents": limits.min_cents, "max_cents": limits.max_cents},
    }
    return Shipper(table.journal_path, config.table_id, config.floor, about=about)


def _console(service: TableService) -> Console | None:
    """The dealer's hands on stdin (``croupier emulate``'s commands) when all three devices are
    emulated in this process and nobody else plays them."""
    shoe, peek, panel = (service.emulated.get(role) for role in ("shoe", "peek", "panel"))
    if not (
        isinstance(shoe, EmulatedShoe)
        and isinstance(peek, EmulatedPeekReader)
        and isinstance(panel, EmulatedPanel)
    ):
        return None
    return Console(shoe, peek, panel, out=sys.stdout)


def _watch(
    hub: StateHub, stop: threading.Event, rounds: int | None, console: Console | None
) -> str | None:
    """Print each finished round until stopped (or ``rounds`` rounds are done, or ``q``);
    pass the lines typed on stdin to ``console``. What ended it, unless a signal did."""
    printed: int | None = None  # (the rounds finished before this start are not printed)
    start = 0
    reading = console is not None
    while not stop.is_set():
        if console is not None and reading:
            ready, _, _ = select.select([sys.stdin], [], [], 0.2)
            if ready:
                line = sys.stdin.readline()
                if line == "":
                    reading = False  # stdin closed: go on until a signal
                elif not console.handle(line):
                    return "q typed at the console"
        else:
            stop.wait(0.2)
        state = hub.state()
        if not state:
            continue
        done = int(state.get("rounds_completed", 0))
        if printed is None:
            printed = start = int(state.get("rounds_at_start", 0))
        for summary in reversed(state.get("last_rounds", [])[: max(0, done - printed)]):
            print(round_line(summary), flush=True)
        printed = done
        if rounds is not None and done - start >= rounds:
            return f"--rounds {rounds} done"
    return None


def _on_signals(stop: threading.Event, why: list[str] | None = None) -> Callable[[], None]:
    """Ctrl-C and SIGTERM set ``stop`` (and say which in ``why``)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, _frame: FrameType | None) -> None:
        if why is not None:
            why.append("Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)

    return restore


def round_line(summary: dict[str, Any]) -> str:
    """A finished round for the terminal, in words: 'round 4 over: dealer 10♦ 7♠ (17); ann won
    $10, bob lost $5' (whose money went where, the cards as a person reads them)."""
    cards = " ".join(card_shown(c) for c in summary["dealer"])
    total = f" ({summary['dealer_total']})" if summary.get("dealer_total") else ""
    nets = []
    for n in summary["net"]:
        cents = int(n["cents"])
        said = "won" if cents > 0 else "lost" if cents < 0 else "broke even"
        nets.append(f"{n['player']} {said}" + (f" {money(abs(cents))}" if cents else ""))
    void = " (void)" if summary.get("void") else ""
    return f"round {summary['round']} over{void}: dealer {cards}{total}; " + ", ".join(nets)


def _with_demo_view(table: LoadedTable) -> tuple[LoadedTable, str | None]:
    """A demo whose table file has no view token gets one of its own, new each start, so the
    pit's page can be tried at once (the token printed is nobody else's)."""
    if table.config.display.view_token_hash is not None:
        return table, None
    token = secrets.token_urlsafe(12)
    display = table.config.display.model_copy(update={"view_token_hash": hash_secret(token)})
    config = table.config.model_copy(update={"display": display})
    return LoadedTable(config, table.rules, table.source, table.base, shipped=table.shipped), token


def _pit_view(display: Display, url: str) -> str:
    """Whether the pit's read-only view is served, and where (the token is never printed)."""
    if display.view_token_hash is None:
        return "off (no view token in the table file; croupier passwd --token makes one)"
    return f"on at {url}view?token=... (the table's view token)"
