"""One login per table, bound to its table id in PostgreSQL itself (issue 21, point 5): table A's
login cannot write, report for, read or block table B, whatever it sends; a login bound to no
table (a floor's shared login from before) writes nothing and says what to do; and
``croupier floor table-login`` makes a table's login that ships."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from controller.floor.audit import audit_table
from controller.floor.cluster import OWNER, Cluster
from controller.floor.schema import TABLE_ROLE, newest_revision, revision
from controller.floor.shipper import _INSERT, Shipper
from controller.journal.store import Row, row_hash
from controller.service.service import TableService
from controller.table.config import FloorLink
from tests.floor.conftest import (
    as_tuple,
    demo,
    drained,
    floor_rows,
    link,
    local_rows,
    rounds_done,
    table,
    table_id,
    wait_until,
)

OWNER_PASSWORD_ENV = "CROUPIER_TEST_OWNER_PASSWORD"
A_PASSWORD_ENV = "CROUPIER_TEST_TABLE_A_PASSWORD"
B_PASSWORD_ENV = "CROUPIER_TEST_TABLE_B_PASSWORD"
FORGED_PAYLOAD = json.dumps({"box": 1, "kind": "win", "stake": 5_000_000, "net": 5_000_000})


def _forged_row(cluster: Cluster, victim: str) -> tuple[list[object], ...]:
    """The row the attack chained onto the victim's head: seq and prev_hash follow on from
    what the floor holds (read with the floor's own login), its hash computed as a table does,
    so nothing but the login could tell it from the victim's own."""
    with psycopg.connect(cluster.conninfo("floor")) as db:
        head = db.execute(
            "SELECT seq, hash, last_ts FROM croupier.tables WHERE table_id = %s", (victim,)
        ).fetchone()
    assert head is not None
    seq, prev, ts = int(head[0]) + 1, str(head[1]), str(head[2])
    digest = row_hash(seq, ts, victim, None, "ledger", FORGED_PAYLOAD, prev)
    return ([victim], [seq], [ts], [None], ["ledger"], [FORGED_PAYLOAD], [prev], [digest])


def _columns(rows: list[Row]) -> tuple[list[object], ...]:
    """Rows as the shipper's INSERT takes them."""
    return tuple(
        list(column)
        for column in zip(
            *[
                (r.table_id, r.seq, r.ts, r.round_id, r.kind, r.payload_json, r.prev_hash, r.hash)
                for r in rows
            ],
            strict=True,
        )
    )


def _own_link(cluster: Cluster, tid: str, password_env: str) -> FloorLink:
    return link(cluster, tid).model_copy(update={"password_env": password_env, "poll_ms": 20})


def _refused(conninfo: str, statement: str, args: Sequence[Any] = ()) -> str:
    with psycopg.connect(conninfo) as db, pytest.raises(psycopg.Error) as caught:
        db.execute(statement, args)
    return str(caught.value)


def test_one_tables_login_cannot_write_report_for_read_or_block_another_table(
    cluster: Cluster, tmp_path: Path
) -> None:
    a, b = table_id("login-a"), table_id("login-b")
    table_a, table_b = table(tmp_path / "a", a), table(tmp_path / "b", b)
    # Each table its own login and password.
    os.environ[A_PASSWORD_ENV] = "password-of-table-a"
    os.environ[B_PASSWORD_ENV] = "password-of-table-b"
    login_a = cluster.table_conninfo(a, password=os.environ[A_PASSWORD_ENV])
    cluster.table_login(b, password=os.environ[B_PASSWORD_ENV])
    link_a = _own_link(cluster, a, A_PASSWORD_ENV)
    link_b = _own_link(cluster, b, B_PASSWORD_ENV)
    with TableService(table_a, actors=demo(seed=1)) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round at table A")
    with Shipper(table_a.journal_path, a, link_a) as shipper_a:
        wait_until(lambda: drained(shipper_a, table_a.journal_path), "A shipped its own rows")
    with psycopg.connect(login_a) as db:  # A reads its own head, and only that
        heads = db.execute("SELECT table_id FROM croupier.tables").fetchall()
    assert heads == [(a,)]
    with (
        TableService(table_b, actors=demo(pace_s=0.01, seed=2)) as service,
        Shipper(table_b.journal_path, b, link_b) as shipper_b,
    ):
        wait_until(lambda: rounds_done(service) >= 1, "a round at table B")
        wait_until(lambda: shipper_b.backlog().shipped_seq not in (None, 0), "B shipping")

        # A's login chains a forged round onto B's head: refused, nothing written.
        text = _refused(login_a, _INSERT, _forged_row(cluster, b))
        assert f"writes table {a} only, not table {b}" in text
        # ... nor may it say anything for B's shipper (B "refused" for ever, in the attack).
        text = _refused(
            login_a,
            "SELECT croupier.report_shipper(%s, 1, 0, 0, 'refused', 'forged', '{}')",
            (b,),
        )
        assert f"not table {b}" in text
        # ... nor read B's head, nor bind itself to B.
        with psycopg.connect(login_a) as db:
            assert (
                db.execute("SELECT * FROM croupier.tables WHERE table_id = %s", (b,)).fetchall()
                == []
            )
        assert "permission denied" in _refused(
            login_a, "UPDATE croupier.table_logins SET table_id = %s", (b,)
        )
        assert "permission denied" in _refused(
            login_a, "INSERT INTO croupier.table_logins (login, table_id) VALUES ('x', %s)", (b,)
        )
        # A real shipper of B's journal with A's login is refused too, saying why.
        with Shipper(table_b.journal_path, b, link_a) as wrong:
            wait_until(lambda: wrong.health().status == "refused", "the wrong login refused")
            assert f"writes table {a}, not this table {b}" in wrong.health().detail
            assert "croupier floor table-login" in wrong.health().detail

        # B deals on and ships every row, its shipper connected all along.
        before = rounds_done(service)
        wait_until(lambda: rounds_done(service) >= before + 2, "two more rounds at B")
        service.close()
        wait_until(lambda: drained(shipper_b, table_b.journal_path), "B drained")
        assert shipper_b.health().status == "connected"
    assert floor_rows(cluster, b) == [as_tuple(r) for r in local_rows(table_b.journal_path)]
    with psycopg.connect(cluster.conninfo("floor")) as db:
        assert audit_table(db, b).ok
        status = db.execute(
            "SELECT status, problem FROM croupier.shippers WHERE table_id = %s", (b,)
        ).fetchone()
    assert status == ("connected", "")


def test_a_tables_own_login_cannot_change_remove_or_rebind_anything(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("own")
    loaded = table(tmp_path, tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    with Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped")
    own = cluster.table_conninfo(tid)
    for statement in (
        "UPDATE croupier.journal_rows SET payload = '{}' WHERE table_id = %s",
        "DELETE FROM croupier.journal_rows WHERE table_id = %s",
        "UPDATE croupier.tables SET seq = 0 WHERE table_id = %s",
        "DELETE FROM croupier.tables WHERE table_id = %s",
        "UPDATE croupier.shippers SET status = 'refused' WHERE table_id = %s",
        "DELETE FROM croupier.table_logins WHERE table_id = %s",
        "SELECT croupier.login_refusal(%s)",
    ):
        assert "permission denied" in _refused(own, statement, (tid,)), statement
    for statement in ("TRUNCATE croupier.journal_rows", "TRUNCATE croupier.tables"):
        assert "permission denied" in _refused(own, statement), statement
    assert floor_rows(cluster, tid) == [as_tuple(r) for r in local_rows(loaded.journal_path)]


def _owner_env(cluster: Cluster) -> dict[str, str]:
    return {**os.environ, OWNER_PASSWORD_ENV: cluster.credentials.owner}


def _croupier(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def _as_owner(cluster: Cluster, *args: str) -> subprocess.CompletedProcess[str]:
    """``croupier floor ARGS`` with the owner's connection (its password in the environment)."""
    return _croupier(
        "floor",
        *args,
        "--dsn",
        cluster.dsn(OWNER),
        "--password-env",
        OWNER_PASSWORD_ENV,
        env=_owner_env(cluster),
    )


def _shared_login(cluster: Cluster, name: str) -> str:
    """A member of croupier_table bound to no table (a floor's shared login from before)."""
    with psycopg.connect(cluster.conninfo("owner"), autocommit=True) as db:
        db.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
                sql.Identifier(name),
                sql.Literal(cluster.credentials.table),
                sql.Identifier(TABLE_ROLE),
            )
        )
    return psycopg.conninfo.make_conninfo(cluster.dsn(name), password=cluster.credentials.table)


def test_a_login_bound_to_no_table_writes_nothing_and_ships_once_the_owner_binds_it(
    cluster: Cluster, tmp_path: Path
) -> None:
    """The shared login of a floor set up before one login per table: refused, saying what to
    do, until the owner binds it (``croupier floor table-login TABLE_ID --login NAME``); the
    table's rows wait in its journal meanwhile and ship once it is bound."""
    tid = table_id("shared")
    shared = f"shared_{tid}"
    conninfo = _shared_login(cluster, shared)
    loaded = table(tmp_path, tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    text = _refused(conninfo, _INSERT, _columns(local_rows(loaded.journal_path)[:1]))
    assert f"the login {shared} writes no table" in text
    assert f"croupier floor table-login {tid} --login {shared}" in text
    text = _refused(
        conninfo, "SELECT croupier.report_shipper(%s, 1, 0, 0, 'connected', '', '{}')", (tid,)
    )
    assert "writes no table" in text
    settings = link(cluster, tid).model_copy(update={"dsn": cluster.dsn(shared), "poll_ms": 20})
    with Shipper(loaded.journal_path, tid, settings) as shipper:
        wait_until(lambda: shipper.health().status == "refused", "refused")
        assert "writes no table" in shipper.health().detail
    assert floor_rows(cluster, tid) == []

    done = _as_owner(cluster, "table-login", tid, "--login", shared)
    assert done.returncode == 0, done.stderr
    assert f"table {tid} writes the floor as the login {shared}" in done.stdout
    assert "keeps its password" in done.stdout
    with Shipper(loaded.journal_path, tid, settings) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped once bound")
    assert floor_rows(cluster, tid) == [as_tuple(r) for r in local_rows(loaded.journal_path)]


def test_floor_table_login_makes_a_login_whose_password_file_ships_the_table(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("cli")
    secret = tmp_path / "floor.secret"
    done = _as_owner(cluster, "table-login", tid, "--password-file", str(secret))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    password = secret.read_text().strip()
    assert password not in done.stdout
    section = done.stdout.split("[floor]\n", 1)[1]
    dsn = section.split('dsn = "', 1)[1].split('"', 1)[0]
    assert f"user=table_{tid}" in dsn
    assert f'password_file = "{secret}"' in section
    assert cluster.credentials.owner not in done.stdout + done.stderr
    loaded = table(tmp_path, tid)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round")
    settings = FloorLink(dsn=dsn, password_file=str(secret), poll_ms=20)
    with Shipper(loaded.journal_path, tid, settings) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped with its own login")
    # the same again: the file is never overwritten
    again = _as_owner(cluster, "table-login", tid, "--password-file", str(secret))
    assert again.returncode == 2
    assert "exists already" in again.stderr
    assert secret.read_text().strip() == password


def test_a_floor_from_before_upgrades_and_its_shared_login_is_refused_until_bound(
    tmp_path: Path,
) -> None:
    """A floor at revision 0001 with rows from a shared login: `floor migrate` brings it to the
    newest; the rows stay, the chain verifies, the shared login writes nothing more."""
    old = Cluster(durable=False)
    try:
        old.init()
        old.start()
        old.bootstrap("0001")
        assert revision(old.conninfo("owner")) == "0001"
        tid = table_id("old")
        conninfo = _shared_login(old, "croupier_table_login")
        loaded = table(tmp_path, tid)
        with TableService(loaded, actors=demo()) as service:
            wait_until(lambda: rounds_done(service) >= 1, "a round")
        settings = FloorLink(
            dsn=old.dsn("croupier_table_login"), password_env="CROUPIER_TEST_OLD_PW", poll_ms=20
        )
        os.environ["CROUPIER_TEST_OLD_PW"] = old.credentials.table
        rows = local_rows(loaded.journal_path)
        with psycopg.connect(conninfo) as db:  # revision 0001: any login writes any table
            db.execute(_INSERT, _columns(rows))
        done = _croupier(
            "floor",
            "migrate",
            "--dsn",
            old.dsn(OWNER),
            "--password-env",
            OWNER_PASSWORD_ENV,
            env={**os.environ, OWNER_PASSWORD_ENV: old.credentials.owner},
        )
        assert done.returncode == 0, done.stderr
        assert revision(old.conninfo("owner")) == newest_revision()
        with psycopg.connect(old.conninfo("floor")) as db:
            assert audit_table(db, tid).ok
        assert "writes no table" in _refused(
            conninfo, "SELECT croupier.report_shipper(%s, 1, 0, 0, 'connected', '', '{}')", (tid,)
        )
        with Shipper(loaded.journal_path, tid, settings) as shipper:
            wait_until(lambda: shipper.health().status == "refused", "refused after the upgrade")
    finally:
        old.remove()


def test_a_tables_login_holding_its_transaction_open_holds_up_no_other_table(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Before, ``ensure_months`` made a month's partition in the caller's transaction: table A's
    login made one and kept its transaction open, and every other table's inserts waited on
    its lock. Now a table's login makes none; its rows of a month nobody made yet go to the
    default partition."""
    a, b = table_id("hold-a"), table_id("hold-b")
    loaded = table(tmp_path, b)
    with TableService(loaded, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round at table B")
    future = "2031-07-01T00:00:00.000Z"  # a month no partition holds
    digest = row_hash(1, future, a, None, "note", "{}", "")
    with psycopg.connect(cluster.table_conninfo(a)) as held:  # one open transaction
        assert held.execute(
            "SELECT croupier.ensure_months(%s::timestamptz, %s::timestamptz)", (future, future)
        ).fetchone() == (0,)
        held.execute(_INSERT, ([a], [1], [future], [None], ["note"], ["{}"], [""], [digest]))
        with Shipper(loaded.journal_path, b, link(cluster, b, poll_ms=20)) as shipper:
            wait_until(lambda: drained(shipper, loaded.journal_path), "B shipped", timeout=15)
        held.commit()
    assert floor_rows(cluster, b) == [as_tuple(r) for r in local_rows(loaded.journal_path)]
    with psycopg.connect(cluster.conninfo("owner")) as db:
        found = db.execute(
            "SELECT tableoid::regclass::text FROM croupier.journal_rows WHERE table_id = %s", (a,)
        ).fetchall()
    assert found == [("croupier.journal_rows_default",)]


def test_a_tables_login_cannot_hold_up_the_making_of_months_or_a_migration(
    cluster: Cluster,
) -> None:
    """Before, ``ensure_months`` serialised on an advisory lock, which any login may take:
    table A's login took it and held it, and every ``croupier floor migrate`` failed ("lock
    timeout") and ``floor serve`` made no month (found retrying issue 21, point 5b, by hand).
    Now it locks a table of the owner's, which no table's login may lock."""
    a = table_id("months-a")
    conninfo = cluster.table_conninfo(a)
    assert "permission denied" in _refused(conninfo, "LOCK TABLE croupier.months_lock")
    with psycopg.connect(conninfo, autocommit=True) as held:
        held.execute("SELECT pg_advisory_lock(hashtext('croupier.ensure_months'))")
        done = _as_owner(cluster, "migrate")
        assert done.returncode == 0, done.stderr
        with psycopg.connect(cluster.conninfo("owner")) as db:
            assert (
                db.execute(
                    "SELECT croupier.ensure_months(now(), now() + interval '2 months')"
                ).fetchone()
                is not None
            )
