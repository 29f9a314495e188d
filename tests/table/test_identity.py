"""The software's identity: every installed file hashed against the wheel's record, the lab's
seeded HMAC computed independently here, ``croupier verify``, and a start on changed files that
deals nothing (in-process; ``.ci/wheel-smoke`` does the same from an installed wheel)."""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
from importlib import metadata
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.cli.verify import EXIT_CHANGED, EXIT_UNRECORDED
from controller.display.halted import halted_state
from controller.game.rules import VARIANTS_DIR, Variant, load_variant
from controller.journal.journaled import RULES_FORMAT
from controller.journal.store import Journal
from controller.service.halt import Choice, HaltChoice, Halted, Problem
from controller.service.service import Pin, TableService
from controller.table import identity
from controller.table.config import LoadedTable, table_from_mapping
from tests.security.conftest import SUPERVISOR_PIN, Clock, pins

FILES = {
    "controller/__init__.py": b'__version__ = "9.9.9"\n',
    "controller/rules.py": b"HOUSE_EDGE = 'exact'\n",
    "drivers/__init__.py": b"",
    "../../../bin/croupier": b"#!/usr/bin/python\n",
}
SEED = "00112233445566778899aabbccddeeff"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


@pytest.fixture
def wheel(tmp_path: Path) -> metadata.Distribution:
    """An installed wheel as pip leaves it: the files, and a .dist-info whose RECORD lists each
    with its SHA-256 (the RECORD itself without one)."""
    site = tmp_path / "venv" / "lib" / "python3" / "site-packages"
    info = site / "croupier-9.9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: croupier\nVersion: 9.9.9\n")
    rows = []
    for name, data in FILES.items():
        path = (site / name).resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        rows.append([name, _record_hash(data), str(len(data))])
    rows.append(["croupier-9.9.9.dist-info/METADATA", "", ""])
    rows.append(["croupier-9.9.9.dist-info/RECORD", "", ""])
    with (info / "RECORD").open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return metadata.PathDistribution(info)


def _site(wheel: metadata.Distribution) -> Path:
    return Path(str(wheel.locate_file(""))).resolve()


def _independent_hmac(site: Path, seed: str) -> str:
    """The lab's computation, as docs/lab.md gives it, from the RECORD and the files alone."""
    (record,) = site.glob("croupier-*.dist-info/RECORD")
    with record.open(newline="") as handle:
        paths = [row[0] for row in csv.reader(handle) if row[1].startswith("sha256=")]
    message = b""
    for path in sorted(paths, key=lambda p: p.encode()):
        data = (site / path).read_bytes()
        message += path.encode() + b"\0" + len(data).to_bytes(8, "big") + data
    return hmac.new(bytes.fromhex(seed), message, hashlib.sha256).hexdigest()


def test_every_recorded_file_is_hashed_and_matches_its_record(
    wheel: metadata.Distribution,
) -> None:
    found = identity.software(wheel)
    assert found.recorded
    assert found.version == "9.9.9"
    assert sorted(f.path for f in found.files) == sorted(FILES)
    assert found.changed == []
    row = found.as_row()
    assert (
        row["files"]["controller/rules.py"]
        == hashlib.sha256(FILES["controller/rules.py"]).hexdigest()
    )


def test_a_one_byte_change_and_a_missing_file_are_named(wheel: metadata.Distribution) -> None:
    site = _site(wheel)
    before = identity.software(wheel).sha256
    (site / "controller/rules.py").write_bytes(b"HOUSE_EDGE = 'exacT'\n")
    (site / "drivers/__init__.py").unlink()
    found = identity.software(wheel)
    assert [(f.path, f.problem) for f in found.changed] == [
        ("controller/rules.py", "changed"),
        ("drivers/__init__.py", "missing"),
    ]
    assert found.sha256 != before
    with pytest.raises(identity.SoftwareChanged, match=r"controller/rules\.py \(changed\)"):
        identity.check(found)


def test_the_seeded_hmac_is_the_one_a_lab_computes_from_the_record_and_the_files(
    wheel: metadata.Distribution,
) -> None:
    expected = _independent_hmac(_site(wheel), SEED)
    assert identity.seeded(identity.software(wheel), bytes.fromhex(SEED)) == expected
    # another seed, another answer: nothing can be kept ready for a seed the lab chooses
    assert identity.seeded(identity.software(wheel), b"\1\2\3\4") != expected


