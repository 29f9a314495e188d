"""A training table never deals live, a live table never trains, and a training journal is never
a live journal (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.game.errors import ConfigError
from controller.journal.store import Journal
from controller.service.service import TableService
from controller.table.config import live_table_problem, load_table_config
from controller.training.errors import TrainingError
from controller.training.journal import TrainingJournal


def table_file(tmp_path: Path, training: str | None) -> Path:
    path = tmp_path / "table.toml"
    text = f'table_id = "t-train"\n[display]\nport = 0\n[journal]\npath = "{tmp_path / "j.db"}"\n'
    if training is not None:
        text += f'[training]\njournal = "{training}"\n'
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_a_training_table_refuses_to_deal_live_and_says_how_to_train(tmp_path: Path) -> None:
    table = load_table_config(table_file(tmp_path, str(tmp_path / "training.db")))
    assert "never deals live" in (live_table_problem(table) or "")
    with pytest.raises(ConfigError, match=r"\[training\]: this is a training table"):
        TableService(table)
    assert not (tmp_path / "j.db").exists()  # nothing was opened


def test_croupier_run_refuses_a_training_tables_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = table_file(tmp_path, str(tmp_path / "training.db"))
    assert main(["run", "--config", str(path), "--demo", "--rounds", "1"]) == 2
    assert "croupier train --config" in capsys.readouterr().err
    assert not (tmp_path / "j.db").exists()


def test_a_live_table_refuses_to_train(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = table_file(tmp_path, None)
    assert live_table_problem(load_table_config(path)) is None
    assert main(["train", "--config", str(path), "--drill", "total", "--count", "1"]) == 2
    assert "a live table never trains" in capsys.readouterr().err
    assert main(["train", "report", "--config", str(path)]) == 2
    assert not list(tmp_path.glob("*.db"))


def test_a_training_journal_may_not_be_the_live_journals_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"training\.journal = .*the live journal.s file"):
        load_table_config(table_file(tmp_path, str(tmp_path / "j.db")))


def test_a_live_journal_is_never_opened_as_a_training_journal(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    Journal.open(live, table_id="t-live").close()
    before = live.read_bytes()
    with pytest.raises(TrainingError, match="not a training journal"):
        TrainingJournal(live)
    assert live.read_bytes() == before


def test_a_training_tables_session_goes_to_its_training_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trained = tmp_path / "training.db"
    path = table_file(tmp_path, str(trained))
    answers = iter(["what", "21", "17", "20"])
    monkeypatch.setattr("builtins.input", lambda _prompt: next(answers))
    code = main(
        ["train", "--config", str(path), "--drill", "total", "--count", "3", "--trainee", "al",
         "--seed", "4"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "That is not an answer here" in out
    assert code in (0, 1)
    with TrainingJournal(trained) as journal:
        assert [a.answer for a in journal.attempts("al")] == ["21", "17", "20"]
    assert trained.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "j.db").exists()  # the live journal was never made
