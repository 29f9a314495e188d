"""One running table per journal: an exclusive lock on a file next to the journal.

``croupier run`` takes :class:`JournalLock` before it reads or writes the journal and holds it
for the life of the process. The lock is ``flock(LOCK_EX | LOCK_NB)`` on ``<journal>.lock``
(the journal file itself is left to SQLite's own locks): the kernel drops it when the process
ends, however it ends, so a crash never leaves a stale lock behind. The file's contents say who
holds it (one JSON object: ``pid``, ``table_id``, ``display``, ``started``), so a second start
is refused with :class:`JournalInUse`, whose message names the running table's process, its
display address and how to stop it. The contents are only information: a leftover file with
nobody holding the lock is simply taken over.

The lock file is croupier's own: it is opened with ``O_NOFOLLOW`` and made 0600 (in a folder made
0700); a symbolic link, a hard link, anything but a plain file, or a file whose contents are not a
lock's (a journal someone linked or copied there) is refused with :class:`LockRefused` and never
truncated or written.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from controller.journal.errors import JournalUnavailable
from controller.table.private import PrivateFileError, make_folders, open_private


def lock_path(journal_path: Path) -> Path:
    """Where the lock of the journal at ``journal_path`` lives."""
    return journal_path.with_name(journal_path.name + ".lock")


class JournalInUse(JournalUnavailable):
    """Another running process holds the journal's lock (``holder``: what its lock file says)."""

    def __init__(self, path: Path, holder: dict[str, Any]) -> None:
        self.holder = holder
        pid = holder.get("pid")
        who = f"process {pid}" if isinstance(pid, int) else "another process"
        table = holder.get("table_id")
        display = holder.get("display") or "not yet serving"
        stop = (
            f"stop it with Ctrl-C in its terminal or `kill {pid}`"
            if isinstance(pid, int)
            else "stop the other croupier"
        )
        super().__init__(
            str(path),
            "in_use",
            f"Journal in use: {path} belongs to a table that is running now "
            f"({who}{f', table {table}' if table else ''}, display {display}). One journal "
            f"serves one running table: use that table, or {stop} before starting it here.",
        )


class LockRefused(JournalUnavailable):
    """The lock file's place holds something croupier did not make: nothing is written to it."""

    def __init__(self, journal_path: Path, why: str) -> None:
        super().__init__(
            str(journal_path),
            "bad_lock",
            f"Journal unavailable: {journal_path} cannot be locked because {why}. No round can "
            "start until then.",
        )


_LOCK_BYTES = 4096  # a lock file holds one short JSON object; anything longer is not a lock


class JournalLock:
    """The exclusive lock on one journal, held until :meth:`release` (or the process ends)."""

    def __init__(self, path: Path, fd: int, info: dict[str, Any]) -> None:
        self.path = path
        self._fd: int | None = fd
        self.info = info

    @classmethod
    def acquire(cls, journal_path: Path, *, table_id: str, display: str = "") -> Self:
        """Take the lock of the journal at ``journal_path`` or raise :class:`JournalInUse`
        (or :class:`JournalUnavailable` when the lock file cannot be made: a read-only folder).
        """
        path = lock_path(journal_path)
        try:
            make_folders(path.parent)
            try:
                fd = open_private(path, os.O_RDWR, "the lock file", new=True)
            except FileExistsError:
                fd = open_private(path, os.O_RDWR, "the lock file")
        except PrivateFileError as exc:
            raise LockRefused(journal_path, str(exc)) from exc
        except OSError as exc:
            read_only = isinstance(exc, PermissionError) or exc.errno == errno.EROFS
            why = "is read-only" if read_only else "cannot be written"
            raise JournalUnavailable(
                str(journal_path),
                "read_only" if read_only else "cannot_open",
                f"Journal unavailable: {journal_path} cannot be used because its folder "
                f"{path.parent} {why} (the lock file {path.name}: {exc.strerror or exc}). Give "
                "croupier write access to the folder; no round can start until then.",
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise JournalInUse(journal_path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            _check_contents(fd, path, journal_path)
        except BaseException:
            os.close(fd)
            raise
        info: dict[str, Any] = {
            "pid": os.getpid(),
            "table_id": table_id,
            "display": display,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        lock = cls(path, fd, info)
        lock._write()
        return lock

    def update(self, **info: Any) -> None:
        """Record more about the holder (the display's address once it is known)."""
        self.info.update(info)
        self._write()

    def _write(self) -> None:
        if self._fd is None:
            return
        data = (json.dumps(self.info, sort_keys=True) + "\n").encode("utf-8")
        with contextlib.suppress(OSError):  # information only: the lock itself is held
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        """Give the lock up (idempotent). The file stays; it is free for the next start."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the last descriptor releases the flock

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _check_contents(fd: int, path: Path, journal_path: Path) -> None:
    """Refuse (:class:`LockRefused`) a lock file whose contents are not a lock's: empty, or one
    JSON object of :data:`_LOCK_BYTES` at most. Such a file is never truncated."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    text = os.pread(fd, _LOCK_BYTES + 1, 0) if size <= _LOCK_BYTES else b""
    try:
        found = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        found = None
    if not isinstance(found, dict):
        raise LockRefused(
            journal_path,
            f"the lock file {path} holds something else than a lock ({size:,} bytes that are "
            "not croupier's): croupier never empties a file it did not make. Move it away and "
            "keep it (it may be a copy of a journal); croupier makes its own lock file at the "
            "next start",
        )


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        found = json.loads(text)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
