"""A cause and its effects in one transaction: applied in memory, committed together, and taken
back whole when the journal cannot take them."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path
from typing import Any

import pytest

from controller.game.prompts import Prompt, PromptCode
from controller.journal.journaled import CAUSE_KINDS, JournaledTable
from controller.journal.store import Journal
from controller.play.event_hands import EventHands
from controller.play.scenario_file import ScriptedShoe
from controller.round.inputs import Bet, Decision, KeyedCard
from controller.table.app import InputResult, TableApp, TableOutput
from drivers.tbl21.events import DeviceEvent
from tests.scenario_file.test_scenarios import EXPECTED

from .sessions import journaled, net, play, rules_of, scenario

# What a table holds that no cause changes (the rules, the machine's wiring, the devices, the
# journal's sink) is left out of the comparison; everything else is compared field by field.
SHARED = frozenset({"rules", "_machine", "_handlers", "commands", "_on_output"})


def dump(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """Everything a value holds, as plain data (for comparing a table before and after)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes, enum.Enum)):
        return value
    if id(value) in seen:
        return "<cycle>"
    seen = seen | {id(value)}
    if isinstance(value, (list, tuple)):
        return [dump(v, seen) for v in value]
    if isinstance(value, dict):
        return sorted((repr(k), dump(v, seen)) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    if callable(value) and not hasattr(value, "__dict__"):
        return "<callable>"
    if dataclasses.is_dataclass(value) and not hasattr(value, "__dict__"):
        return [type(value).__name__, repr(value)]  # frozen, slotted: its repr is all of it
    fields = vars(value)
    return [
        type(value).__name__,
        sorted(
            (name, len(v) if name == "outputs" else dump(v, seen))
            for name, v in fields.items()
            if name not in SHARED
        ),
    ]


class FailingFirst:
    """The journaled table behind the EventTable protocol: every cause is first given while the
    journal cannot be written (SQLite in ``query_only`` mode refuses every write), and must then
    leave the table exactly as it was, show nothing and send nothing; then it is given again
    with the journal back."""

    def __init__(self, table: JournaledTable, shown: list[TableOutput]) -> None:
        self.table = table
        self.app: TableApp = table.app
        self.shown = shown
        self.refused = 0

    def _twice(self, call: Any) -> Any:
        db = self.table.journal._db
        before, shown, rows = dump(self.app), len(self.shown), self._rows()
        db.execute("PRAGMA query_only = 1")
        try:
            refused = call()
        finally:
            db.execute("PRAGMA query_only = 0")
        assert refused is False or (isinstance(refused, InputResult) and not refused.accepted)
        assert dump(self.app) == before
        told = self.shown[shown:]
        assert all(isinstance(p, Prompt) for p in told), told  # nothing else was shown
        assert {p.code for p in told if isinstance(p, Prompt)} <= {PromptCode.JOURNAL_UNAVAILABLE}
        assert self._rows() == rows
        self.refused += 1
        return call()

    def _rows(self) -> int:
        return sum(1 for _ in self.table.journal.iter_rows())

    def handle(self, event: DeviceEvent) -> bool:
        return bool(self._twice(lambda: self.table.handle(event)))

    def answer(self, call: Bet | Decision | KeyedCard) -> InputResult:
        result: InputResult = self._twice(lambda: self.table.answer(call))
        return result


def rows_of(path: Path) -> list[tuple[str, Any, int | None]]:
    journal = Journal.open(path, table_id="T1")
    try:
        return [(r.kind, r.payload, r.round_id) for r in journal.iter_rows()]
    finally:
        journal.close()


def test_a_card_and_its_effects_are_committed_in_one_transaction(tmp_path: Path) -> None:
    sc = scenario("nz_insurance")
    table = journaled(rules_of(sc), tmp_path / "j.sqlite3")
    assert isinstance(sc.shoe, ScriptedShoe)
    statements: list[str] = []
    table.journal._db.set_trace_callback(statements.append)  # SQLite's own record of its work
    before = sum(1 for _ in table.journal.iter_rows())
    EventHands(table, iter(sc.shoe.cards)).draw()  # the burn card
    table.journal._db.set_trace_callback(None)
    assert statements.count("COMMIT") == 1, [
        s for s in statements if s.startswith(("BEGIN", "COMMIT"))
    ]
    rows = table.journal.rows(after_seq=before)
    assert rows[0].kind == "device_event"
    assert rows[0].payload["type"] == "CardDrawn"
    assert len(rows) > 1
    assert all(r.kind not in CAUSE_KINDS for r in rows[1:])
    assert len({r.ts for r in rows}) == 1  # one transaction, one time


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_cause_the_journal_cannot_take_leaves_the_table_as_before_it_and_nothing_shown(
    name: str, tmp_path: Path
) -> None:
    sc = scenario(name)
    undisturbed = tmp_path / "undisturbed.sqlite3"
    expected = play(journaled(rules_of(sc), undisturbed), sc)
    shown: list[TableOutput] = []
    path = tmp_path / "refused-once.sqlite3"
    table = JournaledTable.start(rules_of(sc), Journal.open(path, table_id="T1"), show=shown.append)
    failing = FailingFirst(table, shown)
    started = len(table.journal.rows(kinds=CAUSE_KINDS))
    got = play(failing, sc)
    assert failing.refused == len(table.journal.rows(kinds=CAUSE_KINDS)) - started > 0
    assert net(got) == net(expected)
    # The refusals left no row, and the table wrote exactly what the undisturbed one did.
    assert rows_of(path) == rows_of(undisturbed)
