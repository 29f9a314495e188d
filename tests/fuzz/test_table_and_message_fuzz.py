"""Bounded fuzzing of the table file loader and of the display's WebSocket messages: any input
either loads (is carried out) or is refused with a specific error; nothing else escapes, and a
refused message changes nothing at the table (the API test shows that end to end)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.display.errors import BadMessage
from controller.display.messages import MAX_MESSAGE_BYTES, parse_message
from controller.game.errors import ConfigError
from controller.round.inputs import Bet
from controller.service.service import Press
from controller.table.config import DEFAULT_CONFIG, LoadedTable, load_table_config
from tests.fuzz.test_config_fuzz import mutate, paths, scalars

SHIPPED = tomllib.loads(DEFAULT_CONFIG.read_text())


def loaded_or_refused(path: Path) -> LoadedTable | ConfigError:
    try:
        return load_table_config(path)
    except ConfigError as refused:
        return refused


def toml_value(value: object) -> str:
    """``value`` written as TOML (floats and lists included)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def toml_text(data: dict[str, Any]) -> str:
    top = [f"{k} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    sections = [
        f"[{name}]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in table.items())
        for name, table in data.items()
        if isinstance(table, dict)
    ]
    return "\n".join(top) + "\n\n" + "\n\n".join(sections) + "\n"


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    pick=st.integers(0, 10_000),
    how=st.sampled_from(["delete", "replace", "typo"]),
    value=scalars,
)
def test_a_mutated_table_file_loads_or_is_refused_naming_the_file(
    tmp_path_factory: Any, pick: int, how: str, value: object
) -> None:
    choices = paths(SHIPPED)
    mutated = mutate(SHIPPED, choices[pick % len(choices)], how, value)
    path: Path = tmp_path_factory.mktemp("fuzz") / "table.toml"
    path.write_text(toml_text(mutated))
    result = loaded_or_refused(path)
    if isinstance(result, ConfigError):
        assert result.problems
        assert str(result).startswith(f"{path}:")
    else:
        assert isinstance(result, LoadedTable)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_as_a_table_file_are_refused_or_loaded_never_crash(
    tmp_path_factory: Any, blob: bytes
) -> None:
    path: Path = tmp_path_factory.mktemp("fuzz") / "table.toml"
    path.write_bytes(blob)
    result = loaded_or_refused(path)
    assert isinstance(result, LoadedTable) or str(path) in str(result)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
MESSAGE_TYPES = ["press", "bet", "pin", "supervisor", "key_card", "hello", ""]
FIELDS = ["type", "id", "key", "box", "player", "amount_cents", "pin", "decision", "card", "x"]


def parsed_or_refused(text: str) -> tuple[object, int | None] | BadMessage:
    try:
        return parse_message(text)
    except BadMessage as refused:
        return refused


def check(text: str) -> None:
    result = parsed_or_refused(text)
    if isinstance(result, BadMessage):
        assert str(result)  # a reason, always
    else:
        command, msg_id = result
        assert msg_id is None or isinstance(msg_id, int)
        assert command is not None
        if isinstance(command, Bet):
            assert command.amount_cents > 0
        if isinstance(command, Press):
            assert command.button is not None


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_any_text_as_a_socket_message_is_carried_out_or_refused_with_a_reason(text: str) -> None:
    check(text)


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(MESSAGE_TYPES),
    fields=st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5),
)
def test_a_message_of_any_shape_is_carried_out_or_refused_with_a_reason(
    kind: str, fields: dict[str, Any]
) -> None:
    check(json.dumps({"type": kind, **fields}))


def test_an_oversized_message_is_refused_before_it_is_parsed() -> None:
    text = json.dumps({"type": "press", "key": "HIT", "pad": "x" * MAX_MESSAGE_BYTES})
    result = parsed_or_refused(text)
    assert isinstance(result, BadMessage)
    assert "too long" in str(result)


def test_the_unmutated_table_file_written_back_loads(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(toml_text(SHIPPED))
    assert load_table_config(path).config.table_id == SHIPPED["table_id"]
