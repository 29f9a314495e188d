"""DNS rebinding against the floor page (issue 21.6): ``croupier floor serve``'s server (uvicorn
on a real loopback port, a real PostgreSQL) answers only to its own names, so a page of another
site pointed at it cannot try passwords or read the floor from the pit's browser."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.config import floor_from_mapping
from controller.floor.watch import FloorWatcher
from controller.floor.web import FloorServer
from controller.table.config import hash_secret
from tests.floor.conftest import FLOOR_PASSWORD_ENV, cluster  # noqa: F401 - the session's PG

WAIT_S = 10.0
PIT, PASSWORD = "pat", "pit-password-for-tests"


@pytest.fixture
def floor_server(cluster: Cluster, tmp_path: Path) -> Iterator[FloorServer]:  # noqa: F811
    data: dict[str, Any] = {
        "database": {"dsn": cluster.dsn(FLOOR_LOGIN), "password_env": FLOOR_PASSWORD_ENV},
        "server": {"port": 0, "hosts": ["floor.casino.lan"]},
        "access": {"attempts_log": str(tmp_path / "attempts.jsonl")},
        "users": [{"name": PIT, "secret_hash": hash_secret(PASSWORD)}],
    }
    loaded = floor_from_mapping(data, "<test>", tmp_path)
    conninfo = loaded.config.database.conninfo()
    watcher = FloorWatcher(conninfo, loaded.config.shifts.shifts(), loaded.config.alerts.watch())
    watcher.start()
    server = FloorServer(loaded, watcher.hub, conninfo)
    try:
        server.start()
        assert server.wait_started()
        yield server
    finally:
        server.close()
        watcher.close()


def _request(server: FloorServer, method: str, path: str, host: str, body: str = "") -> int:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT_S)
    try:
        headers = {"Host": host, "Origin": f"http://{host}"}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=body or None, headers=headers)
        reply = conn.getresponse()
        reply.read()
        return reply.status
    finally:
        conn.close()


def test_the_floor_page_refuses_a_rebinding_host_and_takes_no_password_from_it(
    floor_server: FloorServer, tmp_path: Path
) -> None:
    port = floor_server.port
    evil = f"attacker.example:{port}"
    assert _request(floor_server, "GET", "/login", evil) == 400
    form = f"name={PIT}&password=wrong"
    assert _request(floor_server, "POST", "/login", evil, form) == 400
    assert (
        not (tmp_path / "attempts.jsonl").exists()
        or PIT not in (tmp_path / "attempts.jsonl").read_text()
    )
    # its own names: the login page, and a wrong password is answered (and counted)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"floor.casino.lan:{port}"):
        assert _request(floor_server, "GET", "/login", host) == 200
    assert _request(floor_server, "POST", "/login", f"127.0.0.1:{port}", form) == 403
