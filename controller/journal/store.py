"""The journal: an append-only, hash-chained record of everything that happens at a table.

Rows live in one SQLite table (standard library, WAL, ``synchronous=FULL``)::

    seq       INTEGER PRIMARY KEY  1, 2, 3... with no gaps (except below a prune anchor)
    ts        TEXT                 UTC, ISO-8601 with milliseconds: 2026-11-29T11:43:38.123Z
    table_id  TEXT                 the table the journal belongs to
    round_id  INTEGER NULL         the round the row belongs to, NULL between rounds
    kind      TEXT                 one of ROW_KINDS, below
    payload   TEXT                 canonical JSON of a dict (sorted keys, no spaces, UTF-8)
    prev_hash TEXT                 the hash of row seq-1 (64 zeros for row 1)
    hash      TEXT                 sha256 hex of the canonical JSON of the seven columns above
    mac       TEXT NULL            HMAC-SHA-256 hex of ``hash`` under the table key (NULL for a
                                   row from before the journal had a key; controller.journal.seal)

:meth:`Journal.append` commits before it returns, so a caller writes the journal *first* and only
then shows, acknowledges or acts on what it wrote. Triggers in the file refuse UPDATE and DELETE
(only :meth:`Journal.prune` removes rows, and it leaves an anchor row), and a one-row
``journal_head`` table records the last seq and hash. Editing, deleting or reordering rows is then
only possible by editing the file by hand, which :meth:`Journal.verify` detects and reports as the
first broken row.

Row kinds and their payloads (the contract between the table application that writes rows and the
history, audit and recovery code that reads them):

================  ===========================================================================
``software``      ``{version, journal_format}`` -- at start-up (journal_format 1 when absent)
``config``        ``{variant, variant_path, table, variant_sha256, strategy_sha256,
                  table_sha256, software, software_sha256, software_recorded, changed}`` --
                  what a start runs with (the rules files' and the software's hashes, what
                  changed since the last start), from journal format 14 ``cut_position`` (the
                  cut committed for the shoe already loaded) and from journal format 15
                  ``rules``: the rules the table deals by, the validated variant's JSON (a
                  custom variant file's, overrides included), by which the floor rates its play
``device_event``  :func:`controller.journal.records.to_record` of a
                  :mod:`drivers.tbl21.events` event (``{"type": "CardDrawn", "device":
                  {"type": "shoe", "port": ...}, ...}``)
``call``          the record of one of the table's calls (:mod:`controller.journal.causes`): a
                  bet (``{"type": "Bet", box, player, amount_cents}``), a supervisor's decision
                  (``{"type": "Void", by}``...), the dealer's keyed-in card (``KeyedCard``), a
                  PIN attempt's outcome, never the PIN (``PinAttempt``), a sign-out
                  (``SignOut``), the PIN policy (``RequirePins``); written just before the rows
                  of what applying it made, in the same transaction (with ``device_event``,
                  the causes a recovery replays). Journals
                  written before software 0.2 hold ``{method, args}`` rows instead
``set_aside``     ``{type: "SetAside", first_seq, last_seq, round, draw_no, cards, reason, by}``
                  -- a supervisor's decision at a table stopped for a supervisor: the rows
                  ``first_seq`` to ``last_seq`` are not replayed, and the round is void
                  (:class:`controller.table.app.SetAside`; a cause, like ``call``)
``recovery``      ``{round, state, causes, effects_checked, effects_written, text}`` -- the table
                  was rebuilt from the journal after a restart (what the dealer was told)
``input``         ``{action, data, accepted, reason, keys, by}`` -- a dealer or supervisor input:
                  ``action`` an Action value or null, ``data`` its data as record values
                  (journals written before software 0.2 hold ``{}``: ``history`` then takes it
                  from the ``call`` row), ``keys`` the panel keys, ``by`` who (null for the
                  dealer's panel)
``prompt``        :func:`controller.game.words.prompt_json`: ``{code, box, hand, player,
                  amount_cents, odds, text}`` (the fields set, and the prompt's line) and, from
                  journal format 8, ``shown``: the prompt bar's words for a prompt that says
                  what to do now
                  (from format 10 a fresh table's first start writes its opening prompt,
                  before any cause: what the dealer was first told)
``ledger``        ``{box, player, hand, kind, amount_cents, stake_cents, odds, reason}``
                  (amounts in integer cents, signed from the player's side; odds ``"3:2"``)
``state``         ``{source, dest, action}`` -- a round state change
``supervisor``    ``{action, by, detail}`` -- a supervisor's override, with who
``access``        ``{role, event, accepted, text, source, wrong_in_a_row, locked_until}`` -- a
                  sign-in, a wrong PIN, a lockout (until: wall-clock seconds), a refused
                  attempt, a sign-out or the PIN policy changed (``event`` ``policy``)
                  (:class:`controller.table.access.AccessEvent`)
``people``        ``{event, accepted, text, box, staff_id, name, card, session, player,
                  amount_cents, at}`` -- a dealer signed in or out, a rated player sat down or
                  walked away, a seated player's bet with its session (``event`` ``bet``), or
                  one of these refused (:class:`controller.table.people.PeopleEvent`; from
                  journal format 9)
``shoe_receipt``  ``{reason, decks, deck, declared, dealt, keyed, cards_left, left, loaded,
                  shoe_left, kept_out, shortfall, surplus, cut_card, round, set_aside}`` -- the
                  account of a shoe at its end, the shoe loading the next (``reason``
                  ``shuffle`` or ``changed``): ``left`` the cards the declared decks still hold
                  by card (:class:`controller.table.shoewatch.ShoeReceipt`; journal format 13)
``day``           ``{event, accepted, text, day, by, witness, chips, cents, win_cents,
                  house_cents, key, at}`` -- a step of the gaming day: the opening's steps, a
                  fill or a credit, the drop, the closing with the day's win, or one refused
                  (:class:`controller.table.day.DayEvent`; from journal format 12)
``command``       ``{device, command, args}`` -- a command the round asked the table to send
``device_command`` ``{device, command, args}`` -- a command the table sends to a device
                  (``arm_peek``, ``new_shoe``, ``light`` with the lit keys), written before it
                  is sent
``round_start``   ``{round, variant}``, and from journal format 9 ``dealer`` and ``dealer_name``
                  (the staff number and name of the dealer signed in) when one is
``round_end``     ``{round, net_cents, net_by_player}`` -- net to the players, integer cents
                  (all of them, and per player)
``note``          ``{device, text}`` -- a device event worth recording that changes nothing
``notice``        ``{event, id, kind, text, todo}`` -- a notice the dealer was shown outside the
                  round (``event`` ``opened``) or acknowledged (``acknowledged``)
``stop``          ``{reason, round, state, rounds_completed}`` -- the table was stopped cleanly
                  (Ctrl-C, SIGTERM, ``--rounds`` done): where it stood. A start after a stop
                  without this row followed a crash or a power cut (from software 0.2.1;
                  older software skips the row)
``anchor``        ``{seq, hash, ts, pruned_rows}`` -- written by :meth:`Journal.prune`: the seq,
                  hash and ts of the last pruned row, so the chain verifies from here on
================  ===========================================================================

:func:`controller.journal.rows.entry_for` turns a controller or table output into its
``(kind, payload)``: the store only stores.

When the journal cannot be opened, read or written,
:class:`~controller.journal.errors.JournalUnavailable` says why, with one of these messages
(``{path}`` the file, ``{detail}`` SQLite's own words):

- ``disk_full``: "Journal unavailable: {path} cannot be written because the disk is full
  ({detail}). Free disk space; no round can start until the journal can be written."
- ``read_only``: "Journal unavailable: {path} cannot be written because the file or its folder
  is read-only ({detail}). Give croupier write access to both; no round can start until then."
- ``locked``: "Journal unavailable: {path} is locked by another program ({detail}). Close the other
  croupier or database tool using it; no round can start until the journal can be written."
- ``corrupt``: "Journal unavailable: {path} is damaged or not a croupier journal ({detail}). Keep
  the file for investigation and call a technician; no round can start on it."
- ``cannot_open`` / ``io_error`` / ``error``: the same pattern with the cause in words.

Retention: :meth:`Journal.prune` deletes rows older than the table's retention
(:data:`DEFAULT_RETENTION`, 90 days) after appending an ``anchor`` row naming the last pruned row;
:meth:`Journal.verify` accepts a journal that starts right after an anchor's row.

A start checks the chain from the last point a start verified (:meth:`Journal.verify_from_anchor`),
so a start on a long journal hashes only the rows added since; ``audit verify`` checks them all.
A sealed journal (``Journal.open(sealed=True)``, as ``croupier run`` opens it) takes that point
from its head record outside the file, and every row carries ``mac``, an HMAC of its hash under
the table key (:mod:`controller.journal.seal`): a row hashed again without the key, a journal cut
short or an older copy put back are refused. An unsealed journal keeps its point in a one-row
``journal_verified`` table beside the journal's (seq and hash of a row).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Self, TypeVar
from urllib.parse import quote

import structlog

from controller.journal import whereabouts
from controller.journal.errors import KIND_WORDS, JournalUnavailable
from controller.journal.seal import (
    Head,
    SealError,
    TableKey,
    head_path_for,
    key_path_for,
    read_head,
    write_head,
)
from controller.table.private import PrivateFileError, check_private, make_folders, open_private

DEFAULT_JOURNAL_PATH = whereabouts.DEFAULT_JOURNAL_PATH
DEFAULT_RETENTION = timedelta(days=90)
DEFAULT_BUSY_TIMEOUT_S = 0.5
GENESIS_HASH = "0" * 64
SCHEMA_VERSION = 1
PROBE_BYTES = 64 * 1024  # check_writable proves this much room (a few rounds of rows)

ROW_KINDS = frozenset(KIND_WORDS)  # every kind of row, each with its words for a supervisor

T = TypeVar("T")
Clock = Callable[[], datetime]
log = structlog.get_logger("croupier.journal")
JSONDict = dict[str, Any]

_MESSAGES = {
    "disk_full": (
        "Journal unavailable: {path} cannot be written because the disk is full ({detail}). "
        "Free disk space; no round can start until the journal can be written."
    ),
    "read_only": (
        "Journal unavailable: {path} cannot be written because the file or its folder is "
        "read-only ({detail}). Give croupier write access to both; no round can start until then."
    ),
    "locked": (
        "Journal unavailable: {path} is locked by another program ({detail}). Close the other "
        "croupier or database tool using it; no round can start until the journal can be written."
    ),
    "corrupt": (
        "Journal unavailable: {path} is damaged or not a croupier journal ({detail}). Keep the "
        "file for investigation and call a technician; no round can start on it."
    ),
    "cannot_open": (
        "Journal unavailable: {path} cannot be opened ({detail}). Check that its folder exists "
        "and croupier may write there; no round can start until then."
    ),
    "io_error": (
        "Journal unavailable: {path} could not be read or written because of a disk error "
        "({detail}). Call a technician; no round can start until the journal can be written."
    ),
    "error": (
        "Journal unavailable: {path} failed ({detail}). No round can start until the journal "
        "can be written."
    ),
}

# primary SQLite result codes (sqlite3.Error.sqlite_errorcode & 0xFF)
_SQLITE_CAUSES = {
    5: "locked",  # SQLITE_BUSY
    6: "locked",  # SQLITE_LOCKED
    8: "read_only",  # SQLITE_READONLY
    10: "io_error",  # SQLITE_IOERR
    11: "corrupt",  # SQLITE_CORRUPT
    13: "disk_full",  # SQLITE_FULL
    14: "cannot_open",  # SQLITE_CANTOPEN
    26: "corrupt",  # SQLITE_NOTADB
}

_NO_UPDATE = (
    "CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal BEGIN "
    "SELECT RAISE(ABORT, 'journal rows are append-only: UPDATE refused'); END"
)
_NO_DELETE = (
    "CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal BEGIN "
    "SELECT RAISE(ABORT, 'journal rows are append-only: DELETE refused "
    "(old rows are removed only by Journal.prune)'); END"
)
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS journal (
        seq INTEGER PRIMARY KEY,
        ts TEXT NOT NULL,
        table_id TEXT NOT NULL,
        round_id INTEGER,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        mac TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS journal_round ON journal(round_id) WHERE round_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS journal_ts ON journal(ts)",
    """CREATE TABLE IF NOT EXISTS journal_head (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        table_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL
    )""",
    "CREATE TABLE IF NOT EXISTS journal_probe (id INTEGER PRIMARY KEY, pad BLOB NOT NULL)",
    _NO_UPDATE,
    _NO_DELETE,
)
_INSERT = (
    "INSERT INTO journal (seq, ts, table_id, round_id, kind, payload, prev_hash, hash, mac) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_MORE_VALUES = ", (?, ?, ?, ?, ?, ?, ?, ?, ?)"
# Rows a statement inserts at most: 9 parameters a row, inside SQLite's oldest limit of 999
# (one statement, one step into SQLite, for a card's rows)
INSERT_ROWS = 100
# (a journal made before software 0.4 has no mac column until a start adds it: read, its rows
# have none)
_SELECT = "SELECT seq, ts, table_id, round_id, kind, payload, prev_hash, hash, mac FROM journal"
_SELECT_BEFORE_MAC = _SELECT.replace(", mac FROM", ", NULL FROM")
_ALL_ROWS = " ORDER BY seq"
_LAST_ROW = " ORDER BY seq DESC LIMIT 1"
_ANCHOR_ROWS = " WHERE kind = 'anchor' ORDER BY seq"
_CHUNK = 1000
# the rows after which the head record is replaced (a start, a round's end, a stop): a rollback to
# before the last of them is refused at the next start
_HEAD_KINDS = frozenset({"software", "round_end", "stop", "anchor", "set_aside"})


# --- canonical forms -------------------------------------------------------------------------


def utc_now() -> datetime:
    return datetime.now(UTC)


def _system_clock() -> datetime:
    """The wall clock a journal reads unless given another (looked up at each call)."""
    return utc_now()


# A wall clock that reads earlier than the journal's last row by more than this is reported
# (less is the ordinary jitter of a clock that NTP slews).
CLOCK_BACK_TOLERANCE = timedelta(seconds=1)


def format_ts(at: datetime) -> str:
    """``2026-11-29T11:43:38.123Z``: UTC, milliseconds. A naive datetime is refused."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"journal times must carry a time zone, got naive {at.isoformat()}")
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


