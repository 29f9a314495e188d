"""Sessions rated on a real PostgreSQL by the rules their table journalled (journal format 15,
controller.floor.table_rules): a table dealing from a casino's own variant file of a shipped id
is rated by that file's rules (its theo differs from the shipped rules' and equals the rating
worked out with the file's rules directly); a config row whose rules fail validation leaves the
session unrated with the validator's words; an older journal's config row (no rules) is rated
by the shipped rules only where it hashed the shipped file, and is otherwise unrated, saying
its rules are not in the journal. The config row may be before the period read."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.analysis.theo import rate
from controller.floor.cluster import Cluster
from controller.floor.ratings import Rating, SessionPlay, rated_sessions, ratings_text
from controller.floor.shipper import Shipper
from controller.floor.table_rules import TableRules, rules_sha256
from controller.game.rules import VARIANTS_DIR, Variant, load_variant
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import TableService
from tests.floor.conftest import drained, link, table, table_id, wait_until
from tests.floor.rated import EDGES, PA, PaTable, play_split_round

pytestmark = pytest.mark.pg

ROUNDS = 12


def _by(rules: Variant, play: SessionPlay) -> SessionPlay:
    """``play`` with ``rules`` given directly (as if journalled)."""
    found = TableRules(play.table_id, 1, rules.id, rules, key=rules_sha256(rules))
    return dataclasses.replace(play, rules=found)


def _theo(r: Rating) -> tuple[Any, ...]:
    return (r.book_cents, r.skill_cents, r.cost_cents, r.decisions)


def _ship(cluster: Cluster, path: Path, tid: str) -> None:
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(partial(drained, shipper, path), f"table {tid}'s rows shipped")


def test_a_table_dealing_a_custom_variant_file_of_a_shipped_id_is_rated_by_that_files_rules(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # (uk-pontoon: a 1 s walk)
    text = (VARIANTS_DIR / "uk-pontoon.toml").read_text()
    custom = tmp_path / "our-pontoon.toml"
    custom.write_text(text.replace('ties = "dealer-wins"', 'ties = "push"'))
    rules, shipped = load_variant(custom), load_variant("uk-pontoon")
    assert rules.id == shipped.id
    assert rules != shipped
    tid = table_id("custom")
    start = datetime.now(UTC) - timedelta(minutes=1)
    loaded = table(tmp_path, tid, variant=str(custom))
    actors = [demo_dealer(DemoOptions(pace_s=0.0, boxes=(1, 2, 3), seed=3, rated=True))]
    with TableService(loaded, actors=actors) as service:
        wait_until(lambda: service.rounds_completed >= ROUNDS, "the demo's rounds", 120)
    _ship(cluster, loaded.journal_path, tid)
    end = datetime.now(UTC) + timedelta(minutes=1)
    with psycopg.connect(cluster.conninfo("floor")) as db:
        sessions = [s for s in rated_sessions(db, start, end) if s.table_id == tid]
    assert len(sessions) == 2  # the demo's ann (the chart) and bob (a poor player)
    assert all(s.rules is not None and s.rules.rules == rules for s in sessions)
    rated = rate(sessions)
    direct = rate([_by(rules, s) for s in sessions])
    cached = sorted((tmp_path / "cache").glob("croupier/analysis/theo-uk-pontoon-*.json"))
    assert len(cached) == 1  # the custom rules analysed once, by their hash, for both sessions
    wrong = rate([_by(shipped, s) for s in sessions])
    assert len(list((tmp_path / "cache").glob("croupier/analysis/theo-*.json"))) == 2
    for got, same, other in zip(rated, direct, wrong, strict=True):
        assert got.unrated is None
        assert _theo(got) == _theo(same)
        assert got.book_cents != other.book_cents  # a push is not the dealer's
        assert got.skill_cents != other.skill_cents
    lines = ratings_text(rated)
    assert all("; uk-pontoon as journalled, rules " in line for line in lines)


def _invalid_rules() -> dict[str, Any]:
    data = PA.model_dump(mode="json")
    data["shoe"] = {**data["shoe"], "decks": 99}
    return data


SHIPPED_SHA = hashlib.sha256((VARIANTS_DIR / "pa-blackjack.toml").read_bytes()).hexdigest()
CONFIGS: dict[str, dict[str, Any]] = {
    "invalid": {"variant": "pa-blackjack", "rules": _invalid_rules()},
    "old-shipped": {"variant": "pa-blackjack", "variant_sha256": SHIPPED_SHA},
    "old-custom": {"variant": "pa-blackjack", "variant_sha256": "ab" * 32},
}


def test_invalid_journalled_rules_and_an_older_journals_custom_file_are_unrated_with_the_reason(
    cluster: Cluster, tmp_path: Path
) -> None:
    tables: dict[str, PaTable] = {}
    ids = {name: table_id(name) for name in CONFIGS}
    for name, config in CONFIGS.items():
        tables[name] = PaTable(tmp_path / f"{name}.sqlite3", ids[name], config=config)
    time.sleep(0.01)
    start = datetime.now(UTC)  # the config rows are before the period read
    time.sleep(0.01)
    for name, t in tables.items():
        play_split_round(t)
        t.journal.close()
        _ship(cluster, tmp_path / f"{name}.sqlite3", ids[name])
    end = datetime.now(UTC) + timedelta(minutes=1)
    with psycopg.connect(cluster.conninfo("floor")) as db:
        found = {s.table_id: s for s in rated_sessions(db, start, end)}
    plays = {name: found[tid] for name, tid in ids.items()}
    rated = dict(zip(plays, rate(plays.values(), lambda _rules: EDGES), strict=True))

    invalid = rated["invalid"]
    assert _theo(invalid) == (None, None, None, 0)
    assert invalid.unrated is not None
    assert invalid.unrated.startswith(
        f"the rules table {ids['invalid']} journalled (config row 1) are not valid rules: "
    )
    assert "shoe.decks = 99" in invalid.unrated
    (line,) = ratings_text([invalid])
    assert line.endswith(f"book theo -, skill theo - (decision cost -); unrated: {invalid.unrated}")

    old = rated["old-shipped"]
    assert old.unrated is None
    assert old.dealt_by.rules == PA
    assert not old.dealt_by.journalled
    (same,) = rate([_by(PA, plays["old-shipped"])], lambda _rules: EDGES)
    assert _theo(old) == _theo(same)
    assert old.skill_cents is not None

    custom = rated["old-custom"]
    assert _theo(custom) == (None, None, None, 0)
    assert custom.unrated == (
        "its rules are not in the journal (a custom variant file before journal format 15): "
        f"table {ids['old-custom']}'s config row 1 names pa-blackjack with a variant file "
        "that is not the shipped one"
    )
    assert custom.as_json()["rules"]["unrated"] == "not_journalled"
