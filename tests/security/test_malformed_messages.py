"""Malformed messages on the display's socket (issue 21.11), through the real server (uvicorn on
a real loopback port): deep nesting, long, not an object, wrong types, binary frames, invalid
UTF-8, from the dealer's page and from the pit's read-only view. Each is answered (an error, or
the socket closed with the protocol's code for a frame it cannot take), nothing reaches the
table, and nothing is logged as an error (no traceback)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from controller.display.errors import BadMessage
from controller.display.messages import MAX_MESSAGE_BYTES, TYPES, parse_message
from tests.display.conftest import VIEW_TOKEN, VIEW_TOKEN_HASH, WAIT_S, Table, running_table
from tests.display.conftest import table_config as display_table
from tests.display.test_api import _answer, _table_view

FIELDS = ("key", "box", "player", "amount_cents", "pin", "decision", "card", "notice", "choice")
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
DEEP = [
    "[" * 16_000,  # the RecursionError (longer than a message may be: answered so)
    "[" * 4000 + "]" * 90,
    '{"type": "press", "key": ' + "[" * 2000 + "]" * 2000 + "}",
    '{"type": "bet", "box": 1, "player": {"a": {"b": {"c": 1}}}, "amount_cents": 500}',
    '{"id": 3, "type": ' + '{"x": ' * 1500 + "1" + "}" * 1500 + "}",
    "{" * 1000,
]
ODD = [
    '{"type": "press", "key": "' + "K" * 3900 + '"}',  # under the size cap, a long wrong value
    '{"type": "bet", "box": 1, "player": "ann", "amount_cents": ' + "9" * 3000 + "}",
    '{"type": "bet", "box": 1, "player": "ann", "amount_cents": 1e400}',
    '{"type": "bet", "box": 1, "player": "ann", "amount_cents": NaN}',
    '{"type": ["press"], "key": "HIT"}',
    '{"type": {"press": 1}}',
    '{"type": "press", "key": "HIT", "id": true}',
    '{"type": "press", "key": "HIT", "' + "f" * 3000 + '": 1}',
    '"press"',
    "null",
    "",
    "\ufeff{}",
    "x" * (MAX_MESSAGE_BYTES + 1),
]


def _refused(text: str) -> bool:
    try:
        parse_message(text)
    except BadMessage:
        return True
    return False


def _check(ws: Any, text: str, msg_id: int | None = None) -> None:
    ws.send(text)
    answer = _answer(ws)
    assert answer["type"] == "error", (text[:80], answer)
    assert len(answer["error"]) < 400, answer["error"]
    if msg_id is not None:
        assert answer["id"] == msg_id


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def _closing_code(ws: Any) -> int | None:
    """The code of the close frame the server sends (reading past any state messages)."""
    try:
        while True:
            ws.recv(timeout=WAIT_S)
    except ConnectionClosed as closed:
        return None if closed.rcvd is None else closed.rcvd.code


def _betting(table: Table) -> None:
    table.draw()
    table.wait_for(lambda s: s["state"] == "betting", "bets open")


def test_every_malformed_message_is_answered_with_an_error_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with running_table(display_table("nz-pontoon")) as table:
        _betting(table)
        before = _table_view(table)
        url = table.url.replace("http://", "ws://") + "ws"
        with connect(url, open_timeout=WAIT_S, max_size=None) as ws:
            assert _answer(ws)["role"] == "dealer"
            for text in DEEP + ODD:
                _check(ws, text)
            ws.send(b"\x00binary")
            assert "text frames" in _answer(ws)["error"]

            @settings(
                max_examples=300,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow],
            )
            @given(
                message=st.one_of(
                    st.text(max_size=60),
                    VALUES.map(json.dumps),
                    st.fixed_dictionaries(
                        {"type": st.sampled_from(TYPES) | SCALARS},
                        optional=dict.fromkeys((*FIELDS, "id", "extra"), VALUES),
                    ).map(json.dumps),
                    st.integers(3, 3000).map(lambda n: "[" * n + "]" * n),
                )
            )
            def every(message: str) -> None:
                assume(_refused(message))  # (a well-formed message would be carried out)
                _check(ws, message)

            every()
            # the socket still works: a well-formed message the table refuses is a result
            ws.send('{"type": "bet", "box": 1, "player": "ann", "amount_cents": 250, "id": 9}')
            assert _answer(ws)["type"] == "result"
        assert _table_view(table) == before
        assert _errors(caplog) == []


def test_the_read_only_view_is_answered_too_even_with_deep_json(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    loaded = display_table("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    with running_table(loaded) as table:
        _betting(table)
        before = _table_view(table)
        url = table.url.replace("http://", "ws://") + f"ws?token={VIEW_TOKEN}"
        with connect(url, open_timeout=WAIT_S, max_size=None) as ws:
            assert _answer(ws)["role"] == "viewer"
            for text in DEEP + ODD:
                _check(ws, text)
            _check(ws, '{"type": "press", "key": "HIT", "id": 4}', msg_id=4)
        assert _table_view(table) == before
        assert _errors(caplog) == []


def test_a_frame_the_socket_cannot_take_closes_it_with_the_protocols_code_and_nothing_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with running_table(display_table("nz-pontoon")) as table:
        _betting(table)
        before = _table_view(table)
        url = table.url.replace("http://", "ws://") + "ws"
        # invalid UTF-8 in a text frame: 1007; a frame over four times the cap: 1009
        for frame, code in (
            (Frame(Opcode.TEXT, b'{"type": "press", "key": "\xff\xfe"}'), 1007),
            (Frame(Opcode.TEXT, b"[" * (5 * MAX_MESSAGE_BYTES)), 1009),
        ):
            with connect(url, open_timeout=WAIT_S) as ws:
                assert _answer(ws)["role"] == "dealer"
                with ws.protocol_mutex:  # a frame no well-behaved client sends
                    ws.protocol.send_frame(frame)
                    ws.send_data()
                assert _closing_code(ws) == code
        # the table still serves the dealer's page
        with connect(url, open_timeout=WAIT_S) as ws:
            assert _answer(ws)["role"] == "dealer"
        assert _table_view(table) == before
        assert _errors(caplog) == []


def test_a_message_with_every_field_wrong_gets_a_short_answer_that_counts_the_rest() -> None:
    # found by the fuzzing test above: eight null fields made an answer of 435 characters
    text = json.dumps(
        {"type": "press", "key": None, "extra": None, "id": None, "choice": None}
        | {"notice": None, "card": None, "decision": None}
    )
    with pytest.raises(BadMessage) as refused:
        parse_message(text)
    answer = str(refused.value)
    assert len(answer) < 400, answer
    assert answer.startswith("key = None: not a panel key")
    assert answer.endswith("more problems")
