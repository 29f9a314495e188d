"""``croupier audit verify`` and ``croupier audit export``."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.journal.store import Journal, canonical_json, row_hash
from tests.journal.conftest import FakeClock


def three_days(journal: Journal, clock: FakeClock) -> None:
    """Rows on 2026-01-01, 2026-01-02 and 2026-01-03 (12:00 UTC onwards)."""
    for day in range(3):
        journal.append("round_start", {"round": day + 1, "variant": "nz-pontoon"}, round_id=day + 1)
        journal.append(
            "ledger", {"box": 1, "amount_cents": 100 * (day + 1), "odds": "3:2"}, round_id=day + 1
        )
        clock.advance(timedelta(days=1))


def exported(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def test_verify_of_an_intact_journal_exits_0_and_says_so(
    journal: Journal, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(journal, clock)
    assert main(["audit", "verify", "--journal", str(journal.path)]) == 0
    out = capsys.readouterr().out
    assert "chain intact: 6 rows verified; last row 6" in out


def test_verify_without_a_journal_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "verify", "--journal", str(tmp_path / "none.sqlite3")]) == 2
    assert "there is no journal at" in capsys.readouterr().err


def test_export_since_a_date_writes_only_rows_from_that_midnight_utc(
    journal: Journal, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(journal, clock)
    assert main(["audit", "export", "--since", "2026-01-02", "--journal", str(journal.path)]) == 0
    rows = exported(capsys.readouterr().out)
    assert [r["seq"] for r in rows] == [3, 4, 5, 6]
    assert all(str(r["ts"]) >= "2026-01-02T00:00:00.000Z" for r in rows)


def test_export_since_an_iso_datetime_filters_to_the_millisecond(
    journal: Journal, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(journal, clock)
    fourth = journal.rows()[3]
    assert main(["audit", "export", "--since", fourth.ts, "--journal", str(journal.path)]) == 0
    assert [r["seq"] for r in exported(capsys.readouterr().out)] == [4, 5, 6]


def test_a_datetime_without_a_zone_is_read_as_utc(
    journal: Journal, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(journal, clock)
    since = "2026-01-03T12:00:00"
    assert main(["audit", "export", "--since", since, "--journal", str(journal.path)]) == 0
    assert [r["seq"] for r in exported(capsys.readouterr().out)] == [5, 6]


def test_exported_lines_carry_every_column_and_rehash_to_the_stored_hash(
    journal: Journal, clock: FakeClock, tmp_path: Path
) -> None:
    three_days(journal, clock)
    out = tmp_path / "export.jsonl"
    argv = ["audit", "export", "--since", "2026-01-01", "--journal", str(journal.path)]
    assert main([*argv, "--out", str(out)]) == 0
    lines = exported(out.read_text(encoding="utf-8"))
    assert lines == [row.to_json_dict() for row in journal.rows()]
    for line in lines:
        assert set(line) == {
            "seq", "ts", "table_id", "round_id", "kind", "payload", "prev_hash", "hash",
        }  # fmt: skip
        assert line["hash"] == row_hash(
            line["seq"],  # type: ignore[arg-type]
            line["ts"],  # type: ignore[arg-type]
            line["table_id"],  # type: ignore[arg-type]
            line["round_id"],  # type: ignore[arg-type]
            line["kind"],  # type: ignore[arg-type]
            canonical_json(line["payload"]),
            line["prev_hash"],  # type: ignore[arg-type]
        )


def test_export_after_the_last_row_writes_nothing(
    journal: Journal, clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    three_days(journal, clock)
    assert main(["audit", "export", "--since", "2027-01-01", "--journal", str(journal.path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "0 rows since 2027-01-01T00:00:00+00:00" in captured.err


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "01/02/2026", "2026-01-02T25:00"])
def test_a_bad_date_is_a_clear_error_with_exit_2(
    journal: Journal, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["audit", "export", "--since", bad, "--journal", str(journal.path)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --since: {bad!r} is not a date: write YYYY-MM-DD" in err


def test_audit_without_an_action_shows_help_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit"]) == 2
    assert "verify" in capsys.readouterr().err


def test_parse_since_of_a_date_is_that_midnight_utc() -> None:
    from controller.cli.commands import parse_since  # noqa: PLC0415

    assert parse_since("2026-11-29") == datetime(2026, 11, 29, tzinfo=UTC)
    assert parse_since("2026-11-29T13:00:00+02:00") == datetime(2026, 11, 29, 11, tzinfo=UTC)


def test_export_into_a_pipe_closed_early_stops_quietly(journal: Journal) -> None:
    journal.append_many([("note", {"device": "shoe", "text": "x" * 200})] * 2_000)
    command = [sys.executable, "-m", "controller.cli", "audit", "export", "--since", "2026-01-01",
               "--journal", str(journal.path)]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()
        err = child.stderr.read().decode()
        status = child.wait(timeout=30)
    assert json.loads(first)["seq"] == 1
    assert status == 1
    assert err == ""  # no traceback, no "cannot write" for a reader that had enough
