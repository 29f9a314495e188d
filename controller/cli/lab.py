"""``croupier lab run [--out DIR] [--scenarios DIR] [--jobs N]``: the lab's scripted cases.

Plays the scenario pack shipped with this installation (or ``--scenarios DIR``), checks every
case against its expected net, and writes ``DIR/lab-report.json`` and ``DIR/lab-report.html``
with the software's identity (:mod:`controller.play.lab`, ``docs/lab.md``).

== ===========================================================================
0  every case passed, on software whose files match the wheel's record (or a source install,
   which the report says)
1  a case failed, or an installed file is not as the wheel installed it
2  a wrong command line, a folder that is not a pack, an output that cannot be written
== ===========================================================================
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.play.lab import PACK, PackError, quiet, report_html, report_json, run_pack
from controller.table import identity
from controller.table.private import PrivateFileError, make_folders, write_private

REPORT_JSON = "lab-report.json"
REPORT_HTML = "lab-report.html"


def run(args: argparse.Namespace) -> int:
    folder = Path(args.scenarios) if args.scenarios else PACK
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"croupier lab: --out {args.out}: is a file; give a folder", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"croupier lab: --jobs {args.jobs}: at least 1", file=sys.stderr)
        return 2
    quiet()
    software = identity.software()
    print(software.summary(), flush=True)
    print(f"playing the scenario pack {folder} ...", flush=True)
    try:
        cases = run_pack(folder, jobs=args.jobs)
    except PackError as exc:
        print(f"croupier lab: {exc}", file=sys.stderr)
        return 2
    for case in cases:
        mark = "PASS" if case.passed else "FAIL"
        print(f"{mark} {case.name}" + (f": {case.problem}" if case.problem else ""))
    report = report_json(cases, software, folder)
    try:
        make_folders(out)
        write_private(out / REPORT_JSON, json.dumps(report, indent=2).encode(), "the lab report")
        write_private(out / REPORT_HTML, report_html(report).encode(), "the lab report page")
    except (OSError, PrivateFileError) as exc:
        print(f"croupier lab: cannot write the report in {out}: {exc}", file=sys.stderr)
        return 2
    summary = report["summary"]
    print(
        f"{summary['passed']} of {summary['cases']} cases passed; report: {out / REPORT_JSON}, "
        f"{out / REPORT_HTML}"
    )
    if software.changed:
        print(f"NOT AS INSTALLED: {software.changed_words()}", file=sys.stderr)
        return 1
    return 0 if summary["failed"] == 0 else 1
