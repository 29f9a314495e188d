"""Compare every scenario report of tests/scenarios between two checkouts (issue 23).

    mkdir /tmp/base && git archive main | tar -x -C /tmp/base
    .venv/bin/python bench/scenario_reports.py /tmp/base .

runs ``python -m controller.cli scenario run FILE --json`` for each file of the second tree's
tests/scenarios, once with each tree first on ``PYTHONPATH`` (this interpreter, so the same
libraries), and prints per file whether the two reports are byte-identical (and their exit
statuses), then a count. Exit status 1 when any differs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def report(tree: Path, scenario: Path) -> tuple[int, bytes]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    command = [sys.executable, "-m", "controller.cli", "scenario", "run", str(scenario.resolve())]
    done = subprocess.run(  # noqa: S603 (our own interpreter and module)
        [*command, "--json"], capture_output=True, cwd=tree, env=env, check=False
    )
    return done.returncode, done.stdout


def main(argv: list[str]) -> int:
    before, after = Path(argv[1]), Path(argv[2])
    files = sorted((after / "tests" / "scenarios").glob("*.yaml"))
    differ = 0
    for scenario in files:
        rc_a, out_a = report(before, scenario)
        rc_b, out_b = report(after, scenario)
        same = rc_a == rc_b and out_a == out_b
        differ += not same
        said = "same" if same else "DIFFERS"
        print(f"{said} {scenario.name} (exit {rc_a}/{rc_b}, {len(out_a)}/{len(out_b)} bytes)")
    print(f"{len(files) - differ} of {len(files)} reports byte-identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
