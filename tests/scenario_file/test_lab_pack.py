"""``croupier lab run``: the scenario pack played and checked against each case's expected net,
and the report a lab files (JSON and HTML, with the software's identity). In-process, on a pack
of two cases; ``.ci/wheel-smoke`` runs the whole shipped pack from an installed wheel."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.play.lab import EXPECTED, FORMAT, PACK
from controller.table import identity

REPO = Path(__file__).resolve().parents[2]


def _pack(tmp_path: Path, expected: dict[str, dict[str, int]]) -> Path:
    folder = tmp_path / "pack"
    folder.mkdir()
    for name in expected:
        shutil.copy(PACK / f"{name}.yaml", folder)
    body = {"expected": {n: {"net_cents": nets} for n, nets in expected.items()}}
    (folder / EXPECTED).write_text(json.dumps(body))
    return folder


def test_the_shipped_pack_is_the_source_tree_s_scenarios_each_with_its_expected_net() -> None:
    assert (REPO / "tests" / "scenarios").resolve() == PACK.resolve()
    expected = json.loads((PACK / EXPECTED).read_text())["expected"]
    assert sorted(expected) == sorted(p.stem for p in PACK.glob("*.yaml"))
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"controller.scenarios" = ["*.yaml", "expected.json"]' in pyproject


def test_a_lab_run_writes_a_report_with_the_identity_and_names_the_case_that_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # uk_tie_loses: ann loses $10; the pack below claims she won it (a case that must fail)
    folder = _pack(
        tmp_path, {"nz_super_bonus": {"ann": 102000, "bob": 6000}, "uk_tie_loses": {"ann": 1000}}
    )
    out = tmp_path / "report"
    status = main(["lab", "run", "--scenarios", str(folder), "--out", str(out), "--jobs", "1"])
    printed = capsys.readouterr().out
    assert status == 1
    assert "PASS nz_super_bonus" in printed
    assert "FAIL uk_tie_loses: ended with ann -$10, expected ann $10" in printed
    report = json.loads((out / "lab-report.json").read_text())
    assert report["format"] == FORMAT
    assert report["summary"] == {"cases": 2, "passed": 1, "failed": 1}
    software = identity.software()
    assert report["software"]["software_sha256"] == software.sha256
    assert report["software"]["files"] == {f.path: f.sha256 for f in software.files}
    assert report["software"]["verified"] is (software.recorded and not software.changed)
    bonus, tie = report["cases"]
    assert bonus["passed"]
    assert bonus["net_cents"] == {"ann": 102000, "bob": 6000}
    assert bonus["about"].startswith("NZ: 7-7-7 of hearts against a dealer 7")
    assert bonus["report"]["net_cents"] == bonus["net_cents"]  # the contract's report, whole
    assert not tie["passed"]
    assert set(report["pack"]["variants"]) == {"nz-pontoon", "uk-pontoon"}
    page = (out / "lab-report.html").read_text()
    assert "croupier lab report: 1 of 2 cases failed" in page
    assert software.sha256 in page
    for name in ("lab-report.json", "lab-report.html"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600


def test_a_folder_that_is_not_a_pack_is_refused_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "nothing"
    folder.mkdir()
    assert main(["lab", "run", "--scenarios", str(folder), "--out", str(tmp_path / "o")]) == 2
    assert "no scenario files (*.yaml) in it" in capsys.readouterr().err
    shutil.copy(PACK / "uk_tie_loses.yaml", folder)
    assert main(["lab", "run", "--scenarios", str(folder), "--out", str(tmp_path / "o")]) == 2
    assert "expected.json: no such file" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
