"""Errors of the journal: it cannot be written or read, or its replay does not match it."""

from __future__ import annotations

import json
from typing import Any

from controller.game.errors import CroupierError

Entry = tuple[str, dict[str, Any]]

# A journal row's kind, as a supervisor reads it.
KIND_WORDS = {
    "software": "the software's version",
    "device_event": "a device's event",
    "call": "a dealer's or supervisor's call",
    "set_aside": "a voided round set aside",
    "prompt": "a prompt to the dealer",
    "ledger": "a payment or collection",
    "state": "a change of the round's step",
    "input": "a press",
    "supervisor": "a supervisor's decision",
    "access": "a sign-in",
    "people": "a dealer or rated player at the table",
    "shoe_receipt": "the account of a shoe at its end",
    "day": "a step of the gaming day",
    "command": "a command",
    "device_command": "an order to a device",
    "round_start": "the start of a round",
    "round_end": "the end of a round",
    "note": "a note",
    "notice": "a notice to the dealer",
    "stop": "a stop of the table",
    "anchor": "a checked point of the record",
    "recovery": "a recovery",
    "config": "the table's configuration",
}
ENTRY_CHARS = 300  # a long payload is cut here (the journal row holds it whole)


def entry_words(entry: Entry | None) -> str:
    """A journal entry for the supervisor's screen and the terminal: what kind of row, then its
    fields as ``name: value`` (``nothing`` for no entry), e.g. ``a note (device: "shoe", text:
    "from another version")``."""
    if entry is None:
        return "nothing"
    kind, payload = entry
    fields = ", ".join(
        f"{name}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for name, value in payload.items()
    )
    if len(fields) > ENTRY_CHARS:
        fields = fields[: ENTRY_CHARS - 1] + "…"
    said = KIND_WORDS.get(kind, f"a row of kind {kind}")
    return f"{said} ({fields})" if fields else said


class JournalError(CroupierError):
    """Base of the journal package's errors (the CLI says them without a traceback)."""


class JournalUnavailable(JournalError):
    """The journal cannot be opened, read or written: disk full, read-only, locked, corrupt.

    ``cause`` is a short code (``disk_full``, ``read_only``, ``locked``, ``corrupt``,
    ``cannot_open``, ``io_error``, ``wrong_table``, ``in_use``: another running table holds it,
    :class:`controller.journal.lock.JournalInUse`) for code that reacts to it; the message says
    what happened to which file and what to do, and is meant for the display and the log. No
    round may start while the journal is unavailable.
    """

    def __init__(self, path: str, cause: str, message: str) -> None:
        self.path = path
        self.cause = cause
        super().__init__(message)


class RecoveryMismatch(JournalError):
    """Replaying the journal does not give what the journal recorded: supervisor verification."""

    def __init__(self, seq: int, expected: Entry, replayed: Entry | None) -> None:
        self.seq = seq
        self.expected = expected
        self.replayed = replayed
        super().__init__(
            f"journal row {seq} records {entry_words(expected)}, but replaying the journal "
            f"gives {entry_words(replayed)}: the round needs a supervisor's verification"
        )


class RecordError(JournalError, ValueError):
    """A record that cannot be read back: unknown type, missing field, or a wrong value."""


class ChainBroken(JournalError):
    """The journal's hash chain does not verify: a row was edited, deleted or added by hand.

    ``seq`` is the first broken row (None: the journal as a whole, e.g. its head record) and
    ``reason`` what is wrong with it (:meth:`controller.journal.store.VerifyResult.describe`).
    """

    def __init__(self, path: str, seq: int | None, reason: str) -> None:
        self.path = path
        self.seq = seq
        self.reason = reason
        where = "the journal" if seq is None else f"row {seq}"
        super().__init__(
            f"journal {path} fails its hash chain at {where}: {reason}. Nothing is replayed from "
            "a journal that was changed by hand: keep the file for investigation and call a "
            "supervisor (`croupier audit verify` shows the same)."
        )


class VariantConflict(JournalError):
    """The journal holds rounds of another variant than the one this start would deal."""

    def __init__(
        self, path: str, journal_variant: str, variant: str, open_round: int | None, last_round: int
    ) -> None:
        self.path = path
        self.journal_variant = journal_variant
        self.variant = variant
        self.open_round = open_round
        state = (
            f"round {open_round} of {journal_variant} is open in it"
            if open_round is not None
            else f"its last round, {last_round}, was {journal_variant}"
        )
        super().__init__(
            f"journal {path} is a {journal_variant} table's journal ({state}), but this start "
            f"would deal {variant}. Start with --variant {journal_variant} (or the table file's "
            f"variant = {journal_variant!r}) to go on with it, or give the {variant} table a "
            "journal of its own (journal.path in the table file)."
        )
