"""Each table's hash chain, checked row by row as the rows reach the floor.

The check is the journal's own (:meth:`controller.journal.store.Row.computed_hash`, that is
:func:`~controller.journal.store.row_hash` over the stored texts): a row whose hash does not match
its contents was edited; a row whose seq does not follow the last one's is a gap; a row whose
prev_hash is not the last row's hash is out of chain. A break is reported once and the check goes
on from the row after it, so one edited row gives one alert. Nothing is ever rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from controller.journal.store import GENESIS_HASH, Row

# the columns of croupier.journal_rows in the order Row takes them
ROW_COLUMNS = "seq, ts, table_id, round_id, kind, payload, prev_hash, hash"


def row_from_values(values: Sequence[Any]) -> Row:
    """A :class:`Row` from the floor's columns (:data:`ROW_COLUMNS`, the journal's own order),
    read as the journal reads its own rows (the payload text kept as it was hashed)."""
    return Row._from_db(tuple(values))


@dataclass(frozen=True, slots=True)
class ChainBreak:
    table_id: str
    seq: int
    reason: str

    def describe(self) -> str:
        return f"table {self.table_id} row {self.seq:,}: {self.reason}"

    def as_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "seq": self.seq, "reason": self.reason}


class ChainCheck:
    """One table's chain, fed its rows in seq order (from the first row, or from any row on:
    the first row fed is taken as it is unless it is row 1)."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.first_seq: int | None = None
        self.last_seq: int | None = None
        self.last_hash: str | None = None
        self.rows_checked = 0

    def feed(self, row: Row) -> ChainBreak | None:
        problem: str | None = None
        if row.table_id != self.table_id:
            problem = f"belongs to table {row.table_id!r}, not {self.table_id!r}"
        elif row.computed_hash() != row.hash:
            problem = f"edited: its stored hash does not match its contents ({row.kind} row)"
        elif self.last_seq is None:
            if row.seq == 1 and row.prev_hash != GENESIS_HASH:
                problem = "out of chain: row 1's prev_hash is not the genesis hash"
        elif row.seq != self.last_seq + 1:
            if row.seq <= self.last_seq:
                problem = f"repeated or out of order: it comes after row {self.last_seq:,}"
            else:
                missing = self.last_seq + 1
                span = f"row {missing:,}" if row.seq == missing + 1 else f"rows {missing:,}.."
                problem = f"missing: {span} not on the floor (row {row.seq:,} follows row " + (
                    f"{self.last_seq:,})"
                )
        elif row.prev_hash != self.last_hash:
            problem = f"out of chain: its prev_hash is not the hash of row {self.last_seq:,}"
        if self.first_seq is None:
            self.first_seq = row.seq
        self.rows_checked += 1
        if self.last_seq is None or row.seq > self.last_seq:
            self.last_seq, self.last_hash = row.seq, row.hash
        return None if problem is None else ChainBreak(self.table_id, row.seq, problem)


def check_rows(table_id: str, rows: Iterable[Row]) -> Iterator[ChainBreak]:
    """Every break in ``rows`` (one table's, in seq order)."""
    check = ChainCheck(table_id)
    for row in rows:
        found = check.feed(row)
        if found is not None:
            yield found
