"""The report as a page: the figures in tables and three plots (pygal, SVG, no script): the
floor's house win over the period, hold % per table, rounds per hour per table."""

from __future__ import annotations

import base64
import html
import sys
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from controller.floor.dealers import STEPS
from controller.floor.ratings import RATING_COLUMNS, Rating
from controller.floor.report import CATEGORIES, KIND_WORDS, Figures, FloorReport
from controller.game.prompts import money
from controller.journal.store import parse_ts

CHART_W, CHART_H = 460, 300  # the plots' size in CSS pixels: drawn at it, never scaled
LABEL_PX = 14  # the axes' labels (the page's text is 15 px)
TIME_LABELS = 5  # at most this many times on the time axis: each is whole, none overlaps

_CSS = f"""
body {{ font: 15px/1.4 system-ui, sans-serif; margin: 1.2rem; color: #111; background: #fafafa; }}
table {{ border-collapse: collapse; margin: .6rem 0 1.2rem; background: #fff; }}
th, td {{ border: 1px solid #ccc; padding: .25rem .6rem; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
tr.floor td {{ font-weight: 700; border-top: 2px solid #333; }}
.plots {{ display: flex; flex-wrap: wrap; gap: 1rem; }}
.plots img {{ width: {CHART_W}px; height: {CHART_H}px; flex: none; background: #fff;
  border: 1px solid #ddd; }}
a {{ color: #1d3557; }}
"""

# the plots' time axis: a label every so many seconds, the first step giving few enough labels
_STEPS_S: tuple[int, ...] = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200)
_STEPS_S += (10800, 21600, 43200, 86400, 2 * 86400, 7 * 86400)


def _pygal() -> Any:
    """pygal, imported when a report is drawn. Its import adds a finder for its map plugins
    (``pygal.maps.*``, unused here) that lacks ``find_spec`` and makes every later import warn;
    it is taken out again."""
    import pygal  # noqa: PLC0415

    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "PluginImportFixer"]
    return pygal


def _chart_uri(chart: Any) -> str:
    svg = chart.render(is_unicode=True)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _config(title: str) -> dict[str, object]:
    pygal = _pygal()
    style = pygal.style.CleanStyle(
        font_family="system-ui, 'DejaVu Sans', sans-serif",
        label_font_size=LABEL_PX,
        major_label_font_size=LABEL_PX,
        title_font_size=LABEL_PX + 2,
        value_font_size=LABEL_PX,
        tooltip_font_size=LABEL_PX,
    )
    return {
        "title": title,
        "style": style,
        "js": [],  # no script from anywhere: the page is read-only and offline
        "show_legend": False,
        "width": CHART_W,
        "height": CHART_H,
        "explicit_size": True,  # its own size in the SVG: an <img> shows it 1:1
        "truncate_label": -1,  # a label is whole or not there (pygal cuts to "12:39...")
        "max_scale": 7,  # few enough values on the y axis for 14 px labels
        "disable_xml_declaration": True,
    }


