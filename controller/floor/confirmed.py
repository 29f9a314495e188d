"""What the floor has confirmed holding of a table's journal: the last row it committed.

The shipper writes it beside the journal (``JOURNAL.floor``, JSON, 0600: the table id, the
row's seq and hash, when) after a batch the floor committed, at most every
:data:`CONFIRM_S` seconds and at a stop; a start reads it to prune only rows the floor holds
(:mod:`controller.service.retention`). It only ever understates what the floor holds: a lost or
stale file keeps rows, never loses one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from controller.table.private import PrivateFileError, read_private_json, write_private_json

CONFIRM_S = 10.0  # at most one write of the file in this many seconds (and one at a stop)
SUFFIX = ".floor"


@dataclass(frozen=True, slots=True)
class Confirmed:
    table_id: str
    seq: int
    hash: str
    at: str


def path_of(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + SUFFIX)


def record(journal_path: Path, table_id: str, seq: int, hash_: str) -> None:
    """The floor committed rows up to ``seq`` (whose hash is ``hash_``)."""
    body = {
        "table_id": table_id,
        "seq": seq,
        "hash": hash_,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_private_json(path_of(journal_path), body, "the floor's confirmation")


def read(journal_path: Path, table_id: str) -> Confirmed | None:
    """What the floor confirmed for this journal and table, or None (no file, another table's,
    unreadable: nothing is taken as confirmed)."""
    try:
        body = read_private_json(path_of(journal_path), "the floor's confirmation")
    except (OSError, PrivateFileError, ValueError):
        return None
    if body is None or body.get("table_id") != table_id:
        return None
    seq, hash_ = body.get("seq"), body.get("hash")
    if not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(hash_, str):
        return None
    return Confirmed(table_id, seq, hash_, str(body.get("at", "")))
