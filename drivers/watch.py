"""``croupier watch``: connect drivers to devices and print their events as they arrive.

::

    croupier emulate                    # prints the three pty paths
    croupier watch --shoe /dev/pts/5 --peek /dev/pts/6 --panel /dev/pts/7 --seconds 30

Standalone, before the command is wired into ``croupier``: ``python -m drivers.watch --shoe
/dev/pts/5 ...``. Any pyserial URL works (``socket://host:port``, ``spy:///dev/ttyUSB0``...).
This is how a
person checks that devices (emulated or real) talk to the drivers.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import queue
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from drivers.tbl21.framing import BAUD_RATES, DEFAULT_BAUD

if TYPE_CHECKING:
    from drivers.device import DeviceDriver
    from drivers.tbl21.events import DeviceEvent

    Subparsers = argparse._SubParsersAction[Any]

# The drivers (and structlog) are imported when a watch runs, not with this module: the
# ``croupier`` command line imports it for its parser.


def register(subparsers: Subparsers) -> None:
    """Add ``watch`` to the ``croupier`` command line (handler: :func:`run_watch`)."""
    parser = subparsers.add_parser(
        "watch",
        help="connect to devices and print their events",
        description="Connect drivers to the given ports (device paths or pyserial URLs) and "
        "print every event as it arrives. Stop with Ctrl-C or --seconds.",
    )
    parser.add_argument("--shoe", metavar="URL", help="port of the card-reading shoe")
    parser.add_argument("--peek", metavar="URL", help="port of the hole-card reader")
    parser.add_argument("--panel", metavar="URL", help="port of the dealer button panel")
    parser.add_argument(
        "--seconds", type=_positive_float, default=None, help="stop after N seconds"
    )
    parser.add_argument("--baud", type=int, choices=BAUD_RATES, default=DEFAULT_BAUD)
    parser.add_argument(
        "--status", action="store_true", help="also print status changes from the polls"
    )
    parser.add_argument(
        "--verbose", "-v", action="count", default=0, help="log to stderr (-vv: raw bytes too)"
    )
    parser.set_defaults(handler=run_watch)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"seconds must be > 0, got {text}")
    return value


def run_watch(args: argparse.Namespace) -> int:
    """The ``watch`` handler: returns 0, 2 when no port was given, 1 when a port fails."""
    if not (args.shoe or args.peek or args.panel):
        print("croupier watch: give at least one of --shoe, --peek, --panel", file=sys.stderr)
        return 2
    _configure_logging(args.verbose)
    return watch(
        shoe=args.shoe,
        peek=args.peek,
        panel=args.panel,
        seconds=args.seconds,
        baudrate=args.baud,
        show_status=args.status,
    )


def watch(
    *,
    shoe: str | None = None,
    peek: str | None = None,
    panel: str | None = None,
    seconds: float | None = None,
    baudrate: int = DEFAULT_BAUD,
    show_status: bool = False,
    out: TextIO | None = None,
) -> int:
    """Print events from the given ports until ``seconds`` pass (or Ctrl-C)."""
    from drivers.errors import DeviceError  # noqa: PLC0415 - see the imports
    from drivers.panel import PanelDriver  # noqa: PLC0415
    from drivers.peek import PeekDriver  # noqa: PLC0415
    from drivers.shoe import ShoeDriver  # noqa: PLC0415
    from drivers.tbl21.events import DeviceStatus  # noqa: PLC0415

    stream = out if out is not None else sys.stdout
    events: queue.Queue[DeviceEvent] = queue.Queue()
    drivers: list[DeviceDriver] = []
    try:
        kinds: tuple[tuple[type[DeviceDriver], str | None], ...] = (
            (ShoeDriver, shoe),
            (PeekDriver, peek),
            (PanelDriver, panel),
        )
        for cls, url in kinds:
            if url:
                driver = cls(url, events, baudrate=baudrate)
                drivers.append(driver)
                driver.start()
                print(f"watching {driver.ref}", file=stream, flush=True)
        end = None if seconds is None else time.monotonic() + seconds
        while end is None or time.monotonic() < end:
            wait = 0.2 if end is None else max(0.0, min(0.2, end - time.monotonic()))
            try:
                event = events.get(timeout=wait)
            except queue.Empty:
                continue
            if isinstance(event, DeviceStatus) and not show_status:
                continue
            print(describe(event), file=stream, flush=True)
    except DeviceError as exc:
        print(f"croupier watch: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        for driver in drivers:
            driver.close()
    return 0


def describe(event: DeviceEvent) -> str:
    """One readable line for an event."""
    from drivers.tbl21.events import (  # noqa: PLC0415 - see the imports
        ButtonEvent,
        CardDrawn,
        DeviceIdentified,
        FaultEvent,
        FrameEvent,
        PeekResult,
    )

    head = f"{event.device.type.label:<5} {type(event).__name__:<17}"
    if isinstance(event, CardDrawn):
        body = (
            f"{event.card} draw {event.draw_no:04d} remaining {event.remaining:04d} "
            f"quality {event.quality:02d}"
        )
    elif isinstance(event, PeekResult):
        body = f"{event.outcome.name} quality {event.quality:02d}"
    elif isinstance(event, ButtonEvent):
        body = f"{event.button.value} ({event.button.name}) held {event.held_ms} ms"
    elif isinstance(event, FaultEvent):
        body = f"0x{event.code:02X} {event.name} {event.severity.name} {event.text}"
    elif isinstance(event, DeviceIdentified):
        body = (
            f"{event.model} serial {event.serial} fw {event.fw_version} ({event.fw_hash}) "
            f"boot {event.boot_count}{' CHANGED' if event.changed else ''}"
        )
    else:
        skip = {"device", "at", "seq", "boot"}
        fields = [
            f"{f.name}={_short(getattr(event, f.name))}"
            for f in dataclasses.fields(event)
            if f.name not in skip
        ]
        body = " ".join(fields)
    seq = f" seq {event.seq}" if isinstance(event, FrameEvent) else ""
    return f"{head} {body}{seq}"


def _short(value: object) -> str:
    if hasattr(value, "name") and hasattr(value, "value"):
        return str(value.name)
    return str(value)


def _configure_logging(verbose: int) -> None:
    import structlog  # noqa: PLC0415 - see the imports

    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry (before ``watch`` is wired into ``croupier``):
    ``python -m drivers.watch --shoe URL ...``."""
    parser = argparse.ArgumentParser(prog="croupier")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["watch", *(sys.argv[1:] if argv is None else argv)])
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
