"""The surveillance page (``GET /surveillance`` of ``croupier floor serve``): the rated sessions
of a period judged by :mod:`controller.floor.advantage`, the flagged first, each with its
evidence and a plot of its bets against the true count (inline SVG, no script); each shoe's
shuffle point as the journal proves it; and, asked for a flagged session, the remaining shoe's
exact edge at each of its rounds (:mod:`.edges`, ``GET /surveillance/edge``).

Only a user whose ``role`` is ``surveillance`` in the floor file sees it; the pit's page does
not link to it and a pit user asking for it is refused."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from controller.floor.advantage import (
    FLAG_STATISTIC,
    FLAG_Z,
    MIN_ROUNDS,
    BoxRound,
    Evidence,
    ShoeProof,
    read_table,
    sessions,
)
from controller.floor.chain import ROW_COLUMNS
from controller.floor.edges import EdgeJob
from controller.floor.table_rules import latest_config_sql
from controller.game.prompts import money
from controller.journal.store import Row, parse_ts

KINDS = (
    "software",  # a journal's first row (seq 1): a shoe from there is known from its start
    "config",
    "prompt",
    "input",
    "people",
    "round_start",
    "round_end",
    "device_command",
    "device_event",
)
SHOE_EVENTS = ("ShoeLoaded", "CutCard")  # the device events read: a new shoe, its cut card
LOOKBACK = timedelta(hours=2)  # rows read before the period: the shoe in play at its start
PLOT_W, PLOT_H = 420, 260


_SURVEILLED_ROWS = f"""
WITH seated AS (
    SELECT DISTINCT table_id FROM croupier.journal_rows
    WHERE kind = 'people' AND at >= %s AND at < %s)
(SELECT {ROW_COLUMNS} FROM croupier.journal_rows
 WHERE kind = ANY(%s) AND at >= %s AND at < %s
   AND (kind <> 'device_event' OR payload::jsonb ->> 'type' = ANY(%s))
   AND table_id IN (SELECT table_id FROM seated))
