"""DNS rebinding (issue 21.6): a page of another site whose name was pointed at this machine
sends its own name as Host and Origin. The dealer display (uvicorn on a real loopback port)
answers only to its own names; nothing of such a request reaches the table."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from controller.table.app import InputResult
from tests.display.conftest import WAIT_S, Table, running_table, table_config

ATTACKER = "attacker.example"


def _get(table: Table, path: str, host: str, origin: str | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", table.display.port, timeout=WAIT_S)
    try:
        headers = {"Host": host, **({"Origin": origin} if origin else {})}
        conn.request("GET", path, headers=headers)
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def _socket(table: Table, host: str, origin: str | None) -> Any:
    """The dealer's socket asked for as ``host`` (the name in the URL is the Host header), the
    TCP connection made to the display's real loopback address."""
    sock = socket.create_connection(("127.0.0.1", table.display.port), timeout=WAIT_S)
    return connect(
        f"ws://{host}/ws",
        sock=sock,
        open_timeout=WAIT_S,
        origin=None if origin is None else Origin(origin),
    )


def _inputs(table: Table) -> tuple[int, int]:
    app = table.service.app
    assert app is not None
    return app.inputs_handled, sum(isinstance(o, InputResult) for o in app.outputs)


def test_a_rebinding_host_with_a_matching_origin_gets_no_socket_and_changes_nothing() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        port = table.display.port
        before = _inputs(table)
        evil = f"{ATTACKER}:{port}"
        with pytest.raises(InvalidStatus, match="HTTP 403"):  # before the fix: 101, dealer
            _socket(table, evil, f"http://{evil}")
        for path in ("/", "/api/state", "/view?token=x", "/static/app.js"):
            status, text = _get(table, path, evil, f"http://{evil}")
            assert status == 400, path
            assert "answers only to 127.0.0.1, localhost" in text
            assert "hosts list" in text
        assert _inputs(table) == before
        assert table.display.allowed is not None
        # its own names still work, and its own name with another site's Origin does not
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert _get(table, "/api/state", host)[0] == 200
            with _socket(table, host, f"http://{host}") as ws:
                assert json.loads(ws.recv(timeout=WAIT_S))["role"] == "dealer"
            with pytest.raises(InvalidStatus, match="HTTP 403"):
                _socket(table, host, f"http://{ATTACKER}:{port}")
            assert _get(table, "/api/state", host, f"http://{ATTACKER}:{port}")[0] == 403
        # two Host headers (the rebinding name and ours) are no name at all
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        conn.putrequest("GET", "/api/state", skip_host=True)
        conn.putheader("Host", evil)
        conn.putheader("Host", f"127.0.0.1:{port}")
        conn.endheaders()
        assert conn.getresponse().status == 400
        conn.close()
        # another port of this machine is another site too
        assert _get(table, "/api/state", f"127.0.0.1:{port + 1}")[0] == 400
        assert _inputs(table) == before


def test_a_name_listed_in_the_table_file_opens_the_screen_and_others_still_do_not() -> None:
    loaded = table_config("nz-pontoon", display={"hosts": ["Table-1.Casino.LAN"]})
    with running_table(loaded) as table:
        port = table.display.port
        named = f"table-1.casino.lan:{port}"
        assert _get(table, "/", named)[0] == 200
        with _socket(table, named, f"http://{named}") as ws:
            assert json.loads(ws.recv(timeout=WAIT_S))["role"] == "dealer"
        assert _get(table, "/", f"table-2.casino.lan:{port}")[0] == 400
