"""Whether a change to the analysis left every par sheet figure as it was, to the last digit.

``python bench/parsheet_same.py write DIR [VARIANT ...]`` writes, for each variant (default:
all four), the par sheet JSON of ``croupier analyze V --no-cache`` in four modes (``quick``:
``--quick``; ``full``; ``quickopt``: ``--quick --strategy optimal``; ``fullopt``:
``--strategy optimal``) under ``DIR/MODE/`` with ``--out`` (the JSON, the page, the PDF and,
for the optimum, the generated strategy file), each in a process of its own (``python -m
controller.cli`` with this script's tree first on the path), and the CPU seconds (user +
system of the child, the page and PDF included) in ``DIR/times.jsonl``. ``--modes
quick,full`` picks modes.

``python bench/parsheet_same.py compare BEFORE AFTER`` compares two such folders: every JSON
value but the timing (``method.cpu_seconds``, ``method.wall_seconds``) must be equal (floats
as printed: ``json`` prints the shortest repr, so equal text is equal bits), and every
generated strategy file byte for byte. Prints one JSON line; exit status 1 on a difference.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("pa-blackjack", "uk-pontoon", "pontoon-blackjack", "nz-pontoon")
MODES: dict[str, list[str]] = {
    "quick": ["--quick"],
    "full": [],
    "quickopt": ["--quick", "--strategy", "optimal"],
    "fullopt": ["--strategy", "optimal"],
}
TIMING = ("cpu_seconds", "wall_seconds")


def write(out: Path, variants: list[str], modes: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for variant in variants:
        for mode in modes:
            folder = out / mode
            folder.mkdir(parents=True, exist_ok=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            cmd = [sys.executable, "-m", "controller.cli", "analyze", variant, "--no-cache"]
            subprocess.run(  # noqa: S603 (this interpreter, fixed arguments)
                [*cmd, *MODES[mode], "--out", str(folder)],
                check=True,
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            line = {
                "variant": variant,
                "mode": mode,
                "cpu_seconds": round(
                    after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2
                ),
            }
            with (out / "times.jsonl").open("a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")
            print(json.dumps(line), flush=True)


def _strip(sheet: dict[str, Any]) -> dict[str, Any]:
    method = dict(sheet.get("method") or {})
    for key in TIMING:
        method.pop(key, None)
    return {**sheet, "method": method}


def compare(before: Path, after: Path) -> int:
    compared = 0
    differ: list[str] = []
    for old in sorted(before.glob("*/*.json")):
        new = after / old.relative_to(before)
        if not new.exists():
            continue
        compared += 1
        a = _strip(json.loads(old.read_text(encoding="utf-8")))
        b = _strip(json.loads(new.read_text(encoding="utf-8")))
        if json.dumps(a, indent=1) != json.dumps(b, indent=1):
            differ.append(str(old.relative_to(before)))
    for old in sorted(before.glob("*/*.toml")):
        new = after / old.relative_to(before)
        if not new.exists():
            continue
        compared += 1
        if old.read_bytes() != new.read_bytes():
            differ.append(str(old.relative_to(before)))
    print(json.dumps({"benchmark": "parsheet_same", "compared": compared, "differ": differ}))
    return 1 if differ or not compared else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "write":
        modes = list(MODES)
        rest = argv[2:]
        if "--modes" in rest:
            at = rest.index("--modes")
            modes = rest[at + 1].split(",")
            rest = rest[:at] + rest[at + 2 :]
        write(Path(argv[1]), rest or list(VARIANTS), modes)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