def time_axis(times: list[datetime], most: int = TIME_LABELS) -> tuple[list[datetime], str]:
    """Where the house win plot names its times and how: at most ``most`` round times (every
    5 minutes, every hour...) inside the span of ``times`` (in their own zone), written with
    seconds when they are less than a minute apart, with the day when the span passes a day."""
    if not times:
        return [], "%H:%M"
    first, last = min(times), max(times)
    span = (last - first).total_seconds()
    step = next((s for s in _STEPS_S if span / s < most), _STEPS_S[-1])
    midnight = first.replace(hour=0, minute=0, second=0, microsecond=0)
    into = (first - midnight).total_seconds()
    at = midnight + timedelta(seconds=-(-into // step) * step)
    ticks: list[datetime] = []
    while at <= last and len(ticks) < most:
        ticks.append(at)
        at += timedelta(seconds=step)
    if not ticks:  # one round, or all within one step: its own time
        ticks = [first]
        step = 1 if first.second else 60
    if last.date() != first.date() and span > 86400:
        return ticks, "%a %H:%M" if step < 86400 else "%a %d %b"
    return ticks, "%H:%M:%S" if step < 60 else "%H:%M"


def plots(report: FloorReport) -> dict[str, str]:
    """Three charts as ``data:`` URIs."""
    pygal = _pygal()
    zone = report.start.tzinfo
    total = 0
    points = []
    for ts, _table, cents in report.house_wins:
        total += cents
        points.append((parse_ts(ts).astimezone(zone), total))
    ticks, shown = time_axis([at for at, _ in points])
    win = pygal.DateTimeLine(
        **_config("house win, floor total over the period"),
        x_value_formatter=lambda at: at.astimezone(zone).strftime(shown),
        value_formatter=lambda cents: money(int(cents)),
    )
    win.x_labels = ticks
    win.add("house win", points or [(report.start, 0)])
    many = len(report.tables) > 4  # table names turned to fit side by side
    bars: dict[str, object] = {"x_label_rotation": 30 if many else 0}
    hold = pygal.Bar(**_config("hold % per table"), **bars, value_formatter=lambda v: f"{v:g} %")
    hold.x_labels = [t.table_id for t in report.tables]
    hold.add(
        "hold %",
        [
            float(Fraction(t.house_win_cents * 100, t.handle_cents)) if t.handle_cents else 0.0
            for t in report.tables
        ],
    )
    rate = pygal.Bar(**_config("rounds per hour"), **bars, value_formatter=lambda v: f"{v:g}")
    rate.x_labels = [t.table_id for t in report.tables]
    rate.add(
        "rounds/h",
        [float(Fraction(t.rounds) / t.hours) if t.hours > 0 else 0.0 for t in report.tables],
    )
    return {"win": _chart_uri(win), "hold": _chart_uri(hold), "rate": _chart_uri(rate)}


def _row(f: Figures, cls: str = "") -> str:
    cells = [
        f.table_id,
        str(f.rounds),
        money(f.handle_cents),
        money(f.house_win_cents),
        f.hold_percent,
        f.rounds_per_hour,
        str(f.voids),
        str(f.overrides),
    ]
    tds = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
    return f'<tr class="{cls}" data-table="{html.escape(f.table_id)}">{tds}</tr>'


def _table(rows: list[list[object]], heads: tuple[str, ...]) -> str:
    """A table's head and body, every cell escaped."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = (
        "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
            for row in rows
        )
        or f'<tr><td colspan="{len(heads)}">none</td></tr>'
    )
    return f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"


def dealers_table(report: FloorReport) -> str:
    """Each dealer's figures (controller.floor.dealers; seconds per round for each step)."""
    rows: list[list[object]] = [
        [
            f"{d.name} ({d.dealer})" if d.name else d.dealer,
            ", ".join(sorted(d.tables)),
            d.rounds,
            d.rounds_per_hour,
            *(d.seconds_per_round(step) for step in STEPS),
            d.voids,
            d.overrides,
            d.misreads_keyed,
            d.holds,
            money(d.house_win_cents),
        ]
        for d in report.dealers
    ]
    heads = ("dealer", "tables", "rounds", "rounds/h", *(f"{s} s" for s in STEPS))
    return _table(rows, (*heads, "voids", "overrides", "keyed", "holds", "house win"))


def receipts_table(report: FloorReport) -> str:
    """Every shoe that ended in the period, by table."""
    rows: list[list[object]] = [
        [
            report.local_time(r.ts),
            r.table_id,
            r.round_id,
            r.reason,
            "yes" if r.cut_card else "no",
            r.dealt,
            r.cards_left,
            "-" if r.shoe_left is None else r.shoe_left,
            r.shortfall,
            r.surplus,
        ]
        for r in report.receipts
    ]
    heads = ("time", "table", "round", "why", "cut card", "dealt", "left", "shoe says")
    return _table(rows, (*heads, "shortfall", "surplus"))


def _rated(report: FloorReport, r: Rating, key: str) -> str:
    """One cell of the rating table, its times in the report's zone."""
    if key == "start":
        return report.local_time(r.play.start)
    if key == "end":
        return report.local_time(r.play.end) if r.play.end else "seated"
    return r.shown()[key]


def render(report: FloorReport, *, query: str = "") -> str:
    """The whole page (self-contained: styles inline, plots as data URIs)."""
    charts = plots(report)
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "table",
            "rounds",
            "handle",
            "house win",
            "hold %",
            "rounds/h",
            "voids",
            "overrides",
        )
    )
    figures = "".join(_row(t) for t in report.tables) + _row(report.floor, "floor")
    pay_head = "".join(f"<th>{KIND_WORDS.get(c, c)}</th>" for c in ("table", *CATEGORIES))
    pay_rows = ""
    for f in [*report.tables, report.floor]:
        cells = "".join(
            f"<td>{f.settled[c].count} / {money(f.settled[c].amount_cents)}</td>"
            if c in f.settled
            else "<td>-</td>"
            for c in CATEGORIES
        )
        pay_rows += f"<tr><td>{html.escape(f.table_id)}</td>{cells}</tr>"
    overrides = (
        "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    report.local_time(o.ts),
                    o.table_id,
                    o.round_id if o.round_id is not None else "",
                    o.action,
                    o.by,
                    o.detail,
                )
            )
            + "</tr>"
            for o in report.overrides
        )
        or '<tr><td colspan="6">none</td></tr>'
    )
    over_head = "".join(
        f"<th>{h}</th>" for h in ("time", "table", "round", "action", "by", "detail")
    )
    days = (
        "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    d.table_id,
                    d.day,
                    report.local_time(d.closed_ts),
                    d.closed_by,
                    money(d.opening_cents),
                    money(d.closing_cents),
                    money(d.credits_cents),
                    money(d.fills_cents),
                    "open" if d.drop_cents is None else money(d.drop_cents),
                    "open" if d.win_cents is None else money(d.win_cents),
                    money(d.ledger_cents),
                    "-" if d.difference_cents is None else money(d.difference_cents),
                )
            )
            + "</tr>"
            for d in report.days
        )
        or '<tr><td colspan="12">none closed in the period</td></tr>'
    )
    days_head = "".join(
        f"<th>{h}</th>"
        for h in (
            "table", "day", "closed", "by", "opening", "closing", "credits", "fills", "drop",
            "table's win", "ledger house win", "difference",
        )
    )  # fmt: skip
    rating_head = "".join(f"<th>{html.escape(words)}</th>" for _key, words in RATING_COLUMNS)
    rating_rows = (
        "".join(
            f'<tr data-session="{html.escape(r.play.session)}">'
            + "".join(
                f"<td>{html.escape(_rated(report, r, key))}</td>" for key, _w in RATING_COLUMNS
            )
            + "</tr>"
            for r in report.ratings
        )
        or f'<tr><td colspan="{len(RATING_COLUMNS)}">no rated play</td></tr>'
    )
    links = ""
    if query:
        q = html.escape(query)
        links = (
            f'<p><a href="/report.csv?{q}">CSV</a> · <a href="/report.json?{q}">JSON</a> · '
            '<a href="/">floor</a></p>'
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>croupier floor report</title>
<style>{_CSS}</style></head><body>
<h1>Floor report</h1>
<p id="period">{html.escape(report.period())}</p>
{links}
<table id="figures"><thead><tr>{head}</tr></thead><tbody>{figures}</tbody></table>
<div class="plots">
<img id="plot-win" alt="house win, floor total over the period" src="{charts["win"]}"
  width="{CHART_W}" height="{CHART_H}">
<img id="plot-hold" alt="hold % per table" src="{charts["hold"]}" width="{CHART_W}"
  height="{CHART_H}">
<img id="plot-rate" alt="rounds per hour per table" src="{charts["rate"]}" width="{CHART_W}"
  height="{CHART_H}">
</div>
<h2>Settled by kind (count / net to the players)</h2>
<table id="settled"><thead><tr>{pay_head}</tr></thead><tbody>{pay_rows}</tbody></table>
<h2>Voids and overrides</h2>
<table id="overrides"><thead><tr>{over_head}</tr></thead><tbody>{overrides}</tbody></table>
<h2>Dealers (seconds per round for each step)</h2>
<table id="dealers">{dealers_table(report)}</table>
<h2>Shoe receipts</h2>
<table id="receipts">{receipts_table(report)}</table>
<h2>Gaming days (table's win = closing - opening + credits - fills + drop; against the ledger)</h2>
<table id="gaming-days"><thead><tr>{days_head}</tr></thead><tbody>{days}</tbody></table>
<h2>Ratings (theo: what the house expects to win from the play)</h2>
<table id="ratings"><thead><tr>{rating_head}</tr></thead><tbody>{rating_rows}</tbody></table>
</body></html>
"""
