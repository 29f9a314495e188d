"""CPU use of a table waiting with emulated devices, over a quiet spell: one JSON line.

``python bench/idle_cpu.py [--seconds S] [--variant V]``. The emulated shoe, reader and panel run
on real ptys in this process (PtyRunner threads), and the table is ``croupier run``'s wiring
(:class:`TableService`, journal included) with its owner thread waiting on its inbox, as the
table does between rounds (bets open, nobody at the table). CPU time is read per thread from
``/proc/self/task/*/stat`` and split between the emulated devices (threads ``sim-*``) and the
table (everything else: drivers, the owner thread); the percentages are of one core. Also how often
each driver's thread woke to read (``DeviceDriver.reads``) during the quiet spell.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from controller.cli.scenario import quiet_logs
from controller.game.rules import load_variant
from sim_hardware import EmulatedShoe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import pty_table

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
        shoe = EmulatedShoe(seed=1, decks=rules.shoe.decks, deck_type=rules.shoe.deck)
        service, _ = pty_table(stack, rules, shoe)
        service.start()
        time.sleep(1.0)  # power-up chatter before the quiet spell
        devices = service.devices
        assert devices is not None
        handled_before = service.journaled.journal.last_row()
        reads_before = [d.reads for d in devices.drivers]
        before = thread_cpu()
        process_before = time.process_time()
        started = time.monotonic()
        time.sleep(args.seconds)
        wall = time.monotonic() - started
        handled_after = service.journaled.journal.last_row()
        events = (handled_after.seq if handled_after else 0) - (
            handled_before.seq if handled_before else 0
        )
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
        "journal_rows_written": events,
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
