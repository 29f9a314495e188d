"""Logging: structlog set up once for the whole process.

:func:`configure_logging` routes everything through one pipeline on the standard library's root
logger (structlog's ``ProcessorFormatter``):

- our own structlog loggers (``structlog.get_logger("croupier.table")``...),
- the standard-library records of other libraries: ``transitions`` (state machine) and pyserial
  (``serial``, ``pySerial.*``) included,

and renders each record for up to three places: as a JSON line in the audit log file
(``json_path``, rotated at :data:`AUDIT_LOG_MAX_BYTES` with :data:`AUDIT_LOG_BACKUPS` old files
kept), readably on the console for a person (``console``), and readably in the debug log
(``debug_path``, the table file's ``[logs] debug``: everything at DEBUG, rotated at
:data:`DEBUG_LOG_MAX_BYTES` with :data:`DEBUG_LOG_BACKUPS` old files kept, so it never holds more
than about 60 MB). ``table_id``, ``shoe_id`` and ``round_id`` bound with :func:`bind_round`
(context variables) are added to every record logged from the same thread or task, foreign records
included. Raw bytes go to the separate ``croupier.wire`` logger at DEBUG and are shown only at
DEBUG (in the debug log, or anywhere when the level is DEBUG).

The audit log keeps what a person or a surveillance tool reads: our own records at its level,
and other libraries' records only from WARNING up. Their chatter (``transitions``' "Executed
callback ...", one record per callback of every state change) goes to the debug log only.

The audit log is for people and surveillance tools; the journal (:mod:`controller.journal`), not
the log, is the record that must not lose anything. So a log never stops the table:

- Both log files and their folders are croupier's alone: created 0600 (folders 0700), opened
  without following a symbolic link, an existing file readable by others made 0600.
- The same message from the same logger more than ``repeat_limit`` times in ``repeat_window_s``
  seconds (:data:`REPEAT_LIMIT` in :data:`REPEAT_WINDOW_S`) is written that many times, then once
  more as one line saying how many times it repeated (a flood of one line, "accept() out of
  system resource" 1,100 times a second, costs a line or two a second). Raw bytes on the wire
  logger are never collapsed (the debug log is bounded by its rotation).
- A log that cannot be written (a full disk) says so once on stderr and goes quiet (no
  "Logging error" traceback per record); it tries again every :data:`RETRY_S` seconds and says
  when it can be written again. :func:`log_failures` says which logs lost records.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import logging.handlers
import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import structlog
from structlog.types import EventDict, Processor

WIRE_LOGGER = "croupier.wire"
OUR_LOGGERS = "croupier"  # ours: croupier and croupier.* (everything else is a library's)
DEBUG_LOG_MAX_BYTES = 10 * 1024 * 1024  # the debug log is rotated at this size...
DEBUG_LOG_BACKUPS = 5  # ... keeping this many old files (debug.log.1 ... debug.log.5)
AUDIT_LOG_MAX_BYTES = 20 * 1024 * 1024  # the audit log too (the table file's [logs])
AUDIT_LOG_BACKUPS = 10
REPEAT_LIMIT = 10  # the same message more than this many times...
REPEAT_WINDOW_S = 10.0  # ... in this many seconds: the rest is one "repeated N times" line
RETRY_S = 30.0  # a log that cannot be written is tried again this often
# a write failed for the disk: the file is closed and opened again at the next try
_DISK_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG, errno.EROFS})
_MAX_TRACKED = 10_000  # distinct messages counted at once (a flood of distinct ones passes)

_LEVELS = {
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "CRITICAL": logging.CRITICAL,
}


class _State:
    handlers: list[logging.Handler] = []  # noqa: RUF012 (module state, one instance)
    failures: list[str] = []  # noqa: RUF012 (what each log that lost records said)
    signature: tuple[Any, ...] | None = None
    saved_root_level: int | None = None
    saved_wire_level: int | None = None


def _level(level: str | int) -> int:
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    found = _LEVELS.get(str(level).upper())
    if found is None:
        raise ValueError(f"log level {level!r} is not one of {', '.join(_LEVELS)}")
    return found


def _shared() -> list[Processor]:
    """What every record gets, ours and foreign ones alike."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        _timestamp,
    ]


