"""``croupier emulate``: an emulated shoe, hole-card reader and button panel on real ptys.

It prints one line per device, ``<name> <path>`` (``shoe /dev/pts/5``), then serves them until
Ctrl-C or SIGTERM. A controller (or anything speaking TBL-21) opens those paths with pyserial.
A person plays the dealer on stdin; ``help`` lists the commands::

    d [N]          draw N cards (default 1)          i KH      insert the hole card
    r              remove the hole card              p STAND   press and release a key
    h SHUFFLE [S]  hold a key S seconds (2.5)        k SUP     turn the key (RUN, SUP, TEC)
    lid            open / close the shoe lid         peek MODE honest, lie, unreadable, no_card
    unplug DEV     pull a device's cable             replug DEV  plug it back
    reboot DEV     reboot a device                   s         show every device
    q              quit

    Keys go by their word on the screen or their panel code: HIT STAND DOUBLE SPLIT
    SURRENDER INSURE RESCUE OK DEAL UNDO SHUFFLE CANCEL CALL, BOX1-BOX7, WAGER1-WAGER3,
    0-9 (or STD, OK_, B1_, D5_ ...)

Standalone (before the command is wired into ``croupier``)::

    python -m sim_hardware.emulate --decks 6 --seed 7
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from drivers.tbl21.events import BUTTON_WORDS, Button
from sim_hardware.device import DeviceCore
from sim_hardware.emulate_args import DESCRIPTION, add_arguments
from sim_hardware.errors import SimError
from sim_hardware.faults import PeekMode
from sim_hardware.panel import EmulatedPanel, check_button
from sim_hardware.peek import EmulatedPeekReader
from sim_hardware.pty_runner import PtyRunner
from sim_hardware.shoe import EmulatedShoe

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

HELP = __doc__.split("::", 2)[1].split("Standalone")[0].strip("\n") if __doc__ else ""


def register(subparsers: Subparsers) -> None:
    """Add ``emulate`` to the ``croupier`` command line."""
    parser = subparsers.add_parser(
        "emulate",
        help="run an emulated shoe, hole-card reader and button panel on pseudo-terminals",
        description=DESCRIPTION,
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)


def build_devices(
    args: argparse.Namespace,
) -> tuple[EmulatedShoe, EmulatedPeekReader, EmulatedPanel]:
    """The three devices the arguments describe (raises SimError on bad input)."""
    common: dict[str, Any] = {
        "decks": args.decks,
        "deck_type": args.variant_deck,
        "cut": args.cut,
    }
    if args.cards is not None:
        shoe = EmulatedShoe.from_file(args.cards, **common)
    else:
        shoe = EmulatedShoe(seed=args.seed, **common)
    return shoe, EmulatedPeekReader(seed=args.seed), EmulatedPanel(seed=args.seed)


def run(args: argparse.Namespace, *, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    """Serve until Ctrl-C, SIGTERM or ``q``; returns the exit status."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    try:
        devices = build_devices(args)
    except SimError as exc:
        print(f"croupier emulate: {exc}", file=sys.stderr)
        return 2
    if args.link_dir is not None:
        args.link_dir.mkdir(parents=True, exist_ok=True)
    runners: list[PtyRunner] = []
    stop = threading.Event()
    restore = _install_signal_handlers(stop)
    try:
        for name, device in zip(("shoe", "peek", "panel"), devices, strict=True):
            runners.append(PtyRunner(device, name=name, link_dir=args.link_dir))
        for runner in runners:
            print(f"{runner.name} {runner.slave_path}", file=out, flush=True)
        if args.link_dir is not None:
            for runner in runners:
                print(f"# {runner.name} also at {runner.port}", file=sys.stderr)
        print("# type 'help' for the dealer's commands, Ctrl-C to stop", file=sys.stderr)
        console = Console(*devices, out=out)
        _serve(stdin, console, stop)
    except KeyboardInterrupt:
        pass
    finally:
        restore()
        failures = []
        for runner in runners:
            try:
                runner.close()
            except SimError as exc:
                failures.append(str(exc))
        for failure in failures:
            print(f"croupier emulate: {failure}", file=sys.stderr)
    return 1 if failures else 0


def _serve(stdin: TextIO, console: Console, stop: threading.Event) -> None:
    """Serve until stopped, acting on each line of stdin as it arrives.

    Bytes are read straight from the descriptor once select() says they are there, and every
    complete line in them is handled at once (a buffered readline would leave lines that came
    in the same chunk waiting for more input)."""
    try:
        fd: int | None = stdin.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None  # not a real file (a test's StringIO): read it line by line
    pending = b""
    reading = True
    while not stop.is_set():
        if not reading:
            stop.wait(0.2)
            console.report_changes()
            continue
        if fd is None:
            text = stdin.readline()
            chunk = text.encode()
        else:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                console.report_changes()
                continue
            chunk = os.read(fd, 4096)
        if not chunk:
            reading = False  # stdin closed: keep serving until a signal
            if pending.strip() and not console.handle(pending.decode(errors="replace")):
                return
            pending = b""
            continue
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if not console.handle(line.decode(errors="replace") + "\n"):
                return
        console.report_changes()


