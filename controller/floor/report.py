"""Shift and date-range reports, per table and for the floor, from the rows in PostgreSQL.

Definitions (the same as summing a table's own journal; ``docs/floor.md``):

- a round belongs to the period its ``round_end`` row falls in; its ledger rows count with it
  (a round still open at the end of the period counts in the next);
- **handle**: the stakes those ledger rows settle (``stake_cents``), but for stakes handed back
  without a result (``return``: a void, a double on a dealer natural);
- **house win**: what the players lost, the table's (the house's) result: minus the sum of the
  ledger's ``amount_cents`` (negative when the players won);
- **hold %**: house win / handle x 100, exact (a fraction), shown to two places;
- **rounds per hour**: rounds / hours from the first counted round's start to the last one's
  end;
- **settlements by kind** (each ledger entry is one): ``natural`` (paid for a natural),
  ``bonus`` (paid at other than even money for anything but a natural, and the NZ super and
  table bonuses), ``even_money`` (paid at 1:1), ``insurance`` (paid and collected),
  ``surrender``, ``rescue``, ``collect``, ``push``, ``return``: count and net to the players;
- **voids and overrides**: every ``supervisor`` row in the period, with who made it.

"Win" alone is never a figure here: the house's result is always "house win"
(``house_win_cents``), and a player's hand paid at even money is "even money".

Money is integer cents throughout; ratios are :class:`~fractions.Fraction`.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

import psycopg

from controller.floor.ratings import Rating, ratings_text
from controller.game.prompts import money
from controller.journal.store import parse_ts

CATEGORIES = (
    "natural",
    "bonus",
    "even_money",
    "insurance",
    "surrender",
    "rescue",
    "collect",
    "push",
    "return",
)

# the settlement kinds in words (the CSV and JSON keep the names above)
KIND_WORDS = {"even_money": "even money"}

# The CSV's columns, one meaning each (docs/floor.md lists them with what each holds).
CSV_COLUMNS = (
    "table_id",
    "rounds",
    "handle_cents",
    "house_win_cents",
    "hold_percent",
    "rounds_per_hour",
    "voids",
    "overrides",
    *(f"{name}_{what}" for name in CATEGORIES for what in ("count", "cents")),
)

_ENDS = """
SELECT table_id, round_id, ts FROM croupier.journal_rows
WHERE kind = 'round_end' AND at >= %(start)s AND at < %(end)s AND round_id IS NOT NULL
"""
_STARTS = """
SELECT table_id, round_id, min(ts) FROM croupier.journal_rows
WHERE kind = 'round_start' AND at >= %(start)s::timestamptz - interval '2 days' AND at < %(end)s
  AND round_id IS NOT NULL
GROUP BY table_id, round_id
"""
_LEDGER = """
SELECT table_id, round_id, payload::jsonb ->> 'kind', payload::jsonb ->> 'odds',
       coalesce(payload::jsonb ->> 'reason', '') LIKE 'natural%%',
       count(*), sum((payload::jsonb ->> 'amount_cents')::bigint),
       sum((payload::jsonb ->> 'stake_cents')::bigint)
FROM croupier.journal_rows
WHERE kind = 'ledger' AND at >= %(start)s::timestamptz - interval '2 days' AND at < %(end)s
-- (a round's ledger rows are never older than its end by two days)
GROUP BY 1, 2, 3, 4, 5
"""
_OVERRIDES = """
SELECT table_id, round_id, ts, payload::jsonb ->> 'action', payload::jsonb ->> 'by',
       payload::jsonb ->> 'detail'
FROM croupier.journal_rows
WHERE kind = 'supervisor' AND at >= %(start)s AND at < %(end)s
ORDER BY at, table_id, seq
"""


def category(kind: str, odds: str | None, natural: bool) -> str:
    """The report's settlement kind of one ledger entry."""
    if kind in ("insurance_payout", "insurance_collect"):
        return "insurance"
    if kind in ("super_bonus", "table_bonus"):
        return "bonus"
    if kind == "payout":
        if natural:
            return "natural"
        return "even_money" if odds in (None, "1:1") else "bonus"
    return kind if kind in CATEGORIES else "other"


def percent(part: int, whole: int) -> str:
    """``part / whole`` as a percentage with two places, rounded half away from zero."""
    if whole == 0:
        return "-"
    value = Fraction(part * 100, whole)
    sign = "-" if value < 0 else ""
    hundredths = (abs(value) * 100 + Fraction(1, 2)).__floor__()
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}"


@dataclass
class Settled:
    """The ledger entries of one kind: how many, and their net to the players."""

    count: int = 0
    amount_cents: int = 0


