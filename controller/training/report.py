"""Scores: a trainee's report from the training journal, and an instructor's view of several.

A question passes when its answer is croupier's and came within its time limit. A session (one
run of a course) passes when every drill reaches its pass mark and the whole session reaches
the course's. The report gives the accuracy (right answers), the share in time and passed, the
time per answer, each kind of question's figures, the weakest kinds (the lowest share passed,
then the slowest), the progress over sessions and pass or fail per session; as JSON and as an
HTML page with plots (matplotlib, as the par sheet's).
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from controller.analysis.report import svg
from controller.game.words import drill_name
from controller.table.private import write_private
from controller.training.journal import Attempt

WEAKEST = 3


def percent(part: int, whole: int) -> float:
    """A share as a percentage with one decimal (a figure to read, not money)."""
    return 0.0 if whole == 0 else round(float(Fraction(100 * part, whole)), 1)


def _figures(attempts: Sequence[Attempt]) -> dict[str, Any]:
    n = len(attempts)
    seconds = [a.seconds for a in attempts]
    return {
        "questions": n,
        "right": sum(a.correct for a in attempts),
        "in_time": sum(a.in_time for a in attempts),
        "passed": sum(a.passed for a in attempts),
        "accuracy_percent": percent(sum(a.correct for a in attempts), n),
        "passed_percent": percent(sum(a.passed for a in attempts), n),
        "mean_seconds": round(statistics.fmean(seconds), 2) if seconds else 0.0,
        "median_seconds": round(statistics.median(seconds), 2) if seconds else 0.0,
    }


def _session(attempts: list[Attempt]) -> dict[str, Any]:
    first = attempts[0]
    drills = []
    for kind in dict.fromkeys(a.kind for a in attempts):
        of_kind = [a for a in attempts if a.kind == kind]
        figures = _figures(of_kind)
        mark = of_kind[0].pass_percent
        drills.append(
            {
                "kind": kind,
                "name": drill_name(kind),
                "pass_percent": mark,
                "time_limit_s": of_kind[0].time_limit_s,
                **figures,
                "pass": 100 * figures["passed"] >= mark * figures["questions"],
            }
        )
    whole = _figures(attempts)
    mark = first.course_pass_percent
    return {
        "session": first.session,
        "course": first.course,
        "variant": first.variant,
        "at": first.at,
        "pass_percent": mark,
        **whole,
        "drills": drills,
        "pass": all(d["pass"] for d in drills) and 100 * whole["passed"] >= mark * len(attempts),
    }


def trainee_report(trainee: str, attempts: Sequence[Attempt]) -> dict[str, Any]:
    """A trainee's figures, by kind of question and by session, from their attempts in order."""
    sessions: dict[str, list[Attempt]] = {}
    for a in attempts:
        sessions.setdefault(a.session, []).append(a)
    kinds = []
    for kind in sorted({a.kind for a in attempts}):
        of_kind = [a for a in attempts if a.kind == kind]
        kinds.append({"kind": kind, "name": drill_name(kind), **_figures(of_kind)})
    weak = sorted(
        (k for k in kinds if k["passed"] < k["questions"]),
        key=lambda k: (k["passed_percent"], -k["mean_seconds"]),
    )
    done = [_session(s) for s in sessions.values()]
    return {
        "trainee": trainee,
        **_figures(attempts),
        "by_kind": kinds,
        "weakest": [k["kind"] for k in weak[:WEAKEST]],
        "sessions": done,
        "progress_percent": [s["passed_percent"] for s in done],
        "courses": {
            course: {"sessions": len(runs), "passed": any(s["pass"] for s in runs)}
            for course in dict.fromkeys(s["course"] for s in done)
            for runs in [[s for s in done if s["course"] == course]]
        },
    }


