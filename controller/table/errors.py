"""Errors of the table: the base of its package's errors, and panel keys that make no input."""

from __future__ import annotations

from controller.game.errors import CroupierError


class TableError(CroupierError):
    """Base of the table package's errors (the CLI says them without a traceback)."""


class EntryError(TableError, ValueError):
    """Keys that make no input (a wager position nobody holds); the text says why."""