def test_verify_prints_the_seeded_hmac_and_names_a_changed_file_with_status_1(
    wheel: metadata.Distribution,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(identity, "installed", lambda: wheel)
    assert main(["verify", "--seed", SEED]) == 0
    out, err = capsys.readouterr()
    assert out == _independent_hmac(_site(wheel), SEED) + "\n"
    assert "every file matches the wheel's record" in err
    (_site(wheel) / "controller/rules.py").write_bytes(b"HOUSE_EDGE = 'exacT'\n")
    assert main(["verify"]) == EXIT_CHANGED
    out, _ = capsys.readouterr()
    assert "controller/rules.py: changed" in out
    assert "NOT AS INSTALLED - 1 of 4 files" in out


def test_verify_refuses_a_seed_that_is_not_hexadecimal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--seed", "not-hex"]) == 2
    assert "must be hexadecimal digits" in capsys.readouterr().err
    assert main(["verify", "--seed", "ab"]) == 2
    assert "a seed is 4 to 64 bytes" in capsys.readouterr().err


def test_a_source_install_says_it_has_no_record_and_verify_exits_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(identity, "installed", lambda: None)
    found = identity.software()
    assert not found.recorded
    assert "controller/table/identity.py" in {f.path for f in found.files}
    assert not any("__pycache__" in f.path for f in found.files)
    assert main(["verify"]) == EXIT_UNRECORDED
    assert "a source (editable) install has no record" in capsys.readouterr().out


def _table(tmp_path: Path) -> LoadedTable:
    return table_from_mapping(
        {
            "table_id": "t-identity",
            "display": {"port": 0},
            "journal": {"path": str(tmp_path / "journal.sqlite3")},
        },
        "<test>",
        tmp_path,
    )


def test_a_start_journals_the_software_and_the_rules_files_it_runs(tmp_path: Path) -> None:
    with TableService(_table(tmp_path)) as service:
        assert service.software is not None
        running = service.software
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        (software,) = [r.payload for r in journal.iter_rows(kinds=["software"])]
        (config,) = [r.payload for r in journal.iter_rows(kinds=["config"])]
    assert software["files"] == {f.path: f.sha256 for f in running.files}
    assert software["recorded"] is running.recorded
    assert config["software_sha256"] == running.sha256
    strategy = identity.STRATEGIES / "nz-pontoon.toml"
    assert config["strategy_sha256"] == hashlib.sha256(strategy.read_bytes()).hexdigest()
    assert len(config["variant_sha256"]) == 64


def test_a_start_journals_the_rules_it_deals_by_a_custom_variant_files_not_the_shipped_ones(
    tmp_path: Path,
) -> None:
    """Journal format 15: the config row holds the validated rules of the table's own variant
    file (a casino's pa-blackjack whose dealer hits soft 17 on two decks), which the floor
    rates by (controller.floor.table_rules)."""
    shipped = VARIANTS_DIR / "pa-blackjack.toml"
    text = shipped.read_text().replace("decks = 6", "decks = 2")
    own = tmp_path / "our-blackjack.toml"
    own.write_text(text.replace("hits_soft_17 = false", "hits_soft_17 = true"))
    table = table_from_mapping(
        {
            "table_id": "t-rules",
            "variant": str(own),
            "display": {"port": 0},
            "journal": {"path": str(tmp_path / "journal.sqlite3")},
        },
        "<test>",
        tmp_path,
    )
    with TableService(table) as service:
        dealt = service.rules
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        (software,) = [r.payload for r in journal.iter_rows(kinds=["software"])]
        (config,) = [r.payload for r in journal.iter_rows(kinds=["config"])]
    assert software["journal_format"] == RULES_FORMAT == 15
    assert config["variant"] == "pa-blackjack"
    assert config["variant_sha256"] == hashlib.sha256(own.read_bytes()).hexdigest()
    journalled = Variant.model_validate(config["rules"])
    assert journalled == dealt == load_variant(own)
    assert (journalled.shoe.decks, journalled.dealer.hits_soft_17) == (2, True)
    assert journalled != load_variant("pa-blackjack")


def test_a_start_on_changed_files_deals_nothing_and_shows_which_file(
    tmp_path: Path, wheel: metadata.Distribution, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identity, "installed", lambda: wheel)
    identity._last.clear()
    (_site(wheel) / "controller/rules.py").write_bytes(b"HOUSE_EDGE = 0\n")
    table = _table(tmp_path)
    service = TableService(table)
    with pytest.raises(identity.SoftwareChanged) as raised:
        service.open()
    service.close()
    with Journal.open(table.journal_path, readonly=True) as journal:
        assert list(journal.iter_rows()) == []  # nothing written: the start was refused
    halted = Halted(Problem.of(raised.value, table.journal_path), table.journal_path, pins(Clock()))
    try:
        state = halted_state(halted, table)["halted"]
        assert "not the software that was installed: controller/rules.py (changed)" in state["what"]
        assert [c["label"] for c in state["choices"]] == ["CHECK THE FILES AGAIN", "STOP THE TABLE"]
        assert halted.submit(Pin(SUPERVISOR_PIN)).result(10).accepted
        reply = halted.submit(HaltChoice(Choice.VERIFY)).result(10)
        assert reply.reason == "still not as installed: controller/rules.py (changed)"
    finally:
        halted.close()
        identity._last.clear()


def test_a_scenario_on_changed_files_stops_with_status_1_naming_the_file(
    wheel: metadata.Distribution,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(identity, "installed", lambda: wheel)
    identity._last.clear()
    (_site(wheel) / "controller/rules.py").write_bytes(b"HOUSE_EDGE = 0\n")
    try:
        scenario = Path(__file__).resolve().parents[1] / "scenarios" / "uk_tie_loses.yaml"
        assert main(["scenario", "run", str(scenario)]) == 1
        said = capsys.readouterr().err
        assert "stopped: the software's files are not as installed: controller/rules.py" in said
    finally:
        identity._last.clear()
