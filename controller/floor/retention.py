"""The floor's retention: rows are kept ``[retention] years`` (10 by default), then their
months are dropped whole.

The rows are partitioned by month (``croupier.journal_rows_yYYYYmMM``, migration 0002); no role
may delete or change a row, so retention drops a month's partition once the whole month is older
than the retention, as the database's owner (``croupier floor prune``). Rows in the default
partition (a month made late) are kept. A table's chain still verifies after: ``floor audit``
takes a table's first remaining row as it is, and an export names the row before its period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg import sql

_MONTH = re.compile(r"^journal_rows_y(\d{4})m(\d{2})$")


@dataclass(frozen=True, slots=True)
class OldMonth:
    name: str
    start: datetime
    rows: int


def cutoff(years: int, now: datetime | None = None) -> datetime:
    """The time before which rows are past the retention (the same day ``years`` ago)."""
    at = (now or datetime.now(UTC)).astimezone(UTC)
    try:
        return at.replace(year=at.year - years)
    except ValueError:  # 29 February
        return at.replace(year=at.year - years, day=28)


def old_months(db: psycopg.Connection[Any], before: datetime) -> list[OldMonth]:
    """The months whose every row is older than ``before``, oldest first, with their rows."""
    found = db.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = 'croupier.journal_rows'::regclass"
    ).fetchall()
    out = []
    for (name,) in found:
        match = _MONTH.match(str(name))
        if match is None:
            continue
        year, month = int(match[1]), int(match[2])
        start = datetime(year, month, 1, tzinfo=UTC)
        end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
        if end <= before:
            query = sql.SQL("SELECT count(*) FROM croupier.{}").format(sql.Identifier(name))
            (rows,) = db.execute(query).fetchone() or (0,)
            out.append(OldMonth(str(name), start, int(rows)))
    db.commit()
    return sorted(out, key=lambda m: m.start)


def drop_months(db: psycopg.Connection[Any], months: list[OldMonth]) -> int:
    """Drop these months (as the owner); the rows they held."""
    with db.transaction():
        for month in months:
            db.execute(sql.SQL("DROP TABLE croupier.{}").format(sql.Identifier(month.name)))
    return sum(m.rows for m in months)
