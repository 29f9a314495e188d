"""Card-to-display-message latency with the dealer display running: one JSON line on stdout.

``python bench/display_latency.py [--cards N] [--pace S] [--variant V] [--seed S] [--breakdown]
[--default-switch-interval]``

The table as ``croupier run --demo`` runs it, in this process: :class:`TableService` (the journal
on a temporary SQLite file, ``synchronous=FULL``; every device event journalled before it is
acknowledged; the audit log written as JSON lines) and the Starlette/uvicorn display on a free
loopback port. The one difference from ``croupier run --demo``: the emulated shoe, hole-card
reader and panel are served on real pseudo-terminals (:class:`~sim_hardware.PtyRunner`) instead
of in-process ``sim://`` ports, so the production drivers read real ttys; the demo dealer and
players (basic strategy, three boxes) play through them at ``--pace``. A WebSocket client
(``websockets``) in a process of its own, as the dealer's browser is, connected to ``/ws`` like
the dealer's page, notes the arrival of every state message.

Only the cards written after the client's first state message are timed (the ones before
it are counted as ``cards_before_client``: no page was there to receive them). Measured per
card: from the return of the pty runner's ``os.write`` that put the last byte of
the card's ``c`` frame on the pty, to the arrival at the client of the first state message that
includes the card (the first published after the table handled it; the server may skip a
version when a newer one is already there, so "the first with that version or later"). Split
into the table's leg (to the state being published by the owner thread) and the display's leg
(published to received), and that into the wake-up (published to the web server's sender taking
the version it sends) and the wire (taken to received). All on ``perf_counter``
(CLOCK_MONOTONIC, one clock for both processes). The emulated devices share the table's
interpreter (and its GIL), so the figures are somewhat pessimistic.

``--breakdown`` adds where the table's leg went, step by step, and the journal's commits per
card (:mod:`breakdown`; its wrappers cost a few microseconds a step).
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

import controller.service.devices as service_module
from controller.display.web import DisplayServer
from controller.journal.logs import configure_logging, reset_logging
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import TableService, prefer_the_owner
from controller.table.config import load_table_config
from sim_hardware import PtyRunner
from sim_hardware import pty_runner as pty_module
from sim_hardware.device import DeviceCore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breakdown import Breakdown
from latency import WriteClock

STALL_S = 30.0  # no card for this long: the demo stopped (the reason is printed)


class PtyServed(PtyRunner):
    """A pty runner that answers to ``.url`` like the in-process runner it replaces."""

    @property
    def url(self) -> str:
        return self.port


class Client:
    """The dealer's page, in a process of its own (as a browser is): ``--client URL FILE`` runs
    :func:`client_main`, which appends ``version perf_counter`` for each state message to FILE.
    ``perf_counter`` is CLOCK_MONOTONIC on Linux, the same clock in every process."""

    def __init__(self, url: str, work: Path) -> None:
        self.file = work / "arrivals.txt"
        self.file.touch()
        self.proc = subprocess.Popen(  # noqa: S603 - this script
            [sys.executable, __file__, "--client", url, str(self.file)],
            stdout=subprocess.PIPE,
            text=True,
        )

    def wait_ready(self) -> None:
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the WebSocket client did not connect (exit {self.proc.wait()})")

    def stop(self) -> list[tuple[int, float]]:
        self.proc.terminate()
        self.proc.wait(10)
        arrivals = []
        for line in self.file.read_text().splitlines():
            version, at = line.split()
            arrivals.append((int(version), float(at)))
        return arrivals


def client_main(url: str, path: str) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with connect(url, max_size=None, compression=None) as ws, open(path, "a") as out:
        print("ready", flush=True)
        while True:
            message = ws.recv()
            at = time.perf_counter()
            data = json.loads(message)
            if data.get("type") == "state":
                out.write(f"{data['state']['version']} {at}\n")
                out.flush()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values), 3),
        "p99_ms": round(percentile(values, 0.99), 3),
        "max_ms": round(max(values), 3),
        "mean_ms": round(statistics.fmean(values), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=5000, help="cards to measure (at least)")
    parser.add_argument("--pace", type=float, default=0.02, help="demo: seconds between acts")
    parser.add_argument("--variant", default="pa-blackjack")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--breakdown", action="store_true", help="the table's leg step by step, commits per card"
    )
    parser.add_argument(
        "--default-switch-interval",
        action="store_true",
        help="leave the GIL switch interval at Python's 5 ms (croupier run sets 1 ms)",
    )
    parser.add_argument("--client", nargs=2, metavar=("URL", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        return client_main(*args.client)
    if not args.default_switch_interval:
        prefer_the_owner()  # as croupier run does
    work = Path(tempfile.mkdtemp(prefix="croupier-bench-"))
    table = load_table_config(
        None,
        {
            "variant": args.variant,
            "display.port": 0,
            "journal.path": str(work / "journal.sqlite3"),
            "logs.audit": str(work / "audit.jsonl"),
            "logs.debug": str(work / "debug.log"),
        },
    )
    configure_logging(console=False, json_path=work / "audit.jsonl", level="INFO")  # as run
    clock = WriteClock()
    runners: dict[str, PtyServed] = {}

    def serve_on_pty(device: DeviceCore, name: str) -> PtyServed:
        role = name.rsplit("-", 1)[-1]
        runners[role] = PtyServed(device, name=role)
        return runners[role]

    service = TableService(
        table, actors=[demo_dealer(DemoOptions(pace_s=args.pace, boxes=(1, 2, 3), seed=args.seed))]
    )
    breakdown = Breakdown() if args.breakdown else None
    if breakdown is not None:
        breakdown.install(service)  # before the display's hub subscribes
    published: list[tuple[int, float, int]] = []  # (version, perf_counter, cards handled)
    display = DisplayServer(service, table.config.display)
    hub = display.hub
    publish = hub.publish

    def timed_publish(state: dict[str, Any]) -> None:
        at = time.perf_counter()
        publish(state)
        handled = service.app.cards_handled if service.app is not None else 0
        published.append((hub.latest()[0], at, handled))

    hub.publish = timed_publish  # type: ignore[method-assign]
    # When the web server's sender took each version to send (its first look at it): splits the
    # display's leg into the wake-up (published -> taken, on the server's event loop) and the
    # wire (taken -> received: the send, the kernel, the client process).
    taken: dict[int, float] = {}
    reader_name = "message" if hasattr(hub, "message") else "latest"  # the sender's read
    reader = getattr(hub, reader_name)

    def timed_read() -> Any:
        got = reader()
        taken.setdefault(got[0], time.perf_counter())
        return got

    setattr(hub, reader_name, timed_read)
    serve = vars(service_module)["serve"]
    vars(service_module)["serve"] = serve_on_pty  # the emulated devices go on ptys
    vars(pty_module)["os"] = clock  # the runners write through the clock
    client: Client | None = None
    stalled = ""
    started = time.perf_counter()
    try:
        service.start()
        clock.shoe_fd = runners["shoe"]._master  # the bench's one look inside the runner
        display.start()
        if not display.wait_started():
            raise RuntimeError("the display did not start")
        client = Client(f"ws://127.0.0.1:{display.port}/ws", work)
        client.wait_ready()
        # --cards counts the cards after the client connected (the ones measured)
        goal = args.cards + (service.app.cards_handled if service.app else 0)
        last, last_at = 0, time.monotonic()
        while (handled := service.app.cards_handled if service.app else 0) < goal:
            time.sleep(0.2)
            if handled != last:
                last, last_at = handled, time.monotonic()
            elif time.monotonic() - last_at > STALL_S:
                dealer = service.actors[0] if service.actors else None
                stalled = getattr(dealer, "stalled", "") or "no card for 30 s"
                break
        time.sleep(0.5)  # the last state messages arrive
        arrivals = client.stop()
    finally:
        if client is not None and client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait()
        display.close()
        service.close()
        if breakdown is not None:
            breakdown.uninstall()
        vars(pty_module)["os"] = os
        vars(service_module)["serve"] = serve
        reset_logging()
        shutil.rmtree(work, ignore_errors=True)  # the journal and the audit log
    written = clock.card_written
    versions = [v for v, _ in arrivals]
    handled_counts = [h for _, _, h in published]
    total, table_leg, display_leg, wake_leg, wire_leg = [], [], [], [], []
    no_message = 0
    windows: list[tuple[int, float, float]] = []  # (card index, written, published)
    # The client's first state message: the page is up. A card written before it cannot have
    # reached the client (nobody was connected), so it is not timed, only counted.
    connected_at = arrivals[0][1] if arrivals else float("inf")
    before_client = 0
    for index, wrote in enumerate(written):
        if wrote < connected_at:
            before_client += 1
            continue
        first = bisect.bisect_left(handled_counts, index + 1)
        if first == len(published):
            break  # written, never handled before the end
        version, published_at, _ = published[first]
        arrived = bisect.bisect_left(versions, version)
        if arrived == len(versions):
            no_message += 1
            continue
        arrived_at = arrivals[arrived][1]
        total.append(1000 * (arrived_at - wrote))
        table_leg.append(1000 * (published_at - wrote))
        windows.append((index, wrote, published_at))
        display_leg.append(1000 * (arrived_at - published_at))
        sent_version = arrivals[arrived][0]
        if sent_version in taken:
            wake_leg.append(1000 * (taken[sent_version] - published_at))
            wire_leg.append(1000 * (arrived_at - taken[sent_version]))
    line = {
        "benchmark": "card_to_display_message_latency",
        "transport": "pty",
        "display": "uvicorn+starlette, WebSocket /ws (websockets client)",
        "journal": "sqlite synchronous=FULL",
        "switch_interval_s": sys.getswitchinterval(),
        "variant": table.rules.id,
        "cards": len(total),
        "cards_without_message": no_message,
        "cards_before_client": before_client,
        "pace_s": args.pace,
        **summary(total),
        "table_leg": summary(table_leg),
        "display_leg": summary(display_leg),
        "display_wake": summary(wake_leg) if wake_leg else None,
        "display_wire": summary(wire_leg) if wire_leg else None,
        "state_messages": len(arrivals),
        "rounds": service.rounds_completed,
        "stalled": stalled or None,
        "errors": service.errors[:3],
        **({"breakdown": breakdown.report(windows, len(written))} if breakdown is not None else {}),
        "seconds": round(time.perf_counter() - started, 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(line))
    return 0 if total and not stalled else 1


if __name__ == "__main__":
    sys.exit(main())
