"""Logging: structlog set up once for the whole process.

:func:`configure_logging` routes everything through one pipeline on the standard library's root
logger (structlog's ``ProcessorFormatter``):

- our own structlog loggers (``structlog.get_logger("croupier.table")``...),
- the standard-library records of other libraries: ``transitions`` (state machine) and pyserial
  (``serial``, ``pySerial.*``) included,

and renders each record for up to three places: as a JSON line in the audit log file
(``json_path``), readably on the console for a person (``console``), and readably in the debug log
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
the log, is the record that must not lose anything.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import structlog
from structlog.types import EventDict, Processor

WIRE_LOGGER = "croupier.wire"
OUR_LOGGERS = "croupier"  # ours: croupier and croupier.* (everything else is a library's)
DEBUG_LOG_MAX_BYTES = 10 * 1024 * 1024  # the debug log is rotated at this size...
DEBUG_LOG_BACKUPS = 5  # ... keeping this many old files (debug.log.1 ... debug.log.5)

_LEVELS = {
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "CRITICAL": logging.CRITICAL,
}


class _State:
    handlers: list[logging.Handler] = []  # noqa: RUF012 (module state, one instance)
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
) -> None:
    """Set up logging for the process. Calling it again with the same arguments changes
    nothing; with other arguments it replaces the previous set-up (never doubles a handler).

    ``console`` renders for a person on ``stream`` (stderr by default); ``json_path`` appends
    JSON lines to that file (its folder is created), without the libraries' chatter;
    ``debug_path`` writes every record at DEBUG, readably, to that file, rotated at
    ``debug_max_bytes`` with ``debug_backups`` old files kept.
    """
    numeric = _level(level)
    path = None if json_path is None else Path(json_path).resolve()
    debug = None if debug_path is None else Path(debug_path).resolve()
    signature = (
        console,
        path,
        numeric,
        id(stream) if stream is not None else None,
        debug,
        debug_max_bytes,
        debug_backups,
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
    if console:
        out = stream if stream is not None else sys.stderr
        handler: logging.Handler = logging.StreamHandler(out)
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=foreign,
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.dev.ConsoleRenderer(colors=_is_tty(out)),
                ],
            )
        )
        handlers.append(handler)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8")
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
        debug.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            debug, maxBytes=debug_max_bytes, backupCount=debug_backups, encoding="utf-8"
        )
        handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                foreign_pre_chain=foreign,
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.dev.ConsoleRenderer(colors=False),
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