def instructor_view(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several trainees side by side: each one's figures, weakest kinds and courses passed."""
    return {
        "trainees": [
            {
                "trainee": r["trainee"],
                "sessions": len(r["sessions"]),
                "questions": r["questions"],
                "accuracy_percent": r["accuracy_percent"],
                "passed_percent": r["passed_percent"],
                "mean_seconds": r["mean_seconds"],
                "weakest": r["weakest"],
                "courses_passed": sorted(c for c, v in r["courses"].items() if v["passed"]),
                "last_session_pass": r["sessions"][-1]["pass"] if r["sessions"] else None,
            }
            for r in reports
        ]
    }


# --- the page ---------------------------------------------------------------------------------

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; max-width: 60em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.pass { color: #1e7b34; font-weight: bold; } .fail { color: #b0281a; font-weight: bold; }
figure { margin: 0.6em 0; } figure svg { max-width: 100%; height: auto; }
"""


def _verdict(passed: bool) -> str:
    return '<span class="pass">pass</span>' if passed else '<span class="fail">fail</span>'


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    e = html.escape
    top = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{top}</tr>{body}</table>"


def progress_figure(report: dict[str, Any]) -> Figure:
    fig = Figure(figsize=(6.4, 2.8))
    ax = fig.add_subplot()
    values = report["progress_percent"]
    ax.plot(range(1, len(values) + 1), values, marker="o", color="#2c6fbb")
    ax.set_ylim(0, 100)
    ax.set_xlabel("session")
    ax.set_ylabel("questions passed (%)")
    ax.set_xticks(range(1, len(values) + 1))
    fig.tight_layout()
    return fig


def times_figure(report: dict[str, Any], attempts: Sequence[Attempt]) -> Figure:
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot()
    kinds = [k["kind"] for k in report["by_kind"]]
    data = [[a.seconds for a in attempts if a.kind == k] for k in kinds]
    ax.boxplot(data, orientation="horizontal")
    limits = [max(a.time_limit_s for a in attempts if a.kind == k) for k in kinds]
    ax.scatter(limits, range(1, len(kinds) + 1), marker="|", s=300, color="#b0281a")
    ax.set_yticks(range(1, len(kinds) + 1), [drill_name(k) for k in kinds], fontsize=8)
    ax.set_xlabel("seconds per answer (red: the time limit)")
    fig.tight_layout()
    return fig


def trainee_page(report: dict[str, Any], attempts: Sequence[Attempt]) -> str:
    e = html.escape
    r = report
    summary = _table(
        ["questions", "right", "in time", "passed", "accuracy", "mean time", "median time"],
        [
            [
                str(r["questions"]),
                str(r["right"]),
                str(r["in_time"]),
                str(r["passed"]),
                f"{r['accuracy_percent']} %",
                f"{r['mean_seconds']} s",
                f"{r['median_seconds']} s",
            ]
        ],
    )
    kinds = _table(
        ["kind of question", "questions", "right", "in time", "passed", "mean time"],
        [
            [
                e(k["name"]),
                str(k["questions"]),
                str(k["right"]),
                str(k["in_time"]),
                f"{k['passed_percent']} %",
                f"{k['mean_seconds']} s",
            ]
            for k in r["by_kind"]
        ],
    )
    sessions = _table(
        ["session", "course", "questions", "passed", "mark", "result"],
        [
            [
                e(s["at"]),
                e(s["course"]),
                str(s["questions"]),
                f"{s['passed_percent']} %",
                f"{s['pass_percent']} %",
                _verdict(s["pass"]),
            ]
            for s in r["sessions"]
        ],
    )
    weakest = ", ".join(e(drill_name(k)) for k in r["weakest"]) or "none: every answer passed"
    plots = ""
    if attempts:
        plots = (
            f"<figure>{svg(progress_figure(r))}<figcaption>Progress over sessions"
            f"</figcaption></figure><figure>{svg(times_figure(r, attempts))}"
            "<figcaption>Time per answer by kind of question</figcaption></figure>"
        )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Training report: "
        f"{e(r['trainee'])}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Training report: {e(r['trainee'])}</h1>{summary}"
        f"<p>Weakest: {weakest}</p><h2>By kind of question</h2>{kinds}"
        f"<h2>Sessions</h2>{sessions}{plots}</body></html>"
    )


def instructor_page(view: dict[str, Any]) -> str:
    e = html.escape
    rows = [
        [
            e(t["trainee"]),
            str(t["sessions"]),
            str(t["questions"]),
            f"{t['accuracy_percent']} %",
            f"{t['passed_percent']} %",
            f"{t['mean_seconds']} s",
            e(", ".join(drill_name(k) for k in t["weakest"]) or "-"),
            e(", ".join(t["courses_passed"]) or "-"),
            "-" if t["last_session_pass"] is None else _verdict(t["last_session_pass"]),
        ]
        for t in view["trainees"]
    ]
    head = ["trainee", "sessions", "questions", "accuracy", "passed", "mean time"]
    head += ["weakest", "courses passed", "last session"]
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Trainees</title>"
        f"<style>{_STYLE}</style></head><body><h1>Trainees</h1>{_table(head, rows)}"
        "</body></html>"
    )


def write_page(path: Path, page: str) -> None:
    write_private(path, page.encode("utf-8"), "the training report")
