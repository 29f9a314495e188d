"""The lab's scripted cases: the scenario pack played and checked, as a report a lab can file.

The pack is ``tests/scenarios/`` of the source tree, shipped in the wheel as
``controller/scenarios`` (a link, like ``controller/defaults``): every ``*.yaml`` scenario
(``docs/scenarios.md``), its leading comment as what it shows, and ``expected.json``, each
scenario's net result per player worked out by hand from the rules. :func:`run_pack` plays every
scenario through the whole controller (:func:`~controller.play.scenario_runner.run_scenario`:
emulated devices, the production drivers, the round machine, the settlement), each in a process
of its own, and compares its net with the expectation. The report (:func:`report_json`,
:func:`report_html`) carries the software's identity (:mod:`controller.table.identity`), the
SHA-256 of the pack's files and of the variants played, and each case with its full scenario
report in the contract's format.
"""

from __future__ import annotations

import hashlib
import html
import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import controller
from controller.game.errors import ConfigError, CroupierError
from controller.game.prompts import money
from controller.game.rules import resolve_variant_path
from controller.play.errors import PlayError, ScenarioError
from controller.play.scenario_file import load_scenario
from controller.play.scenario_runner import run_scenario
from controller.table import identity

PACK = Path(controller.__file__).resolve().parent / "scenarios"
EXPECTED = "expected.json"
FORMAT = "croupier-lab-report/1"


class PackError(CroupierError):
    """A scenario folder that cannot be used as a pack (no scenario, a bad expected.json)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One scripted case: the scenario, what it shows, what it must end with, what it did."""

    name: str
    file: str
    file_sha256: str
    about: str
    variant: str
    expected_net_cents: dict[str, int] | None
    net_cents: dict[str, int] | None
    passed: bool
    problem: str
    rounds: int
    rejected: int
    seconds: float
    report: dict[str, Any] | None = field(repr=False)


def about(path: Path) -> str:
    """What a scenario shows: its leading comment lines, as one sentence."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def expectations(folder: Path) -> dict[str, dict[str, int]]:
    """Each scenario's expected net per player (cents), from the pack's ``expected.json``."""
    path = folder / EXPECTED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            str(name): {str(p): int(c) for p, c in case["net_cents"].items()}
            for name, case in data["expected"].items()
        }
    except FileNotFoundError:
        raise PackError(
            f"{path}: no such file: a pack holds each scenario's expected net"
        ) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PackError(
            f"{path}: not a pack's expectations ({exc}); it holds "
            '{"expected": {"SCENARIO": {"net_cents": {"PLAYER": CENTS}}}}'
        ) from None


def play_case(path: Path, expected: dict[str, int] | None) -> Case:
    """Play one scenario file and compare its net with ``expected`` (in this process)."""
    started = time.perf_counter()
    data = path.read_bytes()
    name = path.stem
    report: dict[str, Any] | None = None
    net: dict[str, int] | None = None
    variant = ""
    problem = ""
    try:
        scenario = load_scenario(path)
        variant = scenario.variant
        result = run_scenario(scenario)
        report = result.report.to_json_dict()
        net = {str(p): int(c) for p, c in report["net_cents"].items()}
    except ScenarioError as exc:
        problem = f"not a valid scenario: {exc}"
    except ConfigError as exc:
        problem = f"the rules do not load: {exc}"
    except (PlayError, CroupierError) as exc:
        problem = f"stopped: {exc}"
    if not problem and expected is None:
        problem = f"no expected net for {name} in {EXPECTED}"
    elif not problem and net != expected:
        problem = f"ended with {_nets(net)}, expected {_nets(expected)}"
    return Case(
        name=name,
        file=path.name,
        file_sha256=hashlib.sha256(data).hexdigest(),
        about=about(path),
        variant=variant,
        expected_net_cents=expected,
        net_cents=net,
        passed=not problem,
        problem=problem,
        rounds=len(report["rounds"]) if report else 0,
        rejected=len(report["rejected"]) if report else 0,
        seconds=round(time.perf_counter() - started, 3),
        report=report,
    )


def _nets(nets: dict[str, int] | None) -> str:
    if not nets:
        return "nothing"
    return ", ".join(f"{p} {money(c)}" for p, c in nets.items())


def quiet() -> None:
    """The logs of a lab run: errors only. The report is the output; a case's own device
    warnings (a cable it unplugs on purpose) are part of what it plays."""
    from controller.journal.logs import configure_logging  # noqa: PLC0415 (in the worker)

    configure_logging(console=True, level="ERROR")


def run_pack(folder: Path = PACK, *, jobs: int = 4) -> list[Case]:
    """Every scenario of ``folder``, played ``jobs`` at a time (each in a process of its own;
    1: in this process), in the order of their names."""
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise PackError(f"{folder}: no scenario files (*.yaml) in it")
    expected = expectations(folder)
    unknown = sorted(set(expected) - {f.stem for f in files})
    if unknown:
        raise PackError(f"{folder / EXPECTED}: names scenarios that are not there: {unknown}")
    if jobs <= 1:
        return [play_case(f, expected.get(f.stem)) for f in files]
    # spawned, not forked: the workers start clean whatever threads this process runs
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=quiet) as pool:
        futures = [pool.submit(play_case, f, expected.get(f.stem)) for f in files]
        return [f.result() for f in futures]


def _variants(cases: list[Case]) -> dict[str, dict[str, str]]:
    out = {}
    for variant in sorted({c.variant for c in cases if c.variant}):
        path = resolve_variant_path(variant)
        out[variant] = {"file": str(path), "sha256": identity.file_sha256(path)}
    return out


def report_json(
    cases: list[Case], software: identity.Software, folder: Path, now: datetime | None = None
) -> dict[str, Any]:
    """The report as a lab files it (``docs/lab.md``, "The report")."""
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    passed = sum(c.passed for c in cases)
    expected = folder / EXPECTED
    return {
        "format": FORMAT,
        "generated_at": when,
        "software": {
            "summary": software.summary(),
            "verified": software.recorded and not software.changed,
            **software.as_row(),
        },
        "pack": {
            "folder": str(folder),
            "expected_sha256": identity.file_sha256(expected),
            "variants": _variants(cases),
        },
        "summary": {"cases": len(cases), "passed": passed, "failed": len(cases) - passed},
        "cases": [asdict(c) for c in cases],
    }


_STYLE = """
body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; color: #111; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 1.6rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; border-bottom: 1px solid #ccc; padding: .3rem .5rem;
  vertical-align: top; }
