"""Where each table's journal was last: one record per table id in croupier's state folder.

A journal path in a table file may be relative (to the file), and a table file may be copied:
a start can then find no journal where it looks while the table's rounds, an open one perhaps,
are in a journal elsewhere. ``croupier run`` records the journal of every table id it starts
(:func:`remember`) and refuses a start that would make a new, empty journal for a table id whose
last journal is elsewhere (:func:`new_journal_problem`), naming both; ``--new-journal`` starts
one on purpose.

The state folder is ``$CROUPIER_STATE_DIR`` if set, else ``$XDG_STATE_HOME/croupier``, else
``~/.local/state/croupier`` (folders made 0700). Each record is ``tables/<table id>.json``
(0600): ``{"journal": "/absolute/path", "recorded": "<ISO time>"}``. A record that cannot be read
is no record (the start goes on, and says so).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from controller.table.private import (
    STATE_ENV,
    PrivateFileError,
    make_folders,
    state_folder,
    write_private,
)

__all__ = [
    "DEFAULT_JOURNAL_PATH",
    "STATE_ENV",
    "last_journal",
    "new_journal_problem",
    "remember",
    "state_folder",
]

# the journal ``croupier history`` and ``audit`` read when none is named (from the current folder)
DEFAULT_JOURNAL_PATH = Path("var/journal.sqlite3")

_RECORD_BYTES = 64 * 1024


def record_path(table_id: str) -> Path:
    """Where the record of ``table_id`` (a table file's checked id: no ``/``) is kept."""
    return state_folder() / "tables" / f"{table_id}.json"


def last_journal(table_id: str) -> Path | None:
    """The journal ``table_id`` was last started with, if recorded and readable."""
    path = record_path(table_id)
    try:
        with path.open("rb") as record:
            data = json.loads(record.read(_RECORD_BYTES))
    except (OSError, ValueError):
        return None
    found = data.get("journal") if isinstance(data, dict) else None
    return Path(found) if isinstance(found, str) and Path(found).is_absolute() else None


def remember(table_id: str, journal: Path) -> str | None:
    """Record ``journal`` as the journal of ``table_id``; None, or why it could not be."""
    path = record_path(table_id)
    body = {"journal": str(journal.absolute()), "recorded": datetime.now(UTC).isoformat()}
    try:
        make_folders(path.parent)
        write_private(path, json.dumps(body).encode("utf-8") + b"\n", "the table's record")
    except PrivateFileError as exc:
        return exc.text
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return None


def new_journal_problem(table_id: str, journal: Path, source: str) -> str | None:
    """Why a start of ``table_id`` (table file ``source``) that would make a new journal at
    ``journal`` may not (its last journal is elsewhere), or None."""
    journal = journal.absolute()
    if journal.exists():
        return None
    last = last_journal(table_id)
    if last is None or last == journal:
        return None
    gone = "" if last.exists() else " (it is not there now: moved or removed?)"
    return (
        f"table {table_id}'s journal is {last}{gone}, but this start would make a new, empty "
        f"journal at {journal} (journal.path in {source}; a relative path is taken from the "
        "table file's folder). Start the table file that names its journal, or set "
        "journal.path to it; to start a new journal on purpose, add --new-journal"
    )
