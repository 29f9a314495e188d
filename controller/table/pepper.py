"""A table's PIN pepper: the secret that makes a leaked table file's PIN hashes worthless.

A PIN is 6 to 12 digits (the panel has no other keys). Its salted scrypt hash costs about 47 ms
of one core to try (:data:`~controller.table.config.SCRYPT_N`), so whoever reads a table file
tries every 6-digit PIN in about 13 core-hours: a leaked file (a backup, a copy sent with a
support question) gives the supervisor's PIN away in an afternoon on a few computers. Longer
PINs help little at the panel (12 digits: about 1,500 core-years, but nobody keys 12 under
a supervisor's eye), so croupier keys every PIN hash with a **pepper**: 32 random bytes in a
file of their own, kept apart from the table file (``[access] pepper_path``, by default
``peppers/<table id>.pepper`` in croupier's state folder, see
:func:`~controller.table.private.state_folder`). A PIN hash made with it
(``scrypt+pepper$<pepper id>$N$r$p$salt$hash``) is scrypt of HMAC-SHA-256(pepper, PIN): without
the pepper, trying PINs against it is trying 2^256 keys. The pepper id (the first 16 hex digits
of an HMAC of a fixed label under the pepper) tells a pepper that is not the hash's from a wrong
PIN, and says nothing of the pepper.

``croupier passwd --pin ROLE --config FILE`` makes the table's pepper the first time (0600,
``O_EXCL``, ``O_NOFOLLOW``) and uses it from then on; ``croupier run`` reads it when a PIN hash
needs it, and refuses to start without it (a missing, foreign or damaged pepper, or one others
may read). What the pepper does not close (``docs/reliability.md`` row 7b): whoever reads both
files (croupier's own account, root) has the pre-pepper cost again.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from controller.table.errors import TableError
from controller.table.private import (
    PrivateFileError,
    make_folders,
    read_private_json,
    state_folder,
    write_private_json,
)

PIN_DIGITS = (6, 12)  # a PIN's length (digits only: the panel has no other keys)
PEPPER_BYTES = 32
_ID_LABEL = b"croupier pin pepper id\x00"
_PIN_LABEL = b"croupier pin\x00"
WHAT = "the table's PIN pepper"


class PepperError(TableError, ValueError):
    """The pepper cannot be used (``str`` says why and what to do)."""


def default_pepper_path(table_id: str) -> Path:
    """Where a table's pepper is kept unless ``[access] pepper_path`` names a file."""
    return state_folder() / "peppers" / f"{table_id}.pepper"


@dataclass(frozen=True, slots=True)
class Pepper:
    path: Path
    secret: bytes

    @property
    def id(self) -> str:
        """What a PIN hash made with this pepper names it by (says nothing of the secret)."""
        return hmac.new(self.secret, _ID_LABEL, hashlib.sha256).hexdigest()[:16]

    def key(self, pin: str) -> bytes:
        """What scrypt hashes in place of the PIN itself."""
        return hmac.new(self.secret, _PIN_LABEL + pin.encode("utf-8"), hashlib.sha256).digest()

    @classmethod
    def load(cls, path: Path) -> Pepper | None:
        """The pepper at ``path`` (None: no file); a damaged one, one others may read or one
        that is not a plain file of croupier's is refused (:class:`PepperError`)."""
        try:
            found = read_private_json(path, WHAT)
        except PrivateFileError as exc:
            raise PepperError(str(exc)) from None
        if found is None:
            return None
        text = found.get("pepper")
        try:
            secret = bytes.fromhex(text) if isinstance(text, str) else b""
        except ValueError:
            secret = b""
        if len(secret) != PEPPER_BYTES:
            raise PepperError(f"{WHAT} {path} is damaged or not croupier's")
        return cls(path, secret)

    @classmethod
    def load_or_make(cls, path: Path, table_id: str) -> tuple[Pepper, bool]:
        """The pepper at ``path``, made there first if there is none; and whether it was made."""
        found = cls.load(path)
        if found is not None:
            return found, False
        pepper = cls(path, secrets.token_bytes(PEPPER_BYTES))
        body = {
            "table_id": table_id,
            "pepper": pepper.secret.hex(),
            "made": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        try:
            make_folders(path.parent)
            write_private_json(path, body, WHAT)
        except PrivateFileError as exc:
            raise PepperError(str(exc)) from None
        except OSError as exc:
            raise PepperError(f"{WHAT} {path} cannot be made ({exc.strerror or exc})") from None
        return pepper, True