th { background: #f1f1f1; }
.pass { color: #0a6b2d; font-weight: 700; } .fail { color: #b00020; font-weight: 700; }
code { font-size: .85em; overflow-wrap: anywhere; }
td:nth-child(3) { white-space: nowrap; }
"""


def report_html(report: dict[str, Any]) -> str:
    """The report as a page to print and file (every value escaped)."""
    e = html.escape
    sw = report["software"]
    total = report["summary"]
    verdict = (
        "every case passed"
        if total["failed"] == 0
        else f"{total['failed']} of {total['cases']} cases failed"
    )
    checked = (
        "every installed file matches the wheel's record"
        if sw["verified"]
        else (
            f"NOT AS INSTALLED: {', '.join(sw['changed'])}"
            if sw["changed"]
            else "a source install: no record to check the files against (not an approved build)"
        )
    )
    rows = []
    for c in report["cases"]:
        mark = '<span class="pass">PASS</span>' if c["passed"] else '<span class="fail">FAIL</span>'
        net = ", ".join(f"{p} {money(v)}" for p, v in (c["net_cents"] or {}).items()) or "-"
        rows.append(
            f"<tr><td>{mark}</td><td>{e(c['name'])}<br><code>{e(c['file_sha256'][:16])}</code>"
            f"</td><td>{e(c['variant'])}</td><td>{e(c['about'])}</td><td>{e(net)}</td>"
            f"<td>{c['rounds']}</td><td>{e(c['problem'])}</td></tr>"
        )
    variants = "".join(
        f"<tr><td>{e(v)}</td><td><code>{e(d['sha256'])}</code></td></tr>"
        for v, d in report["pack"]["variants"].items()
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>croupier lab report</title>
<style>{_STYLE}</style></head><body>
<h1>croupier lab report: {e(verdict)}</h1>
<p>Generated {e(report["generated_at"])} by <code>croupier lab run</code>
({e(report["format"])}).</p>
<h2>Software identity</h2>
<table>
<tr><th>version</th><td>{e(sw["version"])}</td></tr>
<tr><th>files</th><td>{len(sw["files"])} ({e(checked)})</td></tr>
<tr><th>software SHA-256</th><td><code>{e(sw["software_sha256"])}</code></td></tr>
<tr><th>expectations SHA-256</th><td><code>{e(report["pack"]["expected_sha256"])}</code></td></tr>
</table>
<h2>Variants played</h2>
<table><tr><th>variant</th><th>file SHA-256</th></tr>{variants}</table>
<h2>Cases ({total["passed"]} passed, {total["failed"]} failed)</h2>
<table><tr><th>result</th><th>scenario (file SHA-256)</th><th>variant</th><th>what it shows</th>
<th>net</th><th>rounds</th><th>problem</th></tr>
{"".join(rows)}
</table>
</body></html>
"""