# a str as JSON text, as json.dumps(ensure_ascii=False) writes it (its own function)
_string: Callable[[str], str] = json.encoder.encode_basestring


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, UTF-8 text, no NaN: the one text a value has in the journal."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def row_hash(
    seq: int,
    ts: str,
    table_id: str,
    round_id: int | None,
    kind: str,
    payload: str,
    prev_hash: str,
) -> str:
    """sha256 hex of the canonical JSON of a row's columns (``payload`` as its stored text).

    The text is :func:`canonical_json` of the columns (keys sorted), put together here for the
    usual column types (a row is hashed at every append and at every check on the floor: the
    encoder's setup was half of it), by the encoder's own string function; any other type goes
    through :func:`canonical_json` itself (``tests/journal/test_row_hash.py`` holds the two
    texts equal)."""
    if (
        type(seq) is int
        and (round_id is None or type(round_id) is int)
        and type(ts) is str
        and type(table_id) is str
        and type(kind) is str
        and type(payload) is str
        and type(prev_hash) is str
    ):
        text = (
            f'{{"kind":{_string(kind)},"payload":{_string(payload)},'
            f'"prev_hash":{_string(prev_hash)},'
            f'"round_id":{"null" if round_id is None else int.__repr__(round_id)},'
            f'"seq":{int.__repr__(seq)},"table_id":{_string(table_id)},"ts":{_string(ts)}}}'
        )
    else:
        text = canonical_json(
            {
                "seq": seq,
                "ts": ts,
                "table_id": table_id,
                "round_id": round_id,
                "kind": kind,
                "payload": payload,
                "prev_hash": prev_hash,
            }
        )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    ts: str
    table_id: str
    round_id: int | None
    kind: str
    payload: JSONDict
    prev_hash: str
    hash: str
    payload_json: str = dataclasses.field(repr=False, compare=False, default="")
    # HMAC-SHA-256 of ``hash`` under the table key (controller.journal.seal); None for a row
    # written before the journal had a key
    mac: str | None = dataclasses.field(repr=False, compare=False, default=None)

    @property
    def at(self) -> datetime:
        return parse_ts(self.ts)

    def computed_hash(self) -> str:
        return row_hash(
            self.seq,
            self.ts,
            self.table_id,
            self.round_id,
            self.kind,
            self.payload_json,
            self.prev_hash,
        )

    def to_json_dict(self) -> JSONDict:
        """Every column; ``payload`` as an object (its canonical JSON is the hashed text)."""
        return {
            "seq": self.seq,
            "ts": self.ts,
            "table_id": self.table_id,
            "round_id": self.round_id,
            "kind": self.kind,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    @classmethod
    def _from_db(cls, values: tuple[Any, ...]) -> Row:
        seq, ts, table_id, round_id, kind, payload, prev_hash, digest, *sealed = values
        mac = sealed[0] if sealed else None  # (the floor's rows have no MAC)
        try:
            parsed = json.loads(payload)
        except (TypeError, ValueError):
            parsed = {"unreadable": str(payload)}
        if not isinstance(parsed, dict):
            parsed = {"unreadable": str(payload)}
        return cls(
            seq,
            ts,
            table_id,
            round_id,
            kind,
            parsed,
            prev_hash,
            digest,
            payload,
            None if mac is None else str(mac),
        )


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    rows_checked: int
    first_bad_seq: int | None = None
    reason: str = ""
    last_seq: int | None = None
    last_hash: str | None = None
    macs: str = ""  # what was found of the rows' MACs (controller.journal.seal)

    def describe(self) -> str:
        if self.ok:
            head = "" if self.last_seq is None else f"; last row {self.last_seq} {self.last_hash}"
            macs = f" ({self.macs})" if self.macs else ""
            return f"chain intact: {self.rows_checked} rows verified{macs}{head}"
        where = "journal" if self.first_bad_seq is None else f"row {self.first_bad_seq}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class PruneResult:
    pruned_rows: int
    anchor: Row | None


# --- the journal -----------------------------------------------------------------------------


class Journal:
    """One table's journal file. Safe to share between threads (one lock around the file)."""

    def __init__(
        self,
        db: sqlite3.Connection,
        path: Path,
        table_id: str,
        clock: Clock,
        *,
        readonly: bool,
        key: TableKey | None = None,
        head_path: Path | None = None,
        select: str = _SELECT,
    ) -> None:
        self._db = db
        self.path = path
        self.table_id = table_id
        self._clock = clock
        self.readonly = readonly
        self.key = key  # every row written gets its MAC under it (controller.journal.seal)
        self.head_path = head_path  # the head record, beside the lock (None: not kept)
        self._select = select
        self._head_kept = False  # a start verified the chain: the head record is kept from now
        self._rows_to_head: int | None = None  # the journal's rows, counted once, then kept
        self._lock = threading.RLock()
        # Journal times never go backwards: while the wall clock reads earlier than the last
        # row, rows take the last row's time, and the jump is reported once (clock_reports).
        self._last_at: datetime | None = None
        self._last_read = False  # _last_at is read from the file at the first write
        self._clock_behind = False
        self._clock_reports: list[str] = []

    @classmethod
    def open(
        cls,
        path: str | Path = DEFAULT_JOURNAL_PATH,
        *,
        table_id: str | None = None,
        clock: Clock = _system_clock,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
        readonly: bool = False,
        sealed: bool = False,
        key_path: Path | None = None,
    ) -> Journal:
        """Open (and create, unless ``readonly``) the journal at ``path``.

        A new journal needs ``table_id``; an existing one remembers its table and refuses a
        different one. ``readonly`` opens an existing journal for reading only (history, audit).

        ``sealed``: with its table key (``key_path``, by default beside the journal) and its head
        record (:mod:`controller.journal.seal`). Written, a sealed journal with no key yet gets
        one (its rows from now on are sealed); a journal whose rows are sealed is refused without
        its key, and is never written unsealed. Read, a sealed journal without its key file has
        :attr:`key` None (its MACs cannot be checked).
        """
        path = Path(path)
        where = str(path)
        if readonly:
            if not path.exists():
                raise JournalUnavailable(
                    where, "cannot_open", f"Journal unavailable: there is no journal at {path}."
                )
            uri = f"file:{quote(str(path.resolve()))}?mode=ro"
            target, use_uri = uri, True
        else:
            try:
                _make_private(path)
            except PrivateFileError as exc:
                raise JournalUnavailable(
                    where,
                    "not_private",
                    f"Journal unavailable: {exc}. No round can start until then.",
                ) from exc
            except OSError as exc:
                cause = "read_only" if isinstance(exc, PermissionError) else "cannot_open"
                raise JournalUnavailable(
                    where, cause, _MESSAGES[cause].format(path=path, detail=exc.strerror or exc)
                ) from exc
            target, use_uri = str(path), False
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(
                target,
                timeout=busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
                uri=use_uri,
            )
            if not readonly:
                mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    cause = "read_only" if _read_only_place(path) else "error"
                    raise JournalUnavailable(
                        where,
                        cause,
                        _MESSAGES[cause].format(
                            path=path, detail=f"cannot switch to WAL mode (mode is {mode})"
                        ),
                    )
            db.execute("PRAGMA synchronous=FULL")
            stored = _stored_table_id(db)
            if stored is None:
                if readonly:
                    raise JournalUnavailable(
                        where,
                        "corrupt",
                        _MESSAGES["corrupt"].format(path=path, detail="no journal tables in it"),
                    )
                if table_id is None:
                    raise ValueError(f"a new journal ({path}) needs a table_id")
                _create(db, table_id)
                stored = table_id
            elif table_id is not None and table_id != stored:
                raise JournalUnavailable(
                    where,
                    "wrong_table",
                    f"Journal unavailable: {path} is the journal of table {stored!r}, "
                    f"not of table {table_id!r}. Point this table at its own journal file.",
                )
            select = _select_for(db, readonly)
            key = _table_key(
                db,
                path,
                stored,
                select,
                readonly=readonly,
                sealed=sealed,
                key_path=key_path_for(path) if key_path is None else key_path,
            )
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            raise _unavailable(path, exc) from exc
        except BaseException:
            if db is not None:
                db.close()
            raise
        return cls(
            db,
            path,
            stored,
            clock,
            readonly=readonly,
            key=key,
            head_path=head_path_for(path) if sealed else None,
            select=select,
        )

    def close(self) -> None:
        with self._lock:
            if self._head_kept:  # (a stop's rows recorded it already; this is the last word)
                with contextlib.suppress(JournalUnavailable, SealError, sqlite3.Error):
                    self.record_head()
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -------------------------------------------------------------------------------

    def append(self, kind: str, payload: Mapping[str, Any], round_id: int | None = None) -> Row:
        """Append one row and commit it (durably: WAL, synchronous FULL) before returning."""
        return self.append_many([(kind, payload)], round_id=round_id)[0]

    def append_many(
        self, entries: Iterable[tuple[str, Mapping[str, Any]]], round_id: int | None = None
    ) -> list[Row]:
        """Append several rows in one transaction: all of them are committed, or none."""
        return self.append_groups([(entries, round_id)])

    def append_groups(
        self, groups: Iterable[tuple[Iterable[tuple[str, Mapping[str, Any]]], int | None]]
    ) -> list[Row]:
        """Append groups of rows, each ``(entries, round_id)``, in order and in ONE transaction
        (one commit, one sync of the file): all of them are committed, or none. A table's cause
        (journalled with the round it came in) and its effects (with the round they leave) go
        together this way."""
        prepared: list[tuple[list[tuple[str, str]], int | None]] = []
        for entries, round_id in groups:
            _check_round_id(round_id)
            rows = [_prepare(kind, payload) for kind, payload in entries]
            if rows:
                prepared.append((rows, round_id))
        if not prepared:
            return []
        with self._lock:
            ts = format_ts(self._now())

            written = self._write(lambda: self._insert_groups(prepared, ts))
            self._last_at = parse_ts(ts)
            if self._rows_to_head is not None:
                self._rows_to_head += len(written)
            if self._head_kept and any(r.kind in _HEAD_KINDS for r in written):
                self._keep_head()
            return written

    # --- the head record (controller.journal.seal) ---------------------------------------------

    def record_head(self) -> Head | None:
        """Replace the head record with the journal's last row (None: the journal is not sealed,
        or has no row). Raises :class:`~controller.journal.seal.SealError` when it cannot be
        written."""
        key, where = self.key, self.head_path
        if key is None or where is None or self.readonly:
            return None
        with self._lock:
            last = self._read(lambda: self._db.execute(self._select + _LAST_ROW).fetchone())
            if last is None:
                return None
            if self._rows_to_head is None:
                self._rows_to_head = int(
                    self._read(lambda: self._db.execute("SELECT COUNT(*) FROM journal").fetchone())[
                        0
                    ]
                )
            head = Head(
                self.table_id, int(last[0]), str(last[7]), self._rows_to_head, format_ts(utc_now())
            )
            write_head(where, key, head)
            return head

    def _keep_head(self) -> None:
        try:
            self.record_head()
        except (SealError, JournalUnavailable) as exc:
            # (the rows are committed: a head record one round behind is only a weaker proof)
            log.error("journal head record not written", journal=str(self.path), error=str(exc))

    def head_problem(self) -> tuple[int | None, str] | None:
        """Why this journal is not the one the head record last saw (it is shorter, or does not
        extend it: an older copy, rows cut or re-dealt), as (first row concerned, why); None
        when it extends it, or there is no record to compare with and none is due."""
        key, where = self.key, self.head_path
        if key is None or where is None:
            return None
        try:
            head = read_head(where, key)
        except SealError as exc:
            return None, str(exc)
        return self._against_head(head, key, where)

    def _against_head(
        self, head: Head | None, key: TableKey, where: Path
    ) -> tuple[int | None, str] | None:
        """:meth:`head_problem` for the head record as read."""
        db = self._db
        last = db.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
        last_seq = 0 if last is None else int(last)
        if head is None:
            if last_seq < key.sealed_from:
                return None  # no sealed row yet: the first start with the key records one
            return (
                None,
                f"the journal's head record {where} is missing, though its rows are sealed "
                f"from row {key.sealed_from}: nothing shows this journal is the latest. Restore "
                f"the head record, or check the journal with `croupier audit verify --journal "
                f"{self.path}` and record its head with `croupier audit seal --journal "
                f"{self.path}`",
            )
        if head.table_id != self.table_id:
            return None, f"the journal's head record {where} is table {head.table_id!r}'s"
        if last_seq < head.seq:
            return (
                last_seq + 1,
                f"rolled back: the journal ends at row {last_seq}, but its head record {where} "
                f"saw {head.describe()}: this is an older copy of the journal, or rows were cut "
                "from its end",
            )
        found = db.execute("SELECT hash FROM journal WHERE seq = ?", (head.seq,)).fetchone()
        pruned_since = db.execute(
            "SELECT 1 FROM journal WHERE kind = 'anchor' AND seq > ? LIMIT 1", (head.seq,)
        ).fetchone()
        if found is None and pruned_since is None:
            return (
                head.seq,
                f"rolled back: row {head.seq}, the last its head record {where} saw, is not in "
                "the journal",
            )
        if found is not None and str(found[0]) != head.hash:
            return (
                head.seq,
                f"does not extend its head record: row {head.seq} is not the row {where} saw "
                f"({head.describe()}): the journal was rewritten or re-dealt from before it",
            )
        count = int(
            db.execute("SELECT COUNT(*) FROM journal WHERE seq <= ?", (head.seq,)).fetchone()[0]
        )
        if count != head.rows and not (pruned_since is not None and count < head.rows):
            return (
                None,
                f"the journal has {count} rows up to row {head.seq}, but its head record "
                f"{where} counted {head.rows}: rows were removed or added by hand",
            )
        return None

    def _now(self) -> datetime:
        """The wall clock, but never earlier than the last row (a clock set back, by hand or by
        a bad time server, must not put rows out of time order)."""
        now = self._clock()
        if not self._last_read:
            self._last_read = True
            with contextlib.suppress(sqlite3.Error, ValueError):  # (the write then says why)
                found = self._db.execute(self._select + _LAST_ROW).fetchone()
                self._last_at = None if found is None else parse_ts(str(found[1]))
        last = self._last_at
        if last is None or now >= last:
            self._clock_behind = False
            return now
        behind = last - now
        if behind > CLOCK_BACK_TOLERANCE and not self._clock_behind:
            self._clock_behind = True
            shown = timedelta(seconds=round(behind.total_seconds()))
            text = (
                f"the system clock went back {shown}: it reads {now:%Y-%m-%d %H:%M:%S}Z, "
                f"the journal's last row is at {last:%Y-%m-%d %H:%M:%S}Z. Journal times stay "
                "at the last row's until the clock catches up"
            )
            log.warning(
                "wall clock went back", behind_s=behind.total_seconds(), journal=str(self.path)
            )
            self._clock_reports.append(text)
        return last

    def clock_reports(self) -> list[str]:
        """What was found about the wall clock since the last call (each jump back once)."""
        with self._lock:
            reports, self._clock_reports = self._clock_reports, []
        return reports

    def check_writable(self) -> None:
        """Prove a real write works now (a committed write of :data:`PROBE_BYTES`, then removed).

        Raises :class:`JournalUnavailable` with the reason; call it before starting a round.
        """

        def probe() -> None:
            self._db.execute(
                "INSERT OR REPLACE INTO journal_probe (id, pad) VALUES (1, zeroblob(?))",
                (PROBE_BYTES,),
            )

        def clear() -> None:
            self._db.execute("DELETE FROM journal_probe")

        with self._lock:
            self._write(probe)
            self._write(clear)

    def prune(
        self, older_than: timedelta = DEFAULT_RETENTION, *, through_seq: int | None = None
    ) -> PruneResult:
        """Delete the rows older than ``older_than`` (and, given ``through_seq``, none after
        it: the last row the floor confirmed), after appending an ``anchor`` row.

        The anchor records the seq, hash and time of the last pruned row, so the chain still
        verifies from the first remaining row. A round is never split: if the cut would fall
        inside a round, that round's rows are all kept.
        """
        if older_than <= timedelta(0):
            raise ValueError(f"retention must be positive, got {older_than}")
        with self._lock:
            now = self._now()
            cutoff = format_ts(now - older_than)
            return self._write(lambda: self._prune(cutoff, format_ts(now), through_seq))

    def _write(self, work: Callable[[], T]) -> T:
        if self.readonly:
            raise JournalUnavailable(
                str(self.path),
                "read_only",
                _MESSAGES["read_only"].format(path=self.path, detail="opened read-only"),
            )
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work()
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise _unavailable(self.path, exc) from exc
        return result

    def _head(self) -> tuple[int, str]:
        found = self._db.execute("SELECT seq, hash FROM journal_head WHERE id = 1").fetchone()
        if found is None:
            raise JournalUnavailable(
                str(self.path),
                "corrupt",
                _MESSAGES["corrupt"].format(
                    path=self.path, detail="its head record is missing; run croupier audit verify"
                ),
            )
        return int(found[0]), str(found[1])

    def _insert_groups(
        self, groups: list[tuple[list[tuple[str, str]], int | None]], ts: str
    ) -> list[Row]:
        """Chain and insert groups of prepared rows, each ``(rows, round_id)``: one read of the
        head, one statement for every row and one update of the head, however many groups (a
        card's cause and effects are one commit; fewer calls into SQLite, fewer waits for the
        GIL on the way back from each)."""
        seq, prev = self._head()
        rows: list[Row] = []
        for prepared, round_id in groups:
            for kind, payload_json in prepared:
                seq += 1
                digest = row_hash(seq, ts, self.table_id, round_id, kind, payload_json, prev)
                mac = None if self.key is None else self.key.row_mac(digest)
                rows.append(
                    Row(
                        seq,
                        ts,
                        self.table_id,
                        round_id,
                        kind,
                        json.loads(payload_json),
                        prev,
                        digest,
                        payload_json,
                        mac,
                    )
                )
                prev = digest
        for start in range(0, len(rows), INSERT_ROWS):
            chunk = rows[start : start + INSERT_ROWS]
            self._db.execute(
                _INSERT + _MORE_VALUES * (len(chunk) - 1),
                [
                    value
                    for r in chunk
                    for value in (
                        r.seq,
                        r.ts,
                        r.table_id,
                        r.round_id,
                        r.kind,
                        r.payload_json,
                        r.prev_hash,
                        r.hash,
                        r.mac,
                    )
                ],
            )
        self._db.execute("UPDATE journal_head SET seq = ?, hash = ? WHERE id = 1", (seq, prev))
        return rows

    def _prune(self, cutoff: str, now: str, through_seq: int | None = None) -> PruneResult:
        db = self._db
        first = db.execute("SELECT MIN(seq) FROM journal").fetchone()[0]
        if first is None:
            return PruneResult(0, None)
        limit = "" if through_seq is None else f" OR seq > {int(through_seq)}"
        young = db.execute(
            f"SELECT seq, round_id FROM journal WHERE ts >= ?{limit} ORDER BY seq LIMIT 1",  # noqa: S608 (an int)
            (cutoff,),
        ).fetchone()
        if young is None:
            through = self._head()[0]
        else:
            through = int(young[0]) - 1
            if young[1] is not None:  # never split a round
                start = db.execute(
                    "SELECT MIN(seq) FROM journal WHERE round_id = ?", (young[1],)
                ).fetchone()[0]
                through = min(through, int(start) - 1)
        if through < first:
            return PruneResult(0, None)
        last_ts, last_hash = db.execute(
            "SELECT ts, hash FROM journal WHERE seq = ?", (through,)
        ).fetchone()
        count = db.execute("SELECT COUNT(*) FROM journal WHERE seq <= ?", (through,)).fetchone()[0]
        payload = {"seq": through, "hash": last_hash, "ts": last_ts, "pruned_rows": count}
        (anchor,) = self._insert_groups([([("anchor", canonical_json(payload))], None)], now)
        db.execute("DROP TRIGGER journal_no_delete")
        db.execute("DELETE FROM journal WHERE seq <= ?", (through,))
        db.execute(_NO_DELETE)
        if self._rows_to_head is not None:
            self._rows_to_head += 1 - int(count)  # (the anchor in, the pruned rows out)
        return PruneResult(int(count), anchor)

    # --- reading -------------------------------------------------------------------------------

    def last_row(self) -> Row | None:
        with self._lock:
            found = self._read(lambda: self._db.execute(self._select + _LAST_ROW).fetchone())
        return None if found is None else Row._from_db(found)

    def rows(
        self,
        since: datetime | None = None,
        round_id: int | None = None,
        kinds: Iterable[str] | None = None,
        *,
        after_seq: int = 0,
    ) -> list[Row]:
        """Rows in seq order: at or after ``since``, of ``round_id``, of the given kinds, with a
        seq above ``after_seq`` (all of them by default)."""
        return list(self.iter_rows(since, round_id, kinds, after_seq=after_seq))

    def iter_rows(
        self,
        since: datetime | None = None,
        round_id: int | None = None,
        kinds: Iterable[str] | None = None,
        *,
        after_seq: int = 0,
    ) -> Iterator[Row]:
        """Like :meth:`rows`, read in chunks (for exports of a large journal)."""
        where = ["seq > ?"]
        params: list[Any] = []
        if since is not None:
            where.append("ts >= ?")
            params.append(format_ts(since))
        if round_id is not None:
            where.append("round_id = ?")
            params.append(round_id)
        if kinds is not None:
            wanted = sorted(set(kinds))
            if not wanted:
                return
            where.append(f"kind IN ({', '.join('?' for _ in wanted)})")
            params.extend(wanted)
        # only fixed column names and ? placeholders are put into the text
        sql = f"{self._select} WHERE {' AND '.join(where)} ORDER BY seq LIMIT {_CHUNK}"
        after = after_seq
        while True:
            with self._lock:
                chunk = self._read(
                    lambda: self._db.execute(sql, (after, *params)).fetchall()  # noqa: B023
                )
            for values in chunk:
                yield Row._from_db(values)
            if len(chunk) < _CHUNK:
                return
            after = int(chunk[-1][0])

    def round_ids(self) -> list[int]:
        """The rounds in the journal, in the order they started."""
        with self._lock:
            found = self._read(
                lambda: self._db.execute(
                    "SELECT round_id FROM journal WHERE round_id IS NOT NULL "
                    "GROUP BY round_id ORDER BY MIN(seq)"
                ).fetchall()
            )
        return [int(r[0]) for r in found]

    def _read(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except sqlite3.Error as exc:
            raise _unavailable(self.path, exc) from exc

    # --- verification --------------------------------------------------------------------------

    def verify(self) -> VerifyResult:
        """Check the whole chain and name the first broken row (see :class:`VerifyResult`)."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN")  # one snapshot for the head and every row
                try:
                    return self._verify()
                finally:
                    db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise _unavailable(self.path, exc) from exc

    def verify_from_anchor(self) -> VerifyResult:
        """Check the chain from the last point a start verified (the whole chain the first
        time), and record the new verified point when it holds.

        The verified point (``journal_verified``: the seq and hash of a row) is a table of its
        own, not a journal row. A verified row that is gone or changed since, or a point that
        does not chain on, falls back to checking the whole chain, which names the first broken
        row. ``croupier audit verify`` and ``doctor`` always check everything.
        """
        with self._lock:
            db = self._db
            sealed = self.key is not None and self.head_path is not None
            try:
                db.execute("BEGIN")
                try:
                    if self.key is not None and self.head_path is not None:
                        # the verified point is the head record, outside the file: a point in
                        # the file could be moved by whoever rewrote the rows before it
                        try:
                            head = read_head(self.head_path, self.key)
                        except SealError as exc:
                            return VerifyResult(False, 0, None, str(exc))
                        problem = self._against_head(head, self.key, self.head_path)
                        if problem is not None:
                            # a forged row is named first; rows that all hold but do not
                            # extend the head are an older (or re-dealt) journal
                            whole = self._verify()
                            if not whole.ok:
                                return whole
                            return VerifyResult(False, 0, problem[0], problem[1])
                        point = None if head is None else (head.seq, head.hash)
                    else:
                        point = _verified_point(db)
                    result = self._verify_after(*point) if point is not None else None
                    if result is None or not result.ok:
                        result = self._verify()
                finally:
                    db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise _unavailable(self.path, exc) from exc
            seq, digest = result.last_seq, result.last_hash
            if not result.ok or self.readonly:
                return result
            if sealed:
                try:
                    self.record_head()
                except SealError as exc:
                    raise JournalUnavailable(
                        str(self.path),
                        "head",
                        f"Journal unavailable: {exc}. No round can start until the journal's "
                        "head record can be written.",
                    ) from None
                self._head_kept = True
            elif seq is not None and digest is not None:
                self._write(lambda: _record_verified(db, seq, digest))
            return result

    def _verify(self) -> VerifyResult:
        """The chain from row 1 (or from the first row after an anchor) to the head."""
        db = self._db
        head = db.execute("SELECT seq, hash FROM journal_head WHERE id = 1").fetchone()
        anchors: dict[int, Row] = {}
        bad_anchors: list[int] = []
        for values in db.execute(self._select + _ANCHOR_ROWS):
            anchor = Row._from_db(values)
            through = anchor.payload.get("seq")
            if anchor.computed_hash() != anchor.hash or not isinstance(through, int):
                bad_anchors.append(anchor.seq)
            else:
                anchors[through] = anchor
        return self._verify_rows(
            db.execute(self._select + _ALL_ROWS), None, head, anchors, bad_anchors
        )

    def _verify_after(self, seq: int, digest: str) -> VerifyResult | None:
        """The chain from a verified row (its seq and hash) to the head; None when that row is
        not as recorded (pruned, or changed since it was verified)."""
        db = self._db
        head = db.execute("SELECT seq, hash FROM journal_head WHERE id = 1").fetchone()
        found = db.execute(self._select + " WHERE seq = ?", (seq,)).fetchone()
        if found is None:
            return None
        start = Row._from_db(found)
        if start.hash != digest or start.computed_hash() != digest:
            return None
        rows = db.execute(self._select + " WHERE seq > ? ORDER BY seq", (seq,))
        return self._verify_rows(rows, start, head, {}, [])

    def _verify_rows(
        self,
        cursor: Iterable[tuple[Any, ...]],
        start: Row | None,
        head: tuple[Any, ...] | None,
        anchors: dict[int, Row],
        bad_anchors: list[int],
    ) -> VerifyResult:
        def fail(seq: int | None, reason: str, checked: int) -> VerifyResult:
            return VerifyResult(False, checked, seq, reason)

        checked = 0 if start is None else 1
        key = self.key
        sealed = 0  # rows whose MAC was checked under the key
        unchecked = 0  # rows with a MAC and no key to check it with
        previous: Row | None = start
        for values in cursor:
            row = Row._from_db(values)
            if previous is not None and row.seq != previous.seq + 1:
                missing = previous.seq + 1
                span = (
                    f"row {missing}" if row.seq == missing + 1 else f"rows {missing}..{row.seq - 1}"
                )
                return fail(
                    missing,
                    f"missing: {span} deleted (row {row.seq} follows row {previous.seq})",
                    checked,
                )
            if previous is None:
                problem = _check_start_gap(row, anchors, bad_anchors)
                if problem is not None:
                    return fail(*problem, checked)
            if row.computed_hash() != row.hash:
                return fail(
                    row.seq,
                    f"edited: its stored hash does not match its contents ({row.kind} row)",
                    checked,
                )
            if previous is None:
                problem = _check_start_link(row, anchors)
                if problem is not None:
                    return fail(*problem, checked)
            elif row.prev_hash != previous.hash:
                return fail(
                    row.seq,
                    f"out of chain: its prev_hash is not the hash of row {previous.seq}",
                    checked,
                )
            if key is None:
                unchecked += row.mac is not None
            elif row.mac is not None:
                if not hmac.compare_digest(row.mac, key.row_mac(row.hash)):
                    return fail(
                        row.seq,
                        f"forged: its MAC is not the table key's ({row.kind} row): it was "
                        "written, or hashed again after an edit, without the key",
                        checked,
                    )
                sealed += 1
            elif row.seq >= key.sealed_from:
                return fail(
                    row.seq,
                    f"unsealed: it has no MAC, but the table key seals every row from row "
                    f"{key.sealed_from} ({row.kind} row): it was written without the key",
                    checked,
                )
            checked += 1
            previous = row

        if head is None:
            return fail(None, "the journal head record is missing (journal_head edited)", checked)
        head_seq, head_hash = int(head[0]), str(head[1])
        last_seq = 0 if previous is None else previous.seq
        if head_seq > last_seq:
            first_missing = last_seq + 1 if previous is not None else 1
            return fail(
                first_missing,
                f"missing: rows {first_missing}..{head_seq} deleted from the end "
                f"(the journal head records row {head_seq})",
                checked,
            )
        if head_seq < last_seq:
            return fail(
                head_seq + 1,
                f"added outside the journal: the journal head records row {head_seq} as the last",
                checked,
            )
        if previous is not None and head_hash != previous.hash:
            return fail(
                previous.seq,
                "replaced: its hash differs from the one the journal head recorded",
                checked,
            )
        if key is not None:
            macs = f"{sealed} of them sealed under the table key {key.path}"
        elif unchecked:
            macs = f"{unchecked} of them sealed, their MACs not checked (no table key given)"
        else:
            macs = ""
        return VerifyResult(
            True,
            checked,
            last_seq=None if previous is None else previous.seq,
            last_hash=None if previous is None else previous.hash,
            macs=macs,
        )


def _select_for(db: sqlite3.Connection, readonly: bool) -> str:
    """The rows' select for this file: a journal made before rows had a MAC gets the column
    when it is opened for writing (its old rows have none), and is read without it."""
    columns = {str(c[1]) for c in db.execute("PRAGMA table_info(journal)")}
    if "mac" in columns:
        return _SELECT
    if readonly:
        return _SELECT_BEFORE_MAC
    db.execute("ALTER TABLE journal ADD COLUMN mac TEXT")
    return _SELECT


def _table_key(
    db: sqlite3.Connection,
    path: Path,
    table_id: str,
    select: str,
    *,
    readonly: bool,
    sealed: bool,
    key_path: Path,
) -> TableKey | None:
    """The key a journal is opened with (:meth:`Journal.open`'s ``sealed``)."""
    last = db.execute(select + _LAST_ROW).fetchone()
    last_sealed = last is not None and last[8] is not None
    if not sealed:
        if last_sealed and not readonly:
            raise JournalUnavailable(
                str(path),
                "sealed",
                f"Journal unavailable: {path} is sealed with a table key, and a row without "
                "its MAC would break it: it is written only with its key (as croupier run "
                "opens it).",
            )
        return None
    try:
        key = TableKey.load(key_path, table_id)
        if key is None and not readonly:
            if last_sealed:
                raise JournalUnavailable(
                    str(path),
                    "no_key",
                    f"Journal unavailable: the rows of {path} are sealed with a table key, but "
                    f"there is no key at {key_path}. Restore the key file (croupier's alone, "
                    "0600) from where it was kept; no round can start on a journal that cannot "
                    "be proven.",
                )
            seq = db.execute("SELECT seq FROM journal_head WHERE id = 1").fetchone()
            key = TableKey.make(key_path, table_id, 1 if seq is None else int(seq[0]) + 1)
    except SealError as exc:
        raise JournalUnavailable(
            str(path), "key", f"Journal unavailable: {exc}. No round can start until then."
        ) from None
    return key


def _verified_point(db: sqlite3.Connection) -> tuple[int, str] | None:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_verified'"
    ).fetchone()
    if exists is None:
        return None
    found = db.execute("SELECT seq, hash FROM journal_verified WHERE id = 1").fetchone()
    return None if found is None else (int(found[0]), str(found[1]))


def _record_verified(db: sqlite3.Connection, seq: int, digest: str) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS journal_verified ("
        "id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL)"
    )
    db.execute(
        "INSERT OR REPLACE INTO journal_verified (id, seq, hash) VALUES (1, ?, ?)", (seq, digest)
    )


def _check_start_gap(
    first: Row, anchors: Mapping[int, Row], bad_anchors: list[int]
) -> tuple[int, str] | None:
    """Does the first remaining row start the chain, or follow right after an anchor's row?"""
    if first.seq == 1 or first.seq - 1 in anchors:
        return None
    if bad_anchors:
        return bad_anchors[0], "edited: this anchor row's hash does not match its contents"
    covered = max((t for t in anchors if t < first.seq), default=0)
    span = (
        f"row {covered + 1}"
        if covered + 1 == first.seq - 1
        else f"rows {covered + 1}..{first.seq - 1}"
    )
    return covered + 1, f"missing: {span} deleted and no anchor row accounts for them"


def _check_start_link(first: Row, anchors: Mapping[int, Row]) -> tuple[int, str] | None:
    """Does the first remaining row chain from the genesis hash, or from the anchor's record?"""
    if first.seq == 1:
        if first.prev_hash != GENESIS_HASH:
            return 1, "out of chain: row 1's prev_hash is not the genesis hash"
        return None
    anchor = anchors[first.seq - 1]
    if first.prev_hash != anchor.payload.get("hash"):
        return (
            first.seq,
            f"out of chain: its prev_hash is not the hash anchor row {anchor.seq} recorded "
            f"for pruned row {first.seq - 1}",
        )
    return None


# --- helpers -------------------------------------------------------------------------------


def _prepare(kind: str, payload: Mapping[str, Any]) -> tuple[str, str]:
    if kind not in ROW_KINDS:
        raise ValueError(f"unknown journal row kind {kind!r}; kinds are {sorted(ROW_KINDS)}")
    if not isinstance(payload, Mapping):
        raise TypeError(f"a {kind!r} row's payload must be a dict, got {type(payload).__name__}")
    try:
        text = canonical_json(dict(payload))
        text.encode("utf-8")  # a lone surrogate cannot be stored or hashed
    except (TypeError, ValueError) as exc:
        raise TypeError(f"a {kind!r} row's payload is not plain JSON: {exc}") from exc
    return kind, text


def _check_round_id(round_id: object) -> None:
    if round_id is not None and (isinstance(round_id, bool) or not isinstance(round_id, int)):
        raise TypeError(f"round_id must be a whole number or None, got {round_id!r}")


def _stored_table_id(db: sqlite3.Connection) -> str | None:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_head'"
    ).fetchone()
    if exists is None:
        return None
    found = db.execute("SELECT table_id FROM journal_head WHERE id = 1").fetchone()
    if found is None:
        # the tables are there but the head row is gone: never start a second chain over it
        raise sqlite3.DatabaseError("its head record is missing; run croupier audit verify")
    return str(found[0])


def _create(db: sqlite3.Connection, table_id: str) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute(
            "INSERT OR IGNORE INTO journal_head (id, table_id, seq, hash) VALUES (1, ?, 0, ?)",
            (table_id, GENESIS_HASH),
        )
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _unavailable(path: Path, exc: sqlite3.Error) -> JournalUnavailable:
    code = getattr(exc, "sqlite_errorcode", None)
    detail = str(exc)
    cause = _SQLITE_CAUSES.get(code & 0xFF, "error") if isinstance(code, int) else "error"
    if isinstance(exc, sqlite3.IntegrityError) or "head record is missing" in detail:
        cause = "corrupt"  # rows or the head changed by hand: the chain cannot go on here
    if cause == "error":
        lowered = detail.lower()
        if "disk is full" in lowered:
            cause = "disk_full"
        elif "readonly" in lowered or "read-only" in lowered:
            cause = "read_only"
        elif "locked" in lowered:
            cause = "locked"
        elif "not a database" in lowered or "malformed" in lowered:
            cause = "corrupt"
    if cause in ("cannot_open", "error") and _read_only_place(path):
        cause = "read_only"
    return JournalUnavailable(str(path), cause, _MESSAGES[cause].format(path=path, detail=detail))


SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # what SQLite makes beside a database


def _make_private(path: Path) -> None:
    """Before SQLite opens the journal: its folders made 0700; the journal and the files SQLite
    keeps beside it refused when they are symbolic links or anything but plain files of ours,
    tightened to 0600 when others may read them (a journal made by older software was 0644);
    a new journal made 0600 (``O_EXCL | O_NOFOLLOW``), so that SQLite, which gives its -wal and
    -shm files the mode of the database, makes those 0600 too."""
    make_folders(path.parent if str(path.parent) else Path())
    for suffix in SQLITE_SIDE_FILES:
        check_private(path.with_name(path.name + suffix), "the journal's file")
    if not check_private(path, "the journal"):
        with contextlib.suppress(FileExistsError):  # (made since: checked as any other)
            os.close(open_private(path, os.O_RDWR, "the journal", new=True))
            return
    # O_NOFOLLOW: a link put there since is refused (read only: a read-only journal may still
    # be read, and a write then says it is read-only)
    os.close(open_private(path, os.O_RDONLY, "the journal"))


def _read_only_place(path: Path) -> bool:
    """Is the journal file, or the folder it needs for its -wal and -shm files, read-only?"""
    folder = path.parent if str(path.parent) else Path()
    if path.exists() and not os.access(path, os.W_OK):
        return True
    return folder.is_dir() and not os.access(folder, os.W_OK)
