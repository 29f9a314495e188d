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
- **voids and overrides**: every ``supervisor`` row in the period, with who made it;
- **shoe receipts**: every ``shoe_receipt`` row in the period (a shoe belongs to the period
  it ended in), per table: shoes, cards dealt, shortfall and surplus, and each receipt with a
  shortfall or surplus;
- **gaming days**: each table's gaming day closed in the period (``croupier.gaming_days``,
  migration 0008): the table's win (closing - opening + credits - fills + drop, as the table
  worked it out at its closing; open while no drop is keyed) beside the house win of the rounds'
  ledger between its opening and its closing, and their difference (table's win - ledger).

"Win" alone is never a figure here: the house's result is always "house win"
(``house_win_cents``), and a player's hand paid at even money is "even money".

Money is integer cents throughout; ratios are :class:`~fractions.Fraction`.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

import psycopg

from controller.floor.chain import row_from_values
from controller.floor.dealers import DEALER_ROWS, STEPS, DealerFigures, DealerTally
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
_RECEIPTS = """
SELECT table_id, ts, payload FROM croupier.journal_rows
WHERE kind = 'shoe_receipt' AND at >= %(start)s AND at < %(end)s
ORDER BY table_id, seq
"""
_DAYS = """
SELECT table_id, day, opened_ts, closed_ts, closed_by, opening_cents, fills_cents,
       credits_cents, drop_cents, closing_cents, win_cents, ledger_house_win_cents
FROM croupier.gaming_days
WHERE closed_at >= %(start)s AND closed_at < %(end)s
ORDER BY closed_at, table_id
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
class Receipt:
    """One shoe's receipt as the report shows it (the ``shoe_receipt`` row's figures)."""

    table_id: str
    ts: str
    round_id: int
    reason: str
    cut_card: bool
    dealt: int
    cards_left: int
    shoe_left: int | None
    shortfall: int
    surplus: int
    kept_out: list[str]
    left: dict[str, int]

    @classmethod
    def from_row(cls, table_id: str, ts: str, p: dict[str, Any]) -> Receipt:
        def number(key: str) -> int:
            value = p.get(key)
            return value if isinstance(value, int) else 0

        left = p.get("left")
        shoe_left = p.get("shoe_left")
        return cls(
            table_id,
            ts,
            number("round"),
            str(p.get("reason", "")),
            bool(p.get("cut_card")),
            number("dealt"),
            number("cards_left"),
            shoe_left if isinstance(shoe_left, int) else None,
            number("shortfall"),
            number("surplus"),
            [str(c) for c in p.get("kept_out", []) or []],
            {str(k): int(v) for k, v in left.items()} if isinstance(left, dict) else {},
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "ts": self.ts,
            "round": self.round_id,
            "reason": self.reason,
            "cut_card": self.cut_card,
            "dealt": self.dealt,
            "cards_left": self.cards_left,
            "shoe_left": self.shoe_left,
            "shortfall": self.shortfall,
            "surplus": self.surplus,
            "kept_out": self.kept_out,
            "left": self.left,
        }


@dataclass
class GamingDayFigures:
    """One table's gaming day closed in the period: the chips, the table's win and the house
    win of the rounds' ledger in the day (cents; ``drop_cents`` and ``win_cents`` None while
    the drop is left open)."""

    table_id: str
    day: int
    opened_ts: str
    closed_ts: str
    closed_by: str
    opening_cents: int
    fills_cents: int
    credits_cents: int
    drop_cents: int | None
    closing_cents: int
    win_cents: int | None
    ledger_cents: int

    @property
    def difference_cents(self) -> int | None:
        """The table's win less the ledger's house win (None: the drop is open)."""
        return None if self.win_cents is None else self.win_cents - self.ledger_cents

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "day": self.day,
            "opened": self.opened_ts,
            "closed": self.closed_ts,
            "closed_by": self.closed_by,
            "opening_cents": self.opening_cents,
            "fills_cents": self.fills_cents,
            "credits_cents": self.credits_cents,
            "drop_cents": self.drop_cents,
            "closing_cents": self.closing_cents,
            "table_win_cents": self.win_cents,
            "ledger_house_win_cents": self.ledger_cents,
            "difference_cents": self.difference_cents,
        }

    def words(self) -> str:
        """The day on one line of the report."""
        if self.win_cents is None:
            win, diff = "open (no drop keyed)", "-"
        else:
            win = money(self.win_cents)
            diff = money(self.win_cents - self.ledger_cents)
        return (
            f"gaming day {self.day} of table {self.table_id} (closed by {self.closed_by}): "
            f"table's win {win}, ledger house win {money(self.ledger_cents)}, difference {diff} "
            f"(opening {money(self.opening_cents)}, closing {money(self.closing_cents)}, "
            f"credits {money(self.credits_cents)}, fills {money(self.fills_cents)}, drop "
            + ("open" if self.drop_cents is None else money(self.drop_cents))
            + ")"
        )


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
    shoes: int = 0  # shoe receipts
    shoe_cards_dealt: int = 0
    shoe_shortfall: int = 0
    shoe_surplus: int = 0

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
        self.shoes += other.shoes
        self.shoe_cards_dealt += other.shoe_cards_dealt
        self.shoe_shortfall += other.shoe_shortfall
        self.shoe_surplus += other.shoe_surplus
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
            "shoes": self.shoes,
            "shoe_cards_dealt": self.shoe_cards_dealt,
            "shoe_shortfall": self.shoe_shortfall,
            "shoe_surplus": self.shoe_surplus,
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
    receipts: list[Receipt] = field(default_factory=list)  # the shoes that ended, by table
    dealers: list[DealerFigures] = field(default_factory=list)  # controller.floor.dealers
    days: list[GamingDayFigures] = field(default_factory=list)  # gaming days closed in it
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
            "receipts": [r.as_json() for r in self.receipts],
            "dealers": [d.as_json() for d in self.dealers],
            "gaming_days": [d.as_json() for d in self.days],
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
        lines += dealer_lines(self.dealers)
        for f in self.tables if self.receipts else []:
            if f.shoes:
                lines.append(
                    f"shoes table {f.table_id}: {f.shoes} ended, {f.shoe_cards_dealt} cards "
                    f"dealt, shortfall {f.shoe_shortfall}, surplus {f.shoe_surplus}"
                )
        for r in self.receipts:
            if r.shortfall or r.surplus:
                kept = f", over the count: {' '.join(r.kept_out)}" if r.kept_out else ""
                lines.append(
                    f"shoe {self.local_time(r.ts)} table {r.table_id} round {r.round_id} "
                    f"({r.reason}): shortfall {r.shortfall}, surplus {r.surplus} (the decks "
                    f"must hold {r.cards_left}, the shoe had {r.shoe_left}){kept}"
                )
        lines += ratings_text(self.ratings, self.local_time)
        for o in self.overrides:
            lines.append(
                f"override {self.local_time(o.ts)} table {o.table_id} round {o.round_id}: "
                f"{o.action} by {o.by}" + (f" ({o.detail})" if o.detail else "")
            )
        lines.extend(d.words() for d in self.days)
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
    """The queries of a report for ``[start, end)``; :func:`assemble` takes their rows."""
    if end <= start:
        raise ValueError(
            f"the period ends ({end.isoformat()}) before it starts ({start.isoformat()})"
        )
    args = {"start": start, "end": end}
    return [(q, args) for q in (_ENDS, _STARTS, _LEDGER, _OVERRIDES, _RECEIPTS, DEALER_ROWS, _DAYS)]


def build_report(db: psycopg.Connection[Any], start: datetime, end: datetime) -> FloorReport:
    """The report for ``[start, end)`` from the floor's rows (any role that may read them)."""
    found = [db.execute(q, a).fetchall() for q, a in report_queries(start, end)]
    return assemble(start, end, found)