def _timestamp(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
    """UTC ISO time; a foreign record keeps the time it was made (the same in every handler)."""
    if "timestamp" not in event_dict:
        record = event_dict.get("_record")
        at = (
            datetime.fromtimestamp(record.created, UTC)
            if isinstance(record, logging.LogRecord)
            else datetime.now(UTC)
        )
        event_dict["timestamp"] = at.isoformat(timespec="microseconds").replace("+00:00", "Z")
    return event_dict


def _no_library_chatter(record: logging.LogRecord) -> bool:
    """The audit log's filter: our records, and the libraries' warnings and errors."""
    ours = record.name == OUR_LOGGERS or record.name.startswith(OUR_LOGGERS + ".")
    return ours or record.levelno >= logging.WARNING


def configure_logging(
    console: bool = True,
    json_path: str | Path | None = None,
    level: str | int = "INFO",
    *,
    stream: TextIO | None = None,
    debug_path: str | Path | None = None,
    debug_max_bytes: int = DEBUG_LOG_MAX_BYTES,
    debug_backups: int = DEBUG_LOG_BACKUPS,
    audit_max_bytes: int = AUDIT_LOG_MAX_BYTES,
    audit_backups: int = AUDIT_LOG_BACKUPS,
    repeat_limit: int = REPEAT_LIMIT,
    repeat_window_s: float = REPEAT_WINDOW_S,
) -> None:
    """Set up logging for the process. Calling it again with the same arguments changes
    nothing; with other arguments it replaces the previous set-up (never doubles a handler).

    ``console`` renders for a person on ``stream`` (stderr by default); ``json_path`` appends
    JSON lines to that file (its folder is created), without the libraries' chatter, rotated
    at ``audit_max_bytes`` with ``audit_backups`` old files kept; ``debug_path`` writes every
    record at DEBUG, readably, to that file, rotated at ``debug_max_bytes`` with
    ``debug_backups`` old files kept. Files are 0600, new folders 0700. Each place writes the
    same message of the same logger at most ``repeat_limit`` times in ``repeat_window_s``
    seconds, then one line saying how often it repeated.
    """
    numeric = _level(level)
    # (absolute, not resolved: a log that is a symbolic link is refused, never followed)
    path = None if json_path is None else Path(json_path).absolute()
    debug = None if debug_path is None else Path(debug_path).absolute()
    signature = (
        console,
        path,
        numeric,
        id(stream) if stream is not None else None,
        debug,
        debug_max_bytes,
        debug_backups,
        audit_max_bytes,
        audit_backups,
        repeat_limit,
        repeat_window_s,
    )
    if signature == _State.signature:
        return
    _remove_handlers()

    root = logging.getLogger()
    wire = logging.getLogger(WIRE_LOGGER)
    if _State.saved_root_level is None:
        _State.saved_root_level = root.level
        _State.saved_wire_level = wire.level

    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_shared(),
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    foreign: list[Processor] = [*_shared(), structlog.stdlib.ExtraAdder()]
    handlers: list[logging.Handler] = []

    def repeats() -> Repeats:
        return Repeats(repeat_limit, repeat_window_s)

    if console:
        out = stream if stream is not None else sys.stderr
        handler: logging.Handler = _ConsoleHandler(out, "the console", repeats())
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=foreign,
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.dev.ConsoleRenderer(
                        colors=_is_tty(out), exception_formatter=structlog.dev.plain_traceback
                    ),
                ],
            )
        )
        handlers.append(handler)
    if path is not None:
        private_folder(path.parent)
        handler = _FileHandler(
            path, f"the audit log {path}", repeats(), audit_max_bytes, audit_backups
        )
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=foreign,
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer(ensure_ascii=False),
                ],
            )
        )
        handler.addFilter(_no_library_chatter)
        handlers.append(handler)
    for handler in handlers:
        handler.setLevel(numeric)
    if debug is not None:
        private_folder(debug.parent)
        handler = _FileHandler(
            debug, f"the debug log {debug}", repeats(), debug_max_bytes, debug_backups
        )
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=foreign,
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    # a plain traceback: rich's, loaded on first use, fails when the
                    # descriptors are exhausted (EMFILE), just when there is most to log
                    structlog.dev.ConsoleRenderer(
                        colors=False, exception_formatter=structlog.dev.plain_traceback
                    ),
                ],
            )
        )
        handler.setLevel(logging.DEBUG)
        handlers.append(handler)
    for handler in handlers:
        root.addHandler(handler)
    lowest = logging.DEBUG if debug is not None else numeric
    root.setLevel(lowest)
    # raw bytes are logged at DEBUG: only where DEBUG records go
    wire.setLevel(logging.DEBUG if lowest <= logging.DEBUG else logging.INFO)
    _State.handlers = handlers
    _State.failures = []
    _State.signature = signature


def reset_logging() -> None:
    """Undo :func:`configure_logging`: remove its handlers, restore levels and structlog."""
    _remove_handlers()
    if _State.saved_root_level is not None:
        logging.getLogger().setLevel(_State.saved_root_level)
        logging.getLogger(WIRE_LOGGER).setLevel(_State.saved_wire_level or logging.NOTSET)
    _State.saved_root_level = None
    _State.saved_wire_level = None
    _State.signature = None
    structlog.reset_defaults()


