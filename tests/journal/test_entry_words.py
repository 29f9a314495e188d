"""A journal row shown to a supervisor (the stopped table's screen, the terminal) reads as words:
what kind of row and its fields, never a Python dict."""

from __future__ import annotations

from controller.journal.errors import ENTRY_CHARS, KIND_WORDS, RecoveryMismatch, entry_words
from controller.journal.store import ROW_KINDS


def test_every_kind_of_journal_row_has_words() -> None:
    assert set(KIND_WORDS) == set(ROW_KINDS)


def test_an_entry_reads_as_its_kind_and_its_fields() -> None:
    said = entry_words(("note", {"device": "shoe", "text": "from another version"}))
    assert said == 'a note (device: "shoe", text: "from another version")'
    assert entry_words(None) == "nothing"
    assert entry_words(("round_end", {})) == "the end of a round"


def test_a_long_entry_is_cut_and_an_unknown_kind_is_named() -> None:
    said = entry_words(("ledger", {"lines": ["x" * 50] * 20}))
    assert said.startswith("a payment or collection (lines: ")
    assert len(said) < ENTRY_CHARS + 40
    assert said.endswith("\u2026)")
    assert entry_words(("mystery", {"a": 1})) == "a row of kind mystery (a: 1)"


def test_a_replay_mismatch_message_names_the_row_in_words() -> None:
    exc = RecoveryMismatch(60, ("note", {"device": "shoe"}), ("prompt", {"code": "deal"}))
    assert str(exc) == (
        'journal row 60 records a note (device: "shoe"), but replaying the journal gives a '
        'prompt to the dealer (code: "deal"): the round needs a supervisor\'s verification'
    )
    assert "{'" not in str(RecoveryMismatch(3, ("note", {"a": 1}), None))
