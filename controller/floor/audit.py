"""``croupier floor audit``: every table's chain in PostgreSQL, checked from its first row, and a
table's local journal compared with what the floor holds, row by row."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from controller.floor.chain import ROW_COLUMNS, ChainBreak, ChainCheck, row_from_values
from controller.journal.store import Journal, Row

SHOWN = 10  # rows named per finding


@dataclass
class TableAudit:
    table_id: str
    rows: int = 0
    first_seq: int | None = None
    last_seq: int | None = None
    breaks: list[ChainBreak] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks

    def describe(self) -> str:
        if self.rows == 0:
            return f"table {self.table_id}: no rows on the floor"
        span = f"rows {self.first_seq:,}..{self.last_seq:,}"
        start = "" if self.first_seq == 1 else " (the floor's record starts after row 1)"
        if self.ok:
            return f"table {self.table_id}: chain intact, {self.rows:,} {span}{start}"
        breaks = f"{len(self.breaks)} break" + ("" if len(self.breaks) == 1 else "s")
        return f"table {self.table_id}: {breaks} in {span}: " + "; ".join(
            b.describe() for b in self.breaks[:SHOWN]
        )


@dataclass
class LocalCompare:
    path: Path
    table_id: str
    local_rows: int = 0
    same: int = 0
    differ: list[int] = field(default_factory=list)
    not_shipped: int = 0  # local rows after the floor's last row (the backlog)
    first_not_shipped: int | None = None
    missing: list[int] = field(default_factory=list)  # local rows the floor lacks, inside
    only_on_floor: list[int] = field(default_factory=list)
    pruned_locally: int = 0  # floor rows older than the journal's first (pruned here since)

    @property
    def ok(self) -> bool:
        return not (self.differ or self.missing or self.only_on_floor)

    def describe(self) -> str:
        head = (
            f"journal {self.path} (table {self.table_id}): {self.local_rows:,} rows, "
            f"{self.same:,} the same on the floor"
        )
        parts = []
        if self.pruned_locally:
            parts.append(f"{self.pruned_locally:,} older rows on the floor only (pruned here)")
        if self.not_shipped:
            parts.append(
                f"{self.not_shipped:,} not shipped yet (from row {self.first_not_shipped:,})"
            )
        for label, seqs in (
            ("DIFFERENT on the floor", self.differ),
            ("MISSING from the floor", self.missing),
            ("ON THE FLOOR ONLY", self.only_on_floor),
        ):
            if seqs:
                shown = ", ".join(f"{s:,}" for s in seqs[:SHOWN])
                more = f" and {len(seqs) - SHOWN:,} more" if len(seqs) > SHOWN else ""
                parts.append(f"{label}: rows {shown}{more}")
        return head + ("; " + "; ".join(parts) if parts else "")


def floor_tables(db: psycopg.Connection[Any]) -> list[str]:
    return [str(r[0]) for r in db.execute("SELECT table_id FROM croupier.tables ORDER BY 1")]


def floor_rows(db: psycopg.Connection[Any], table_id: str) -> Iterator[Row]:
    """One table's rows on the floor in seq order (a server-side cursor: any size)."""
    with db.transaction(), db.cursor(name="croupier_audit") as cur:
        cur.itersize = 2000
        cur.execute(
            f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608 - fixed names
            "WHERE table_id = %s ORDER BY seq",
            (table_id,),
        )
        for values in cur:
            yield row_from_values(values)


def audit_table(db: psycopg.Connection[Any], table_id: str) -> TableAudit:
    result = TableAudit(table_id)
    check = ChainCheck(table_id)
    for row in floor_rows(db, table_id):
        if result.first_seq is None:
            result.first_seq = row.seq
        result.last_seq = row.seq
        result.rows += 1
        broken = check.feed(row)
        if broken is not None:
            result.breaks.append(broken)
    return result


def _same(a: Row, b: Row) -> bool:
    return (a.seq, a.ts, a.table_id, a.round_id, a.kind, a.payload_json, a.prev_hash, a.hash) == (
        b.seq,
        b.ts,
        b.table_id,
        b.round_id,
        b.kind,
        b.payload_json,
        b.prev_hash,
        b.hash,
    )


def compare_local(db: psycopg.Connection[Any], journal_path: Path) -> LocalCompare:
    """Walk the local journal and the floor's rows of its table side by side."""
    with Journal.open(journal_path, readonly=True) as journal:
        table_id = journal.table_id
        found = db.execute(
            "SELECT seq FROM croupier.tables WHERE table_id = %s", (table_id,)
        ).fetchone()
        floor_last = 0 if found is None else int(found[0])
        result = LocalCompare(journal_path, table_id)
        remote = floor_rows(db, table_id)
        pending: Row | None = next(remote, None)
        for mine in journal.iter_rows():
            result.local_rows += 1
            while pending is not None and pending.seq < mine.seq:
                result.only_on_floor.append(pending.seq)
                pending = next(remote, None)
            if pending is not None and pending.seq == mine.seq:
                if _same(mine, pending):
                    result.same += 1
                else:
                    result.differ.append(mine.seq)
                pending = next(remote, None)
            elif mine.seq > floor_last:
                result.not_shipped += 1
                if result.first_not_shipped is None:
                    result.first_not_shipped = mine.seq
            else:
                result.missing.append(mine.seq)
        while pending is not None:
            result.only_on_floor.append(pending.seq)
            pending = next(remote, None)
        first = next(iter(journal.iter_rows()), None)
    if first is not None:
        kept = [s for s in result.only_on_floor if s >= first.seq]
        result.pruned_locally = len(result.only_on_floor) - len(kept)
        result.only_on_floor = kept
    return result
