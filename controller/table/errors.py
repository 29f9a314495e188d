"""Errors of the table: panel keys that make no input."""

from __future__ import annotations


class EntryError(ValueError):
    """Keys that make no input (a wager position nobody holds); the text says why."""
