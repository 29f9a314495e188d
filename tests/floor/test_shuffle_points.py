"""The journal proves each shoe's shuffle point was set before its cards were seen (issue 24,
point 3; journal format 14): the table commits the cut position (decks x deck size - the cut
card reserve) on the ``new_shoe`` order, and on the ``config`` row of a start for the shoe
already loaded, before the shoe's first card; a cut card that comes out away from it (past the
tolerance of its kind) is noted, and the floor's reading of the rows flags that shoe.

Played through the production wiring (:func:`emulated_table`: the emulated devices, the
drivers, the journaled table, a real journal), one 48-card deck of nz-pontoon (cut after 36)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.floor.advantage import read_table
from controller.game.rules import Variant, load_variant
from controller.journal.store import Row
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.scenario_file import SeededShoe
from controller.play.scenario_runner import emulated_table, output_cursor
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.table.shoewatch import committed_cut, cut_tolerance

ONE_DECK = {"shoe.decks": 1}


def _rules() -> Variant:
    return load_variant("nz-pontoon", ONE_DECK)


def _play(rules: Variant, cut: int, rounds: int) -> list[Row]:
    """``rounds`` rounds of one basic-strategy player at box 1 on a seeded shoe whose physical
    cut card the dealer placed after ``cut`` cards; the journal's rows."""
    with emulated_table(rules, SeededShoe(seed=7, cut=cut)) as hands:
        player = StrategyPlayer(strategy_for(rules))
        play_rounds(
            hands.app.controller,
            hands,
            [ScriptedRound([ScriptedBet(1, "ann", 1_000)], []) for _ in range(rounds)],
            auto=player,
            drain=output_cursor(hands.app),
        )
        journal = hands.service.journaled.journal
        return list(journal.iter_rows())


def _kinds(rows: list[Row], kind: str, **match: Any) -> list[Row]:
    return [
        r for r in rows if r.kind == kind and all(r.payload.get(k) == v for k, v in match.items())
    ]


def test_the_cut_position_is_in_the_journal_before_each_shoe_s_first_card() -> None:
    rules = _rules()
    committed = committed_cut(1, 48, rules.shoe.cut_card_reserve)
    assert committed == 36
    rows = _play(rules, committed, 14)  # past the cut card: a second shoe is dealt
    orders = _kinds(rows, "device_command", command="new_shoe")
    assert orders
    assert all(o.payload["args"] == [str(committed)] for o in orders)
    assert _kinds(rows, "config")[0].payload["cut_position"] == committed
    read = read_table("t", rows)
    assert len(read.shoes) >= 2
    for shoe in read.shoes:
        assert shoe.committed == committed
        assert shoe.committed_first, shoe.why
        assert not shoe.flagged, shoe.why
        assert shoe.committed_seq is not None
        assert shoe.first_card_seq is not None
        assert shoe.committed_seq < shoe.first_card_seq
    assert read.shoes[0].cut_at == committed
    assert read.shoes[0].cut_as_committed
    notes = [r for r in _kinds(rows, "note") if "cut card" in str(r.payload)]
    assert notes == []


def test_a_cut_card_out_past_its_tolerance_is_noted_and_its_shoe_flagged() -> None:
    rules = _rules()
    early = 36 - cut_tolerance(48, virtual=False) - 1  # one card past the tolerance
    rows = _play(rules, early, 10)
    assert any("cut card (physical) came out after card 23" in str(r.payload) for r in rows)
    read = read_table("t", rows)
    first = read.shoes[0]
    assert first.committed_first  # it was committed; it just did not come out there
    assert first.cut_at == early
    assert first.cut_as_committed is False
    assert first.flagged
    assert "outside the tolerance of 12" in first.why


def test_a_cut_card_within_the_tolerance_of_a_hand_placed_card_is_not_flagged() -> None:
    rules = _rules()
    rows = _play(rules, 36 - cut_tolerance(48, virtual=False), 10)
    first = read_table("t", rows).shoes[0]
    assert first.cut_as_committed
    assert not first.flagged


def test_a_shoe_without_a_committed_cut_before_its_first_card_is_flagged() -> None:
    # what a journal before format 14 shows: the order carries no position, the start none
    rules = _rules()
    rows = _play(rules, 36, 14)
    stripped = [_without_cut(r) for r in rows]
    read = read_table("t", stripped)
    assert read.shoes
    assert all(s.flagged for s in read.shoes)
    assert read.shoes[0].why == "no cut position in the journal before the shoe's first card"


def _without_cut(row: Row) -> Row:
    payload = dict(row.payload)
    if row.kind == "device_command" and payload.get("command") == "new_shoe":
        payload["args"] = []
    payload.pop("cut_position", None)
    return replace(row, payload=payload)


def test_a_round_s_cards_out_are_known_only_for_a_shoe_read_from_its_start() -> None:
    rules = _rules()
    rows = _play(rules, 36, 14)
    whole = read_table("t", rows)
    first = whole.rounds[0]
    assert first.out is not None
    assert len(first.out) == 1  # the burn card, before the first round
    later = read_table("t", [r for r in rows if r.seq > first_card_seq(rows)])
    shuffled = next(s for s in later.shoes if not s.began_before)
    assert later.shoes[0].began_before
    assert later.rounds[0].out is None  # the shoe's first cards are before the rows read
    after = [r for r in later.rounds if r.ts >= shuffled.first_card_ts]
    assert after
    assert all(r.out is not None for r in after)


def first_card_seq(rows: list[Row]) -> int:
    return next(r.seq for r in rows if r.kind == "input" and r.payload.get("action") == "card")
