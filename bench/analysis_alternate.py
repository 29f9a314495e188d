"""``croupier analyze`` from this tree and from another commit, alternated: CPU seconds and
peak resident memory of each run (``os.wait4`` of the child: user + system, ``ru_maxrss``).

``python bench/analysis_alternate.py [--before REV] [--runs N] [--mode M ...] [VARIANT ...]``

REV (default ``main``) is checked out in a temporary ``git worktree`` (removed after); each run
is ``python -m controller.cli analyze VARIANT --no-cache --json ...`` with ``PYTHONPATH`` set to
one tree, the two trees alternated run by run (after, before, after, before...), so that both
meet the same load. Modes: ``quick`` (``--quick``), ``optimal`` (``--quick --strategy
optimal``), ``full`` (the full par sheet), ``fullopt`` (``--strategy optimal``); default
``quick``. Both trees' JSON must be equal but for the timing (else the line says so). Prints one
JSON line per variant and mode: the median CPU seconds and peak RSS of each tree, their ratio,
every run, the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES: dict[str, list[str]] = {
    "quick": ["--quick"],
    "optimal": ["--quick", "--strategy", "optimal"],
    "full": [],
    "fullopt": ["--strategy", "optimal"],
}


def one_run(tree: Path, variant: str, mode: str, work: Path) -> tuple[float, float, Any]:
    """CPU seconds, peak RSS (MB) and the par sheet (timing left out) of one run."""
    out = work / "sheet.json"
    with out.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: S603 - this interpreter, our arguments
            [sys.executable, "-m", "controller.cli", "analyze", variant, "--no-cache", "--json",
             *MODES[mode]],
            cwd=work,
            env={**os.environ, "PYTHONPATH": str(tree)},
            stdin=subprocess.DEVNULL,
            stdout=sink,
        )  # fmt: skip
        _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"analyze {variant} {mode} ({tree}) exited {proc.returncode}")
    sheet = json.loads(out.read_text(encoding="utf-8"))
    sheet.get("method", {}).pop("cpu_seconds", None)
    sheet.get("method", {}).pop("wall_seconds", None)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, sheet


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", default=["pa-blackjack"])
    parser.add_argument("--before", default="main")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", action="append", choices=sorted(MODES))
    args = parser.parse_args()
    git = ["git", "-C", str(ROOT)]
    rev = subprocess.run(  # noqa: S603 - git, our arguments
        [*git, "rev-parse", "--short", args.before], capture_output=True, text=True, check=True
    ).stdout.strip()
    head = subprocess.run(  # noqa: S603
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="croupier-analysis-") as folder:
        work, before = Path(folder) / "work", Path(folder) / "before"
        work.mkdir()
        subprocess.run(  # noqa: S603
            [*git, "worktree", "add", "--detach", str(before), rev], capture_output=True, check=True
        )
        try:
            trees = {"after": ROOT, "before": before}
            for path in trees.values():  # compiles each tree's modules: not counted
                subprocess.run(
                    [sys.executable, "-m", "controller.cli", "--help"],
                    cwd=work,
                    env={**os.environ, "PYTHONPATH": str(path)},
                    stdout=subprocess.DEVNULL,
                    check=True,
                )
            for mode in args.mode or ["quick"]:
                for variant in args.variants:
                    load = [round(x, 2) for x in os.getloadavg()]
                    cpu: dict[str, list[float]] = {t: [] for t in trees}
                    rss: dict[str, list[float]] = {t: [] for t in trees}
                    sheets: dict[str, Any] = {}
                    for _ in range(args.runs):
                        for tree, path in trees.items():
                            c, r, sheets[tree] = one_run(path, variant, mode, work)
                            cpu[tree].append(round(c, 2))
                            rss[tree].append(round(r, 1))
                    after_s = statistics.median(cpu["after"])
                    before_s = statistics.median(cpu["before"])
                    line = {
                        "benchmark": "analysis_alternate",
                        "variant": variant,
                        "mode": mode,
                        "after": f"{head} (this tree, uncommitted changes included)",
                        "before": f"{rev} ({args.before})",
                        "after_cpu_s": after_s,
                        "before_cpu_s": before_s,
                        "before_over_after": round(before_s / after_s, 2),
                        "after_rss_mb": max(rss["after"]),
                        "before_rss_mb": max(rss["before"]),
                        "runs_cpu_s": cpu,
                        "same_sheet": sheets["after"] == sheets["before"],
                        "loadavg": [load, [round(x, 2) for x in os.getloadavg()]],
                        "python": platform.python_version(),
                    }
                    print(json.dumps(line), flush=True)
        finally:
            subprocess.run(  # noqa: S603
                [*git, "worktree", "remove", "--force", str(before)],
                capture_output=True,
                check=False,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
