"""The roles: a table may only insert journal rows, the floor may only read, and nobody - not
the owner either - changes or removes a row once it is on the floor."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from controller.floor.cluster import Cluster
from controller.floor.schema import newest_revision, revision
from controller.floor.shipper import Shipper
from controller.service.service import TableService
from tests.floor.conftest import (
    demo,
    drained,
    link,
    rounds_done,
    table,
    table_dsn,
    table_id,
    wait_until,
)


@pytest.fixture(scope="module")
def shipped(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> str:
    tid = table_id("roles")
    loaded = table(tmp_path_factory.mktemp("roles"), tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    with Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped")
    return tid


def _refused(conninfo: str, statement: str, args: tuple[object, ...] = ()) -> str:
    with psycopg.connect(conninfo) as db, pytest.raises(psycopg.Error) as caught:
        db.execute(statement, args)
    return str(caught.value)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE croupier.journal_rows SET payload = '{}' WHERE table_id = %s",
        "DELETE FROM croupier.journal_rows WHERE table_id = %s",
        "SELECT count(*) FROM croupier.journal_rows WHERE table_id = %s",
        "UPDATE croupier.tables SET seq = 0 WHERE table_id = %s",
        "DELETE FROM croupier.shippers WHERE table_id = %s",
    ],
)
def test_the_table_role_cannot_read_change_or_remove_rows(
    cluster: Cluster, shipped: str, statement: str
) -> None:
    assert "permission denied" in _refused(cluster.table_conninfo(shipped), statement, (shipped,))


def test_the_table_role_cannot_truncate(cluster: Cluster, shipped: str) -> None:
    text = _refused(cluster.table_conninfo(shipped), "TRUNCATE croupier.journal_rows")
    assert "permission denied" in text


def test_the_table_role_cannot_reach_a_month_partition_directly(
    cluster: Cluster, shipped: str
) -> None:
    with psycopg.connect(cluster.conninfo("owner")) as db:
        found = db.execute(
            "SELECT relname FROM pg_class WHERE relname LIKE 'journal_rows_y%%' "
            "AND relkind = 'r' ORDER BY 1 LIMIT 1"
        ).fetchone()
    assert found is not None
    text = _refused(
        cluster.table_conninfo(shipped),
        f"DELETE FROM croupier.{found[0]} WHERE table_id = %s",
        (shipped,),
    )
    assert "permission denied" in text


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO croupier.journal_rows (table_id, seq, ts, at, kind, payload, prev_hash, hash)"
        " VALUES (%s, 999999, '2026-12-01T00:00:00.000Z', now(), 'note', '{}', 'x', 'y')",
        "UPDATE croupier.journal_rows SET kind = 'note' WHERE table_id = %s",
        "DELETE FROM croupier.journal_rows WHERE table_id = %s",
        "UPDATE croupier.tables SET seq = 0 WHERE table_id = %s",
        "SELECT croupier.report_shipper(%s, 1, 0, 0, 'connected', '', '{}')",
        "INSERT INTO croupier.alert_acks (table_id, kind, alert, since, acked_by, acked_at, "
        "login) VALUES (%s, 'lockup', 'x', 'y', 'pat', now(), 'pat')",
    ],
)
def test_the_floor_role_cannot_write(cluster: Cluster, shipped: str, statement: str) -> None:
    assert "permission denied" in _refused(cluster.conninfo("floor"), statement, (shipped,))


def _acked(cluster: Cluster, table_id: str) -> int:
    """An alert of ``table_id`` acknowledged through the floor role's one door; its id."""
    with psycopg.connect(cluster.conninfo("floor")) as db:
        db.execute(
            "SELECT croupier.ack_alert(%s, 'lockup', 'shoe jammed', '2026-12-03T22:00:00Z', 'pat')",
            (table_id,),
        )
    with psycopg.connect(cluster.conninfo("owner")) as db:
        found = db.execute(
            "SELECT id, acked_by, login FROM croupier.alert_acks WHERE table_id = %s",
            (table_id,),
        ).fetchone()
    assert found is not None
    assert found[1:] == ("pat", "croupier_floor_login")  # the name, and the login that wrote it
    return int(found[0])


def test_an_acknowledgement_is_written_by_the_floor_role_only_and_never_changed(
    cluster: Cluster, shipped: str
) -> None:
    ack = _acked(cluster, shipped)
    text = _refused(
        cluster.table_conninfo(shipped),
        "SELECT croupier.ack_alert(%s, 'lockup', 'x', 'y', 'mallory')",
        (shipped,),
    )
    assert "permission denied" in text
    for statement in (
        "UPDATE croupier.alert_acks SET acked_by = 'eve' WHERE id = %s",
        "DELETE FROM croupier.alert_acks WHERE id = %s",
    ):
        assert "never changed or removed" in _refused(cluster.conninfo("owner"), statement, (ack,))
    assert "never changed or removed" in _refused(
        cluster.conninfo("owner"), "TRUNCATE croupier.alert_acks"
    )
    assert "permission denied" in _refused(
        cluster.conninfo("floor"), "UPDATE croupier.alert_acks SET acked_by = 'eve'"
    )


def test_the_floor_role_reads_every_row(cluster: Cluster, shipped: str) -> None:
    with psycopg.connect(cluster.conninfo("floor")) as db:
        found = db.execute(
            "SELECT count(*) FROM croupier.journal_rows WHERE table_id = %s", (shipped,)
        ).fetchone()
    assert found is not None
    assert found[0] > 50


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE croupier.journal_rows SET payload = '{}' WHERE table_id = %s",
        "DELETE FROM croupier.journal_rows WHERE table_id = %s",
    ],
)
def test_not_even_the_owner_changes_a_row(cluster: Cluster, shipped: str, statement: str) -> None:
    text = _refused(cluster.conninfo("owner"), statement, (shipped,))
    assert "never changed" in text


def test_the_database_is_at_the_newest_migration(cluster: Cluster) -> None:
    assert revision(cluster.conninfo("floor")) == newest_revision()


def test_doctor_reports_the_floor_and_the_backlog(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.main import main  # noqa: PLC0415
    from tests.floor.conftest import PASSWORD_ENV  # noqa: PLC0415

    tid = table_id("doctor")
    loaded = table(tmp_path, tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    file = tmp_path / "table.toml"
    file.write_text(
        f'table_id = "{tid}"\n[journal]\npath = "{loaded.journal_path}"\n'
        f'[floor]\ndsn = "{table_dsn(cluster, tid)}"\npassword_env = "{PASSWORD_ENV}"\n'
    )
    main(["doctor", "--config", str(file)])
    line = next(x for x in capsys.readouterr().out.splitlines() if "] floor:" in x)
    assert "rows behind, oldest" in line
    assert line.startswith(("[ok  ]", "[warn]"))
    with Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped")
    main(["doctor", "--config", str(file)])
    line = next(x for x in capsys.readouterr().out.splitlines() if "] floor:" in x)
    assert "up to date" in line
