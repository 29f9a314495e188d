"""The messages a display may send over its WebSocket, validated before anything happens.

``{"type": "press", "key": "HIT"}``: one panel key (the same key sequences as the panel, see
``docs/panel.md``). ``{"type": "bet", "box": 2, "player": "ann", "amount_cents": 1000}``: a
bet while bets are open. ``{"type": "pin", "pin": "246810"}``: sign in the role the key switch
is at. ``{"type": "supervisor", "decision": "void"}``: a supervisor's (or technician's) decision,
one of ``assign``, ``burn``, ``confirm``, ``clear_lockup``, ``void``. ``{"type": "key_card",
"card": "8S"}``: the dealer keys in the card the shoe could not read. ``{"type": "ack",
"notice": 3}``: the dealer has read a notice (``notices`` in the state). ``{"type": "halted",
"choice": "verify"}``: a supervisor's choice at a table stopped for a supervisor at start
(``verify`` or ``stop``, :mod:`controller.service.halt`). Anything else - not JSON,
an unknown type, a missing, extra or mistyped field - is answered with ``{"type": "error",
"error": "..."}`` saying what is allowed, and changes nothing. A PIN is never repeated in an
answer.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from controller.display.errors import BadMessage
from controller.round.inputs import DECISION_INPUTS, Bet, KeyedCard
from controller.round.spec import DECISIONS
from controller.service.halt import Choice, HaltChoice
from controller.service.service import Acknowledge, Command, Pin, Press
from drivers.tbl21.cards import Card
from drivers.tbl21.errors import CardNotationError
from drivers.tbl21.events import Button

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


class PinMessage(_Message):
    type: Literal["pin"]
    pin: Annotated[str, Field(pattern=r"^[0-9]{1,16}$")]


class SupervisorMessage(_Message):
    type: Literal["supervisor"]
    decision: str

    @field_validator("decision")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in DECISIONS:
            raise ValueError("not a decision")
        return value


class KeyCardMessage(_Message):
    type: Literal["key_card"]
    card: Annotated[str, Field(min_length=2, max_length=2)]


class AckMessage(_Message):
    type: Literal["ack"]
    notice: Annotated[StrictInt, Field(ge=1, le=2**31)]


class HaltedMessage(_Message):
    type: Literal["halted"]
    choice: Choice


AnyMessage = (
    PressMessage
    | BetMessage
    | PinMessage
    | SupervisorMessage
    | KeyCardMessage
    | AckMessage
    | HaltedMessage
)
Message = Annotated[AnyMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[AnyMessage] = TypeAdapter(Message)
TYPES = ("press", "bet", "pin", "supervisor", "key_card", "ack", "halted")


def parse_message(text: str) -> tuple[Command | HaltChoice, int | None]:
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
    if isinstance(message, PinMessage):
        return Pin(message.pin), message.id
    if isinstance(message, SupervisorMessage):
        decision = DECISION_INPUTS[DECISIONS[message.decision]]()
        return decision, message.id
    if isinstance(message, KeyCardMessage):
        try:
            card = Card.parse(message.card)
        except CardNotationError as exc:
            raise BadMessage(f"card: {exc}") from None
        return KeyedCard(card), message.id
    if isinstance(message, AckMessage):
        return Acknowledge(message.notice), message.id
    if isinstance(message, HaltedMessage):
        return HaltChoice(message.choice), message.id
    return Bet(message.box, message.player, message.amount_cents), message.id


def _describe(error: Any) -> str:
    assert isinstance(error, dict)
    loc = [str(p) for p in error.get("loc", ())]
    if loc and loc[0] in TYPES:  # the union's tag (not a field: "pin" is both)
        loc = loc[1:]
    key = ".".join(loc) or "message"
    value = error.get("input")
    kind = error.get("type")
    if key == "pin" and kind != "missing":
        return "pin: digits only, 1 to 16 of them (the value is not repeated)"
    if key == "decision" and kind != "missing":
        return f"decision = {value!r}: not a decision; allowed: {', '.join(DECISIONS)}"
    if key == "choice" and kind != "missing":
        return f"choice = {value!r}: allowed: {', '.join(c.value for c in Choice)}"
    if kind == "extra_forbidden":
        return f"{key}: unknown field (value {value!r})"
    if kind == "missing":
        return f"{key}: required field is missing"
    if key == "key":
        return f"key = {value!r}: not a panel key; allowed: {KEYS}"
    return f"{key} = {value!r}: {error.get('msg')}"
