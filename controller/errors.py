"""Errors of the game layer. Each says what went wrong and, where it can, what to do."""

from __future__ import annotations


class CroupierError(Exception):
    """Base of every error the controller raises on purpose."""


class CardNotationError(CroupierError, ValueError):
    """A card written in anything other than the two-character notation."""


class ConfigError(CroupierError):
    """A configuration file (variant, table, strategy) that cannot be used.

    ``problems`` holds one line per problem, each naming the file, the key, the value and what
    is allowed.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{path}: {len(problems)} problem(s):\n{lines}")


class SettlementError(CroupierError):
    """Settlement was asked for something the rules do not allow (a bug or bad input)."""


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
