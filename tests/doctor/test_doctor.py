"""``croupier doctor``: each check passes on a healthy table and fails, saying what to do, when
its part is not fit to deal."""

import ast
import sqlite3
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_mock import MockerFixture
from structlog.testing import capture_logs

from controller.cli.doctor import JOURNAL_FIXES, device_checks, diagnose
from controller.cli.main import main
from controller.journal.seal import key_path_for
from controller.journal.store import Journal, format_ts
from controller.table.config import LoadedTable, hash_secret, table_from_mapping
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, serve
from sim_hardware.faults import DropFrame
from tests.live_pins import LIVE_SUPERVISOR_HASH, LIVE_TECHNICIAN_HASH, write_live_pepper

SIM_SHOE_FW = "A90DFD37667C8C8C"
SIM_PEEK_FW = "B0B7F1854CBB8688"
SIM_PANEL_FW = "21BD2C31A0A36B0E"


def table(tmp_path: Path, pins: dict[str, str] | None = None, **devices: object) -> LoadedTable:
    """A table file's contents with ``devices``; its PINs the tests' live ones unless ``pins``
    names each role's pin_hash."""
    if pins is None:
        pins = {"supervisor": LIVE_SUPERVISOR_HASH, "technician": LIVE_TECHNICIAN_HASH}
    pepper = write_live_pepper(tmp_path / "pepper" / "live.pepper")
    return table_from_mapping(
        {
            "table_id": "t1",
            "journal": {"path": "journal.sqlite3"},
            "devices": devices,
            "access": {"pepper_path": str(pepper)},
            **{role: {"pin_hash": pin} for role, pin in pins.items()},
        },
        "test.toml",
        tmp_path,
    )


def by_name(checks: list) -> dict:  # type: ignore[type-arg]
    return {c.name: c for c in checks}


def test_a_healthy_table_with_approved_firmware_passes_every_check(tmp_path: Path) -> None:
    checks = diagnose(table(tmp_path, firmware_allow=[SIM_SHOE_FW, SIM_PEEK_FW, SIM_PANEL_FW]))
    assert [c.name for c in checks if not c.ok] == []
    assert by_name(checks)["shoe"].detail.endswith("firmware approved")


def test_firmware_off_the_allow_list_fails_and_says_to_stop_using_the_device(
    tmp_path: Path,
) -> None:
    checks = by_name(diagnose(table(tmp_path, firmware_allow=[SIM_SHOE_FW, SIM_PANEL_FW])))
    assert checks["shoe"].ok
    assert not checks["peek"].ok
    assert "NOT on the allow-list" in checks["peek"].detail
    assert "stop using this device" in checks["peek"].fix


def test_pins_that_croupier_run_would_refuse_fail_the_credentials_check_saying_why(
    tmp_path: Path,
) -> None:
    none = by_name(diagnose(table(tmp_path, pins={})))["credentials"]
    assert not none.ok
    assert "no supervisor and no technician PIN" in none.detail
    assert "croupier passwd --pin supervisor" in none.detail

    bare = {"supervisor": hash_secret("40617283"), "technician": LIVE_TECHNICIAN_HASH}
    unpeppered = by_name(diagnose(table(tmp_path, pins=bare)))["credentials"]
    assert not unpeppered.ok
    assert "the supervisor PIN hash has no pepper" in unpeppered.detail

    (tmp_path / "pepper" / "live.pepper").unlink()
    lost = table(tmp_path)
    (tmp_path / "pepper" / "live.pepper").unlink()
    missing = by_name(diagnose(lost))["credentials"]
    assert not missing.ok
    assert "made with a pepper, and there is none at" in missing.detail
    assert "refuses to deal live" in missing.fix


def test_a_tampered_journal_fails_the_chain_check(tmp_path: Path) -> None:
    loaded = table(tmp_path)
    with Journal.open(loaded.journal_path, table_id="t1") as journal:
        journal.append("note", {"device": "x", "text": "one"})
        journal.append("note", {"device": "x", "text": "two"})
    db = sqlite3.connect(loaded.journal_path)
    db.execute("DROP TRIGGER IF EXISTS journal_no_update")
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        db.execute(f"DROP TRIGGER {name}")
    db.execute('UPDATE journal SET payload = \'{"device":"x","text":"TWO"}\' WHERE seq = 2')
    db.commit()
    db.close()
    chain = by_name(diagnose(loaded))["journal chain"]
    assert not chain.ok
    assert "row 2" in chain.detail


