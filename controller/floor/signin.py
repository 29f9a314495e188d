"""Who may look at the floor: names with salted scrypt hashes (the table file's
``hash_secret``/``verify_secret``), a lockout after wrong passwords in a row, sessions, and every
attempt recorded as a JSON line (name, source, outcome, time; never the password)."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

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


class FloorSignIn:
    def __init__(
        self,
        users: Mapping[str, str],
        *,
        max_wrong: int,
        lockout_s: float,
        session_s: float,
        log_path: Path,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.users = dict(users)
        self.max_wrong = max_wrong
        self.lockout_s = lockout_s
        self.session_s = session_s
        self.log_path = log_path
        self.clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}
        self._sessions: dict[str, tuple[str, float]] = {}  # sha256(token) -> (name, expires)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("a"):
            pass

    def attempt(self, name: str, password: str, source: str) -> Attempt:
        name = name.strip()[:40]
        now = self.clock()
        with self._lock:
            until = self._locked_until.get(name, 0.0)
        if until > now:
            outcome = Attempt(False, f"{name} is locked for {until - now:,.0f} s more")
            self._record(name, source, "locked", now)
            return outcome
        stored = self.users.get(name)
        good = verify_secret(password, stored or _DUMMY_HASH) and stored is not None
        with self._lock:
            if good:
                self._wrong.pop(name, None)
                token = secrets.token_urlsafe(32)
                self._sessions[_key(token)] = (name, now + self.session_s)
                outcome = Attempt(True, f"{name} signed in", token)
                result = "signed_in"
            else:
                wrong = self._wrong.get(name, 0) + 1
                self._wrong[name] = wrong
                if wrong >= self.max_wrong:
                    self._locked_until[name] = now + self.lockout_s
                    self._wrong.pop(name, None)
                    outcome = Attempt(
                        False,
                        f"wrong name or password; {name} is locked for {self.lockout_s:,.0f} s",
                    )
                    result = "wrong_then_locked"
                else:
                    outcome = Attempt(False, "wrong name or password")
                    result = "wrong"
        self._record(name, source, result, now)
        return outcome

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
