"""A training table never deals live, a live table never trains, and a training journal is never
a live journal (issue 27)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import serial

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_a_training_table_with_display_serves_the_page_on_its_display_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`croupier train --config table.toml --display`: the training page on the table's display
    port at 127.0.0.1 (the table's screen shows it), answered there, recorded in the table's
    training journal; the live journal never made."""
    trained = tmp_path / "training.db"
    port = free_port()
    path = table_file(tmp_path, str(trained))
    path.write_text(path.read_text().replace("port = 0", f"port = {port}"))
    args = ["train", "--config", str(path), "--display", "--drill", "total", "--count", "2",
            "--trainee", "jo", "--seed", "5"]  # fmt: skip
    codes: list[int] = []
    worker = threading.Thread(target=lambda: codes.append(main(args)), daemon=True)
    worker.start()
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    question: dict[str, object] | None = None
    while question is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "api/question", timeout=5) as reply:
                question = json.loads(reply.read())
        except OSError:
            time.sleep(0.05)
    assert question is not None, "the training page never answered on the display port"
    assert question["of"] == 2
    assert "correct" not in question
    for typed in ("21", "nineteen", "19"):
        body = json.dumps({"answer": typed}).encode()
        request = urllib.request.Request(
            url + "api/answer", body, {"Content-Type": "application/json"}, method="POST"
        )
        with urllib.request.urlopen(request, timeout=5) as reply:
            assert reply.status == 200
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert codes in ([0], [1])
    assert url in capsys.readouterr().out
    with TrainingJournal(trained) as journal:
        assert [a.answer for a in journal.attempts("jo")] == ["21", "19"]
    assert trained.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "j.db").exists()


def test_a_training_tables_procedures_run_on_emulated_devices_never_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A procedure on a training table whose file names real devices: the scenario is played on
    emulated devices (as `croupier run --demo` wires them); no serial port of the table's is
    opened and its live journal is never made."""
    opened: list[str] = []
    real = serial.serial_for_url

    def only_emulated(url: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(url)
        if not url.startswith("sim://"):
            raise OSError(f"{url}: no such device")
        return real(url, *args, **kwargs)

    monkeypatch.setattr("serial.serial_for_url", only_emulated)
    trained = tmp_path / "training.db"
    path = table_file(tmp_path, str(trained))
    devices = (
        '[devices]\nshoe = "/dev/i27-shoe"\npeek = "/dev/i27-peek"\npanel = "/dev/i27-panel"\n'
    )
    path.write_text(path.read_text() + devices)
    answers = iter(["HIT KEY_SUP HIT KEY_RUN", "10.00"])  # the card assigned; box 1 paid $10
    monkeypatch.setattr("builtins.input", lambda _prompt: next(answers))
    code = main(
        ["train", "--config", str(path), "--drill", "procedure", "--count", "1", "--trainee",
         "al", "--seed", "3"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1  # one key refused: the procedure is wrong, and the drill failed
    assert "HIT refused: hit is not possible while the table is on hold\nKeys: key to SUP" in out
    with TrainingJournal(trained) as journal:
        kept = [(a.form, a.answer, a.correct) for a in journal.attempts("al")]
    assert kept == [("keys", "HIT KEY_SUP HIT KEY_RUN", False), ("money", "10.00", True)]
    assert opened  # the scenario's emulated shoe, reader and panel, and nothing else
    assert all(url.startswith("sim://") for url in opened)
    assert not (tmp_path / "j.db").exists()
