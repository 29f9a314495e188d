"""The journal's chain checked again while the table runs, from a read-only connection.

:class:`ChainWatch` keeps the last row it verified (its seq and hash: where the start's check
left off) and, at each :meth:`ChainWatch.check`, in one read snapshot:

* that row still has the hash it had (a row rewritten at the tail, or the rows rolled back);
* every row written since chains on from it (its hash, its ``prev_hash``, no seq missing, its
  MAC under the table key), and the journal's head record names the last of them;
* a slice of ``sweep_rows`` older rows, going round the whole chain slice by slice (an edit of
  any row, however old, is found within one turn: a journal of a million rows at 200 rows a
  check and a check a second is read whole in under an hour and a half, many times a gaming
  day).

Rows the table appends are rows of the chain: they verify, and are never reported. A problem is
reported once (:class:`ChainProblem`); the check then goes on from where the chain is again.
Everything is read, nothing written: the table's writing connection never waits on it (SQLite's
WAL lets a reader and the writer work at once).
"""

from __future__ import annotations

import hmac
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from controller.journal.seal import TableKey
from controller.journal.store import row_hash

_SELECT = "SELECT seq, ts, table_id, round_id, kind, payload, prev_hash, hash, mac FROM journal"
_SELECT_BEFORE_MAC = _SELECT.replace(", mac FROM", ", NULL FROM")


YIELD_EVERY = 64  # rows checked between two offers of the GIL to the table's owner


class _Row(NamedTuple):
    """A row as stored (its payload as the hashed text: never parsed here)."""

    seq: int
    ts: str
    table_id: str
    round_id: int | None
    kind: str
    payload: str
    prev_hash: str
    hash: str
    mac: str | None

    def computed_hash(self) -> str:
        return row_hash(
            self.seq, self.ts, self.table_id, self.round_id, self.kind, self.payload, self.prev_hash
        )


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """A row found changed: which, and what was found (``reason``: the first words say what
    became of the row, "was edited", "is missing"; after a colon, how it was found)."""

    seq: int | None
    reason: str

    def about(self) -> str:
        """What changed, in full."""
        where = "the journal" if self.seq is None else f"row {self.seq} of the journal"
        return f"{where} {self.reason}"

    def short(self) -> str:
        """What changed, in a few words (``row 12 was edited``)."""
        where = "the journal" if self.seq is None else f"row {self.seq}"
        return f"{where} {self.reason.split(':')[0]}"


