"""Who may look at the floor: names with salted scrypt hashes (the table file's
``hash_secret``/``verify_secret``), lockouts, sessions, and every attempt recorded as a JSON line
(name, source, outcome, time; never the password).

The lockouts live in PostgreSQL (migration 0003, :class:`Lockouts`), so a restart of
``croupier floor serve`` forgets none: a name after ``max_wrong`` wrong passwords in a row, a
source address after ``max_wrong_per_source`` wrong passwords (any names) within
``lockout_seconds``. When the database cannot be reached nobody signs in (the page could show
nothing anyway)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from controller.table.config import verify_secret

# scrypt of a name nobody has, so an unknown name costs as much as a known one
_DUMMY_HASH = (
    "scrypt$16384$8$1$AAECAwQFBgcICQoLDA0ODw==$fR7H4sqJInOWpd6c5IR9Y75NRWNMIRL5XQFIV2IyB38="
)


@dataclass(frozen=True, slots=True)
class Attempt:
    accepted: bool
    text: str
    token: str | None = None


class Lockouts:
    """The floor's sign-in lockouts in PostgreSQL, through the floor role's own connection (it
    may call the three sign-in functions, and write nothing else)."""

    def __init__(self, conninfo: str, *, connect_timeout_s: int = 5) -> None:
        self.conninfo = conninfo
        self.connect_timeout_s = connect_timeout_s
        self._lock = threading.Lock()
        self._db: psycopg.Connection[Any] | None = None

    def locked(self, name: str, source: str) -> tuple[float, float]:
        """Seconds the name and the source are still locked for (0: not locked)."""
        found = self._call("SELECT * FROM croupier.signin_locked(%s, %s)", (name, source))
        return float(found[0]), float(found[1])

    def wrong(
        self, name: str, source: str, max_name: int, max_source: int, lockout_s: int
    ) -> tuple[bool, bool]:
        """Count a wrong password; whether the name, the source got locked by it."""
        found = self._call(
            "SELECT * FROM croupier.signin_wrong(%s, %s, %s, %s, %s)",
            (name, source, max_name, max_source, lockout_s),
        )
        return bool(found[0]), bool(found[1])

    def good(self, name: str) -> None:
        self._call("SELECT croupier.signin_good(%s)", (name,))

    def connect(self) -> None:
        """Connect now (a failure here is left for the first sign-in to report)."""
        with self._lock, contextlib.suppress(psycopg.OperationalError):
            self._connection()

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._db is None:
            self._db = psycopg.connect(
                self.conninfo,
                autocommit=True,
                connect_timeout=self.connect_timeout_s,
                application_name="croupier-floor-signin",
            )
        return self._db

    def _call(self, query: str, args: tuple[object, ...]) -> tuple[Any, ...]:
        with self._lock:
            for attempt in (1, 2):  # once more on a fresh connection after a lost one
                try:
                    found = self._connection().execute(query, args).fetchone()
                    return () if found is None else tuple(found)
                except psycopg.OperationalError:
                    self._drop()
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(psycopg.Error):
                db.close()


class FloorSignIn:
    def __init__(
        self,
        users: Mapping[str, str],
        *,
        lockouts: Lockouts,
        max_wrong: int,
        max_wrong_per_source: int,
        lockout_s: int,
        session_s: float,
        log_path: Path,
        clock: Callable[[], float] = time.time,
        surveillance: frozenset[str] = frozenset(),
    ) -> None:
        self.users = dict(users)
        self.surveillance = surveillance  # the names that may see the surveillance page
        self.lockouts = lockouts
        self.max_wrong = max_wrong
        self.max_wrong_per_source = max_wrong_per_source
        self.lockout_s = lockout_s
        self.session_s = session_s
        self.log_path = log_path
        self.clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[str, float]] = {}  # sha256(token) -> (name, expires)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("a"):
            pass

    def attempt(self, name: str, password: str, source: str) -> Attempt:
        """One sign-in (blocking: scrypt and PostgreSQL; call it off the event loop)."""
        name = name.strip()[:40]
        source = source[:100]
        now = self.clock()
        try:
            outcome, result = self._attempt(name, password, source, now)
        except psycopg.Error:
            outcome = Attempt(
                False, "the floor's database cannot be reached: nobody can sign in just now"
            )
            result = "database_unreachable"
        self._record(name, source, result, now)
        return outcome

    def _attempt(self, name: str, password: str, source: str, now: float) -> tuple[Attempt, str]:
        name_s, source_s = self.lockouts.locked(name, source)
        if source_s > 0:
            text = f"too many wrong passwords from here: signing in is locked for {source_s:,.0f} s"
            return Attempt(False, text), "source_locked"
        if name_s > 0:
            return Attempt(False, f"{name} is locked for {name_s:,.0f} s more"), "locked"
        stored = self.users.get(name)
        good = verify_secret(password, stored or _DUMMY_HASH) and stored is not None
        if good:
            self.lockouts.good(name)
            token = secrets.token_urlsafe(32)
            with self._lock:
                self._sessions[_key(token)] = (name, now + self.session_s)
            return Attempt(True, f"{name} signed in", token), "signed_in"
        name_locked, source_locked = self.lockouts.wrong(
            name, source, self.max_wrong, self.max_wrong_per_source, self.lockout_s
        )
        if source_locked:
            text = (
                "wrong name or password; too many from here: signing in is locked for "
                f"{self.lockout_s:,} s"
            )
            return Attempt(False, text), "wrong_then_source_locked"
        if name_locked:
            text = f"wrong name or password; {name} is locked for {self.lockout_s:,} s"
            return Attempt(False, text), "wrong_then_locked"
        return Attempt(False, "wrong name or password"), "wrong"

    def who(self, token: str | None) -> str | None:
        if not token:
            return None
        with self._lock:
            found = self._sessions.get(_key(token))
            if found is None:
                return None
            name, expires = found
            if expires < self.clock():
                del self._sessions[_key(token)]
                return None
            return name

    def watches(self, token: str | None) -> str | None:
        """The signed-in name if it has the surveillance role (None: nobody, or a pit user)."""
        name = self.who(token)
        return name if name is not None and name in self.surveillance else None

    def sign_out(self, token: str | None, source: str) -> None:
        if not token:
            return
        with self._lock:
            found = self._sessions.pop(_key(token), None)
        if found is not None:
            self._record(found[0], source, "signed_out", self.clock())

    def signed_in(self) -> list[str]:
        now = self.clock()
        with self._lock:
            return sorted({n for n, exp in self._sessions.values() if exp >= now})

    def _record(self, name: str, source: str, result: str, at: float) -> None:
        line = json.dumps(
            {"at": at, "name": name, "source": source, "result": result}, sort_keys=True
        )
        with self._lock, self.log_path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
