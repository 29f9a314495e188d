"""The floor check of ``croupier doctor``: can this table reach the floor, is the floor's schema
the one this croupier knows, and how far behind the floor is (rows and the oldest row's age)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from controller.floor.schema import newest_revision, revision
from controller.floor.shipper import rows_behind
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal
from controller.table.config import FloorLink


@dataclass(frozen=True, slots=True)
class FloorCheck:
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False


def floor_check(journal_path: Path, table_id: str, settings: FloorLink) -> FloorCheck:
    where = settings.where
    try:
        conninfo = settings.conninfo()
    except (ValueError, OSError) as exc:
        return FloorCheck(False, str(exc), "give croupier the floor's password as [floor] says")
    try:
        with psycopg.connect(conninfo, connect_timeout=settings.connect_timeout_s) as db:
            found = db.execute(
                "SELECT seq, hash FROM croupier.tables WHERE table_id = %s", (table_id,)
            ).fetchone()
            have = revision(conninfo)
            head: tuple[object, ...] | None = None
            if have == newest_revision():
                head = db.execute("SELECT croupier.login_table(), session_user").fetchone()
    except psycopg.Error as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return FloorCheck(
            False,
            f"{where}: {text}",
            "check the floor's server, the [floor] dsn and the password; the table deals on "
            "and its rows wait in the journal",
        )
    if have != newest_revision():
        return FloorCheck(
            False,
            f"{where}: the floor's schema is at {have}, this croupier needs {newest_revision()}",
            "the floor's owner runs `croupier floor migrate`",
        )
    bound, login = (None, "?") if head is None else head
    if bound != table_id:
        return FloorCheck(
            False,
            f"{where}: the login {login} "
            + ("writes no table" if bound is None else f"writes table {bound}")
            + f", not this table {table_id}",
            f"the floor's owner makes this table's own login with `croupier floor table-login "
            f"{table_id}` and [floor] dsn names it",
        )
    held_seq, held_hash = (0, "") if found is None else (int(found[0]), str(found[1]))
    try:
        with Journal.open(journal_path, readonly=True) as journal:
            last = journal.last_row()
            local = 0 if last is None else last.seq
            mine = next(iter(journal.iter_rows(after_seq=max(0, held_seq - 1))), None)
            oldest = next(iter(journal.iter_rows(after_seq=held_seq)), None)
    except JournalUnavailable:
        return FloorCheck(True, f"{where}: reachable; no journal here yet", warning=True)
    if held_seq > local or (mine is not None and mine.seq == held_seq and mine.hash != held_hash):
        return FloorCheck(
            False,
            f"{where}: the floor's rows of table {table_id} are not this journal's (it holds "
            f"up to row {held_seq:,}, this journal ends at {local:,})",
            "another journal ships as this table: give each table its own table_id",
        )
    behind = local - held_seq
    if behind == 0:
        return FloorCheck(True, f"{where}: up to date (row {local:,})")
    age = 0.0 if oldest is None else max(0.0, time.time() - oldest.at.timestamp())
    return FloorCheck(
        True,
        f"{where}: {rows_behind(behind)}, oldest {age:,.0f} s (they ship while the table runs)",
        warning=age > 60,
    )