def _remove_handlers() -> None:
    root = logging.getLogger()
    for handler in _State.handlers:
        root.removeHandler(handler)
        handler.close()
    _State.handlers = []
    _State.signature = None


def log_failures() -> list[str]:
    """What each log that could not be written (and lost records) said, since the last
    :func:`configure_logging`; kept after :func:`reset_logging` (a command's last word)."""
    return list(_State.failures)


# --- files and folders of croupier's alone ------------------------------------------------------

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def private_folder(path: Path) -> None:
    """Make ``path`` and any missing folder above it, each 0700 (an existing one is left)."""
    missing: list[Path] = []
    at = path
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_FOLDER)
            os.chmod(folder, PRIVATE_FOLDER)  # (mkdir's mode is cut by the umask, never widened)


def open_private(path: Path, *, encoding: str = "utf-8") -> io.TextIOWrapper:
    """``path`` for appending text, created 0600, never through a symbolic link nor through a
    second name of another file (a hard link); a file of ours that others may read is made 0600
    (an older croupier created its logs 0644)."""
    # (read too: whether its last line was cut short)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(path, flags, PRIVATE_FILE)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_nlink > 1:  # another name of this file is another file of someone's
            raise OSError(
                f"{path} has {info.st_nlink} names (a hard link to another file): croupier "
                "never writes through it. Remove this name (check first what put it there)"
            )
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            os.fchmod(fd, PRIVATE_FILE)
        return open(fd, "a", encoding=encoding, closefd=True)
    except BaseException:
        os.close(fd)
        raise


def _cut_short(fd: int) -> bool:
    """Whether the file ends in the middle of a line."""
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


# --- handlers that neither flood nor fail loudly ------------------------------------------------


