"""The messages a display may send over its WebSocket, validated before anything happens.

``{"type": "press", "key": "HIT"}``: one panel key (the same key sequences as the panel, see
``docs/panel.md``). ``{"type": "bet", "box": 2, "player": "ann", "amount_cents": 1000}``: a
bet while bets are open. ``{"type": "pin", "pin": "246810"}``: sign in the role the key switch
is at (``"staff": "1001"`` too where that role signs in by person: the staff number).
``{"type": "supervisor", "decision": "void"}``: a supervisor's (or technician's) decision,
one of ``assign``, ``burn``, ``confirm``, ``clear_lockup``, ``void``. ``{"type": "key_card",
"card": "8S"}``: the dealer keys in the card the shoe could not read. ``{"type": "ack",
"notice": 3}``: the dealer has read a notice (``notices`` in the state). ``{"type": "halted",
"choice": "verify"}``: a supervisor's choice at a table stopped for a supervisor at start
(``verify`` or ``stop``, :mod:`controller.service.halt`). ``{"type": "dealer", "staff": "2001",
"pin": "..."}`` signs a dealer in, ``{"type": "dealer_out"}`` out; ``{"type": "sit", "box": 2,
"card": "40123", "player": "ann"}`` seats a rated player, ``{"type": "leave", "box": 2}`` walks
them away (:mod:`controller.table.people`). ``{"type": "day", "act": "opening", "chips":
{"2500": 20, "500": 40}}`` is a step of the gaming day (:mod:`controller.table.day`: ``layout``,
``reader``, ``panel``, ``shoe``, ``opening``, ``fill``, ``credit``, ``drop`` with ``cents``,
``closing``); a fill or a credit names its second person (``witness``, ``witness_pin``).
Anything else - not JSON,
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
from controller.table.day import DayAct, DayRequest
from controller.table.people import DealerLeaves, DealerRequest, LeaveRequest, SeatRequest
from drivers.tbl21.cards import Card
from drivers.tbl21.errors import CardNotationError
from drivers.tbl21.events import Button

MAX_MESSAGE_BYTES = 4096
MAX_NESTING = 2  # an object, and a value in it that is one (refused by its field's type)
SHOWN_CHARS = 40  # of a wrong value, repeated in the answer
PROBLEMS_CHARS = 300  # of the problems listed in one answer (the rest are counted)
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
    staff: Annotated[str, Field(pattern=r"^[0-9]{1,8}$")] | None = None  # a person's number


class DealerMessage(_Message):
    type: Literal["dealer"]
    staff: Annotated[str, Field(pattern=r"^[0-9]{1,8}$")]
    pin: Annotated[str, Field(pattern=r"^[0-9]{1,16}$")]


class DealerOutMessage(_Message):
    type: Literal["dealer_out"]


class SitMessage(_Message):
    type: Literal["sit"]
    box: Annotated[StrictInt, Field(ge=1, le=7)]
    card: Annotated[str, Field(pattern=r"^[0-9]{4,16}$")]
    player: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,15}$")]


class LeaveMessage(_Message):
    type: Literal["leave"]
    box: Annotated[StrictInt, Field(ge=1, le=7)]


class DayMessage(_Message):
    type: Literal["day"]
    act: DayAct
    # denomination in cents -> how many chips (a flat object: messages nest no deeper)
    chips: dict[Annotated[str, Field(pattern=r"^[1-9][0-9]{0,9}$")], StrictInt] | None = None
    cents: Annotated[StrictInt, Field(ge=0, le=10**12)] | None = None
    witness: Annotated[str, Field(pattern=r"^[0-9]{1,8}$")] | None = None
    witness_pin: Annotated[str, Field(pattern=r"^[0-9]{1,16}$")] | None = None

    @field_validator("act")
    @classmethod
    def _asked(cls, value: DayAct) -> DayAct:
        if value is DayAct.DEMO:
            raise ValueError("a demo table opens itself; the display asks the opening's steps")
        return value

    @field_validator("chips")
    @classmethod
    def _few(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        if value is not None and len(value) > 20:
            raise ValueError("at most 20 denominations")
        return value


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
    | DealerMessage
    | DealerOutMessage
    | SitMessage
    | LeaveMessage
    | DayMessage
)
Message = Annotated[AnyMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[AnyMessage] = TypeAdapter(Message)
TYPES = (
    "press",
    "bet",
    "pin",
    "supervisor",
    "key_card",
    "ack",
    "halted",
    "dealer",
    "dealer_out",
    "sit",
    "leave",
    "day",
)


def decode_message(text: str) -> dict[str, Any]:
    """The JSON object of a message; raises :class:`BadMessage` for one that is too long, not
    JSON, nested deeper than a message ever is, or not an object."""
    if len(text.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"message too long (at most {MAX_MESSAGE_BYTES} bytes)")
    if _nesting(text) > MAX_NESTING:
        raise BadMessage(
            'a message is one flat JSON object such as {"type": "press", "key": "HIT"}: '
            "no values nested inside others"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadMessage(f"not JSON: {exc.msg} at position {exc.pos}") from None
    except (ValueError, RecursionError):  # a number too long to read, say
        raise BadMessage("not JSON this table reads (a number too long?)") from None
    if not isinstance(data, dict):
        raise BadMessage('a message is a JSON object such as {"type": "press", "key": "HIT"}')
    return data


def message_id(data: dict[str, Any]) -> int | None:
    """The message's ``id`` if it is one an answer may echo."""
    value = data.get("id")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**31:
        return value
    return None


