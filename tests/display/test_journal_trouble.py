"""A journal that cannot be written reaches the dealer: the API, the socket's answers, the panel.

The journal is made to fail at its SQLite boundary (pytest-mock patches the insert that would
write the rows: SQLite's own ``disk I/O error``); everything else is the real table, its
emulated devices, its web server and a real WebSocket client.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from pytest_mock import MockerFixture
from websockets.sync.client import connect

from controller.journal.store import Journal
from controller.round.inputs import Bet

from .conftest import WAIT_S, Table, running_table, table_config


def _answer(ws: Any) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv(timeout=WAIT_S))
        if message["type"] not in ("state", "heartbeat"):
            assert isinstance(message, dict)
            return message


def _lamp(table: Table, key: str, want: tuple[str, str]) -> tuple[str, str]:
    deadline = time.monotonic() + WAIT_S
    led = table.panel.led(key)
    while (led.mode, led.colour) != want and time.monotonic() < deadline:
        time.sleep(0.01)
        led = table.panel.led(key)
    return led.mode, led.colour


def test_an_unwritable_journal_refuses_the_press_with_its_reason_and_shows_everywhere(
    mocker: MockerFixture,
) -> None:
    loaded = table_config("nz-pontoon")
    with running_table(loaded) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
        assert _lamp(table, "CAL", ("S", "G")) == ("S", "G")
        broken = mocker.patch.object(
            Journal, "_insert_groups", side_effect=sqlite3.OperationalError("disk I/O error")
        )
        ws_url = table.url.replace("http://", "ws://") + "ws"
        with connect(ws_url, open_timeout=WAIT_S) as ws:
            assert _answer(ws)["type"] == "hello"
            ws.send('{"type": "press", "key": "DEA", "id": 1}')
            refused = _answer(ws)
            assert refused["accepted"] is False, refused
            assert "Not applied (the DEAL key)" in refused["reason"]
            assert "disk I/O error" in refused["reason"]
            # the answer goes out in the owner's pass, the screen's state at its end
            table.wait_for(lambda s: bool(s.get("notices")), "the journal's notice published")
            state = table.api_state()
            assert state["state"] == "betting"  # nothing was applied
            (notice,) = state["notices"]
            assert notice["kind"] == "journal"
            assert "disk I/O error" in notice["text"]
            assert "nothing is applied" in notice["todo"]
            # The panel says it too: CALL blinks amber while the notice is open.
            assert _lamp(table, "CAL", ("B", "A")) == ("B", "A")
            # Acknowledging is journalled, so it is refused too while nothing can be written.
            ws.send(json.dumps({"type": "ack", "notice": notice["id"], "id": 2}))
            kept = _answer(ws)
            assert kept["accepted"] is False
            assert "The notice stays" in kept["reason"]
            assert table.api_state()["notices"] == [notice]
            # The disk is back: the same press goes through, the notice is read, CALL is green.
            mocker.stop(broken)
            ws.send('{"type": "press", "key": "DEA", "id": 3}')
            assert _answer(ws) == {"type": "result", "id": 3, "accepted": True, "reason": ""}
            ws.send(json.dumps({"type": "ack", "notice": notice["id"], "id": 4}))
            assert _answer(ws)["accepted"] is True
        table.wait_for(lambda s: s["state"] == "dealing" and not s["notices"], "the deal")
        assert table.api_state()["notices"] == []
        assert _lamp(table, "CAL", ("S", "G")) == ("S", "G")
    with Journal.open(loaded.journal_path, readonly=True) as journal:
        rows = [
            (r.payload["event"], r.payload["kind"]) for r in journal.iter_rows(kinds=["notice"])
        ]
    # The notice opened while nothing could be written is journalled once the journal is back.
    assert rows == [("opened", "journal"), ("acknowledged", "journal")]
