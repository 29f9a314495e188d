"""Ratings on the floor (controller.floor.ratings, controller.analysis.theo): a rated player's
round at a journaled pa-blackjack table (real SQLite), shipped to a real PostgreSQL, read back
as a session with its rounds, bets, dealer and every decision on the cards it was made on (a
split hand's too), and rated: skill theo = the optimum's edge x wagers + each decision's exact
cost; book theo = average bet x rounds x the chart's edge; the report shows the rating table."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import psycopg
import pytest

from controller.analysis.parsheet import cache_dir
from controller.analysis.shoe import Shoe
from controller.analysis.theo import Spot, rate, rules_key, values_for
from controller.cli.main import main
from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.ratings import SeenDecision, rated_sessions
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.shipper import Shipper
from controller.round.spec import Action
from controller.table.config import hash_secret
from drivers.tbl21.cards import Card, parse_cards
from tests.floor.conftest import FLOOR_PASSWORD_ENV, drained, link, table_id, wait_until
from tests.floor.rated import EDGES, PA, PaTable, play_split_round

pytestmark = pytest.mark.pg


def test_a_rated_session_shipped_to_the_floor_is_rated_from_its_rows_to_the_cent(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("rate")
    path = tmp_path / "rated.sqlite3"
    start = datetime.now(UTC) - timedelta(minutes=1)
    t = PaTable(path, tid)
    play_split_round(t)
    t.journal.close()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "the rated table's rows shipped")
    end = datetime.now(UTC) + timedelta(minutes=1)
    with psycopg.connect(cluster.conninfo("floor")) as db:
        sessions = [s for s in rated_sessions(db, start, end) if s.table_id == tid]
        report = build_report(db, start, end)
    assert len(sessions) == 1
    play = sessions[0]
    assert (play.card, play.player, play.box, play.rounds, play.wagers_cents) == (
        "40001234",
        "ann",
        1,
        1,
        1000,
    )
    assert play.dealers == ["Bo Chen"]
    assert play.end is not None
    assert play.variant == "pa-blackjack"
    assert play.decisions == [
        SeenDecision(1, 1, 1, "7C", ("8H", "8D"), 1, "split", 1000),
        SeenDecision(1, 1, 1, "7C", ("8H", "3S"), 2, "hit", 1000),
        SeenDecision(1, 1, 2, "7C", ("8D", "5S"), 2, "stand", 1000),
    ]

    (rating,) = rate(sessions, lambda _rules: EDGES)
    values = values_for(PA)
    up = Card.parse("7C")
    costs = [
        values.cost(Spot(up, tuple(parse_cards("8H 8D"))), Action.SPLIT),
        values.cost(Spot(up, tuple(parse_cards("8H 3S")), 2), Action.HIT),
        values.cost(Spot(up, tuple(parse_cards("8D 5S")), 2), Action.STAND),
    ]
    assert all(c is not None for c in costs)
    cost = sum((c for c in costs if c is not None), Fraction(0)) * 1000
    assert costs[2] is not None
    assert costs[2] > Fraction(1, 100)  # standing on 13 against a 7 costs over a cent a dollar
    assert rating.cost_cents == cost
    assert rating.skill_cents == EDGES.optimal * 1000 + cost
    assert rating.book_cents == EDGES.chart * 1000
    assert rating.decisions == 3
    assert rating.unvalued == 0
    assert rating.worst[0].startswith("stand on 8D 5S against 7C: $")

    report.ratings = [rating]
    cells = rating.shown()
    assert cells["average_bet"] == "$10"
    assert cells["book_theo"] == "$0.03"  # 0.34 % of $10, to the cent only when shown
    text = report.text()
    assert "rated 40001234 (ann) table " + tid in text
    assert f"skill theo {cells['skill_theo']}" in text
    assert report.as_json()["ratings"][0]["skill_theo_cents"] == str(rating.skill_cents)
    page = render(report)
    assert '<table id="ratings">' in page
    assert f'data-session="{play.session}"' in page


def test_croupier_floor_report_shows_the_rating_table_with_the_edges_from_the_cache(
    cluster: Cluster,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the edges as the cache beside the par sheets holds them (a walk of six decks takes most
    # of a minute; the analysis tests work them out and write this file)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    key = rules_key(PA, Shoe.of_variant(PA))
    cached = cache_dir() / f"theo-{PA.id}-{key[:16]}.json"
    cached.parent.mkdir(parents=True)
    cached.write_text(json.dumps({"optimal": str(EDGES.optimal), "chart": str(EDGES.chart)}))
    tid = table_id("rcli")
    path = tmp_path / "rated.sqlite3"
    start = datetime.now(UTC) - timedelta(minutes=1)
    t = PaTable(path, tid)
    play_split_round(t)
    t.journal.close()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "the rated table's rows shipped")
    floor_file = tmp_path / "floor.toml"
    floor_file.write_text(
        f'[database]\ndsn = "{cluster.dsn(FLOOR_LOGIN)}"\npassword_env = "{FLOOR_PASSWORD_ENV}"\n'
        f'[[users]]\nname = "pat"\nsecret_hash = "{hash_secret("pit-password-for-tests")}"\n'
    )
    period = ["--from", start.isoformat(), "--to", (start + timedelta(minutes=5)).isoformat()]
    assert main(["floor", "report", "--config", str(floor_file), *period]) == 0
    text = capsys.readouterr().out
    (line,) = [x for x in text.splitlines() if x.startswith(f"rated 40001234 (ann) table {tid} ")]
    assert "box 1, dealer Bo Chen" in line
    assert "1 round, average bet $10, book theo $0.03, skill theo $3.71" in line
    assert "(decision cost $3.68)" in line
    args = ["floor", "report", "--config", str(floor_file), *period]
    assert main([*args, "--format", "json"]) == 0
    rated = json.loads(capsys.readouterr().out)["ratings"]
    assert [(r["card"], r["decisions"]) for r in rated if r["table_id"] == tid] == [("40001234", 3)]
    assert main([*args, "--no-ratings"]) == 0
    assert "rated 40001234" not in capsys.readouterr().out
