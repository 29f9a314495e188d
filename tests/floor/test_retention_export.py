"""The floor's side of retention: the shipper records beside the journal what the floor
committed (what a start may prune), and ``croupier floor audit export`` writes a table's rows
for a period with their chain, which ``croupier audit verify --export`` checks on its own."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from controller.cli.main import main
from controller.floor import confirmed
from controller.floor.cluster import FLOOR_LOGIN, OWNER, Cluster
from controller.floor.shipper import Shipper
from controller.journal.store import Journal
from controller.service.service import TableService
from tests.display.conftest import VIEW_TOKEN_HASH  # (any salted hash: nobody signs in)
from tests.floor.conftest import (
    FLOOR_PASSWORD_ENV,
    demo,
    drained,
    floor_rows,
    link,
    rounds_done,
    table,
    table_id,
    wait_until,
)
from tests.journal.conftest import FakeClock, fill

OWNER_PASSWORD_ENV = "CROUPIER_TEST_OWNER_PASSWORD"


def _floor_file(cluster: Cluster, where: Path) -> Path:
    floor_file = where / "floor.toml"
    floor_file.write_text(
        f'[database]\ndsn = "{cluster.dsn(FLOOR_LOGIN)}"\npassword_env = "{FLOOR_PASSWORD_ENV}"\n'
        f'[[users]]\nname = "pat"\nsecret_hash = "{VIEW_TOKEN_HASH}"\n'
    )
    return floor_file


def test_the_shipper_records_what_the_floor_holds_and_an_export_verifies_on_its_own(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = table_id("export")
    loaded = table(tmp_path, tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    with Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped")
    with Journal.open(loaded.journal_path, readonly=True) as journal:
        last = journal.last_row()
        rows = journal.rows()
    assert last is not None
    # the floor committed every row: the confirmation says so (written at the stop)
    found = confirmed.read(loaded.journal_path, tid)
    assert found is not None
    assert (found.seq, found.hash) == (last.seq, last.hash)

    floor_file = _floor_file(cluster, tmp_path)
    today = datetime.now(UTC).date()
    out = tmp_path / "export.jsonl"
    period = ["--from", str(today - timedelta(days=1)), "--to", str(today + timedelta(days=1))]
    args = ["floor", "audit", "export", "--config", str(floor_file), "--table", tid, *period]
    assert main([*args, "--out", str(out)]) == 0
    assert f"{len(rows):,} rows of table {tid} written to {out}" in capsys.readouterr().out
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["format"] == "croupier-floor-export/1"
    assert lines[0]["floor_head"] == {"seq": last.seq, "hash": last.hash}
    assert [line["seq"] for line in lines[1:-1]] == [r.seq for r in rows]
    assert lines[-1] == {
        "end": True,
        "rows": len(rows),
        "first_seq": 1,
        "last_seq": last.seq,
        "last_hash": last.hash,
    }
    assert oct(out.stat().st_mode & 0o777) == "0o600"

    assert main(["audit", "verify", "--export", str(out)]) == 0
    assert f"chain intact, {len(rows):,} rows verified" in capsys.readouterr().out

    # one amount changed in one row: named; the file cut short: named
    edited = lines[5]["payload"] + " "  # (any change to the hashed text)
    lines[5] = {**lines[5], "payload": edited}
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["audit", "verify", "--export", str(out)]) == 1
    said = capsys.readouterr().out
    assert f"row {lines[5]['seq']}: edited" in said
    out.write_text("".join(json.dumps(line) + "\n" for line in lines[:3]))
    assert main(["audit", "verify", "--export", str(out)]) == 1
    assert "no trailer: the file was cut short" in capsys.readouterr().out


def test_the_floor_keeps_rows_for_its_retention_and_drops_older_months_whole(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = table_id("retention")
    eleven_years_ago = datetime.now(UTC).replace(day=1, hour=12) - timedelta(days=11 * 366)
    month = eleven_years_ago.strftime("y%Ym%m")
    with psycopg.connect(cluster.conninfo("owner")) as db:  # (floor serve makes the months)
        db.execute(
            "SELECT croupier.ensure_months(%s, %s)",
            (eleven_years_ago, eleven_years_ago + timedelta(days=1)),
        )
    path = tmp_path / "old.sqlite3"
    with Journal.open(path, table_id=tid, clock=FakeClock(eleven_years_ago)) as journal:
        fill(journal, 5)
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "shipped")
    floor_file = _floor_file(cluster, tmp_path)
    owner = ["--dsn", cluster.dsn(OWNER), "--password-env", OWNER_PASSWORD_ENV]
    with pytest.MonkeyPatch.context() as env:
        env.setenv(OWNER_PASSWORD_ENV, cluster.credentials.owner)
        assert main(["floor", "prune", "--config", str(floor_file), *owner, "--dry-run"]) == 0
        said = capsys.readouterr().out
        assert "would drop" in said
        assert f"{eleven_years_ago:%Y-%m} (5 rows)" in said
        assert len(floor_rows(cluster, tid)) == 5  # a dry run drops nothing
        assert main(["floor", "prune", "--config", str(floor_file), *owner]) == 0
        assert f"{eleven_years_ago:%Y-%m} (5 rows)" in capsys.readouterr().out
    assert floor_rows(cluster, tid) == []
    with psycopg.connect(cluster.conninfo("owner")) as db:
        left = db.execute("SELECT to_regclass(%s)", (f"croupier.journal_rows_{month}",))
        assert left.fetchone() == (None,)  # the month is gone
