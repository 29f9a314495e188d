"""A table's rows for a period, exported from the floor for a regulator, and their check.

``croupier floor audit export`` writes JSON lines (``docs/floor.md``, "Export for the
regulator"):

1. a header: ``{"format": "croupier-floor-export/1", "table_id", "from", "to", "exported_at",
   "floor_head": {"seq", "hash"}}`` (the period is ``from`` <= the row's time < ``to``, UTC; the
   floor head is the last row the floor held of that table when it was exported);
2. one line a row, every column exactly as the table hashed it: ``{"seq", "ts", "table_id",
   "round_id", "kind", "payload", "prev_hash", "hash"}`` (``payload`` is the hashed JSON text,
   a string), in seq order;
3. a trailer: ``{"end": true, "rows": N, "first_seq", "last_seq", "last_hash"}``.

:func:`verify_export` (``croupier audit verify --export FILE``) needs nothing else: each row's
hash is computed again from its columns (:func:`controller.journal.store.row_hash`), each row's
``prev_hash`` must be the row before's hash and its seq the next, every row of the table and the
period; the trailer must match the rows (a file cut short has none). The first row's
``prev_hash`` names the row before the period: consecutive exports chain, one's ``last_hash``
being the next one's first ``prev_hash``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import psycopg

from controller.floor.chain import ROW_COLUMNS, ChainCheck, row_from_values
from controller.journal.store import Row, parse_ts

FORMAT = "croupier-floor-export/1"
_COLUMNS = ("seq", "ts", "table_id", "round_id", "kind", "payload", "prev_hash", "hash")


def _rows(
    db: psycopg.Connection[Any], table_id: str, start: datetime, end: datetime
) -> Iterator[Row]:
    with db.transaction(), db.cursor(name="croupier_export") as cur:
        cur.itersize = 2000
        cur.execute(
            f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608 - fixed names
            "WHERE table_id = %s AND at >= %s AND at < %s ORDER BY seq",
            (table_id, start, end),
        )
        for values in cur:
            yield row_from_values(values)


def write_export(
    db: psycopg.Connection[Any], table_id: str, start: datetime, end: datetime, out: IO[str]
) -> int:
    """Write ``table_id``'s rows of [start, end) to ``out``; the number of rows."""
    head = db.execute(
        "SELECT seq, hash FROM croupier.tables WHERE table_id = %s", (table_id,)
    ).fetchone()
    db.commit()
    header = {
        "format": FORMAT,
        "table_id": table_id,
        "from": start.astimezone(UTC).isoformat(),
        "to": end.astimezone(UTC).isoformat(),
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "floor_head": None if head is None else {"seq": int(head[0]), "hash": str(head[1])},
    }
    out.write(json.dumps(header) + "\n")
    count, first, last = 0, None, None
    for row in _rows(db, table_id, start, end):
        line = dict(zip(_COLUMNS, _values(row), strict=True))
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        count += 1
        first = row.seq if first is None else first
        last = row
    trailer = {
        "end": True,
        "rows": count,
        "first_seq": first,
        "last_seq": None if last is None else last.seq,
        "last_hash": None if last is None else last.hash,
    }
    out.write(json.dumps(trailer) + "\n")
    return count


def _values(row: Row) -> tuple[Any, ...]:
    return (
        row.seq,
        row.ts,
        row.table_id,
        row.round_id,
        row.kind,
        row.payload_json,
        row.prev_hash,
        row.hash,
    )


@dataclass
class ExportCheck:
    """What :func:`verify_export` found: the rows checked and every problem, in words."""

    path: Path
    table_id: str = ""
    period: str = ""
    rows: int = 0
    first_seq: int | None = None
    last_seq: int | None = None
    last_hash: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.rows > 0

    def describe(self) -> str:
        if not self.problems:
            if not self.rows:
                return f"{self.path}: no rows of table {self.table_id} in {self.period}"
            return (
                f"{self.path}: export of table {self.table_id}, {self.period}: chain intact, "
                f"{self.rows:,} rows verified (rows {self.first_seq:,}-{self.last_seq:,}, last "
                f"hash {self.last_hash[:16]})"
            )
        shown = "; ".join(self.problems[:10])
        more = f"; and {len(self.problems) - 10} more" if len(self.problems) > 10 else ""
        return f"{self.path}: export BROKEN: {shown}{more}"


def verify_export(path: Path) -> ExportCheck:
    """Check an export file on its own (the module's docstring); never raises for its
    contents."""
    found = ExportCheck(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        found.problems.append(f"cannot be read ({exc})")
        return found
    parsed: list[dict[str, Any]] = []
    for number, text in enumerate(lines, 1):
        try:
            value = json.loads(text)
        except ValueError:
            found.problems.append(f"line {number} is not JSON")
            return found
        if not isinstance(value, dict):
            found.problems.append(f"line {number} is not a JSON object")
            return found
        parsed.append(value)
    if not parsed or parsed[0].get("format") != FORMAT:
        found.problems.append(f"not a floor export (its first line names no {FORMAT!r})")
        return found
    header, body = parsed[0], parsed[1:]
    trailer = body.pop() if body and body[-1].get("end") is True else None
    found.table_id = str(header.get("table_id", ""))
    try:
        start, end = parse_ts(str(header["from"])), parse_ts(str(header["to"]))
    except (KeyError, ValueError):
        found.problems.append("the header has no period (from, to)")
        return found
    found.period = f"{header['from']} to {header['to']}"
    check = ChainCheck(found.table_id)
    for number, line in enumerate(body, 2):
        if set(line) != set(_COLUMNS):
            found.problems.append(f"line {number} is not a row (its keys: {sorted(line)})")
            continue
        try:
            row = row_from_values(tuple(line[c] for c in _COLUMNS))
            at = parse_ts(row.ts)
        except (ValueError, TypeError) as exc:
            found.problems.append(f"line {number} is not a row ({exc})")
            continue
        broken = check.feed(row)
        if broken is not None:
            found.problems.append(f"row {row.seq:,}: {broken.reason}")
        if not start <= at < end:
            found.problems.append(f"row {row.seq:,} at {row.ts} is outside the period")
        found.rows += 1
        found.first_seq = row.seq if found.first_seq is None else found.first_seq
        found.last_seq, found.last_hash = row.seq, row.hash
    if trailer is None:
        found.problems.append("no trailer: the file was cut short or rows were added after it")
    elif (trailer.get("rows"), trailer.get("last_seq"), trailer.get("last_hash")) != (
        found.rows,
        found.last_seq,
        found.last_hash or None,
    ):
        found.problems.append(
            f"the trailer says {trailer.get('rows')} rows up to row {trailer.get('last_seq')}, "
            f"the file holds {found.rows} up to row {found.last_seq}"
        )
    return found