class Repeats:
    """Counts each (logger, level, message) in windows of ``window_s`` seconds: the first
    ``limit`` of a window pass, the rest are counted and come back as one summary record when
    the window is over (at the next record, or at :meth:`flush`)."""

    def __init__(
        self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if limit < 1 or window_s <= 0:
            raise ValueError(f"repeat limit {limit} and window {window_s} must be positive")
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._lock = threading.Lock()
        # key -> [window start, records seen in it, the first record]
        self._seen: dict[tuple[str, int, str], list[Any]] = {}
        self._next_sweep = 0.0

    def admit(self, record: logging.LogRecord) -> tuple[bool, list[logging.LogRecord]]:
        """Whether ``record`` is written, and the summaries of windows over, to write first."""
        if record.name == WIRE_LOGGER or record.name.startswith(WIRE_LOGGER + "."):
            return True, []
        key = (record.name, record.levelno, _message(record))
        now = self._clock()
        with self._lock:
            summaries = self._sweep(now) if now >= self._next_sweep else []
            entry = self._seen.get(key)
            if entry is not None and now - entry[0] >= self.window_s:
                summaries.extend(self._summary(key, entry))
                entry = None
            if entry is None:
                if len(self._seen) < _MAX_TRACKED:
                    self._seen[key] = [now, 1, record]
                return True, summaries
            entry[1] += 1
            return entry[1] <= self.limit, summaries

    def flush(self) -> list[logging.LogRecord]:
        """The summaries of every window still counting (at the end)."""
        with self._lock:
            summaries: list[logging.LogRecord] = []
            for key, entry in self._seen.items():
                summaries.extend(self._summary(key, entry))
            self._seen.clear()
            return summaries

    def _sweep(self, now: float) -> list[logging.LogRecord]:
        self._next_sweep = now + min(1.0, self.window_s)
        over = [k for k, e in self._seen.items() if now - e[0] >= self.window_s]
        summaries: list[logging.LogRecord] = []
        for key in over:
            summaries.extend(self._summary(key, self._seen.pop(key)))
        return summaries

    def _summary(self, key: tuple[str, int, str], entry: list[Any]) -> list[logging.LogRecord]:
        more = entry[1] - self.limit
        if more <= 0:
            return []
        name, level, message = key
        text = f"{message[:200]} (repeated {more} more times in {self.window_s:g} s, not written)"
        summary = logging.LogRecord(name, level, "", 0, text, None, None)
        summary.repeated = more
        return [summary]


def _message(record: logging.LogRecord) -> str:
    """The message of a record, what makes two records "the same": a structlog event's name,
    the first line of a foreign record's text (asyncio adds lines that differ every time, such
    as a timer's due time, under the same first line)."""
    if isinstance(record.msg, dict):
        return str(record.msg.get("event", ""))
    try:
        text = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: its template
        text = str(record.msg)
    return text.split("\n", 1)[0]


class _Guarded(logging.Handler):
    """What both handlers add: the repeat limit, and silence once the place cannot be written
    (said once on stderr, tried again every :data:`RETRY_S` seconds)."""

    def _guard(self, what: str, repeats: Repeats) -> None:
        self.what = what
        self.repeats = repeats
        self.broken: str | None = None  # why it cannot be written, while it cannot
        self.lost = 0  # records not written since it broke
        self._retry_at = 0.0
        self._failed = False
        self._said_unrendered = False

    def handle(self, record: logging.LogRecord) -> bool:
        if self.broken is not None and time.monotonic() < self._retry_at:
            self.lost += 1
            return False
        if not self.filter(record):  # (not counted as a repeat where it is not written)
            return False
        admitted, summaries = self.repeats.admit(record)
        with self.lock if self.lock is not None else contextlib.nullcontext():
            for summary in summaries:
                self._emit_guarded(summary)
            return self._emit_guarded(record) if admitted else False

    def _emit_guarded(self, record: logging.LogRecord) -> bool:
        self._failed = False
        written = bool(super().handle(record))
        if self._failed:
            if self.broken is not None:
                self.lost += 1
        elif self.broken is not None:
            _say(f"croupier: {self.what} can be written again ({self.lost} records were lost)")
            self.broken = None
            self.lost = 0
        return written and not self._failed

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        """Instead of a traceback per record: say once that this place cannot be written."""
        error = sys.exc_info()[1]
        self._failed = True
        if not isinstance(error, OSError):
            # a record that cannot be rendered (a mistake in the call that made it): it alone
            # is left out, said once
            if not self._said_unrendered:
                self._said_unrendered = True
                _say(
                    f"croupier: a record of {record.name} could not be rendered for {self.what} "
                    f"({type(error).__name__}: {error}): such records are left out"
                )
            return
        self._retry_at = time.monotonic() + RETRY_S
        if error.errno in _DISK_ERRORS:
            self._drop_stream()
        if self.broken is None:
            reason = _reason(error)
            self.broken = reason
            note = f"{self.what} cannot be written ({reason})"
            _State.failures.append(note)
            _say(
                f"croupier: {note}: nothing more is written to it until it can be (tried "
                f"again every {RETRY_S:g} s)"
            )

    def _drop_stream(self) -> None:
        """A file whose writes failed is closed (what its buffer held is lost) and opened
        again at the next try."""

    def close(self) -> None:
        for summary in self.repeats.flush():
            if self.broken is None:
                self._emit_guarded(summary)
        try:
            super().close()
        except OSError as exc:  # the last buffered lines could not be written
            if self.broken is None:
                note = f"{self.what} cannot be written ({_reason(exc)})"
                _State.failures.append(note)
                _say(f"croupier: {note}: its last lines are lost")
                self.broken = note


def _reason(error: BaseException | None) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower() if error.errno is not None else error.strerror
    return str(error) if error is not None else "unknown error"


def _say(text: str) -> None:
    """One line on stderr, if stderr itself can be written."""
    with contextlib.suppress(Exception):
        print(text, file=sys.__stderr__ or sys.stderr, flush=True)


class _ConsoleHandler(_Guarded, logging.StreamHandler):  # type: ignore[type-arg]
    def __init__(self, stream: TextIO, what: str, repeats: Repeats) -> None:
        logging.StreamHandler.__init__(self, stream)
        self._guard(what, repeats)


class _FileHandler(_Guarded, logging.handlers.RotatingFileHandler):
    """A rotated log file of croupier's alone (0600, never through a symbolic link)."""

    def __init__(
        self, path: Path, what: str, repeats: Repeats, max_bytes: int, backups: int
    ) -> None:
        self._guard(what, repeats)
        logging.handlers.RotatingFileHandler.__init__(
            self, path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8"
        )

    def _open(self) -> io.TextIOWrapper:
        stream = open_private(Path(self.baseFilename), encoding=self.encoding or "utf-8")
        if _cut_short(stream.fileno()):
            stream.write("\n")  # a line cut short by a full disk: the next one starts afresh
        return stream

    def _drop_stream(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.close()


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


# --- per-round context -----------------------------------------------------------------------


def bind_round(
    *, table_id: str | None = None, shoe_id: str | None = None, round_id: int | None = None
) -> None:
    """Add these ids to every record logged from now on in this thread/task (None: unchanged)."""
    values = {"table_id": table_id, "shoe_id": shoe_id, "round_id": round_id}
    structlog.contextvars.bind_contextvars(**{k: v for k, v in values.items() if v is not None})
