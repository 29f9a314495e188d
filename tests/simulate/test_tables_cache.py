"""``croupier simulate`` keeps the kernel's tables between runs: the same reports, private files,
and a file that is not this user's own private file, or not of these rules, is not used."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.play import simulate as sim
from controller.play import tables_cache
from controller.play.simulate import SimConfig, report, simulate
from controller.play.strategy import strategy_for


def results(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "performance"}


def tables_files(folder: Path) -> list[Path]:
    """The kept graphs in ``folder`` (the kept rules beside them are tests/simulate/
    test_rules_cache.py's)."""
    return [f for f in folder.iterdir() if not f.name.startswith("rules-")]


def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the tables this process built (a new command starts without them)."""
    monkeypatch.setattr(sim, "_GRAPHS", {})


def test_a_run_from_the_kept_tables_reports_what_a_run_without_them_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SimConfig("nz-pontoon", rounds=1500, boxes=2, seed=5)
    kept = tmp_path / "tables"
    fresh_process(monkeypatch)
    first = report(simulate(config, tables=kept))
    (file,) = tables_files(kept)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.stat().st_mode) == 0o700
    fresh_process(monkeypatch)
    rules = sim.load_rules(config)
    strategy = strategy_for(rules)
    key = tables_cache.tables_key(rules, strategy, config.wager_cents)
    graph = tables_cache.load_graph(rules, strategy, config.wager_cents, key, kept)
    assert graph is not None
    assert graph.stats()["nodes"] > 100
    other_seed = SimConfig("nz-pontoon", rounds=1500, boxes=2, seed=6)
    from_kept = report(simulate(other_seed, tables=kept))
    fresh_process(monkeypatch)
    built = report(simulate(other_seed))
    assert json.dumps(results(from_kept)) == json.dumps(results(built))
    assert results(from_kept) != results(first)


def test_a_kept_file_others_may_read_or_of_other_rules_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SimConfig("pa-blackjack", rounds=300)
    kept = tmp_path / "tables"
    fresh_process(monkeypatch)
    simulate(config, tables=kept)
    (file,) = tables_files(kept)
    rules = sim.load_rules(config)
    strategy = strategy_for(rules)
    key = tables_cache.tables_key(rules, strategy, config.wager_cents)
    assert tables_cache.load_graph(rules, strategy, 1000, key, kept) is not None
    assert tables_cache.load_graph(rules, strategy, 1000, "0" * 64, kept) is None
    assert tables_cache.tables_key(rules, strategy, 500) != key
    file.chmod(0o644)
    assert tables_cache.load_graph(rules, strategy, 1000, key, kept) is None
    file.chmod(0o600)
    file.write_bytes(b"not a pickle")
    assert tables_cache.load_graph(rules, strategy, 1000, key, kept) is None


def test_the_command_keeps_its_tables_in_the_cache_folder_and_no_cache_leaves_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    fresh_process(monkeypatch)
    assert main(["simulate", "uk-pontoon", "--rounds", "400", "--no-cache", "--json"]) == 0
    assert not (tmp_path / "xdg").exists()
    built = json.loads(capsys.readouterr().out)
    fresh_process(monkeypatch)
    assert main(["simulate", "uk-pontoon", "--rounds", "400", "--json"]) == 0
    (file,) = tables_files(tmp_path / "xdg" / "croupier" / "simulate")
    assert file.name.startswith("uk-pontoon-")
    assert results(json.loads(capsys.readouterr().out)) == results(built)
