"""The report's charts as Chromium draws them: each at its own size (never scaled down), every
axis label whole (pygal cut "12:39:40" to "12:39..."), at least 13 px, inside the chart and
clear of its neighbours, and the time axis naming round times at the period's resolution."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from controller.floor.report import FloorReport, assemble
from controller.floor.report_page import CHART_H, CHART_W, render, time_axis
from tests.display.conftest import screenshot

START = datetime(2026, 12, 3, 22, 0, tzinfo=UTC)
FIRST_END = START + timedelta(minutes=39, seconds=34)
TIMES = {
    "one round": (1, timedelta(0), r"22:39(:34)?"),
    "two minutes": (12, timedelta(minutes=2), r"22:\d\d:\d\d"),
    "eight minutes": (30, timedelta(minutes=8), r"22:\d\d"),
    "a shift": (60, timedelta(hours=7), r"\d\d:\d\d"),
    "three days": (60, timedelta(days=3), r"[A-Z][a-z]{2} \d\d [A-Z][a-z]{2}"),
}
MIN_LABEL_PX = 13


def _report(rounds: int, span: timedelta, tables: int = 4) -> FloorReport:
    """``rounds`` rounds ending over ``span`` at ``tables`` tables, each won or lost."""
    ends, starts, ledger = [], [], []
    for n in range(rounds):
        at = FIRST_END + span * (n / max(1, rounds - 1))
        tid = f"table-{n % tables + 1}"
        ends.append((tid, n, at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"))
        begun = at - timedelta(seconds=40)
        starts.append((tid, n, begun.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"))
        won = n % 3 != 0
        ledger.append(
            (tid, n, "payout" if won else "collect", "1:1", False, 1, 1500 if won else -2500, 2500)
        )
    return assemble(START, START + timedelta(days=4), [ends, starts, ledger, []])


def _svg(uri: str) -> str:
    return base64.b64decode(uri.split(",", 1)[1]).decode("utf-8")


_LABELS = """svg => [...svg.querySelectorAll('.axis text')].map(t => {
    const r = t.getBoundingClientRect();
    return {axis: t.closest('.axis').classList.contains('x') ? 'x' : 'y', text: t.textContent,
            px: parseFloat(getComputedStyle(t).fontSize),
            left: r.left, right: r.right, top: r.top, bottom: r.bottom};
})"""


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


@pytest.fixture(scope="module")
def page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", list(TIMES))
def test_each_chart_is_drawn_at_its_size_with_whole_labels_of_13_px_that_do_not_overlap(
    page: Any, name: str
) -> None:
    rounds, span, pattern = TIMES[name]
    report = _report(rounds, span)
    page.set_content(render(report))
    for plot in ("win", "hold", "rate"):
        shown = page.eval_on_selector(
            f"#plot-{plot}",
            "img => [img.naturalWidth, img.naturalHeight, img.clientWidth, img.clientHeight]",
        )
        assert shown == [CHART_W, CHART_H, CHART_W, CHART_H], plot
    if name == "eight minutes":
        screenshot(page, "floor-report-charts")
    charts = {p: _svg(page.get_attribute(f"#plot-{p}", "src") or "") for p in ("win", "hold")}
    for plot, svg in charts.items():
        page.set_content(f'<body style="margin:0">{svg}</body>')
        box = page.eval_on_selector("svg", "s => s.getBoundingClientRect().toJSON()")
        assert (box["width"], box["height"]) == (CHART_W, CHART_H)
        labels = page.eval_on_selector("svg", _LABELS)
        x_labels = [label for label in labels if label["axis"] == "x"]
        assert x_labels, plot
        for label in labels:
            assert not re.search(r"…|\.\.\.", label["text"]), label
            assert label["px"] >= MIN_LABEL_PX, label
            assert label["bottom"] - label["top"] >= MIN_LABEL_PX - 1, label
            assert label["left"] >= 0, label
            assert label["right"] <= CHART_W, label
            assert label["top"] >= 0, label
            assert label["bottom"] <= CHART_H, label
        for axis in ("x", "y"):
            same = [label for label in labels if label["axis"] == axis]
            for i, a in enumerate(same):
                for b in same[i + 1 :]:
                    assert not _overlap(a, b), (plot, a, b)
        if plot == "win":
            texts = [label["text"] for label in x_labels]
            assert all(re.fullmatch(pattern, t) for t in texts), texts
            assert len(set(texts)) == len(texts)


def test_the_time_axis_names_a_few_round_times_inside_the_period() -> None:
    at = [FIRST_END + timedelta(seconds=15 * n) for n in range(33)]  # 8 minutes
    ticks, shown = time_axis(at)
    assert [t.strftime(shown) for t in ticks] == ["22:40", "22:42", "22:44", "22:46"]
    ticks, shown = time_axis([FIRST_END, FIRST_END + timedelta(seconds=100)])
    assert [t.strftime(shown) for t in ticks] == ["22:40:00", "22:40:30", "22:41:00"]
