"""What the par sheet's speed rests on (issue 26): the cycle collector is paused while a sheet
is built, which costs no memory only because the analysis makes no reference cycles; and the
rules' answers shared by the analyses of one rule set at other deck counts (the payoffs also
under other split and double permissions) give back the very payoffs and facts, so an edge is
the same to the last bit whichever ran first, and no payoff reads a setting left out."""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.analysis import dealer, engine
from controller.analysis.engine import Analysis
from controller.analysis.parsheet import Request, build, shipped_strategy
from controller.analysis.shoe import Shoe
from controller.collector import collector_paused
from controller.game.rules import load_variant
from tests.cycles import cycles_made


def test_a_par_sheet_leaves_no_reference_cycle_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    # fresh dealer tables (their enumeration's recursion was a cycle) and fresh answers
    monkeypatch.setattr(dealer, "_TABLES", {})
    monkeypatch.setattr(engine, "_SHARED", {})
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    with cycles_made() as made:
        build(Request("uk-pontoon", {}, "shipped", contributions=False))
    assert made.found == 0, made.garbage[:20]


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
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    alone, _ = _edge(one_deck)  # every answer worked out by this analysis
    monkeypatch.setattr(dealer, "_TABLES", {})
    monkeypatch.setattr(engine, "_SHARED", {})
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    _edge({"shoe.decks": 2, "shoe.cut_card_reserve": 40})
    monkeypatch.setattr(dealer, "_TABLES", {})  # the dealer's per-shoe results cold again
    after, analysis = _edge(one_deck)  # the answers from the two-deck analysis
    assert len(engine._SHARED) == 1  # both rule sets, but for the decks, share them
    shared = next(iter(engine._SHARED.values()))
    assert all(any(f is g for g in shared.facts.values()) for f in analysis._facts.values())
    assert after.hex() == alone.hex()


def test_the_answers_are_not_shared_where_the_rules_differ_but_for_the_decks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "_SHARED", {})  # (not the answers other tests left)
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    six = load_variant("nz-pontoon")
    ties = load_variant("nz-pontoon", {"hands.ties": "dealer-wins"}, analysis=True)
    eight = load_variant("nz-pontoon", {"shoe.decks": 8}, analysis=True)
    assert engine.shared_answers(eight, 1000) is engine.shared_answers(six, 1000)
    assert engine.shared_answers(ties, 1000) is not engine.shared_answers(six, 1000)
    assert engine.shared_answers(six, 500) is not engine.shared_answers(six, 1000)
    # a rule of the splits: the same payoffs, facts of its own
    once = load_variant("nz-pontoon", {"split.max_hands": 2}, analysis=True)
    assert engine.shared_answers(once, 1000).payoffs is engine.shared_answers(six, 1000).payoffs
    assert engine.shared_answers(once, 1000).facts is not engine.shared_answers(six, 1000).facts


def test_rules_met_after_the_caches_were_cleared_still_share_their_payoffs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bounded caches are cleared together: an analysis asked after a clear gets the
    payoffs of the analyses of its rules asked before it (CI met a worker where the payoffs
    were cleared alone and two such analyses held two payoff tables)."""
    monkeypatch.setattr(engine, "_SHARED", {})
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    for n in range(engine.MAX_SHARED - 1):  # payoffs of rule sets met before, nearly full
        engine._PAYOFFS[("other rules", n)] = {}
    six = load_variant("nz-pontoon")
    ties = load_variant("nz-pontoon", {"hands.ties": "dealer-wins"}, analysis=True)
    once = load_variant("nz-pontoon", {"split.max_hands": 2}, analysis=True)
    first = engine.shared_answers(six, 1000)  # the payoffs' cache is full now
    engine.shared_answers(ties, 1000)  # so this clears it
    assert engine.shared_answers(once, 1000).payoffs is engine.shared_answers(six, 1000).payoffs
    assert engine.shared_answers(six, 1000) is not first  # (let go with the clear)


ROOT = Path(__file__).resolve().parents[2]
PAYING = ("controller/game/settlement.py", "controller/game/hands.py")


def _rules_reads(tree: ast.AST, name: str) -> Iterator[tuple[str, str, str]]:
    """(function, section, setting) of each ``name.section.setting`` read in ``tree``."""
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == name
            ):
                yield fn.name, node.value.attr, node.attr


def test_no_payoff_reads_a_setting_the_shared_payoffs_leave_out() -> None:
    """The payoffs are shared by rule sets that differ only in :data:`engine.NOT_PAID`
    (a par sheet's split and double toggles): settle_round, a hand's rank and odds must not
    read those settings (the dealer's drawing rule is the dealer's tables' own, whose example
    hands are in the key)."""
    left_out = {(section, name) for section, names in engine.NOT_PAID.items() for name in names}
    methods: set[str] = set()
    local: set[str] = set()
    trees = [ast.parse((ROOT / path).read_text(encoding="utf-8")) for path in PAYING]
    for tree in trees:
        local |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        local |= {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for tree in trees:
        for fn, section, name in _rules_reads(tree, "rules"):
            assert fn == "dealer_must_draw" or (section, name) not in left_out, (fn, section)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and getattr(func.value, "id", None) == "rules":
                methods.add(func.attr)  # a method of the rules: read below
                continue
            passes_rules = any(isinstance(a, ast.Name) and a.id == "rules" for a in node.args)
            if passes_rules:  # every function (or method) handed the rules is read here too
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                assert called in local, ast.dump(func)
    rules_tree = ast.parse((ROOT / "controller/game/rules.py").read_text(encoding="utf-8"))
    for fn, section, name in _rules_reads(rules_tree, "self"):
        if fn in methods:
            assert (section, name) not in left_out, (fn, section, name)
    assert methods  # (bonus_odds, super_bonus_amount)


def test_payoffs_are_shared_only_inside_a_par_sheet_and_let_go_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long-running process (the floor's remaining-shoe edges: one analysis per shoe left)
    keeps no payoffs between analyses; a par sheet's analyses share them while it is built."""
    monkeypatch.setattr(engine, "_SHARED", {})
    monkeypatch.setattr(engine, "_PAYOFFS", {})
    outside, _ = _edge({})
    assert all(not s.payoffs for s in engine._SHARED.values())
    with engine.payoffs_shared():
        inside, _ = _edge({})
        assert any(s.payoffs for s in engine._SHARED.values())
    assert engine._PAYOFFS == {}
    assert all(not s.payoffs for s in engine._SHARED.values())
    assert inside.hex() == outside.hex()
