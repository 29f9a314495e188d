"""CPU use of a table waiting with emulated devices, over a quiet spell: one JSON line.

``python bench/idle_cpu.py [--seconds S] [--variant V]``. The emulated shoe, reader and panel run
on real ptys in this process (PtyRunner threads), the production drivers open them, and the
main thread waits on the event queue and hands every event to the :class:`TableApp`, as the
table does between rounds (bets open, nobody at the table). CPU time is read per thread from
``/proc/self/task/*/stat`` and split between the emulated devices (threads ``sim-*``) and the
table (everything else: drivers, main thread); the percentages are of one core. Also how often
each driver's thread woke to read (``DeviceDriver.reads``) during the quiet spell.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import sys
import threading
import time
from contextlib import ExitStack, suppress
from pathlib import Path

from controller.cli.scenario import quiet_logs
from controller.game.rules import load_variant
from controller.play.scenario_runner import DriverCommands
from controller.table.app import TableApp
from drivers.table import open_table
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, PtyRunner

TICKS = os.sysconf("SC_CLK_TCK")
TARGET_PCT = 1.0


def thread_cpu() -> dict[str, float]:
    """CPU seconds per Python thread name (threads of one name added up)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        name = names.get(int(task.name), stat[stat.index("(") + 1 : stat.rindex(")")])
        fields = stat[stat.rindex(")") + 2 :].split()
        seconds = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
        out[name] = out.get(name, 0.0) + seconds
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--variant", default="nz-pontoon")
    args = parser.parse_args()
    quiet_logs()
    rules = load_variant(args.variant)
    with ExitStack() as stack:
        runners = [
            stack.enter_context(PtyRunner(device, name=name))
            for name, device in (
                ("shoe", EmulatedShoe(seed=1, decks=rules.shoe.decks, deck_type=rules.shoe.deck)),
                ("peek", EmulatedPeekReader()),
                ("panel", EmulatedPanel()),
            )
        ]
        devices = stack.enter_context(open_table(*(r.port for r in runners)))
        for driver in devices.drivers:
            driver.wait_identified(10.0)
        app = TableApp(rules, DriverCommands(devices, rules))
        settle_until = time.monotonic() + 1.0  # power-up chatter before the quiet spell
        while time.monotonic() < settle_until:
            with suppress(queue.Empty):
                app.handle(devices.events.get(timeout=0.1))
        reads_before = [d.reads for d in devices.drivers]
        before = thread_cpu()
        process_before = time.process_time()
        started = time.monotonic()
        events = 0
        while (left := started + args.seconds - time.monotonic()) > 0:
            try:
                app.handle(devices.events.get(timeout=min(left, 0.5)))
                events += 1
            except queue.Empty:
                pass
        wall = time.monotonic() - started
        process_cpu = time.process_time() - process_before
        after = thread_cpu()
        reads = {
            d.ref.type.label: round((d.reads - r) / wall, 1)
            for d, r in zip(devices.drivers, reads_before, strict=True)
        }
    used = {name: after.get(name, 0.0) - before.get(name, 0.0) for name in after}
    devices_cpu = sum(v for k, v in used.items() if k.startswith("sim-"))
    table_cpu = process_cpu - devices_cpu
    line = {
        "benchmark": "idle_cpu",
        "variant": rules.id,
        "seconds": round(wall, 1),
        "events_handled": events,
        "cpu_pct_process": round(100 * process_cpu / wall, 3),
        "cpu_pct_table": round(100 * table_cpu / wall, 3),
        "cpu_pct_emulated_devices": round(100 * devices_cpu / wall, 3),
        "driver_reads_per_s": reads,
        "busiest_threads": dict(sorted(used.items(), key=lambda kv: -kv[1])[:5]),
        "target_pct": TARGET_PCT,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