def _install_signal_handlers(stop: threading.Event) -> Callable[[], None]:
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_term)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


class Console:
    """The dealer's commands on stdin. ``handle`` returns False on ``q``."""

    def __init__(
        self, shoe: EmulatedShoe, peek: EmulatedPeekReader, panel: EmulatedPanel, *, out: TextIO
    ) -> None:
        self.shoe, self.peek, self.panel, self.out = shoe, peek, panel, out
        self.devices: dict[str, DeviceCore] = {"shoe": shoe, "peek": peek, "panel": panel}
        self._seen: dict[str, str] = {}

    def snapshot(self) -> dict[str, str]:
        """What a person watching the devices would notice, topic by topic."""
        panel, peek, shoe = self.panel, self.peek, self.shoe
        leds = " ".join(f"{b}:{led.mode}{led.colour}" for b, led in panel.leds.items() if led.lit)
        return {
            "shoe": f"{shoe.state.value}, gate {'locked' if shoe.gate_locked else 'unlocked'}, "
            f"{shoe.remaining} cards in the shoe",
            "peek": f"{peek.state.value}, {len(peek.answers)} "
            f"peek{'' if len(peek.answers) == 1 else 's'}, last answer "
            f"{peek.answers[-1] if peek.answers else '-'}",
            "panel": panel.state.value,
            "panel text": f"{panel.text[0]!r} / {panel.text[1]!r}",
            "panel LEDs": leds or "all off",
            "buzzer": f"{panel.buzzer_ms} ms (#{panel.buzzer_count})",
        }

    def report_changes(self) -> None:
        """Print every topic of :meth:`snapshot` that changed since the last call."""
        now = self.snapshot()
        for topic, value in now.items():
            if self._seen.get(topic) != value:
                self.say(f"> {topic}: {value}")
        self._seen = now

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def handle(self, line: str) -> bool:
        words = line.split()
        if not words:
            return True
        command, rest = words[0].lower(), words[1:]
        if command in ("q", "quit", "exit"):
            return False
        try:
            self._dispatch(command, rest)
        except (SimError, ValueError) as exc:
            self.say(f"! {exc}")
        return True

    def _dispatch(self, command: str, rest: list[str]) -> None:
        if command in ("help", "?"):
            self.say(HELP)
        elif command == "d":
            if rest and not rest[0].isdigit():
                raise ValueError("usage: d [N], e.g. d 3")
            for _ in range(int(rest[0]) if rest else 1):
                draw = self.shoe.draw()
                told = str(draw.card) if draw.card is not None else f"unreadable ({draw.physical})"
                self.say(f"draw {draw.draw_no}: {told}, {draw.remaining} left")
        elif command == "i":
            self._need(rest, 1, "i CARD, e.g. i KH")
            self.peek.insert_hole_card(rest[0].upper())
            self.say(f"hole card {rest[0].upper()} inserted")
        elif command == "r":
            self.say(f"hole card {self.peek.remove_hole_card()} removed")
        elif command == "p":
            self._need(rest, 1, "p KEY, e.g. p STAND")
            code = check_button(rest[0])
            self.panel.tap(code)
            self.say(f"{BUTTON_WORDS[Button(code)]} pressed")
        elif command == "h":
            self._need(rest, 1, "h KEY [SECONDS], e.g. h SHUFFLE")
            code = check_button(rest[0])
            self.panel.hold(code, float(rest[1]) if len(rest) > 1 else 2.5)
            self.say(f"{BUTTON_WORDS[Button(code)]} held")
        elif command == "k":
            self._need(rest, 1, "k RUN|SUP|TEC")
            self.panel.turn_key(rest[0].upper())
            self.say(f"key at {rest[0].upper()}")
        elif command == "lid":
            if self.shoe.lid_open:
                self.shoe.close_lid()
            else:
                self.shoe.open_lid()
            self.say(f"lid {'open' if self.shoe.lid_open else 'closed'}")
        elif command == "peek":
            self._need(rest, 1, "peek honest|lie|unreadable|no_card")
            self.peek.set_answer_mode(PeekMode(rest[0].lower()), count=None)
            self.say(f"peek answers {rest[0].lower()}")
        elif command in ("unplug", "replug", "reboot"):
            self._need(rest, 1, f"{command} shoe|peek|panel")
            device = self.devices.get(rest[0].lower())
            if device is None:
                raise ValueError(f"no device {rest[0]!r}; devices are shoe, peek, panel")
            {"unplug": device.unplug, "replug": device.replug, "reboot": device.reboot}[command]()
            done = {"unplug": "unplugged", "replug": "plugged back in", "reboot": "rebooted"}
            self.say(f"{rest[0].lower()} {done[command]}")
        elif command == "s":
            self.say(self.shoe.describe())
            self.say(self.peek.describe())
            self.say(self.panel.describe())
            self.say(self.panel.render())
        else:
            raise ValueError(f"unknown command {command!r}; type 'help'")

    @staticmethod
    def _need(rest: list[str], count: int, usage: str) -> None:
        if len(rest) < count:
            raise ValueError(f"usage: {usage}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier emulate", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