def test_a_clock_behind_the_journal_fails(tmp_path: Path) -> None:
    loaded = table(tmp_path)
    with Journal.open(loaded.journal_path, table_id="t1") as journal:
        journal.append("note", {"device": "x", "text": "written now"})
    yesterday = datetime.now(UTC) - timedelta(days=1)
    clock = by_name(diagnose(loaded, now=lambda: yesterday))["clock"]
    assert not clock.ok
    assert "before the journal's last row" in clock.detail


LAST_ROW_AT = datetime(2026, 12, 1, 10, 50, 10, 400_000, tzinfo=UTC)


def journal_written_at(loaded: LoadedTable, at: datetime) -> None:
    with Journal.open(loaded.journal_path, table_id="t1", clock=lambda: at) as journal:
        journal.append("note", {"device": "shoe", "text": "DeviceStatus"})


@pytest.mark.parametrize(
    "clock_reads",
    [
        LAST_ROW_AT - timedelta(milliseconds=300),  # a running table wrote a row meanwhile
        LAST_ROW_AT - timedelta(microseconds=400),  # below the journal's millisecond
        LAST_ROW_AT,
        LAST_ROW_AT + timedelta(seconds=5),
    ],
    ids=["300-ms-behind", "within-the-same-millisecond", "same-time", "later"],
)
def test_a_clock_at_or_just_behind_a_running_tables_last_row_passes(
    tmp_path: Path, mocker: MockerFixture, clock_reads: datetime
) -> None:
    loaded = table(tmp_path)
    journal_written_at(loaded, LAST_ROW_AT)
    mocker.patch("controller.cli.doctor.utc_now", return_value=clock_reads)
    clock = by_name(diagnose(loaded))["clock"]
    assert clock.ok, clock.detail
    assert clock.detail == format_ts(clock_reads)


