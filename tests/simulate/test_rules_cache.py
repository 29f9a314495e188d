"""``croupier simulate`` keeps the validated rules beside the kept tables (issue 26): a run of
the same variant file, overrides and code reads them back without pydantic; a changed file is
validated anew (its refusal as ever), and a kept file that is not this user's private file is
not used."""

from __future__ import annotations

import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from controller.game.errors import ConfigError
from controller.game.rules import VARIANTS_DIR, load_variant, plain_rules
from controller.play import tables_cache
from controller.play.strategy import strategy_for

OVERRIDES = {"dealer.hits_soft_17": True}


def variant_copy(tmp_path: Path) -> Path:
    path = tmp_path / "house.toml"
    path.write_bytes((VARIANTS_DIR / "pa-blackjack.toml").read_bytes())
    return path


def test_the_kept_rules_are_the_validated_rules_and_pick_the_same_strategy(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "kept"
    validated = load_variant("pa-blackjack", OVERRIDES)
    first = tables_cache.kept_rules("pa-blackjack", OVERRIDES, kept)
    again = tables_cache.kept_rules("pa-blackjack", OVERRIDES, kept)
    assert first == again == plain_rules(validated)
    assert again.dealer.hits_soft_17 is True
    assert again.has_hole_card == validated.has_hole_card
    assert again.super_bonus_amount(1000) == validated.super_bonus_amount(1000)
    assert strategy_for(again).path == strategy_for(validated).path
    keys = {tables_cache.tables_key(r, strategy_for(validated), 1000) for r in (validated, again)}
    assert len(keys) == 1
    (file,) = kept.iterdir()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600


def test_a_changed_variant_file_is_validated_again(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    path = variant_copy(tmp_path)
    assert tables_cache.kept_rules(str(path), {}, kept).dealer.hits_soft_17 is False
    text = path.read_text()
    path.write_text(text.replace("hits_soft_17 = false", "hits_soft_17 = true"))
    assert tables_cache.kept_rules(str(path), {}, kept).dealer.hits_soft_17 is True
    path.write_text(text.replace("hits_soft_17 = false", 'hits_soft_17 = "sometimes"'))
    with pytest.raises(ConfigError, match="hits_soft_17"):
        tables_cache.kept_rules(str(path), {}, kept)
    with pytest.raises(ConfigError, match="hits_soft_17"):  # other overrides: another key
        tables_cache.kept_rules(str(path), OVERRIDES | {"dealer.hits_soft_17": 2}, kept)


def test_rules_kept_under_another_pydantic_are_validated_again(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    kept = tmp_path / "kept"
    tables_cache.kept_rules("pa-blackjack", OVERRIDES, kept)
    assert tables_cache._validator()  # the installed pydantic's version file is in the key
    validate = mocker.spy(tables_cache, "_kept")
    mocker.patch.object(tables_cache, "_validator", return_value="another pydantic")
    again = tables_cache.kept_rules("pa-blackjack", OVERRIDES, kept)
    assert validate.spy_return is None  # nothing kept under this key: validated anew
    assert again == plain_rules(load_variant("pa-blackjack", OVERRIDES))
    assert len(list(kept.glob("rules-*.pickle"))) == 2


def test_a_kept_rules_file_others_may_read_is_not_used(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    path = variant_copy(tmp_path)
    tables_cache.kept_rules(str(path), {}, kept)
    (file,) = kept.iterdir()
    state = pickle.loads(file.read_bytes())
    forged = plain_rules(load_variant("pa-blackjack", OVERRIDES))
    file.write_bytes(pickle.dumps({"key": state["key"], "rules": forged}))
    assert tables_cache.kept_rules(str(path), {}, kept).dealer.hits_soft_17 is True
    file.chmod(0o644)
    assert tables_cache.kept_rules(str(path), {}, kept).dealer.hits_soft_17 is False


def test_a_run_of_kept_rules_imports_no_pydantic(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from controller.cli.main import main\n"
        "main(['simulate', 'nz-pontoon', '--rounds', '200', '--json'])\n"
        "print('pydantic' in sys.modules)\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PATH": "/usr/bin:/bin"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        ).stdout.splitlines()[-1]
        for _ in range(2)
    ]
    assert runs == ["True", "False"]  # the first validated the file and kept its rules
