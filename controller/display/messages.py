"""The messages a display may send over its WebSocket, validated before anything happens.

``{"type": "press", "key": "HIT"}``: one panel key (the same key sequences as the panel, see
``docs/panel.md``). ``{"type": "bet", "box": 2, "player": "ann", "amount_cents": 1000}``: a
bet while bets are open. Anything else - not JSON, an unknown type, a missing, extra or
mistyped field - is answered with ``{"type": "error", "error": "..."}`` saying what is allowed,
and changes nothing.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from controller.service import Bet, Command, Press
from drivers.events import Button

MAX_MESSAGE_BYTES = 4096
KEYS = ", ".join(b.value for b in Button)


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[StrictInt, Field(ge=0, le=2**31)] | None = None  # echoed in the answer


class PressMessage(_Message):
    type: Literal["press"]
    key: Button


class BetMessage(_Message):
    type: Literal["bet"]
    box: Annotated[StrictInt, Field(ge=1, le=7)]
    player: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,15}$")]
    amount_cents: Annotated[StrictInt, Field(gt=0, le=100_000_000)]


Message = Annotated[PressMessage | BetMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[PressMessage | BetMessage] = TypeAdapter(Message)
TYPES = ("press", "bet")


class BadMessage(ValueError):
    """A message that cannot be carried out; the text says why and what is allowed."""


def parse_message(text: str) -> tuple[Command, int | None]:
    """The command a message asks for, and its id; raises :class:`BadMessage`."""
    if len(text.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"message too long (at most {MAX_MESSAGE_BYTES} bytes)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadMessage(f"not JSON: {exc.msg} at position {exc.pos}") from None
    if not isinstance(data, dict):
        raise BadMessage('a message is a JSON object such as {"type": "press", "key": "HIT"}')
    kind = data.get("type")
    if kind not in TYPES:
        raise BadMessage(f"unknown message type {kind!r}; allowed: {', '.join(TYPES)}")
    try:
        message = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise BadMessage("; ".join(_describe(e) for e in exc.errors())) from None
    if isinstance(message, PressMessage):
        return Press(message.key), message.id
    return Bet(message.box, message.player, message.amount_cents), message.id


def _describe(error: object) -> str:
    assert isinstance(error, dict)
    loc = [str(p) for p in error.get("loc", ()) if p not in TYPES]
    key = ".".join(loc) or "message"
    value = error.get("input")
    kind = error.get("type")
    if kind == "extra_forbidden":
        return f"{key}: unknown field (value {value!r})"
    if kind == "missing":
        return f"{key}: required field is missing"
    if key == "key":
        return f"key = {value!r}: not a panel key; allowed: {KEYS}"
    return f"{key} = {value!r}: {error.get('msg')}"