def test_a_clock_seconds_behind_the_journal_fails_saying_by_how_much(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    loaded = table(tmp_path)
    journal_written_at(loaded, LAST_ROW_AT)
    mocker.patch("controller.cli.doctor.utc_now", return_value=LAST_ROW_AT - timedelta(seconds=3))
    clock = by_name(diagnose(loaded))["clock"]
    assert not clock.ok
    assert clock.detail == (
        "the clock reads 2026-12-01T10:50:07.400Z, 3.000 s before the journal's last row "
        "(2026-12-01T10:50:10.400Z)"
    )
    assert "NTP" in clock.fix


def test_the_clock_is_read_after_the_journals_last_row(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    """The false alarm of a running table: doctor read the clock, the table wrote a row, doctor
    read that row. The clock is read after the row now."""
    loaded = table(tmp_path)
    journal_written_at(loaded, LAST_ROW_AT)
    read_last_row = mocker.spy(Journal, "last_row")

    def clock() -> datetime:
        assert read_last_row.call_count == 1, "the clock was read before the journal's last row"
        return LAST_ROW_AT

    mocker.patch("controller.cli.doctor.utc_now", side_effect=clock)
    assert by_name(diagnose(loaded))["clock"].ok


def test_doctor_exits_1_when_a_check_fails_and_names_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'table_id = "t1"\n[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
        '[devices]\nfirmware_allow = ["0000000000000000"]\n'
    )
    assert main(["doctor", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] shoe" in out
    assert "what to do:" in out
    assert "the table must not deal until the failures are fixed" in out


def test_a_bad_allow_list_entry_is_refused_as_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[devices]\nfirmware_allow = ["not-hex"]\n')
    assert main(["doctor", "--config", str(config)]) == 2
    assert "devices.firmware_allow" in capsys.readouterr().err


def journal_causes() -> set[str]:
    """Every cause the journal gives a JournalUnavailable, read from its source: the second
    argument of each JournalUnavailable(...) or super().__init__(...), every value given to a
    ``cause``, and the store's tables of causes."""
    from controller.journal import store  # noqa: PLC0415

    causes = set(store._MESSAGES) | set(store._SQLITE_CAUSES.values())
    for source in (Path(store.__file__).parent).glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            given: list[ast.AST] = []
            if isinstance(node, ast.Call) and len(node.args) >= 2:
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name in ("JournalUnavailable", "__init__"):
                    given.append(node.args[1])
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "cause" for t in node.targets
            ):
                given.append(node.value)
            for value in given:
                causes |= {
                    c.value
                    for c in ast.walk(value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
    return causes


def test_every_cause_of_an_unusable_journal_has_its_own_words_of_what_to_do() -> None:
    causes = journal_causes()
    assert {"corrupt", "wrong_table", "no_key", "disk_full", "in_use", "bad_lock"} <= causes
    assert causes <= set(JOURNAL_FIXES), f"no fix for {sorted(causes - set(JOURNAL_FIXES))}"
    assert len(set(JOURNAL_FIXES.values())) == len(JOURNAL_FIXES), "each cause its own words"


def broken_tables(tmp_path: Path) -> dict[str, LoadedTable]:
    """Tables each failing one check in its own way."""
    made: dict[str, LoadedTable] = {}
    folder = tmp_path / "corrupt"
    folder.mkdir()
    made["corrupt"] = table(folder)
    made["corrupt"].journal_path.write_bytes(b"not a journal at all " * 100)
    folder = tmp_path / "foreign"
    folder.mkdir()
    made["foreign"] = table(folder)
    with Journal.open(made["foreign"].journal_path, table_id="another-table"):
        pass
    folder = tmp_path / "keyless"
    folder.mkdir()
    made["keyless"] = table(folder)
    with Journal.open(made["keyless"].journal_path, table_id="t1", sealed=True) as journal:
        journal.append("note", {"device": "x", "text": "sealed"})
    key_path_for(made["keyless"].journal_path).unlink()
    folder = tmp_path / "unapproved"
    folder.mkdir()
    made["unapproved"] = table(folder, firmware_allow=["0000000000000000"])
    folder = tmp_path / "no-pins"
    folder.mkdir()
    made["no-pins"] = table(folder, pins={})
    return made


def test_every_failed_check_says_what_to_do_in_words(tmp_path: Path) -> None:
    """ "what to do: see the message" said nothing: each failure says what to do itself."""
    tables = broken_tables(tmp_path)
    failed = {name: [c for c in diagnose(loaded) if not c.ok] for name, loaded in tables.items()}
    assert [c.name for c in failed["corrupt"]] == ["journal"]
    journal = tables["corrupt"].journal_path
    assert failed["corrupt"][0].fix == JOURNAL_FIXES["corrupt"].format(path=journal)
    assert f"croupier audit verify --journal {journal}" in failed["corrupt"][0].fix
    assert failed["foreign"][0].fix == JOURNAL_FIXES["wrong_table"]
    assert failed["keyless"][0].fix == JOURNAL_FIXES["no_key"]
    for name, checks in failed.items():
        assert checks, f"{name}: nothing failed"
        for check in checks:
            assert len(check.fix.split()) >= 6, f"{name}: {check.name}: {check.fix!r}"
            assert "see the message" not in check.fix


def test_doctor_closes_its_devices_mid_time_sync_without_a_warning(tmp_path: Path) -> None:
    """Each driver sends its device the time as soon as it is identified; doctor closes the
    drivers as soon as all three are, so a time sync may still be in flight (here it is: the
    first reply of each device is lost on the wire). That was the stray driver warning doctor
    printed after its summary once in four runs; a deliberate close is no warning."""
    first_reply_lost = [DropFrame(nth=1, kind="s")]
    devices = {
        "shoe": EmulatedShoe(faults=first_reply_lost),
        "peek": EmulatedPeekReader(faults=first_reply_lost),
        "panel": EmulatedPanel(faults=first_reply_lost),
    }
    with ExitStack() as served:
        urls = {
            role: served.enter_context(serve(device, f"doctor-{role}")).url
            for role, device in devices.items()
        }
        loaded = table(tmp_path, shoe=urls["shoe"], peek=urls["peek"], panel=urls["panel"])
        with capture_logs() as logs:
            checks = by_name(device_checks(loaded))
    assert all(checks[role].ok for role in devices)
    assert [e for e in logs if e["log_level"] in ("warning", "error", "critical")] == []
