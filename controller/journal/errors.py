"""Errors of the journal: it cannot be written or read, or its replay does not match it."""

from __future__ import annotations

from typing import Any

from controller.game.errors import CroupierError

Entry = tuple[str, dict[str, Any]]


class JournalUnavailable(CroupierError):
    """The journal cannot be opened, read or written: disk full, read-only, locked, corrupt.

    ``cause`` is a short code (``disk_full``, ``read_only``, ``locked``, ``corrupt``,
    ``cannot_open``, ``io_error``, ``wrong_table``) for code that reacts to it; the message says
    what happened to which file and what to do, and is meant for the display and the log. No
    round may start while the journal is unavailable.
    """

    def __init__(self, path: str, cause: str, message: str) -> None:
        self.path = path
        self.cause = cause
        super().__init__(message)


class RecoveryMismatch(CroupierError):
    """Replaying the journal does not give what the journal recorded: supervisor verification."""

    def __init__(self, seq: int, expected: Entry, replayed: Entry | None) -> None:
        self.seq = seq
        self.expected = expected
        self.replayed = replayed
        super().__init__(
            f"journal row {seq} records {expected[0]} {expected[1]}, but replaying the journal "
            f"gives {replayed if replayed is not None else 'nothing'}: the round needs a "
            "supervisor's verification"
        )


class RecordError(CroupierError, ValueError):
    """A record that cannot be read back: unknown type, missing field, or a wrong value."""
