"""Shift and date-range reports, per table and for the floor, from the rows in PostgreSQL.

Definitions (the same as summing a table's own journal; ``docs/floor.md``):

- a round belongs to the period its ``round_end`` row falls in; its ledger rows count with it
  (a round still open at the end of the period counts in the next);
- **handle**: the stakes those ledger rows settle (``stake_cents``), but for stakes handed back
  without a result (``return``: a void, a double on a dealer natural);
- **win**: the table's win, what the players lost: minus the sum of the ledger's
  ``amount_cents``;
- **hold %**: win / handle x 100, exact (a fraction), shown to two places;
- **rounds per hour**: rounds / hours from the first counted round's start to the last one's
  end;
- **payouts by kind**: ``natural`` (paid for a natural), ``bonus`` (a payout at other than
  even money that is not a natural, and the NZ super and table bonuses), ``win`` (even money),
  ``insurance`` (paid and collected), ``surrender``, ``rescue``, ``collect``, ``push``,
  ``return``: count and amount (to the players);
- **voids and overrides**: every ``supervisor`` row in the period, with who made it.

Money is integer cents throughout; ratios are :class:`~fractions.Fraction`.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

import psycopg

from controller.game.prompts import money
from controller.journal.store import parse_ts

CATEGORIES = (
    "natural",
    "bonus",
    "win",
    "insurance",
    "surrender",
    "rescue",
    "collect",
    "push",
    "return",
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
    """The report's payout kind of one ledger entry."""
    if kind in ("insurance_payout", "insurance_collect"):
        return "insurance"
    if kind in ("super_bonus", "table_bonus"):
        return "bonus"
    if kind == "payout":
        if natural:
            return "natural"
        return "win" if odds in (None, "1:1") else "bonus"
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
class Payouts:
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
    win_cents: int = 0
    first_start: str | None = None
    last_end: str | None = None
    payouts: dict[str, Payouts] = field(default_factory=dict)
    voids: int = 0
    overrides: int = 0

    @property
    def hold_percent(self) -> str:
        return percent(self.win_cents, self.handle_cents)

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
        self.win_cents += other.win_cents
        for name, p in other.payouts.items():
            mine = self.payouts.setdefault(name, Payouts())
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
            "win_cents": self.win_cents,
            "hold_percent": self.hold_percent,
            "rounds_per_hour": self.rounds_per_hour,
            "first_round_start": self.first_start,
            "last_round_end": self.last_end,
            "payouts": {
                name: {"count": p.count, "amount_cents": p.amount_cents}
                for name, p in sorted(self.payouts.items(), key=lambda i: _order(i[0]))
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
    wins: list[tuple[str, str, int]]  # (round end ts, table, the table's win in that round)

    def as_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "floor": self.floor.as_json(),
            "tables": [t.as_json() for t in self.tables],
            "overrides": [o.as_json() for o in self.overrides],
        }

    def csv(self) -> str:
        """One line per table and one for the floor; payouts as count and amount columns."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        head = ["table_id", "rounds", "handle_cents", "win_cents", "hold_percent"]
        head += ["rounds_per_hour", "voids", "overrides"]
        for name in CATEGORIES:
            head += [f"{name}_count", f"{name}_cents"]
        writer.writerow(head)
        for figures in [*self.tables, self.floor]:
            line: list[object] = [
                figures.table_id,
                figures.rounds,
                figures.handle_cents,
                figures.win_cents,
                figures.hold_percent,
                figures.rounds_per_hour,
                figures.voids,
                figures.overrides,
            ]
            for name in CATEGORIES:
                p = figures.payouts.get(name, Payouts())
                line += [p.count, p.amount_cents]
            writer.writerow(line)
        return out.getvalue()

    def text(self) -> str:
        lines = [f"floor report {self.start.isoformat()} to {self.end.isoformat()}"]
        lines.append(
            f"{'table':<14}{'rounds':>8}{'handle':>14}{'win':>12}{'hold %':>9}{'rounds/h':>10}"
        )
        for f in [*self.tables, self.floor]:
            lines.append(
                f"{f.table_id:<14}{f.rounds:>8}{money(f.handle_cents):>14}"
                f"{money(f.win_cents):>12}{f.hold_percent:>9}{f.rounds_per_hour:>10}"
            )
        lines.append(
            "payouts (floor): "
            + ", ".join(
                f"{name} {p.count} ({money(p.amount_cents)})"
                for name, p in sorted(self.floor.payouts.items(), key=lambda i: _order(i[0]))
            )
        )
        for o in self.overrides:
            lines.append(
                f"override {o.ts} table {o.table_id} round {o.round_id}: {o.action} by {o.by}"
                + (f" ({o.detail})" if o.detail else "")
            )
        return "\n".join(lines)


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
    round_win: dict[tuple[str, int], int] = defaultdict(int)
    for key, end_ts in ends.items():
        figures = tables.setdefault(key[0], Figures(key[0]))
        figures.rounds += 1
        begun = starts.get(key, end_ts)
        figures.first_start = min(filter(None, (figures.first_start, begun)))
        figures.last_end = max(filter(None, (figures.last_end, end_ts)))
        round_win[key] += 0
    for table_id, round_id, kind, odds, natural, count, amount, stake in ledger_rows:
        key = (str(table_id), int(round_id))
        if key not in ends:
            continue
        figures = tables[key[0]]
        name = category(str(kind), odds, bool(natural))
        payouts = figures.payouts.setdefault(name, Payouts())
        payouts.count += int(count)
        payouts.amount_cents += int(amount)
        figures.win_cents -= int(amount)
        round_win[key] -= int(amount)
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
    wins = sorted((ends[key], key[0], win) for key, win in round_win.items())
    return FloorReport(start, end, ordered, floor, overrides, wins)
