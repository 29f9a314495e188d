"""The table key and the journal's head record: what makes a journal's chain provable.

The journal's own chain (:func:`controller.journal.store.row_hash`) is SHA-256 with no secret:
anyone who can write the file can change a row and hash every row after it again, and an older
copy of the file put back in its place is a chain that holds. Two files kept apart from the
journal file, readable by croupier alone (0600, ``O_NOFOLLOW``,
:mod:`controller.table.private`), close both ways:

- **The table key** (:class:`TableKey`, ``<journal>.key`` unless ``journal.key_path`` says
  elsewhere): 32 random bytes, made once for a journal, with the first row it seals
  (``sealed_from``). Every row from then on carries ``mac`` = HMAC-SHA-256(key, its hash), and
  since a row's hash covers the hash before it, a row's MAC vouches for every row before it.
  Changing a row and hashing the rest again needs the key; without it the first forged row is
  named (:meth:`TableKey.row_mac`).
- **The head record** (:class:`Head`, ``<journal>.head``, beside the lock): the last row a start
  verified or a round ended on (seq, hash), how many rows the journal had up to it, and a MAC of
  those under the key. It is replaced at once (a synced file renamed over the old one) at each
  start, each round's end and each stop. A start refuses a journal that is shorter than the head,
  or whose row at the head's seq is not the head's (:func:`head_problem`): a rolled-back or
  re-dealt journal.

What this does not close (``docs/reliability.md``): whoever can read the key (croupier's own
account, root) can forge both; an older journal put back together with the head file of its
time is a consistent pair (only the floor, which has every row already, tells). Keep the key out
of the journal's backups (``journal.key_path``) and ship the journal to the floor.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.journal.errors import JournalError
from controller.table.private import PrivateFileError, read_private_json, write_private_json

KEY_BYTES = 32
_ROW_LABEL = b"croupier journal row\x00"
_HEAD_LABEL = b"croupier journal head\x00"


class SealError(JournalError, ValueError):
    """The table key or the head record cannot be used (``str`` says why and what to do)."""


def key_path_for(journal: Path) -> Path:
    return journal.with_name(journal.name + ".key")


def head_path_for(journal: Path) -> Path:
    return journal.with_name(journal.name + ".head")


def _read_json(path: Path, what: str) -> dict[str, Any] | None:
    try:
        return read_private_json(path, what)
    except PrivateFileError as exc:
        raise SealError(str(exc)) from None


def _write_json(path: Path, body: dict[str, Any], what: str) -> None:
    try:
        write_private_json(path, body, what)
    except PrivateFileError as exc:
        raise SealError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class TableKey:
    """A journal's key: ``secret`` and the first row it seals (rows before it are the
    journal's from before it had a key, vouched for by the first sealed row's hash)."""

    path: Path
    table_id: str
    secret: bytes
    sealed_from: int

    def row_mac(self, digest: str) -> str:
        """HMAC-SHA-256 hex of a row's hash under the key."""
        return hmac.new(
            self.secret, _ROW_LABEL + digest.encode("ascii"), hashlib.sha256
        ).hexdigest()

    def head_mac(self, fields: dict[str, Any]) -> str:
        text = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("utf-8")
        return hmac.new(self.secret, _HEAD_LABEL + text, hashlib.sha256).hexdigest()

    @classmethod
    def load(cls, path: Path, table_id: str | None = None) -> TableKey | None:
        """The key at ``path`` (None: no file). A key of another table, one readable by
        others or a damaged file is refused (:class:`SealError`)."""
        found = _read_json(path, "the table key")
        if found is None:
            return None
        secret, owner, first = found.get("key"), found.get("table_id"), found.get("sealed_from")
        try:
            raw = bytes.fromhex(secret) if isinstance(secret, str) else b""
        except ValueError:
            raw = b""
        if len(raw) != KEY_BYTES or not isinstance(owner, str) or not isinstance(first, int):
            raise SealError(f"the table key {path} is damaged or not croupier's")
        if not _whole(first):
            raise SealError(f"the table key {path} is damaged or not croupier's")
        if table_id is not None and owner != table_id:
            raise SealError(
                f"the table key {path} is table {owner!r}'s, not table {table_id!r}'s: point "
                "journal.key_path at this table's own key"
            )
        return cls(path, owner, raw, first)

    @classmethod
    def make(cls, path: Path, table_id: str, sealed_from: int) -> TableKey:
        """A new key, written to ``path`` (which must not exist yet)."""
        if path.exists() or path.is_symlink():
            raise SealError(f"the table key {path} exists already: croupier never replaces one")
        key = cls(path, table_id, secrets.token_bytes(KEY_BYTES), sealed_from)
        _write_json(
            path,
            {
                "table_id": table_id,
                "key": key.secret.hex(),
                "sealed_from": sealed_from,
                "made": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            "the table key",
        )
        return key


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class Head:
    """The last row a start verified or a round ended on, as the head record keeps it."""

    table_id: str
    seq: int
    hash: str
    rows: int  # the journal's rows with a seq up to ``seq`` when it was recorded
    at: str  # when (UTC, ISO)

    def fields(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "seq": self.seq,
            "hash": self.hash,
            "rows": self.rows,
            "at": self.at,
        }

    def describe(self) -> str:
        return f"row {self.seq} (hash {self.hash[:16]}..., {self.rows} rows, recorded {self.at})"


def read_head(path: Path, key: TableKey) -> Head | None:
    """The head record at ``path`` (None: no file), its MAC checked under ``key``."""
    found = _read_json(path, "the journal's head record")
    if found is None:
        return None
    mac = found.pop("mac", None)
    try:
        head = Head(
            str(found["table_id"]),
            found["seq"],
            str(found["hash"]),
            found["rows"],
            str(found["at"]),
        )
    except KeyError:
        head = None
    if head is None or not _whole(head.seq) or not _whole(head.rows) or head.fields() != found:
        raise SealError(f"the journal's head record {path} is damaged or not croupier's")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, key.head_mac(head.fields())):
        raise SealError(
            f"the journal's head record {path} was not written with the table key "
            f"{key.path} (its MAC does not match): it was forged, or belongs to another key"
        )
    return head


def write_head(path: Path, key: TableKey, head: Head) -> None:
    """Replace the head record at once (synced, renamed over the old one, folder synced)."""
    fields = head.fields()
    _write_json(path, {**fields, "mac": key.head_mac(fields)}, "the journal's head record")
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return  # (the rename is done; a folder that cannot be opened cannot be synced)
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)
