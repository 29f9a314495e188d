"""Errors of the table: the base of its package's errors, and panel keys that make no input."""

from __future__ import annotations

from controller.game.errors import CroupierError
from controller.game.refusals import WhyNot
from controller.game.words import refusal_words


class TableError(CroupierError):
    """Base of the table package's errors (the CLI says them without a traceback)."""


class EntryError(TableError, ValueError):
    """Keys that make no input (a wager position nobody holds): ``why`` says why, as a value
    (its words: :func:`~controller.game.words.refusal_words`)."""

    def __init__(self, why: WhyNot) -> None:
        self.why = why
        super().__init__(why)

    def __str__(self) -> str:
        return refusal_words(self.why)
