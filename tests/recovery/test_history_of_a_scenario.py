"""``croupier history --json`` of a journaled scenario gives back its cards, decisions, ledger."""

import json
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.play.scenario_file import ScriptedShoe

from .sessions import journaled, play, rules_of, scenario


@pytest.mark.parametrize("name", ["nz_super_bonus", "nz_dealer_pontoon_against_split_and_double",
                                  "pa_peek_no_blackjack_then_play"])  # fmt: skip
def test_history_json_reproduces_the_scenario(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = scenario(name)
    path = tmp_path / "journal.sqlite3"
    table = journaled(rules_of(sc), path)
    [record] = play(table, sc)
    table.journal.close()
    assert main(["history", "--journal", str(path), "--json"]) == 0
    [recalled] = [r for r in json.loads(capsys.readouterr().out) if r["round"] == 1]
    # the cards in the order the shoe delivered them (the burn card of the new shoe first)
    assert isinstance(sc.shoe, ScriptedShoe)
    assert recalled["cards"] == [str(c) for c in sc.shoe.cards[: len(recalled["cards"])]]
    boxes = record.controller_round.boxes.values()
    on_table = sum(len(h.cards) for b in boxes for h in b.hands) + len(record.dealer_cards)
    assert len(recalled["cards"]) == 1 + on_table
    decisions = [d["action"] for d in recalled["decisions"]]
    for action in sc.rounds[0].actions:
        assert action.kind in decisions
    assert [(e["player"], e["kind"], e["amount_cents"]) for e in recalled["ledger"]] == [
        (e.player, e.kind.value, e.amount_cents) for e in record.ledger
    ]
    assert recalled["net_cents"] == sum(e.amount_cents for e in record.ledger)