@dataclass
class Override:
    table_id: str
    round_id: int | None
    ts: str
    action: str
    by: str
    detail: str

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "round": self.round_id,
            "ts": self.ts,
            "action": self.action,
            "by": self.by,
            "detail": self.detail,
        }


@dataclass
class Figures:
    """One table's figures (or the floor's, summed) for the period."""

    table_id: str
    rounds: int = 0
    handle_cents: int = 0
    house_win_cents: int = 0
    first_start: str | None = None
    last_end: str | None = None
    settled: dict[str, Settled] = field(default_factory=dict)
    voids: int = 0
    overrides: int = 0

    @property
    def hold_percent(self) -> str:
        return percent(self.house_win_cents, self.handle_cents)

    @property
    def hours(self) -> Fraction:
        if self.first_start is None or self.last_end is None:
            return Fraction(0)
        span = parse_ts(self.last_end) - parse_ts(self.first_start)
        return Fraction(int(span.total_seconds() * 1000), 3_600_000)

    @property
    def rounds_per_hour(self) -> str:
        hours = self.hours
        if hours <= 0:
            return "-"
        tenths = (Fraction(self.rounds) / hours * 10 + Fraction(1, 2)).__floor__()
        return f"{tenths // 10}.{tenths % 10}"

    def add(self, other: Figures) -> None:
        self.rounds += other.rounds
        self.handle_cents += other.handle_cents
        self.house_win_cents += other.house_win_cents
        for name, p in other.settled.items():
            mine = self.settled.setdefault(name, Settled())
            mine.count += p.count
            mine.amount_cents += p.amount_cents
        self.voids += other.voids
        self.overrides += other.overrides
        for attr, pick in (("first_start", min), ("last_end", max)):
            values = [v for v in (getattr(self, attr), getattr(other, attr)) if v is not None]
            setattr(self, attr, pick(values) if values else None)

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "rounds": self.rounds,
            "handle_cents": self.handle_cents,
            "house_win_cents": self.house_win_cents,
            "hold_percent": self.hold_percent,
            "rounds_per_hour": self.rounds_per_hour,
            "first_round_start": self.first_start,
            "last_round_end": self.last_end,
            "settled": {
                name: {"count": p.count, "amount_cents": p.amount_cents}
                for name, p in sorted(self.settled.items(), key=lambda i: _order(i[0]))
            },
            "voids": self.voids,
            "overrides": self.overrides,
        }


def _order(name: str) -> int:
    return CATEGORIES.index(name) if name in CATEGORIES else len(CATEGORIES)