class ChainWatch:
    """The chain from a verified point on, checked again at every :meth:`check`."""

    def __init__(
        self,
        path: Path,
        verified: tuple[int, str] | None,
        *,
        key: TableKey | None = None,
        sweep_rows: int = 200,
    ) -> None:
        self.path = path
        self.key = key
        self.sweep_rows = sweep_rows
        self.last: tuple[int, str] | None = verified
        self.checked = 0  # rows verified since the watch began (new rows and swept ones)
        self.turns = 0  # whole turns of the sweep over the chain
        self._sweep_at: int | None = None  # the next row the sweep reads (None: the first)
        self._sweep_prev: str | None = None  # the hash of the row before it
        # the last row of this turn: the last row verified when the turn began (a table that
        # writes more rows a check than the sweep reads would otherwise keep a turn from ending,
        # and an old row edited after the sweep passed it would never be read again)
        self._sweep_end = 0
        self._reported: set[tuple[int | None, str]] = set()
        self._db: sqlite3.Connection | None = None
        self._select = ""

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            columns = {str(c[1]) for c in db.execute("PRAGMA table_info(journal)")}
            self._select = _SELECT if "mac" in columns else _SELECT_BEFORE_MAC
            self._db = db
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def check(self) -> list[ChainProblem]:
        """Check what is new and the sweep's next slice; the problems not reported before."""
        db = self._connect()
        found: list[ChainProblem] = []
        db.execute("BEGIN")  # one snapshot: the rows and the head as one commit left them
        try:
            found += self._new_rows(db)
            found += self._sweep(db)
        finally:
            db.execute("COMMIT")
        fresh = []
        for problem in found:
            if (problem.seq, problem.reason) not in self._reported:
                self._reported.add((problem.seq, problem.reason))
                fresh.append(problem)
        return fresh

    def _row_problem(self, row: _Row, prev_hash: str | None) -> str | None:
        self.checked += 1
        if self.checked % YIELD_EVERY == 0:
            time.sleep(0)  # (the owner, waiting for the GIL, takes it now)
        if row.computed_hash() != row.hash:
            return f"was edited: its stored hash does not match its contents ({row.kind} row)"
        if prev_hash is not None and row.prev_hash != prev_hash:
            return "is out of the chain: its prev_hash is not the hash of the row before"
        key = self.key
        if key is not None and row.mac is not None:
            if not hmac.compare_digest(row.mac, key.row_mac(row.hash)):
                return f"is forged: its MAC is not the table key's ({row.kind} row)"
        elif key is not None and row.seq >= key.sealed_from:
            return f"has no MAC, but the table key seals every row ({row.kind} row)"
        return None

    def _new_rows(self, db: sqlite3.Connection) -> list[ChainProblem]:
        problems: list[ChainProblem] = []
        if self.last is not None:
            seq, digest = self.last
            found = db.execute(self._select + " WHERE seq = ?", (seq,)).fetchone()
            if found is None:
                problems.append(ChainProblem(seq, "is gone: it was deleted"))
                self.last = None
            else:
                row = _Row(*found)
                if row.hash != digest:
                    problems.append(ChainProblem(seq, "was replaced: its hash is not the one read"))
                    self.last = (seq, row.hash)  # (the rows after it chain on from this one)
                elif row.computed_hash() != digest:
                    problems.append(
                        ChainProblem(
                            seq,
                            "was edited: its stored hash does not match its contents "
                            f"({row.kind} row)",
                        )
                    )
        after = -1 if self.last is None else self.last[0]
        prev = None if self.last is None else self.last[1]
        last = self.last
        for values in db.execute(self._select + " WHERE seq > ? ORDER BY seq", (after,)):
            row = _Row(*values)
            if last is not None and row.seq != last[0] + 1:
                problems.append(
                    ChainProblem(
                        last[0] + 1, f"is missing: deleted (row {row.seq} follows row {last[0]})"
                    )
                )
                prev = None  # (the row after a gap is not out of the chain: the gap is said)
            problem = self._row_problem(row, prev)
            if problem is not None:
                problems.append(ChainProblem(row.seq, problem))
            prev = row.hash
            last = (row.seq, row.hash)
        self.last = last
        head = db.execute("SELECT seq, hash FROM journal_head WHERE id = 1").fetchone()
        if last is not None and (head is None or (int(head[0]), str(head[1])) != last):
            problems.append(
                ChainProblem(
                    None,
                    "head record does not name its last row (rows were added or removed "
                    "outside the table)",
                )
            )
        return problems

    def _sweep(self, db: sqlite3.Connection) -> list[ChainProblem]:
        """The next slice of the rows verified before, up to the last one verified."""
        if self.sweep_rows <= 0 or self.last is None:
            return []
        problems: list[ChainProblem] = []
        found = db.execute("SELECT MIN(seq) FROM journal").fetchone()
        first = None if found is None else found[0]
        if first is None:
            return []
        if self._sweep_at is None or self._sweep_at < first:
            # a turn begins at the first row kept: rows pruned from the front of the journal
            # are behind an anchor row naming the last of them; without one they were deleted
            self._sweep_at, self._sweep_prev = first, None
            self._sweep_end = self.last[0]
            if first > 1 and not _anchored(db, first - 1):
                problems.append(
                    ChainProblem(
                        1, f"is missing: rows 1..{first - 1} deleted from the front, no anchor"
                    )
                )
        start = self._sweep_at
        expected = start
        prev = self._sweep_prev
        rows = db.execute(
            self._select + " WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
            (start, self._sweep_end, self.sweep_rows),
        )
        for values in rows:
            row = _Row(*values)
            if row.seq != expected and prev is not None:
                problems.append(
                    ChainProblem(
                        expected, f"is missing: deleted (row {row.seq} follows row {expected - 1})"
                    )
                )
                prev = None
            problem = self._row_problem(row, prev)
            if problem is not None:
                problems.append(ChainProblem(row.seq, problem))
            prev = row.hash
            expected = row.seq + 1
        if expected > self._sweep_end:  # round the whole chain: from the first row again
            self.turns += 1
            self._sweep_at, self._sweep_prev = None, None
        else:
            self._sweep_at, self._sweep_prev = expected, prev
        return problems


def _anchored(db: sqlite3.Connection, through: int) -> bool:
    """Whether an anchor row says the rows through ``through`` were pruned."""
    for (payload,) in db.execute("SELECT payload FROM journal WHERE kind = 'anchor'"):
        try:
            if json.loads(payload).get("seq") == through:
                return True
        except (ValueError, AttributeError):
            continue
    return False
