"""Compare the journal rows' words of every scenario of tests/scenarios between two checkouts
(issue 23: the dealer's words moved into the words module, the rows must keep them).

    mkdir /tmp/base && git archive main | tar -x -C /tmp/base
    .venv/bin/python bench/scenario_journals.py /tmp/base .

runs each scenario of the second tree once with each tree first on ``PYTHONPATH`` (this
interpreter), keeps its journal, and compares each row's kind and the payload's words
(``text``, ``reason``, ``why``, ``told``, ``prompt``: what the dealer was told), the times left
out, and the devices' chatter too (``note``, ``device_event``: how many a run gets varies), as a
multiset (the emulated devices' threads order some rows differently from run to run). Prints per
file same/DIFFERS and a count; exit status 1 when any differs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Run in the child: the scenario with its journal kept, then the journal's rows' words.
CHILD = """
import json, sqlite3, sys, tempfile
from pathlib import Path
from controller.play import scenario_runner
from controller.play.scenario_file import load_scenario
folder = tempfile.mkdtemp(prefix="croupier-bench-")
class Kept:
    def __init__(self, *a, **k): pass
    def __enter__(self): return folder
    def __exit__(self, *a): return False
scenario_runner.tempfile.TemporaryDirectory = Kept
try:
    scenario_runner.run_scenario(load_scenario(sys.argv[1]))
except Exception as exc:
    print("stopped", type(exc).__name__)
db = sqlite3.connect(Path(folder) / "journal.sqlite3")
for kind, payload in db.execute("SELECT kind, payload FROM journal ORDER BY seq"):
    if kind in ("note", "device_event"):
        continue  # the devices' own chatter: how many status reports a run gets varies
    data = json.loads(payload)
    said = {k: data[k] for k in ("text", "reason", "why", "told", "prompt") if k in data}
    print("ROW", kind, json.dumps(said, sort_keys=True))
"""


def rows(tree: Path, scenario: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run(  # noqa: S603 (our own interpreter)
        [sys.executable, "-c", CHILD, str(scenario.resolve())],
        capture_output=True,
        cwd=tree,
        env=env,
        check=False,
    )
    return b"\n".join(r for r in done.stdout.splitlines() if r.startswith(b"ROW "))


def main(argv: list[str]) -> int:
    before, after = Path(argv[1]), Path(argv[2])
    files = sorted((after / "tests" / "scenarios").glob("*.yaml"))
    differ = 0
    for scenario in files:
        a, b = rows(before, scenario), rows(after, scenario)
        # (the order of a device's rows may vary from run to run: the emulators' threads race
        # the owner's, a key's release noted before or after the prompt it made)
        same = sorted(a.splitlines()) == sorted(b.splitlines())
        differ += not same
        kinds = json.dumps(sorted({line.split(b" ", 2)[1].decode() for line in b.splitlines()}))
        print(
            f"{'same' if same else 'DIFFERS'} {scenario.name} ({len(b.splitlines())} rows {kinds})"
        )
    print(f"{len(files) - differ} of {len(files)} journals' words identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
