"""Files only croupier may read: made 0600 in folders made 0700, never through a symbolic link.

Everything croupier keeps about a table beside its journal (the journal and its SQLite -wal and
-shm files, the lock, the journal's head record, the table key) goes through these helpers:

- :func:`make_folders` makes the missing folders of a path 0700 (``Path.mkdir(parents=True)``
  would make the parents with the default mode);
- :func:`open_private` opens a file with ``O_NOFOLLOW`` (a symbolic link planted in its place is
  refused, never followed to the file it points at) and makes a new one 0600 (``O_EXCL`` where it
  must be new); :func:`check_private` refuses what is not a plain file of ours and tightens a
  file of ours that others may read to 0600.

:class:`PrivateFileError` says what is wrong with which file and what to do, in words; the
journal and the key turn it into their own refusal.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from controller.table.errors import TableError

FILE_MODE = 0o600
FOLDER_MODE = 0o700
STATE_ENV = "CROUPIER_STATE_DIR"
_JSON_LIMIT = 64 * 1024  # a key, head or pepper file is a few hundred bytes: more is not ours


def state_folder() -> Path:
    """croupier's own state folder (not made here): ``$CROUPIER_STATE_DIR`` if set, else
    ``$XDG_STATE_HOME/croupier``, else ``~/.local/state/croupier``."""
    named = os.environ.get(STATE_ENV)
    if named:
        return Path(named).expanduser().absolute()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "state"
    return base / "croupier"


class PrivateFileError(TableError, OSError):
    """A file croupier keeps to itself cannot be used (``text`` says why, in words)."""

    def __init__(self, path: Path, text: str) -> None:
        super().__init__(text)
        self.path = path
        self.text = text

    def __str__(self) -> str:
        return self.text


def make_folders(folder: Path) -> None:
    """Make ``folder`` and its missing parents, each 0700 (existing ones are left as they are)."""
    missing: list[Path] = []
    at = folder
    while not at.exists() and not at.is_symlink() and at != at.parent:
        missing.append(at)
        at = at.parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):
            each.mkdir(mode=FOLDER_MODE)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a plain file"


def check_private(path: Path, what: str, *, tighten: bool = True) -> bool:
    """Refuse ``path`` (:class:`PrivateFileError`) unless it is missing or a plain file of this
    user with one name (not a symbolic link, not a hard link to another file); a file of ours that
    others may read or write is made 0600 (``tighten``) or refused. True when it exists."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise PrivateFileError(
            path,
            f"{what} {path} is {_kind(info.st_mode)}, not a plain file: croupier never writes "
            "through it. Remove it (check first where it points and what put it there); "
            "croupier makes its own file there at the next start",
        )
    if info.st_nlink > 1:
        raise PrivateFileError(
            path,
            f"{what} {path} has {info.st_nlink} names (a hard link to another file): croupier "
            "never writes through it. Remove this name (check first what put it there); "
            "croupier makes its own file there at the next start",
        )
    if info.st_uid != os.geteuid():
        raise PrivateFileError(
            path,
            f"{what} {path} belongs to another user (uid {info.st_uid}): it must be croupier's "
            "own file. Give it to the user croupier runs as (chown), or remove it",
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        if not tighten:
            raise PrivateFileError(
                path,
                f"{what} {path} may be read by others (mode {stat.S_IMODE(info.st_mode):04o}): "
                f"make it readable by croupier alone with `chmod 600 {path}`",
            )
        try:
            os.chmod(path, FILE_MODE, follow_symlinks=False)
        except OSError as exc:
            if os.access(path, os.W_OK):
                raise PrivateFileError(
                    path,
                    f"{what} {path} may be read by others (mode "
                    f"{stat.S_IMODE(info.st_mode):04o}) and cannot be made private "
                    f"({exc.strerror or exc}): make it readable by croupier alone with "
                    f"`chmod 600 {path}`",
                ) from exc
            # a read-only file (or file system): croupier cannot write it, and says so then
    return True


def open_private(path: Path, flags: int, what: str, *, new: bool = False) -> int:
    """``os.open`` of ``path`` with ``O_NOFOLLOW`` (and ``O_CREAT``, 0600: ``O_EXCL`` when
    ``new``), after :func:`check_private`; a descriptor that is not a plain file is refused."""
    check_private(path, what)
    extra = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    if new:
        extra |= os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(path, flags | extra, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PrivateFileError(
                path,
                f"{what} {path} is a symbolic link: croupier never writes through it. Remove "
                "it (check first where it points and what put it there)",
            ) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            raise PrivateFileError(
                path, f"{what} {path} changed while it was opened: it is no plain file of ours"
            )
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private(path: Path, data: bytes, what: str) -> None:
    """Replace ``path`` with ``data`` at once: a new 0600 file beside it, synced, then renamed
    over it (a crash leaves the old file or the new one, never half of one)."""
    check_private(path, what)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()
    fd = open_private(temp, os.O_WRONLY, what, new=True)
    try:
        with os.fdopen(fd, "wb", closefd=False) as out:
            out.write(data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    os.close(fd)
    os.replace(temp, path)


def read_private_json(path: Path, what: str) -> dict[str, Any] | None:
    """The JSON object in a private file of croupier's, None when there is no file; a file
    others may read, not a plain file of ours, unreadable or damaged is refused
    (:class:`PrivateFileError`, naming ``what``)."""
    try:
        if not check_private(path, what, tighten=False):
            return None
        fd = open_private(path, os.O_RDONLY, what)
    except PrivateFileError:
        raise
    except OSError as exc:
        raise PrivateFileError(
            path, f"{what} {path} cannot be read ({exc.strerror or exc})"
        ) from None
    with os.fdopen(fd, "rb") as file:
        data = file.read(_JSON_LIMIT + 1)
    try:
        found = json.loads(data) if len(data) <= _JSON_LIMIT else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise PrivateFileError(
            path, f"{what} {path} is damaged or not croupier's (no JSON object in it)"
        )
    return found


def write_private_json(path: Path, body: dict[str, Any], what: str) -> None:
    """Replace ``path`` with ``body`` as JSON at once (:func:`write_private`); refused as
    :class:`PrivateFileError`, naming ``what``."""
    data = (json.dumps(body, sort_keys=True) + "\n").encode("utf-8")
    try:
        write_private(path, data, what)
    except PrivateFileError:
        raise
    except OSError as exc:
        raise PrivateFileError(
            path, f"{what} {path} cannot be written ({exc.strerror or exc})"
        ) from None