UNION ALL
{latest_config_sql("%s", "seated")}
ORDER BY table_id, seq
"""  # noqa: S608 - fixed names


def surveillance_query(start: datetime, end: datetime) -> tuple[str, tuple[Any, ...]]:
    """The rows the page judges: those the counts and the sessions are made of, from a while
    before the period (so the shoe in play at its start is counted from its shuffle), of the
    tables that had a rated session in the period, and each one's latest ``config`` row before
    those (the rules it was dealing by: its shoe, and the remaining shoe's edge's rules)."""
    since = start - LOOKBACK
    return (
        _SURVEILLED_ROWS,
        (start, end, list(KINDS), since, end, list(SHOE_EVENTS), since),
    )


def judge(rows: Iterable[Row], start: datetime) -> list[Evidence]:
    """Every rated session with a round in the period, flagged first, then by z."""
    return judge_all(rows, start)[0]


def judge_all(rows: Iterable[Row], start: datetime) -> tuple[list[Evidence], list[ShoeProof]]:
    """The rated sessions (as :func:`judge`) and the shoes whose first card came in the period
    with what the journal proves of their shuffle points, the flagged first."""
    by_table: dict[str, list[Row]] = {}
    for row in rows:
        by_table.setdefault(row.table_id, []).append(row)
    out: list[Evidence] = []
    shoes: list[ShoeProof] = []
    for table_id, table_rows in by_table.items():
        read = read_table(table_id, table_rows)
        read.rounds = [r for r in read.rounds if r.ts and parse_ts(r.ts) >= start]
        out.extend(sessions(read))
        shoes.extend(
            s for s in read.shoes if s.first_card_ts and parse_ts(s.first_card_ts) >= start
        )
    ordered = sorted(out, key=lambda e: (not e.flagged, -e.z, e.key))
    return ordered, sorted(shoes, key=lambda s: (not s.flagged, s.table_id, s.number))


def session_rounds(
    rows: Iterable[Row], start: datetime, session: str
) -> tuple[str, list[BoxRound]]:
    """The variant and the rounds in the period of one rated session (none: not found)."""
    by_table: dict[str, list[Row]] = {}
    for row in rows:
        by_table.setdefault(row.table_id, []).append(row)
    for table_id, table_rows in by_table.items():
        read = read_table(table_id, table_rows)
        found = [
            r for r in read.rounds if r.session == session and r.ts and parse_ts(r.ts) >= start
        ]
        if found:
            return read.variant, found
    return "", []


def as_json(
    found: Sequence[Evidence],
    start: datetime,
    end: datetime,
    shoes: Sequence[ShoeProof] = (),
) -> dict[str, Any]:
    return {
        "from": start.isoformat(),
        "to": end.isoformat(),
        "statistic": FLAG_STATISTIC,
        "threshold": FLAG_Z,
        "min_rounds": MIN_ROUNDS,
        "sessions": [e.as_json() for e in found],
        "shoes": [s.as_json() for s in shoes],
    }


def plot(evidence: Evidence) -> str:
    """The session's bets (y, money) against the true count before each round (x), as SVG."""
    points = evidence.points
    left, right, top, bottom = 56, 12, 14, 40
    w, h = PLOT_W - left - right, PLOT_H - top - bottom
    xs = [p[0] for p in points] or [0.0]
    lo_x, hi_x = min(*xs, -2.0), max(*xs, 4.0)
    hi_y = max((p[1] for p in points), default=1) or 1

    def sx(x: float) -> float:
        return left + (x - lo_x) / (hi_x - lo_x) * w

    def sy(y: int) -> float:
        return top + h - y / hi_y * h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PLOT_W}" height="{PLOT_H}" '
        f'viewBox="0 0 {PLOT_W} {PLOT_H}" role="img" aria-label="bet against true count for '
        f'{html.escape(evidence.player)}">',
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fff" stroke="#999"/>',
    ]
    for tick in range(int(lo_x), int(hi_x) + 1):
        x = sx(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h}" stroke="#eee"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{top + h + 16}" font-size="12" text-anchor="middle">'
            f"{tick:+d}</text>"
        )
    for frac in (0.0, 0.5, 1.0):
        y = int(hi_y * frac)
        parts.append(
            f'<text x="{left - 6}" y="{sy(y) + 4:.1f}" font-size="12" text-anchor="end">'
            f"{html.escape(money(y))}</text>"
        )
    parts.append(
        f'<text x="{left + w / 2:.1f}" y="{PLOT_H - 6}" font-size="12" text-anchor="middle">'
        "true count before the round</text>"
    )
    for x, y in points:
        parts.append(
            f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="#1d3557" '
            'fill-opacity="0.55"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body { font: 15px/1.4 system-ui, sans-serif; margin: 1rem; color: #111; background: #fafafa; }
header { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
section { background: #fff; border: 1px solid #ccc; margin: .8rem 0; padding: .6rem .8rem; }
section.flagged { border-left: 6px solid #b00020; }
.flag { color: #b00020; font-weight: 700; }
tr.flagged td { color: #b00020; font-weight: 700; }
.cols { display: flex; gap: 1rem; flex-wrap: wrap; align-items: flex-start; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ddd; padding: .15rem .5rem; text-align: left; }
"""


def mean_bet_words(f: Evidence) -> str:
    """The mean bets below +1 and at +2 or more, each over its rounds ("no round" where a
    session never bet there: a mean of nothing is not $0)."""

    def mean(cents: int, rounds: int, where: str) -> str:
        if rounds == 0:
            return f"no round {where}"
        return f"{money(cents)} {where} ({rounds} round{'' if rounds == 1 else 's'})"

    return (
        f"{mean(f.mean_bet_low_cents, f.rounds_low, 'below +1')}, "
        f"{mean(f.mean_bet_high_cents, f.rounds_high, 'at +2 or more')}"
    )


def _shoes_section(shoes: Sequence[ShoeProof]) -> str:
    """Each shoe of the period: whether its cut position was committed before its first card
    and whether the cut card came out there (the flagged first)."""
    e = html.escape
    flagged = sum(1 for s in shoes if s.flagged)
    rows = "".join(
        f"<tr class='{'flagged' if s.flagged else 'clear'}' data-shoe='{e(s.table_id)}-{s.number}'>"
        f"<td>{e(s.table_id)}</td><td>{s.number}</td><td>{e(s.first_card_ts)}</td>"
        f"<td>{'FLAGGED' if s.flagged else 'committed first'}</td><td>{e(s.why)}</td></tr>"
        for s in shoes
    )
    return (
        "<section id='shoes'><h2>Shuffle points</h2>"
        f"<p>{len(shoes)} shoes began in the period, {flagged} flagged: each shoe's cut "
        "position must be in the journal before its first card, and the cut card must come "
        "out there.</p>"
        "<table><tr><th>table</th><th>shoe</th><th>first card</th><th>proof</th>"
        f"<th>what the journal shows</th></tr>{rows}</table></section>"
    )


def _edge_button(f: Evidence, query: Sequence[tuple[str, str]]) -> str:
    """A flagged session's button: the exact edge of the remaining shoe at each of its rounds."""
    e = html.escape
    hidden = "".join(
        f"<input type='hidden' name='{e(k)}' value='{e(v)}'>" for k, v in query if k != "session"
    )
    return (
        "<form method='get' action='/surveillance/edge' class='edge'>"
        f"<input type='hidden' name='session' value='{e(f.key)}'>{hidden}"
        "<button type='submit'>Exact edge of the remaining shoe, round by round</button></form>"
    )


def edge_plot(job: EdgeJob) -> str:
    """The player's edge over the remaining shoe (line, left axis, %) and the bet (bars, right
    axis, money) at each round of the session, as SVG."""
    edges = job.edges
    left, right, top, bottom = 56, 64, 14, 40
    w, h = PLOT_W + 200 - left - right, PLOT_H - top - bottom
    width = PLOT_W + 200
    n = max(len(edges), 1)
    known = [(i, 100 * x.player_edge) for i, x in enumerate(edges) if x.player_edge is not None]
    pct = [v for _, v in known] or [0.0]
    lo, hi = min(*pct, -2.0), max(*pct, 2.0)
    top_bet = max((x.bet_cents for x in edges), default=1) or 1

    def sx(i: int) -> float:
        return left + (i + 0.5) / n * w

    def sy(v: float) -> float:
        return top + h - (v - lo) / (hi - lo) * h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{PLOT_H}" '
        f'viewBox="0 0 {width} {PLOT_H}" role="img" aria-label="edge and bet per round for '
        f'{html.escape(job.session)}">',
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fff" stroke="#999"/>',
    ]
    bar = max(w / n * 0.6, 1.0)
    for i, x in enumerate(edges):
        bh = x.bet_cents / top_bet * h
        parts.append(
            f'<rect class="bet" x="{sx(i) - bar / 2:.1f}" y="{top + h - bh:.1f}" '
            f'width="{bar:.1f}" height="{bh:.1f}" fill="#a8dadc"/>'
        )
    zero = sy(0.0)
    parts.append(
        f'<line x1="{left}" y1="{zero:.1f}" x2="{left + w}" y2="{zero:.1f}" stroke="#bbb"/>'
    )
    if known:
        line = " ".join(f"{sx(i):.1f},{sy(v):.1f}" for i, v in known)
        parts.append(
            f'<polyline class="edge" points="{line}" fill="none" stroke="#b00020" '
            'stroke-width="2"/>'
        )
    for v in (lo, 0.0, hi):
        parts.append(
            f'<text x="{left - 6}" y="{sy(v) + 4:.1f}" font-size="12" text-anchor="end">'
            f"{v:+.1f} %</text>"
        )
    parts.append(
        f'<text x="{left + w + 6}" y="{top + 12}" font-size="12">'
        f"{html.escape(money(top_bet))}</text>"
    )
    parts.append(
        f'<text x="{left + w / 2:.1f}" y="{PLOT_H - 6}" font-size="12" text-anchor="middle">'
        "round of the session: player's edge over the remaining shoe (line), bet (bars)</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _percent(edge: float | None) -> str:
    return "shoe begun before the rows read" if edge is None else f"{100 * edge:+.3f} %"


def render_edge_page(job: EdgeJob | None, session: str, who: str) -> bytes:
    """The remaining shoe's exact edge at each round of one session: the work under way (the
    page asks again every few seconds, no script), or its plot and table."""
    e = html.escape
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Surveillance: the remaining shoe's edge</title>",
    ]
    if job is not None and not job.finished:
        out.append("<meta http-equiv='refresh' content='3'>")
    out += [
        f"<style>{_CSS}</style></head><body>",
        f"<header><h1>The remaining shoe's edge: session {e(session)}</h1>",
        f"<span>signed in: {e(who)}</span><a href='/surveillance'>back</a></header>",
    ]
    if job is None:
        out.append("<p id='edge-state'>No rated session of that name in the period.</p>")
    elif job.error:
        out.append(f"<p id='edge-state' class='flag'>Not worked out: {e(job.error)}</p>")
    elif not job.finished:
        out.append(
            f"<p id='edge-state'>Working out round {len(job.edges) + 1} of {len(job.rounds)} "
            "(the analysis engine on the cards left before each round; this page looks again "
            "every 3 seconds).</p>"
        )
    else:
        out.append(
            f"<p id='edge-state'>{len(job.edges)} rounds of {e(job.variant)}: the exact edge "
            "of the game dealt from the cards left before each round, by the rules and the shoe "
            "the table journalled, played by the variant's shipped strategy.</p>"
        )
    if job is not None and job.edges:
        rows = "".join(
            f"<tr><td>{x.round_id}</td><td>{x.cards_left}</td><td>{x.true:+.2f}</td>"
            f"<td>{_percent(x.player_edge)}</td><td>{e(money(x.bet_cents))}</td></tr>"
            for x in job.edges
        )
        out.append(
            f"<div class='cols'>{edge_plot(job)}<table id='edges'><tr><th>round</th>"
            "<th>cards left</th><th>true count</th><th>player's edge</th><th>bet</th></tr>"
            f"{rows}</table></div>"
        )
    out.append("</body></html>")
    return "".join(out).encode("utf-8")


def render_surveillance_page(
    found: Sequence[Evidence],
    start: datetime,
    end: datetime,
    who: str,
    shoes: Sequence[ShoeProof] = (),
    query: Sequence[tuple[str, str]] = (),
) -> bytes:
    """The page: the flag's definition, then every session with its evidence and plot."""
    e = html.escape
    flagged = sum(1 for f in found if f.flagged)
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Surveillance: advantage play</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>Surveillance: advantage play</h1>",
        f"<span>{e(start.strftime('%Y-%m-%d %H:%M'))} to {e(end.strftime('%H:%M'))}</span>",
        f"<span>signed in: {e(who)}</span>",
        "<form method='post' action='/logout'><button>Sign out</button></form></header>",
        f"<p id='definition'>Flag: {e(FLAG_STATISTIC)} at or above {FLAG_Z} (one-sided "
        f"p = 0.001) over at least {MIN_ROUNDS} rounds. Counts from the shoe's actual cards, "
        "never shown at the table.</p>",
        f"<p id='summary'>{len(found)} rated sessions, {flagged} flagged.</p>",
    ]
    for f in found:
        cls = "flagged" if f.flagged else "clear"
        mark = "<span class='flag'>FLAGGED</span> " if f.flagged else ""
        rows = [
            ("statistic", f.why),
            ("bet-count correlation", f"rho = {f.rho:.2f}"),
            ("bet spread", f"{money(f.min_bet_cents)} to {money(f.max_bet_cents)} "),
            ("mean bet", mean_bet_words(f)),
            (
                "index plays",
                f"{f.index_right} past the index, {f.index_wrong} short of it"
                + (f" ({', '.join(f.index_names)})" if f.index_names else ""),
            ),
            (
                "sat down",
                "at the shoe's start"
                if not f.joined_mid_shoe
                else f"mid-shoe at true count {f.joined_true:+.1f}"
                if f.joined_true is not None
                else "mid-shoe",
            ),
            ("walked away", "still seated" if f.left_true is None else f"at {f.left_true:+.1f}"),
        ]
        table = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
        out.append(
            f"<section class='{cls}' data-session='{e(f.key)}'><h2>{mark}{e(f.player)} at "
            f"{e(f.table_id)} box {f.box}: session {e(f.key)}, {f.rounds} rounds</h2>"
            f"<div class='cols'><table>{table}</table>{plot(f)}</div>"
            f"{_edge_button(f, query) if f.flagged else ''}</section>"
        )
    out.append(_shoes_section(shoes))
    out.append("</body></html>")
    return "".join(out).encode("utf-8")