def assemble(start: datetime, end: datetime, found: list[list[Any]]) -> FloorReport:
    """The report from the rows of :func:`report_queries`, in their order (the receipts', the
    dealers' and the gaming days' may be left out: none)."""
    ends_rows, starts_rows, ledger_rows, override_rows, *more = found
    receipt_rows = more[0] if more else []
    tally = DealerTally(start, end)
    for values in more[1] if len(more) > 1 else []:
        tally.feed(row_from_values(values))
    days = [
        GamingDayFigures(
            str(t),
            int(d),
            str(o),
            str(c),
            str(by or ""),
            int(op),
            int(fi),
            int(cr),
            None if dr is None else int(dr),
            int(cl),
            None if w is None else int(w),
            int(led),
        )
        for t, d, o, c, by, op, fi, cr, dr, cl, w, led in (more[2] if len(more) > 2 else [])
    ]
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
    receipts = [
        Receipt.from_row(str(t), str(ts), p if isinstance(p, dict) else json.loads(p))
        for t, ts, p in receipt_rows
    ]
    for r in receipts:
        figures = tables.setdefault(r.table_id, Figures(r.table_id))
        figures.shoes += 1
        figures.shoe_cards_dealt += r.dealt
        figures.shoe_shortfall += r.shortfall
        figures.shoe_surplus += r.surplus
    floor = Figures("floor")
    ordered = [tables[t] for t in sorted(tables)]
    for figures in ordered:
        floor.add(figures)
    house_wins = sorted((ends[key], key[0], win) for key, win in round_house_win.items())
    return FloorReport(
        start, end, ordered, floor, overrides, house_wins, receipts, tally.figures(), days
    )


STEP_HEADS = {"settlement": "settle"}  # a column head's word where the step's is too wide


def dealer_lines(dealers: list[DealerFigures]) -> list[str]:
    """The dealers' figures as the text report shows them (``docs/floor.md``)."""
    if not dealers:
        return []
    steps = "".join(f"{STEP_HEADS.get(s, s):>9}" for s in STEPS)
    lines = [
        f"{'dealer':<22}{'rounds':>7}{'rounds/h':>9}{steps}{'voids':>6}{'overr.':>7}"
        f"{'keyed':>6}{'holds':>6}{'house win':>12}",
    ]
    for d in dealers:
        who = f"{d.name} ({d.dealer})" if d.name else d.dealer
        per = "".join(f"{d.seconds_per_round(s):>9}" for s in STEPS)
        lines.append(
            f"{who[:21]:<22}{d.rounds:>7}{d.rounds_per_hour:>9}{per}{d.voids:>6}"
            f"{d.overrides:>7}{d.misreads_keyed:>6}{d.holds:>6}{money(d.house_win_cents):>12}"
        )
    lines.append("(the steps: seconds per round)")
    return lines
