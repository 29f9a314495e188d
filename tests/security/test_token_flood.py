"""Wrong view tokens flooded at the display (issue 21.9), against the real server (uvicorn on a
real loopback port): each source address has only a few tokens checked (scrypt) per minute,
the checks run off the event loop, and the dealer's socket keeps answering meanwhile."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import socket
import statistics
import threading
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from controller.display.web import MAX_VIEWER_SOCKETS, ViewAccess
from tests.display.conftest import (
    VIEW_TOKEN,
    VIEW_TOKEN_HASH,
    WAIT_S,
    Table,
    running_table,
    table_config,
)

FLOODED = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]  # loopback, other sources
THREADS_PER_SOURCE = 2
FLOOD_S = 3.0


def _state_status(table: Table, token: str, source: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection(
        "127.0.0.1", table.display.port, timeout=WAIT_S, source_address=(source, 0)
    )
    try:
        conn.request("GET", f"/api/state?token={token}")
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def _socket_status(table: Table, token: str, source: str) -> int:
    """The HTTP status a socket with ``token`` from ``source`` is answered with (101: open)."""
    sock = socket.create_connection(
        ("127.0.0.1", table.display.port), timeout=WAIT_S, source_address=(source, 0)
    )
    try:
        connect(f"ws://127.0.0.1:{table.display.port}/ws?token={token}", sock=sock).close()
    except InvalidStatus as refused:
        return refused.response.status_code
    return 101


def _round_trips(ws: Any, ids: Any, count: int) -> list[float]:
    """Seconds from sending a message the table refuses (changing nothing) to its answer."""
    times = []
    for _ in range(count):
        msg_id = next(ids)
        started = time.perf_counter()
        ws.send(json.dumps({"type": "nothing", "id": msg_id}))
        while True:
            answer = json.loads(ws.recv(timeout=WAIT_S))
            if answer.get("type") == "error" and answer.get("id") == msg_id:
                break
        times.append(time.perf_counter() - started)
    return times


def test_a_flood_of_wrong_view_tokens_runs_scrypt_only_as_often_as_the_limit_allows() -> None:
    loaded = table_config("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    with running_table(loaded) as table:
        access = table.display.access
        # the pit's screen checked its token before the flood (from the flooded address too)
        assert _state_status(table, VIEW_TOKEN, FLOODED[0])[0] == 200
        assert access.hashed == 1
        stop = threading.Event()
        answers: list[int] = []

        def flood(source: str, n: int) -> None:
            for i in itertools.count():
                if stop.is_set():
                    return
                token = f"wrong-{source}-{n}-{i}"
                if i % 2:
                    answers.append(_state_status(table, token, source)[0])
                else:
                    answers.append(_socket_status(table, token, source))

        ids = itertools.count(1)
        with connect(f"{table.url.replace('http://', 'ws://')}ws", open_timeout=WAIT_S) as ws:
            assert json.loads(ws.recv(timeout=WAIT_S))["role"] == "dealer"
            baseline = _round_trips(ws, ids, 30)
            flooders = [
                threading.Thread(target=flood, args=(source, n), daemon=True)
                for source in FLOODED
                for n in range(THREADS_PER_SOURCE)
            ]
            for thread in flooders:
                thread.start()
            during: list[float] = []
            deadline = time.monotonic() + FLOOD_S
            while time.monotonic() < deadline:
                during += _round_trips(ws, ids, 5)
            stop.set()
            for thread in flooders:
                thread.join(WAIT_S)
        assert len(answers) > 50, "the flood did not happen"
        assert set(answers) == {403}
        # at most MAX_WRONG scrypt checks per source in the minute, plus the right one
        assert access.hashed <= 1 + len(FLOODED) * ViewAccess.MAX_WRONG, access.hashed
        # the dealer's socket was not held up behind the checks (before: p50 x60 with 4 flooders)
        assert statistics.median(during) < max(0.1, 10 * statistics.median(baseline))
        # a flooded address is told why, even with the right token; the right token already
        # checked is still known; a new address has its token checked
        status, text = _state_status(table, "another-guess", FLOODED[1])
        assert status == 403
        assert "too many wrong view tokens from this address: try again in" in text
        assert _state_status(table, VIEW_TOKEN, FLOODED[1])[0] == 200
        checked = access.hashed
        assert _state_status(table, "a-new-guess", "127.0.0.9")[0] == 403
        assert access.hashed == checked + 1


def test_the_pit_may_hold_32_sockets_open_and_the_dealers_still_opens() -> None:
    loaded = table_config("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    with running_table(loaded) as table:
        base = f"{table.url.replace('http://', 'ws://')}ws"
        with contextlib.ExitStack() as stack:
            views = []
            for _ in range(MAX_VIEWER_SOCKETS):
                views.append(stack.enter_context(connect(f"{base}?token={VIEW_TOKEN}")))
                assert json.loads(views[-1].recv(timeout=WAIT_S))["role"] == "viewer"
            extra = stack.enter_context(connect(f"{base}?token={VIEW_TOKEN}"))
            with pytest.raises(ConnectionClosed) as closed:
                extra.recv(timeout=WAIT_S)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1013
            assert "too many pit views open" in closed.value.rcvd.reason
            with connect(base, open_timeout=WAIT_S) as dealer:
                assert json.loads(dealer.recv(timeout=WAIT_S))["role"] == "dealer"
            views.pop().close()  # one closes: another may open
            time.sleep(0.2)
            with connect(f"{base}?token={VIEW_TOKEN}", open_timeout=WAIT_S) as again:
                assert json.loads(again.recv(timeout=WAIT_S))["role"] == "viewer"