@dataclass
class FloorReport:
    start: datetime
    end: datetime
    tables: list[Figures]
    floor: Figures
    overrides: list[Override]
    house_wins: list[tuple[str, str, int]]  # (round end ts, table, the house win of that round)
    # the rated sessions that sat down in the period (filled in above the floor, where the
    # analysis values their decisions: :func:`controller.analysis.theo.rate`)
    ratings: list[Rating] = field(default_factory=list)

    def period(self) -> str:
        """The period in words, in its own time zone: "Thu 3 Dec 2026 22:00 to Fri 4 Dec 2026
        06:00 UTC" (one day written once: "Thu 3 Dec 2026 14:00 to 22:00 UTC")."""
        return period_words(self.start, self.end)

    def local_time(self, ts: str) -> str:
        """A row's time (UTC in the journal) in the period's zone, with its day when the
        period spans more than one."""
        at = parse_ts(ts).astimezone(self.start.tzinfo)
        if self.end - self.start > timedelta(days=1):
            return f"{at:%a} {at.day} {at:%b %H:%M:%S}"
        return f"{at:%H:%M:%S}"

    def as_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "floor": self.floor.as_json(),
            "tables": [t.as_json() for t in self.tables],
            "overrides": [o.as_json() for o in self.overrides],
            "ratings": [r.as_json() for r in self.ratings],
        }

    def csv(self) -> str:
        """One line per table and one for the floor (:data:`CSV_COLUMNS`, ``docs/floor.md``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for figures in [*self.tables, self.floor]:
            line: list[object] = [
                figures.table_id,
                figures.rounds,
                figures.handle_cents,
                figures.house_win_cents,
                figures.hold_percent,
                figures.rounds_per_hour,
                figures.voids,
                figures.overrides,
            ]
            for name in CATEGORIES:
                p = figures.settled.get(name, Settled())
                line += [p.count, p.amount_cents]
            writer.writerow(line)
        return out.getvalue()

    def text(self) -> str:
        lines = [f"floor report {self.period()}"]
        lines.append(
            f"{'table':<14}{'rounds':>8}{'handle':>14}{'house win':>12}{'hold %':>9}"
            f"{'rounds/h':>10}"
        )
        for f in [*self.tables, self.floor]:
            lines.append(
                f"{f.table_id:<14}{f.rounds:>8}{money(f.handle_cents):>14}"
                f"{money(f.house_win_cents):>12}{f.hold_percent:>9}{f.rounds_per_hour:>10}"
            )
        lines.append(
            "settled by kind (floor: count, net to the players): "
            + ", ".join(
                f"{KIND_WORDS.get(name, name)} {p.count} ({money(p.amount_cents)})"
                for name, p in sorted(self.floor.settled.items(), key=lambda i: _order(i[0]))
            )
        )
        lines += ratings_text(self.ratings, self.local_time)
        for o in self.overrides:
            lines.append(
                f"override {self.local_time(o.ts)} table {o.table_id} round {o.round_id}: "
                f"{o.action} by {o.by}" + (f" ({o.detail})" if o.detail else "")
            )
        return "\n".join(lines)


def _day(at: datetime) -> str:
    return f"{at:%a} {at.day} {at:%b %Y}"


def period_words(start: datetime, end: datetime) -> str:
    """``start`` to ``end`` for a reader: days and times, the zone once (twice if it changed)."""
    zones = (start.tzname() or "", end.tzname() or "")
    first = f"{_day(start)} {start:%H:%M}" + (f" {zones[0]}" if zones[0] != zones[1] else "")
    last = f"{end:%H:%M}" if end.date() == start.date() else f"{_day(end)} {end:%H:%M}"
    return f"{first} to {last} {zones[1]}".rstrip()


def report_queries(start: datetime, end: datetime) -> list[tuple[str, dict[str, datetime]]]:
    """The four queries of a report for ``[start, end)``; :func:`assemble` takes their rows."""
    if end <= start:
        raise ValueError(
            f"the period ends ({end.isoformat()}) before it starts ({start.isoformat()})"
        )
    args = {"start": start, "end": end}
    return [(q, args) for q in (_ENDS, _STARTS, _LEDGER, _OVERRIDES)]


def build_report(db: psycopg.Connection[Any], start: datetime, end: datetime) -> FloorReport:
    """The report for ``[start, end)`` from the floor's rows (any role that may read them)."""
    found = [db.execute(q, a).fetchall() for q, a in report_queries(start, end)]
    return assemble(start, end, found)


def assemble(start: datetime, end: datetime, found: list[list[Any]]) -> FloorReport:
    """The report from the rows of :func:`report_queries`, in their order."""
    ends_rows, starts_rows, ledger_rows, override_rows = found
    ends = {(str(t), int(r)): str(ts) for t, r, ts in ends_rows}
    starts = {(str(t), int(r)): str(ts) for t, r, ts in starts_rows}
    tables: dict[str, Figures] = {}
    round_house_win: dict[tuple[str, int], int] = defaultdict(int)
    for key, end_ts in ends.items():
        figures = tables.setdefault(key[0], Figures(key[0]))
        figures.rounds += 1
        begun = starts.get(key, end_ts)
        figures.first_start = min(filter(None, (figures.first_start, begun)))
        figures.last_end = max(filter(None, (figures.last_end, end_ts)))
        round_house_win[key] += 0
    for table_id, round_id, kind, odds, natural, count, amount, stake in ledger_rows:
        key = (str(table_id), int(round_id))
        if key not in ends:
            continue
        figures = tables[key[0]]
        name = category(str(kind), odds, bool(natural))
        settled = figures.settled.setdefault(name, Settled())
        settled.count += int(count)
        settled.amount_cents += int(amount)
        figures.house_win_cents -= int(amount)
        round_house_win[key] -= int(amount)
        if kind != "return":
            figures.handle_cents += int(stake)
    overrides = [
        Override(str(t), None if r is None else int(r), str(ts), str(a), str(b or ""), str(d or ""))
        for t, r, ts, a, b, d in override_rows
    ]
    for o in overrides:
        figures = tables.setdefault(o.table_id, Figures(o.table_id))
        figures.overrides += 1
        figures.voids += o.action == "void"
    floor = Figures("floor")
    ordered = [tables[t] for t in sorted(tables)]
    for figures in ordered:
        floor.add(figures)
    house_wins = sorted((ends[key], key[0], win) for key, win in round_house_win.items())
    return FloorReport(start, end, ordered, floor, overrides, house_wins)
