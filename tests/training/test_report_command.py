"""croupier train report: a trainee's scores, every trainee's (--all), as text, JSON and files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli.main import main


def _train(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trainee: str, typed: str) -> int:
    monkeypatch.setattr("builtins.input", lambda _prompt: typed)
    journal = tmp_path / "training.sqlite3"
    return main(
        ["train", "--drill", "total", "--count", "2", "--trainee", trainee, "--seed", "3",
         "--journal", str(journal)]
    )  # fmt: skip


def test_the_report_of_a_trainee_and_the_instructors_view_of_every_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _train(tmp_path, monkeypatch, "ann", "99") == 1  # no hand totals 99: fail
    assert _train(tmp_path, monkeypatch, "bob", "99") == 1
    capsys.readouterr()
    journal = str(tmp_path / "training.sqlite3")
    assert main(["train", "report", "--journal", journal]) == 2
    assert "several trainees (ann, bob)" in capsys.readouterr().err
    assert main(["train", "report", "--journal", journal, "--trainee", "ann", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["trainee"], report["questions"], report["right"]) == ("ann", 2, 0)
    assert report["weakest"] == ["total"]
    out = tmp_path / "rep"
    assert main(["train", "report", "--journal", journal, "--all", "--out", str(out)]) == 0
    view = json.loads((out / "trainees.json").read_text())
    assert [t["trainee"] for t in view["trainees"]] == ["ann", "bob"]
    assert "<h1>Trainees</h1>" in (out / "trainees.html").read_text()
    assert {p.stat().st_mode & 0o777 for p in out.iterdir()} == {0o600}


def test_a_report_of_nobody_or_of_no_journal_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = str(tmp_path / "training.sqlite3")
    assert main(["train", "report", "--journal", journal]) == 2
    assert "no training journal at" in capsys.readouterr().err
    _train(tmp_path, monkeypatch, "ann", "12")
    assert main(["train", "report", "--journal", journal, "--trainee", "zed"]) == 2
    assert "no attempts of 'zed'" in capsys.readouterr().err


def test_a_bad_trainee_id_or_course_file_is_refused_before_anything_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = str(tmp_path / "training.sqlite3")
    assert main(["train", "--trainee", "../x", "--journal", journal]) == 2
    assert "--trainee '../x'" in capsys.readouterr().err
    course = tmp_path / "c.toml"
    course.write_text('[course]\nid = "c"\nname = "c"\nvariant = "uk-pontoon"\n')
    assert main(["train", "--course", str(course), "--journal", journal]) == 2
    assert "drill: missing" in capsys.readouterr().err
    assert not (tmp_path / "training.sqlite3").exists()