def _nesting(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (strings skipped; not a JSON check)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_message(text: str) -> tuple[Command | HaltChoice, int | None]:
    """The command a message asks for, and its id; raises :class:`BadMessage`."""
    return command_of(decode_message(text))


def command_of(data: dict[str, Any]) -> tuple[Command | HaltChoice, int | None]:
    """The command of a decoded message (:func:`decode_message`); raises :class:`BadMessage`."""
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise BadMessage(f"unknown message type {_shown(kind)}; allowed: {', '.join(TYPES)}")
    try:
        message = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise BadMessage(_problems([_describe(e) for e in exc.errors()])) from None
    if isinstance(message, PressMessage):
        return Press(message.key), message.id
    if isinstance(message, PinMessage):
        return Pin(message.pin, message.staff or ""), message.id
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
    if isinstance(message, DealerMessage):
        return DealerRequest(message.staff, message.pin), message.id
    if isinstance(message, DealerOutMessage):
        return DealerLeaves(), message.id
    if isinstance(message, SitMessage):
        return SeatRequest(message.box, message.card, message.player), message.id
    if isinstance(message, LeaveMessage):
        return LeaveRequest(message.box), message.id
    if isinstance(message, DayMessage):
        chips = tuple(sorted((int(d), n) for d, n in (message.chips or {}).items()))
        request = DayRequest(
            message.act, chips, message.cents or 0, message.witness or "", message.witness_pin or ""
        )
        return request, message.id
    return Bet(message.box, message.player, message.amount_cents), message.id


def _problems(described: list[str]) -> str:
    """The problems of one message, as many as fit in an answer a screen can show; the rest
    counted ("and 3 more problems"), so a message full of bad fields cannot make a long answer."""
    shown: list[str] = []
    used = 0
    for text in described:
        if shown and used + len(text) > PROBLEMS_CHARS:
            break
        shown.append(text)
        used += len(text) + 2
    left = len(described) - len(shown)
    if left:
        shown.append(f"and {left} more problem{'s' if left > 1 else ''}")
    return "; ".join(shown)


def _shown(value: Any) -> str:
    """``value`` as the answer repeats it (cut short)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}..."


def _describe(error: Any) -> str:
    assert isinstance(error, dict)
    loc = [str(p) for p in error.get("loc", ())]
    tag = loc[0] if loc and loc[0] in TYPES else None
    if tag is not None:  # the union's tag (not a field: "pin" is both)
        loc = loc[1:]
    key = ".".join(loc) or "message"
    value = error.get("input")
    kind = error.get("type")
    if key in ("pin", "witness_pin") and kind != "missing":
        return "pin: digits only, 1 to 16 of them (the value is not repeated)"
    if key == "card" and tag == "sit" and kind != "missing":
        return "card: a player card number, 4 to 16 digits"
    if key == "staff" and kind != "missing":  # (perhaps a PIN keyed in the wrong field)
        return "staff: a staff number, 1 to 8 digits (the value is not repeated)"
    if key == "decision" and kind != "missing":
        return f"decision = {_shown(value)}: not a decision; allowed: {', '.join(DECISIONS)}"
    if key == "choice" and kind != "missing":
        return f"choice = {_shown(value)}: allowed: {', '.join(c.value for c in Choice)}"
    if kind == "extra_forbidden":
        return f"{_shown_key(key)}: unknown field (value {_shown(value)})"
    if kind == "missing":
        return f"{key}: required field is missing"
    if key == "key":
        return f"key = {_shown(value)}: not a panel key; allowed: {KEYS}"
    return f"{_shown_key(key)} = {_shown(value)}: {error.get('msg')}"


def _shown_key(key: str) -> str:
    return key if len(key) <= SHOWN_CHARS else f"{key[: SHOWN_CHARS - 3]}..."
