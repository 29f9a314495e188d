"""What the par sheet's speed rests on (issue 26): the cycle collector is paused while a sheet
is built, which costs no memory only because the analysis makes no reference cycles; and the
rules' answers shared by the analyses of one rule set at other deck counts give back the very
payoffs and facts, so an edge is the same to the last bit whichever ran first."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from controller.analysis import dealer, engine
from controller.analysis.engine import Analysis
from controller.analysis.parsheet import Request, build, collector_paused, shipped_strategy
from controller.analysis.shoe import Shoe
from controller.game.rules import load_variant


def test_a_par_sheet_leaves_no_reference_cycle_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    # fresh dealer tables (their enumeration's recursion was a cycle) and fresh answers
    monkeypatch.setattr(dealer, "_TABLES", {})
    monkeypatch.setattr(engine, "_SHARED", {})
    gc.collect()
    gc.disable()
    try:
        build(Request("uk-pontoon", {}, "shipped", contributions=False))
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 0, garbage[:20]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after_a_sheet(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("an analysis refused")
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def _edge(overrides: dict[str, Any]) -> tuple[float, Analysis]:
    shipped = load_variant("nz-pontoon")
    rules = load_variant("nz-pontoon", overrides, analysis=True)
    chart, _note = shipped_strategy(rules, shipped)
    analysis = Analysis(rules, Shoe.of_variant(rules), 1000, chart)
    return analysis.house_edge(), analysis


def test_the_answers_shared_across_deck_counts_give_the_same_edge_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_deck = {"shoe.decks": 1, "shoe.cut_card_reserve": 20}
    monkeypatch.setattr(dealer, "_TABLES", {})
    monkeypatch.setattr(engine, "_SHARED", {})
    alone, _ = _edge(one_deck)  # every answer worked out by this analysis
    monkeypatch.setattr(dealer, "_TABLES", {})
    monkeypatch.setattr(engine, "_SHARED", {})
    _edge({"shoe.decks": 2, "shoe.cut_card_reserve": 40})
    monkeypatch.setattr(dealer, "_TABLES", {})  # the dealer's per-shoe results cold again
    after, analysis = _edge(one_deck)  # the answers from the two-deck analysis
    assert len(engine._SHARED) == 1  # both rule sets, but for the decks, share them
    shared = next(iter(engine._SHARED.values()))
    assert all(any(f is g for g in shared.facts.values()) for f in analysis._facts.values())
    assert after.hex() == alone.hex()


def test_the_answers_are_not_shared_where_the_rules_differ_but_for_the_decks() -> None:
    six = load_variant("nz-pontoon")
    ties = load_variant("nz-pontoon", {"hands.ties": "dealer-wins"}, analysis=True)
    eight = load_variant("nz-pontoon", {"shoe.decks": 8}, analysis=True)
    assert engine.shared_answers(eight, 1000) is engine.shared_answers(six, 1000)
    assert engine.shared_answers(ties, 1000) is not engine.shared_answers(six, 1000)
    assert engine.shared_answers(six, 500) is not engine.shared_answers(six, 1000)
