"""Scenario files played through driver events straight into a (journaled) table."""

from __future__ import annotations

from pathlib import Path

from controller.game.rules import Variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.play.autoplay import RoundRecord, play_rounds
from controller.play.event_hands import EventHands, EventTable
from controller.play.scenario_file import Scenario, ScriptedShoe, load_scenario
from controller.play.scenario_runner import output_cursor, scenario_rules, scripted_rounds
from controller.table.app import TableApp

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def scenario(name: str) -> Scenario:
    return load_scenario(SCENARIOS / f"{name}.yaml")


def play(table: EventTable, sc: Scenario) -> list[RoundRecord]:
    assert isinstance(sc.shoe, ScriptedShoe)
    hands = EventHands(table, iter(sc.shoe.cards))
    records, _ = play_rounds(table.app.controller, hands, scripted_rounds(sc),
                             drain=output_cursor(table.app))  # fmt: skip
    return records


def net(records: list[RoundRecord]) -> dict[str, int]:
    out: dict[str, int] = {}
    for record in records:
        for e in record.ledger:
            out[e.player] = out.get(e.player, 0) + e.amount_cents
    return out


def journaled(rules: Variant, path: Path) -> JournaledTable:
    return JournaledTable.start(rules, Journal.open(path, table_id="T1"))


def plain(rules: Variant) -> TableApp:
    return TableApp(rules)


def rules_of(sc: Scenario) -> Variant:
    return scenario_rules(sc)
