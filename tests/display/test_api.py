"""``GET /api/state`` and the WebSocket, without a browser."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from pytest_mock import MockerFixture
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from controller.display.hub import StateHub
from controller.display.web import HEARTBEAT_S, KEYS, _send_states
from controller.round.inputs import Bet
from controller.service.service import Press
from controller.table.app import InputResult
from controller.table.config import hash_secret
from drivers.tbl21.events import Button

from .conftest import VIEW_TOKEN, VIEW_TOKEN_HASH, WAIT_S, Table, running_table, table_config

SUPERVISOR_PIN = "73915084"
SUPERVISOR_HASH = hash_secret(SUPERVISOR_PIN)

# PA: burn, box 1 T 8, the dealer's ace up (peek) and the 5 of diamonds in the hole; the
# dealer then draws the 2 of clubs (ace, five, two: soft 18).
PA_ROUND = "3C TC AS 8H 5D 2H 4S 6S"
HOLE = "5D"


def _ws_url(table: Table, query: str = "") -> str:
    return table.url.replace("http://", "ws://") + "ws" + query


def _answer(ws: Any) -> dict[str, Any]:
    """The next message that is not a state push (device polls may publish a new state) or a
    heartbeat."""
    while True:
        message = json.loads(ws.recv(timeout=WAIT_S))
        assert isinstance(message, dict)
        if message["type"] not in ("state", "heartbeat"):
            return message


def _table_view(table: Table) -> tuple[Any, ...]:
    """What a dealer input could change (device health and polls aside)."""
    app = table.service.app
    assert app is not None
    inputs = [o for o in app.outputs if isinstance(o, InputResult)]
    s = table.state()
    return (len(inputs), app.inputs_handled, s["state"], s["boxes"], s["entry"], s["lit"])


def play_to_the_reveal(table: Table, check: Callable[[str], object]) -> None:
    """The PA round up to the turned-over hole card, calling ``check(step)`` at every step."""
    check("burn")
    table.draw()
    table.wait_for(lambda s: s["state"] == "betting", "bets open")
    assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
    assert table.service.submit(Press(Button.DEAL)).result(WAIT_S).accepted
    for _ in range(4):
        table.draw()
        check("deal")
    state = table.wait_for(lambda s: s["state"] == "insurance", "the insurance window")
    assert state["dealer"] == {
        "cards": ["AS"],
        "face_down": 1,
        "total": "soft 11",
        "revealed": False,
    }
    check("insurance")
    assert table.service.submit(Press(Button.OK)).result(WAIT_S).accepted
    table.wait_for(lambda s: s["state"] == "surrender", "the surrender window")
    check("surrender")
    assert table.service.submit(Press(Button.OK)).result(WAIT_S).accepted
    table.wait_for(lambda s: s["state"] == "peek", "the peek")
    check("peek")
    table.reader.insert_hole_card(HOLE)
    table.wait_for(lambda s: s["state"] == "playing", "play")
    table.reader.remove_hole_card()
    check("playing")
    assert table.service.submit(Press(Button.STAND)).result(WAIT_S).accepted
    table.wait_for(lambda s: s["state"] == "reveal", "the reveal prompt")
    check("reveal prompt")
    assert table.service.submit(Press(Button.OK)).result(WAIT_S).accepted
    state = table.wait_for(lambda s: s["state"] == "dealer", "the dealer draws")
    assert state["dealer"]["cards"] == ["AS", HOLE]
    assert state["dealer"]["face_down"] == 0


def test_api_state_never_holds_the_hole_card_before_the_reveal() -> None:
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        seen: list[str] = []

        def check(step: str) -> None:
            text = table.api_state_text()
            seen.append(step)
            assert HOLE not in text, f"the hole card is in /api/state at {step}"
            assert isinstance(json.loads(text), dict)

        play_to_the_reveal(table, check)
        assert HOLE in table.api_state_text()
        assert seen[-1] == "reveal prompt"


def test_the_socket_stream_never_carries_the_hole_card_before_the_reveal() -> None:
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        received: list[str] = []
        with connect(_ws_url(table), open_timeout=WAIT_S) as ws:
            stop = threading.Event()

            def listen() -> None:
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        received.append(str(ws.recv(timeout=0.1)))

            listener = threading.Thread(target=listen, daemon=True)
            listener.start()
            play_to_the_reveal(table, lambda step: None)
            deadline = time.monotonic() + WAIT_S
            while not any(HOLE in m for m in received) and time.monotonic() < deadline:
                time.sleep(0.01)
            stop.set()
            listener.join(WAIT_S)
        states = [json.loads(m)["state"] for m in received if json.loads(m)["type"] == "state"]
        # the first state after the dealer turned the hole card over (OK at the reveal)
        turned = next(i for i, s in enumerate(states) if s["state"] == "dealer")
        assert {"betting", "insurance", "peek", "playing", "reveal"} <= {
            s["state"] for s in states[:turned]
        }  # the whole round so far came over the socket
        assert [i for i, s in enumerate(states[:turned]) if HOLE in json.dumps(s)] == []
        assert HOLE in json.dumps(states[turned])


def test_api_state_and_the_socket_refuse_a_remote_caller_without_the_token() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        with pytest.raises(urllib.error.HTTPError) as refused:
            table.api_state_text("?token=guess")
        assert refused.value.code == 403
        refused.value.close()
        with pytest.raises(InvalidStatus, match="HTTP 403"):
            connect(_ws_url(table, "?token=guess"), open_timeout=WAIT_S)
        with pytest.raises(InvalidStatus, match="HTTP 403"):  # another site's page
            connect(_ws_url(table), open_timeout=WAIT_S, origin=Origin("http://evil.example"))


BAD_MESSAGES = [
    ("not json", "not JSON"),
    ("[1, 2]", "a message is a JSON object"),
    ('{"key": "HIT"}', "unknown message type None; allowed: press, bet"),
    ('{"type": "hit"}', "unknown message type 'hit'; allowed: press, bet"),
    ('{"type": "press"}', "key: required field is missing"),
    ('{"type": "press", "key": "HITT"}', "key = 'HITT': not a panel key; allowed: DEA"),
    ('{"type": "press", "key": 3}', "key = 3: not a panel key"),
    ('{"type": "press", "key": "STD", "force": true}', "force: unknown field"),
    ('{"type": "bet", "box": 1, "player": "ann"}', "amount_cents: required field is missing"),
    ('{"type": "bet", "box": "1", "player": "ann", "amount_cents": 500}', "box = '1'"),
    ('{"type": "bet", "box": 9, "player": "ann", "amount_cents": 500}', "box = 9"),
    ('{"type": "bet", "box": 1, "player": "<b>x</b>", "amount_cents": 500}', "player = "),
    ('{"type": "bet", "box": 1, "player": "ann", "amount_cents": 5.5}', "amount_cents = 5.5"),
    ('{"type": "bet", "box": 1, "player": "ann", "amount_cents": true}', "amount_cents = True"),
    ('{"type": "bet", "box": 1, "player": "ann", "amount_cents": -500}', "amount_cents = -500"),
    ('{"type": "press", "key": "' + "X" * 5000 + '"}', "message too long"),
    ('{"type": "pin"}', "pin: required field is missing"),
    ('{"type": "pin", "pin": 73915084}', "pin: digits only, 1 to 16 of them"),
    ('{"type": "pin", "pin": "7391-5084"}', "pin: digits only, 1 to 16 of them"),
    ('{"type": "pin", "pin": "73915084", "role": "supervisor"}', "role: unknown field"),
    ('{"type": "supervisor", "decision": "undo"}', "decision = 'undo': not a decision; allowed"),
    ('{"type": "supervisor"}', "decision: required field is missing"),
    ('{"type": "supervisor", "decision": "void", "by": "sue"}', "by: unknown field"),
    ('{"type": "key_card", "card": "10S"}', "card = '10S': String should have at most 2"),
    ('{"type": "key_card", "card": "ZS"}', "card: card 'ZS': rank 'Z' is not one of"),
    ('{"type": "key_card", "card": "8s"}', "card: card '8s': suit 's' is not one of"),
    ('{"type": "key_card"}', "card: required field is missing"),
    ('{"type": "pin", "pin": "1", "staff": "73915084x"}', "staff: a staff number, 1 to 8 digits"),
    ('{"type": "dealer", "staff": "2001"}', "pin: required field is missing"),
    ('{"type": "dealer", "staff": "2001", "pin": "7391-5084"}', "pin: digits only, 1 to 16"),
    ('{"type": "sit", "box": 1, "card": "12", "player": "ann"}', "card: a player card number"),
    ('{"type": "sit", "box": 8, "card": "40123", "player": "ann"}', "box = 8"),
    ('{"type": "sit", "box": 1, "card": "40123", "player": "<b>"}', "player = "),
    ('{"type": "leave"}', "box: required field is missing"),
]


def test_bad_socket_messages_are_answered_with_an_error_and_change_nothing() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        before = _table_view(table)
        with connect(_ws_url(table), open_timeout=WAIT_S) as ws:
            assert _answer(ws) == {
                "type": "hello",
                "role": "dealer",
                "heartbeat_s": HEARTBEAT_S,
                "keys": KEYS,
            }
            for text, error in BAD_MESSAGES:
                ws.send(text)
                answer = _answer(ws)
                assert answer["type"] == "error", text
                assert error in answer["error"], (text, answer["error"])
                assert "73915084" not in answer["error"]  # a PIN is never repeated
            ws.send(b"\x00binary")
            assert "text frames" in _answer(ws)["error"]
            # A valid message that the table refuses is a result, not an error.
            ws.send('{"type": "bet", "box": 1, "player": "ann", "amount_cents": 250, "id": 7}')
            answer = _answer(ws)
            assert answer == {
                "type": "result",
                "id": 7,
                "accepted": False,
                "reason": "a bet must be $5 to $500, got $2.50",
            }
        assert _table_view(table) == before
        assert all(box["wagers"] == [] for box in table.state()["boxes"])
        assert _pin_rows(table) == []


def _pin_rows(table: Table) -> list[Any]:
    journal = table.service.journaled.journal
    calls = journal.rows(kinds=["call"])
    return [r.payload for r in calls if r.payload.get("type") == "PinAttempt"]


def test_the_read_only_view_cannot_sign_in_key_a_card_or_take_a_supervisor_decision() -> None:
    loaded = table_config(
        "nz-pontoon",
        display={"view_token_hash": VIEW_TOKEN_HASH},
        supervisor={"pin_hash": SUPERVISOR_HASH},
    )
    with running_table(loaded) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        table.panel.turn_key("SUP")
        table.wait_for(lambda s: s["access"]["pin_pad"], "the PIN pad")
        before = _table_view(table)
        with connect(_ws_url(table, f"?token={VIEW_TOKEN}"), open_timeout=WAIT_S) as ws:
            assert _answer(ws) == {"type": "hello", "role": "viewer", "heartbeat_s": HEARTBEAT_S}
            for message in (
                {"type": "pin", "pin": SUPERVISOR_PIN},
                {"type": "supervisor", "decision": "void"},
                {"type": "key_card", "card": "8S"},
            ):
                ws.send(json.dumps({**message, "id": 3}))
                answer = _answer(ws)
                assert answer == {
                    "type": "error",
                    "id": 3,
                    "error": "this is the read-only view: it cannot act on the table",
                }
        assert _table_view(table) == before
        assert table.state()["access"]["signed_in"] is None
        assert _pin_rows(table) == []
        # the dealer's page, on this machine, can
        with connect(_ws_url(table), open_timeout=WAIT_S) as ws:
            assert _answer(ws)["type"] == "hello"
            ws.send(json.dumps({"type": "pin", "pin": SUPERVISOR_PIN, "id": 4}))
            answer = _answer(ws)
            assert answer["accepted"] is True
            assert answer["reason"] == "supervisor signed in until the key leaves SUP"
        assert [p["result"] for p in _pin_rows(table)] == ["right"]


def test_a_press_from_the_socket_is_the_panel_key_carried_out_by_the_table() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        with connect(_ws_url(table), open_timeout=WAIT_S) as ws:
            assert _answer(ws)["type"] == "hello"
            ws.send('{"type": "bet", "box": 2, "player": "bob", "amount_cents": 1500, "id": 1}')
            assert _answer(ws) == {"type": "result", "id": 1, "accepted": True, "reason": ""}
            ws.send('{"type": "press", "key": "DEA", "id": 2}')
            state = table.wait_for(lambda s: s["state"] == "dealing", "the deal")
        assert state["boxes"][1]["wagers"] == [
            {"player": "bob", "cents": 1500, "stake_cents": 1500, "text": "$15"}
        ]
        assert state["prompt"]["text"] == "deal to box 2"
        assert table.state()["devices"][2]["status"] == "connected"
        # The panel's own LEDs follow: only CANCEL and CALL stay lit while cards are dealt.
        deadline = time.monotonic() + WAIT_S
        while sorted(table.panel.lit_buttons) != ["CAL", "CAN"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted(table.panel.lit_buttons) == ["CAL", "CAN"]


def test_an_accepted_connection_has_tcp_nodelay_so_a_state_message_is_not_held_back() -> None:
    with running_table(table_config("nz-pontoon")) as table, connect(_ws_url(table)) as ws:
        assert json.loads(ws.recv(timeout=WAIT_S))["type"] == "hello"
        server = table.display._server
        assert server is not None
        connections = list(server.server_state.connections)  # uvicorn's accepted connections
        assert connections
        for connection in connections:
            accepted = connection.transport.get_extra_info("socket")
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_every_client_is_sent_the_text_the_hub_encoded_once_for_that_version() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        hub = table.display.hub
        with connect(_ws_url(table)) as first, connect(_ws_url(table)) as second:
            for ws in (first, second):
                assert json.loads(ws.recv(timeout=WAIT_S))["type"] == "hello"
            for _ in range(5):  # the owner may publish a newer state meanwhile: then again
                hub.publish({**hub.state(), "marker": "once"})
                version, text = hub.message()
                received = [_state_message(ws, version) for ws in (first, second)]
                if json.loads(text)["state"].get("marker") == "once" and all(
                    json.loads(r)["state"]["version"] == version for r in received
                ):
                    assert received == [text, text]
                    return
            pytest.fail("the owner published over every try")


def _state_message(ws: Any, version: int) -> str:
    """The first state message of ``version`` or later, as its text."""
    while True:
        received = ws.recv(timeout=WAIT_S)
        assert isinstance(received, str)
        if json.loads(received)["state"]["version"] >= version:
            return received


def test_a_quiet_table_sends_every_socket_a_heartbeat_within_the_promised_interval(
    mocker: MockerFixture,
) -> None:
    """A table with nothing new to show still says it is there, at least every
    ``heartbeat_s`` its hello promised, so that a screen hearing nothing knows it has lost it
    (the interval is shortened here: the clock is the boundary)."""
    mocker.patch("controller.display.web.HEARTBEAT_S", 0.05)
    hub = StateHub()
    hub.publish({"state": "betting"})
    sent: list[tuple[float, str]] = []

    class Socket:
        async def send_text(self, text: str) -> None:
            sent.append((time.monotonic(), json.loads(text)["type"]))

    async def listen() -> None:
        task = asyncio.create_task(_send_states(Socket(), hub))  # type: ignore[arg-type]
        await asyncio.sleep(0.5)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(listen())
    assert sent[0][1] == "state"
    beats = [at for at, kind in sent if kind == "heartbeat"]
    assert len(beats) >= 5
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(sent)]
    assert max(gaps) < 0.05 * 3
