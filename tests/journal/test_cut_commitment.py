"""Journal format 14: a new shoe's ``new_shoe`` order carries the cut position the table commits
before the shoe's first card, and a cut card out past its tolerance is noted. A journal of an
older format (its orders carry nothing, its cut cards were not checked) replays as it was
written: the replay neither adds the position nor the note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    CutCard,
    CutKind,
)
from tests.round.walk import PANEL, SHOE

RULES = load_variant("pa-blackjack")  # 6 x 52 - 78: the table commits the cut after card 234


def _shoe_change(path: Path, journal_format: int, cut_at: int) -> list[tuple[str, dict[str, Any]]]:
    """A table writing ``journal_format`` sees the cut card come out after ``cut_at`` cards and
    the dealer asks for a new shoe; the journal's order and notes of it."""
    journal = Journal.open(path, table_id="T1")
    journal.append("software", {"version": "test", "journal_format": journal_format})
    table = JournaledTable.start(RULES, journal)
    table.app.commits_cut = journal_format >= 14  # as the software of that format wrote
    table.devices_ready()
    first = Card.parse("2C")
    table.handle(
        CardDrawn(device=SHOE, at=0.0, seq=1, card=first, draw_no=1, remaining=311, quality=99)
    )
    table.handle(CutCard(device=SHOE, at=0.0, seq=2, draw_no=cut_at, kind=CutKind.PHYSICAL))
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=3, button=Button.SHUFFLE, held_ms=0))
    rows = [
        (r.kind, dict(r.payload))
        for r in journal.iter_rows(kinds=["device_command", "note"])
        if r.payload.get("command") == "new_shoe" or "cut card" in str(r.payload.get("text"))
    ]
    journal.close()
    return rows


def _replayed(path: Path) -> int:
    journal = Journal.open(path, table_id="T1")
    table = JournaledTable.start(RULES, journal)
    assert table.recovery is not None
    written = table.recovery.effects_written
    journal.close()
    return written


def test_format_14_commits_the_cut_on_the_order_and_notes_a_cut_card_out_of_place(
    tmp_path: Path,
) -> None:
    rows = _shoe_change(tmp_path / "j.sqlite3", 14, cut_at=5)
    assert ("device_command", {"device": "shoe", "command": "new_shoe", "args": ["234"]}) in rows
    notes = [p["text"] for kind, p in rows if kind == "note"]
    assert notes == [
        "cut card (physical) came out after card 5, not at the position committed before the "
        "shoe's first card (234, within 13): this shoe's shuffle point is not the one the "
        "journal holds"
    ]
    assert _replayed(tmp_path / "j.sqlite3") == 0  # every row matched, none missing


def test_a_cut_card_within_the_tolerance_is_not_noted(tmp_path: Path) -> None:
    rows = _shoe_change(tmp_path / "j.sqlite3", 14, cut_at=234 - 13)
    assert [kind for kind, _ in rows] == ["device_command"]


@pytest.mark.parametrize("journal_format", [10, 13])
def test_an_older_journal_replays_without_the_cut_position_or_its_check(
    tmp_path: Path, journal_format: int
) -> None:
    rows = _shoe_change(tmp_path / "j.sqlite3", journal_format, cut_at=5)
    assert rows == [("device_command", {"device": "shoe", "command": "new_shoe", "args": []})]
    assert _replayed(tmp_path / "j.sqlite3") == 0
