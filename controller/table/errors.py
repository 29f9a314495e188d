"""Errors of the table: the base of its package's errors, and panel keys that make no input."""

from __future__ import annotations

from controller.game.errors import CroupierError
from controller.game.refusals import WhyNot


class TableError(CroupierError):
    """Base of the table package's errors (the CLI says them without a traceback)."""


class EntryError(TableError, ValueError):
    """Keys that make no input (a wager position nobody holds): ``why`` says why, as a value
    (its words: :func:`~controller.game.words.refusal_words`)."""

    def __init__(self, why: WhyNot) -> None:
        self.why = why
        super().__init__(why)

    def __str__(self) -> str:
        # (the words are imported when said: a kernel run imports this module, through the
        # private files, and not the dealer's words, tests/simulate/test_kernel_imports.py)
        from controller.game.words import refusal_words  # noqa: PLC0415

        return refusal_words(self.why)
