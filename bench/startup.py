"""``croupier run``: start-to-ready time, resident memory after start, idle CPU: one JSON line.

``python bench/startup.py [--runs N] [--idle S] [--config FILE]``

Each run starts the real command as a new process (``.venv/bin/croupier run --port 0`` with the
table file, by default ``config/table.toml``: every device emulated in-process) in a new
temporary directory (the file's relative journal and log paths land there: a fresh journal),
stdin closed (no dealer at the terminal), and measures from just before the process is spawned
to:

* ``ready``: the ``display: http://...`` line on its stdout (printed once the journal is open,
  the devices identified, the table's owner running and the display accepting connections);
* ``answering``: the first ``200`` from ``GET /api/state``, polled every 5 ms from then on.

``--ptys``: the devices are instead ``croupier emulate``'s, in another process on real ptys (one
emulator for all the runs, like hardware that stays on), named in a copy of the table file, as
a table with serial devices runs.

Then, from ``/proc/<pid>/status``, its resident memory (``VmRSS``; ``VmHWM`` the peak) right
after it answered and after ``--idle`` seconds of waiting, and its CPU time over that idle
spell (``/proc/<pid>/stat``, utime + stime; a percentage of one core), and whether
``/api/state`` then shows every device connected. SIGTERM ends it; it must exit 0 ("stopped
cleanly"). Times are medians over the runs, with the minimum and maximum.

``python bench/startup.py --commands [--runs N] [--before REV]``: the CPU seconds (user + system,
of the child process: ``getrusage(RUSAGE_CHILDREN)``) of ``croupier --help``, ``croupier rules``,
``croupier simulate --help`` and ``croupier simulate pa-blackjack --rounds 20000``, each run as
``python -m controller.cli`` from this tree and from REV (default ``main``; a ``git worktree`` of
it in a temporary folder, removed after), the two trees alternated in every run so that the
machine's load falls on both alike. Medians with the minimum and maximum, and after/before.
Target: ``--help`` and ``rules`` under 0.3 CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = Path(sys.executable).with_name("croupier")
TICKS = os.sysconf("SC_CLK_TCK")
READY_PREFIX = "display: "
TIMEOUT_S = 30.0
TARGET_S = 1.5
COMMAND_LINES = {
    "help": ["--help"],
    "rules": ["rules"],
    "simulate_help": ["simulate", "--help"],
    "simulate_20000_rounds": ["simulate", "pa-blackjack", "--rounds", "20000"],
}
COMMAND_TARGET_CPU_S = 0.3  # --help and rules


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def cpu_s(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_run(config: str, idle_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="croupier-start-") as work:
        command = [str(CROUPIER), "run", "--config", str(Path(config).resolve()), "--port", "0"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        started = time.perf_counter()
        proc = subprocess.Popen(  # noqa: S603 - our own command
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=work,  # the table file's relative paths (journal, logs) land here: fresh
            env=env,
        )
        try:
            assert proc.stdout is not None
            url = ""
            for line in proc.stdout:
                if line.startswith(READY_PREFIX):
                    url = line[len(READY_PREFIX) :].strip()
                    break
            ready = time.perf_counter() - started
            if not url:
                raise RuntimeError(f"croupier run printed no display line: {proc.stderr!r}")
            answering = _first_answer(f"{url}api/state", started)
            rss_start = status_kb(proc.pid, "VmRSS")
            cpu_before, idle_from = cpu_s(proc.pid), time.perf_counter()
            time.sleep(idle_s)
            idle_cpu = (cpu_s(proc.pid) - cpu_before) / (time.perf_counter() - idle_from)
            rss_idle = status_kb(proc.pid, "VmRSS")
            with urllib.request.urlopen(f"{url}api/state", timeout=5.0) as reply:  # noqa: S310
                devices = {d["role"]: d["status"] for d in json.load(reply)["devices"]}
            peak = status_kb(proc.pid, "VmHWM")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                out, err = proc.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"croupier run exited {proc.returncode}: {err.strip()[-500:]}")
        return {
            "ready_s": ready,
            "answering_s": answering,
            "rss_after_start_mb": rss_start / 1024,
            "rss_after_idle_mb": rss_idle / 1024,
            "peak_mb": peak / 1024,
            "idle_cpu_pct": 100 * idle_cpu,
            "stopped_cleanly": "stopped cleanly" in out,
            "devices_connected": set(devices.values()) == {"connected"},
        }


def _first_answer(url: str, started: float) -> float:
    end = time.monotonic() + TIMEOUT_S
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=1.0) as reply:  # noqa: S310 - loopback
                if reply.status == 200:
                    return time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"{url} did not answer within {TIMEOUT_S} s")


def spread(values: list[float], digits: int = 3) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
    }


def emulator_table(config: str, work: Path) -> tuple[subprocess.Popen[str], Path]:
    """Start ``croupier emulate`` and write a copy of ``config`` naming its three ptys."""
    proc = subprocess.Popen(  # noqa: S603 - our own command
        [str(CROUPIER), "emulate"],
        stdin=subprocess.PIPE,  # kept open: the emulator serves until it is told to stop
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    paths = dict(proc.stdout.readline().split() for _ in range(3))
    text = Path(config).read_text()
    for role in ("shoe", "peek", "panel"):
        text, count = re.subn(
            rf'^{role}\s*=\s*"emulated"', f'{role} = "{paths[role]}"', text, flags=re.M
        )
        if count != 1:
            raise RuntimeError(f"{config}: no '{role} = \"emulated\"' line to point at a pty")
    table = work / "table-on-ptys.toml"
    table.write_text(text)
    return proc, table


def command_cpu_s(tree: Path, argv: list[str], work: Path) -> float:
    """The CPU seconds of ``croupier ARGV`` run from the source tree ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-m", "controller.cli", *argv],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"croupier {' '.join(argv)} ({tree}) exited {done.returncode}: "
                           f"{done.stderr.strip()[-500:]}")  # fmt: skip
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(runs: int, before_rev: str) -> dict[str, Any]:
    """:data:`COMMAND_LINES` from this tree and from ``before_rev``, alternated."""
    with tempfile.TemporaryDirectory(prefix="croupier-commands-") as folder:
        work, before = Path(folder) / "work", Path(folder) / "before"
        work.mkdir()
        git = ["git", "-C", str(ROOT)]
        rev = subprocess.run(  # noqa: S603 - git, our arguments
            [*git, "rev-parse", "--short", before_rev], capture_output=True, text=True, check=True
        ).stdout.strip()
        subprocess.run(  # noqa: S603
            [*git, "worktree", "add", "--detach", str(before), rev], capture_output=True, check=True
        )
        try:
            trees = {"after": ROOT, "before": before}
            cpu: dict[str, dict[str, list[float]]] = {
                name: {tree: [] for tree in trees} for name in COMMAND_LINES
            }
            for path in trees.values():  # compiles each tree's modules: not counted
                command_cpu_s(path, COMMAND_LINES["help"], work)
                command_cpu_s(path, ["rules", "pa-blackjack"], work)
            for _ in range(runs):
                for name, argv in COMMAND_LINES.items():
                    for tree, path in trees.items():
                        cpu[name][tree].append(command_cpu_s(path, argv, work))
        finally:
            subprocess.run(  # noqa: S603
                [*git, "worktree", "remove", "--force", str(before)],
                capture_output=True,
                check=False,
            )
    head = subprocess.run(  # noqa: S603
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    figures: dict[str, Any] = {}
    for name, by_tree in cpu.items():
        after_s, before_s = (
            statistics.median(by_tree["after"]),
            statistics.median(by_tree["before"]),
        )
        figures[name] = {
            "command": "croupier " + " ".join(COMMAND_LINES[name]),
            "after_cpu_s": spread(by_tree["after"]),
            "before_cpu_s": spread(by_tree["before"]),
            "after_over_before": round(after_s / before_s, 3),
        }
    return {
        "benchmark": "croupier_commands_cpu",
        "after": f"{head} (this tree, uncommitted changes included)",
        "before": f"{rev} ({before_rev})",
        "runs": runs,
        **figures,
        "target_cpu_s": {"help": COMMAND_TARGET_CPU_S, "rules": COMMAND_TARGET_CPU_S},
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds idle after start")
    parser.add_argument("--config", default=str(ROOT / "config" / "table.toml"))
    parser.add_argument("--ptys", action="store_true", help="devices: croupier emulate's ptys")
    parser.add_argument(
        "--commands", action="store_true", help="CPU of --help, rules, simulate: this tree and REV"
    )
    parser.add_argument("--before", default="main", metavar="REV", help="with --commands (main)")
    args = parser.parse_args()
    if args.commands:
        print(json.dumps(commands(args.runs, args.before)))
        return 0
    with tempfile.TemporaryDirectory(prefix="croupier-emulate-") as work:
        emulator = None
        config = args.config
        if args.ptys:
            emulator, table = emulator_table(args.config, Path(work))
            config = str(table)
        try:
            runs = [one_run(config, args.idle) for _ in range(args.runs)]
        finally:
            if emulator is not None:
                emulator.terminate()
                emulator.communicate(timeout=TIMEOUT_S)
    line = {
        "benchmark": "croupier_run_start",
        "config": os.path.relpath(args.config, ROOT),
        "devices": "croupier emulate on ptys" if args.ptys else "as in the table file",
        "runs": len(runs),
        "ready_s": spread([r["ready_s"] for r in runs]),
        "answering_s": spread([r["answering_s"] for r in runs]),
        "rss_after_start_mb": spread([r["rss_after_start_mb"] for r in runs], 1),
        "rss_after_idle_mb": spread([r["rss_after_idle_mb"] for r in runs], 1),
        "peak_mb": spread([r["peak_mb"] for r in runs], 1),
        "idle_s": args.idle,
        "idle_cpu_pct": spread([r["idle_cpu_pct"] for r in runs], 2),
        "all_stopped_cleanly": all(r["stopped_cleanly"] for r in runs),
        "all_devices_connected_when_idle": all(r["devices_connected"] for r in runs),
        "target_ready_s": TARGET_S,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
