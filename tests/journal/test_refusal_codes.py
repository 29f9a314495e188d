"""An input row keeps a refusal's code beside its words (issue 23, journal format 11): the
journal says which rule refused, not only the sentence the dealer read; a replay compares the
code from format 11 on, and rows of older formats (no code) replay as they were."""

from __future__ import annotations

from pathlib import Path

from controller.game.rules import load_variant
from controller.journal.journaled import JOURNAL_FORMAT, WHY_FORMAT, JournaledTable, _normal
from controller.journal.store import Journal
from controller.round.inputs import Bet
from drivers.tbl21.events import Button, ButtonPressed, DeviceRef, DeviceType

PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


def test_a_refused_inputs_row_holds_its_code_and_the_journal_replays_it(tmp_path: Path) -> None:
    assert JOURNAL_FORMAT >= WHY_FORMAT == 11
    path = tmp_path / "j.sqlite3"
    journal = Journal.open(path, table_id="T1")
    table = JournaledTable.start(load_variant("pa-blackjack"), journal)
    table.devices_ready()
    early = table.answer(Bet(1, "ann", 1000))  # the new shoe's burn card is still due
    assert not early.accepted
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=1, button=Button("B3_"), held_ms=0))
    rows = [r.payload for r in journal.iter_rows(kinds=["input"])]
    assert [(r["action"], r["why"], r["reason"]) for r in rows] == [
        ("bet", "not_now", "bet is not possible while burn cards are due"),
        (None, "key_box_not_now", "a box is chosen only for a decision, not while burn cards "
         "are due"),
    ]  # fmt: skip
    journal.close()
    again = JournaledTable.start(load_variant("pa-blackjack"), Journal.open(path))
    assert again.recovery is not None
    assert again.recovery.effects_written == 0  # every row matched, the codes too
    again.journal.close()


def test_an_input_row_written_before_the_code_was_kept_still_replays() -> None:
    """Format 10 journalled a refusal's words only; from 11 on its code too, compared."""
    old = ("input", {"action": "bet", "accepted": False, "reason": "no bets on the table"})
    new = ("input", {**old[1], "why": "no_bets"})
    other = ("input", {**old[1], "why": "bets_closed"})
    assert _normal(old, 10) == _normal(new, 10)
    assert _normal(old, 11) != _normal(new, 11)
    assert _normal(other, 11) != _normal(new, 11)  # a code is compared from format 11 on
