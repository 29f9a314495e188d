"""The demo's rated players (controller.play.demo, ``DemoOptions(rated=True)``), rated from the
table's own journal: the basic-strategy player's skill theo equals the book theo within the
chart's known cost (the chart's edge less the optimum's, from the analysis, x wagers); the poor
player's decisions cost them several per cent of their wagers, which the book theo never
sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.analysis.theo import edges_for, rate
from controller.floor.ratings import sessions_of
from controller.game.rules import load_variant
from controller.play.demo import RATED_DEMO_PLAYERS, DemoOptions, demo_dealer
from controller.service.service import TableService
from tests.floor.conftest import local_rows, table, wait_until

ROUNDS = 60
VARIANT = "pontoon-blackjack"  # a five-card trick and doubles on up to four cards


def test_the_demos_basic_player_is_rated_at_the_book_theo_and_the_poor_player_far_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    loaded = table(tmp_path, "demo-rated", variant=VARIANT)
    actors = [demo_dealer(DemoOptions(pace_s=0.0, boxes=(1, 2, 3), seed=3, rated=True))]
    with TableService(loaded, actors=actors) as service:
        wait_until(lambda: service.rounds_completed >= ROUNDS, "the demo's rounds", 300)
    sessions = sessions_of(local_rows(loaded.journal_path))
    assert [(s.box, s.card) for s in sessions] == [(p.box, p.card) for p in RATED_DEMO_PLAYERS]
    assert all(s.rounds >= ROUNDS for s in sessions)
    edges = edges_for(load_variant(VARIANT))
    basic, poor = rate(sessions)
    assert basic.cost_cents is not None
    assert basic.skill_cents is not None
    assert basic.book_cents is not None
    known = edges.chart_cost * basic.play.wagers_cents
    assert known > 0
    assert abs(basic.skill_cents - basic.book_cents) <= known
    assert poor.cost_cents is not None
    assert poor.skill_cents is not None
    assert poor.book_cents is not None
    assert poor.cost_cents > poor.play.wagers_cents / 50  # over 2 % of the wagers
    assert poor.skill_cents - poor.book_cents > 50 * known
    assert poor.worst  # the costliest plays are named
