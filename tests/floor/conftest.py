"""A real PostgreSQL for the floor's tests: one throwaway cluster per test session (Debian's
initdb/pg_ctl, a unix socket in a temporary folder, no TCP), with the floor's roles and schema.

Rows on the floor are never deleted (not even by the owner), so each test uses table ids of its
own (:func:`table_id`)."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.shipper import Shipper
from controller.journal.store import Journal, Row
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import ActorFactory, TableService
from controller.table.config import FloorLink, LoadedTable, table_from_mapping
from tests.display.conftest import browser  # noqa: F401 - the suite's Chromium, per module

WAIT_S = 30.0
PASSWORD_ENV = "CROUPIER_TEST_FLOOR_PASSWORD"
FLOOR_PASSWORD_ENV = "CROUPIER_TEST_FLOOR_DB_PASSWORD"
_ids = itertools.count(1)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    made = Cluster(durable=False)
    try:
        made.create()
    except BaseException:
        made.remove()
        raise
    os.environ[PASSWORD_ENV] = made.credentials.table
    os.environ[FLOOR_PASSWORD_ENV] = made.credentials.floor
    try:
        yield made
    finally:
        made.remove()


def table_id(prefix: str = "t") -> str:
    return f"{prefix}-{os.getpid() % 1000}-{next(_ids)}-{int(time.time()) % 100000}"


def table_dsn(cluster: Cluster, tid: str) -> str:
    """The connection string (no password) of table ``tid``'s own login, made if need be; its
    password is in ``PASSWORD_ENV``."""
    return cluster.dsn(cluster.table_login(tid).login)


def link(cluster: Cluster, tid: str, **extra: Any) -> FloorLink:
    """Table ``tid``'s [floor] section: its own login."""
    return FloorLink(dsn=table_dsn(cluster, tid), password_env=PASSWORD_ENV, **extra)


def table(tmp: Path, tid: str, **extra: Any) -> LoadedTable:
    data: dict[str, Any] = {
        "table_id": tid,
        "boxes": [1, 2, 3],
        "display": {"port": 0},
        "journal": {"path": str(tmp / f"{tid}.sqlite3")},
        **extra,
    }
    return table_from_mapping(data, "<test>", tmp)


def demo(pace_s: float = 0.0, seed: int = 5) -> list[ActorFactory]:
    """The demo's players and dealer at a table."""
    return [demo_dealer(DemoOptions(pace_s=pace_s, boxes=(1, 2, 3), seed=seed))]


def wait_until(check: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for: {what}")
        time.sleep(0.02)


def rounds_done(service: TableService) -> int:
    return service.rounds_completed


def local_rows(path: Path) -> list[Row]:
    with Journal.open(path, readonly=True) as journal:
        return journal.rows()


def floor_rows(cluster: Cluster, tid: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(cluster.conninfo("floor")) as db:
        return db.execute(
            "SELECT seq, ts, table_id, round_id, kind, payload, prev_hash, hash "
            "FROM croupier.journal_rows WHERE table_id = %s ORDER BY seq, at",
            (tid,),
        ).fetchall()


def as_tuple(row: Row) -> tuple[Any, ...]:
    return (
        row.seq,
        row.ts,
        row.table_id,
        row.round_id,
        row.kind,
        row.payload_json,
        row.prev_hash,
        row.hash,
    )


def drained(shipper: Shipper, path: Path) -> bool:
    with Journal.open(path, readonly=True) as journal:
        last = journal.last_row()
    backlog = shipper.backlog()
    return last is not None and backlog.shipped_seq == last.seq


def floor_link_env() -> dict[str, str]:
    return {PASSWORD_ENV: os.environ[PASSWORD_ENV]}


FLOOR_USER = FLOOR_LOGIN
