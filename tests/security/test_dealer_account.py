"""Another local account is not the dealer (found retrying issue 21 by hand): a loopback
connection proves only that its program runs on the table's computer, and any user of it
(``nobody``, a guest) got the dealer's socket, could bet and press keys, and could open dealer
sockets until the descriptors ran out. The display asks the kernel which account made the
client's socket and takes the dealer only from croupier's own account and
``[display] dealer_users``."""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import pwd
import socket
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from controller.display.peer import peer_uid, uid_in
from controller.game.errors import ConfigError
from controller.table.app import InputResult
from controller.table.config import table_from_mapping
from tests.display.conftest import WAIT_S, Table, running_table, table_config

_HEADER = (
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode"
)


def _word(ip: bytes) -> str:
    """An address as the kernel prints it: each 32-bit word in this machine's byte order."""
    return "".join(
        f"{int.from_bytes(ip[i : i + 4], sys.byteorder):08X}" for i in range(0, len(ip), 4)
    )


def _line(local: str, remote: str, uid: int) -> str:
    return f"   0: {local} {remote} 01 00000000:00000000 00:00000000 00000000  {uid}        0 1"


def test_the_kernels_socket_table_gives_the_account_of_the_clients_end_of_a_connection() -> None:

    lo = _word(socket.inet_aton("127.0.0.1"))
    server, client = f"{lo}:1F90", f"{lo}:C350"  # 8080 and 50000
    lines = [_HEADER, _line(server, client, 0), _line(client, server, 1234)]
    v4 = ipaddress.ip_address("127.0.0.1")
    assert uid_in(lines, (v4, 50000), (v4, 8080)) == 1234
    assert uid_in(lines, (v4, 8080), (v4, 50000)) == 0  # the server's own end
    assert uid_in(lines, (v4, 50001), (v4, 8080)) is None  # not listed: not trusted

    # a server on a dual-stack socket sees the client as ::ffff:127.0.0.1
    mapped = _word(socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.1"))
    six = [_line(f"{mapped}:C350", f"{mapped}:1F90", 77)]
    assert uid_in(six, (v4, 50000), (v4, 8080)) == 77
    one = _word(socket.inet_pton(socket.AF_INET6, "::1"))
    v6 = ipaddress.ip_address("::1")
    assert uid_in([_line(f"{one}:C350", f"{one}:1F90", 5)], (v6, 50000), (v6, 8080)) == 5


def test_a_real_loopback_connection_is_found_with_this_processs_own_account() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            host, cport = client.getsockname()[:2]
            assert peer_uid((host, cport), ("127.0.0.1", port)) == os.getuid()
            assert peer_uid((host, cport), ("127.0.0.1", port), tables=[Path("/nonexistent")]) is (
                None
            ), "an unreadable socket table trusts nobody"


def _dealer_socket(table: Table) -> Any:
    port = table.display.port
    return connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT_S)


def _inputs(table: Table) -> tuple[int, int]:
    app = table.service.app
    assert app is not None
    return app.inputs_handled, sum(isinstance(o, InputResult) for o in app.outputs)


def test_a_loopback_browser_of_an_account_not_the_dealers_gets_no_dealer_screen() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        with _dealer_socket(table) as ws:  # croupier's own account: the dealer
            assert json.loads(ws.recv(timeout=WAIT_S))["role"] == "dealer"
        before = _inputs(table)
        # the same table, as if croupier ran as another account than this test's
        table.display.access.dealer_uids = frozenset({os.getuid() + 4242})
        with pytest.raises(InvalidStatus, match="HTTP 403"):
            _dealer_socket(table)

        conn = http.client.HTTPConnection("127.0.0.1", table.display.port, timeout=WAIT_S)
        conn.request("GET", "/")
        reply = conn.getresponse()
        page = reply.read().decode()
        conn.close()
        assert reply.status == 403
        assert "not one of the table&#x27;s dealer accounts" in page
        assert "[display] dealer_users" in page
        assert _inputs(table) == before, "nothing of the refused account reached the table"


def _status_as(uid: int, gid: int, port: int) -> int:
    """The HTTP status of a websocket handshake for the dealer's socket made by a process of
    the account ``uid`` (a fork of this one: nothing needs to be read from disk as that
    account)."""
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with the server's threads
        child = os.fork()
    if child == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
                sock.sendall(
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n".encode()
                )
                code = int(sock.recv(64).split()[1])
        finally:
            os.write(write, str(code).encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        said = answer.read()
    os.waitpid(child, 0)
    return int(said or 0)


@pytest.mark.skipif(os.getuid() != 0, reason="switching to the account nobody needs root")
def test_the_user_nobody_on_the_table_computer_cannot_open_the_dealers_socket() -> None:
    nobody = pwd.getpwnam("nobody")
    with running_table(table_config("nz-pontoon")) as table:
        port = table.display.port
        assert _status_as(nobody.pw_uid, nobody.pw_gid, port) == 403  # before: 101, the dealer
        assert _status_as(os.getuid(), os.getgid(), port) == 101  # croupier's own account
        with _dealer_socket(table) as ws:
            assert json.loads(ws.recv(timeout=WAIT_S))["role"] == "dealer"


def test_dealer_users_must_be_accounts_of_this_computer(tmp_path: Path) -> None:
    base = {"table_id": "t1", "display": {"port": 0}}
    with pytest.raises(ConfigError, match=r"\['no-such-kiosk'\] is not an account"):
        table_from_mapping({**base, "display": {"dealer_users": ["no-such-kiosk"]}}, "t", tmp_path)
    named = table_from_mapping({**base, "display": {"dealer_users": ["nobody"]}}, "t", tmp_path)
    uids = named.config.display.dealer_uids()
    assert uids == {os.getuid(), pwd.getpwnam("nobody").pw_uid}
