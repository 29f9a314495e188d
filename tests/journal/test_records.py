"""Records: every driver event and controller output becomes a JSON-able dict and reads back."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.refusals import Why, WhyNot
from controller.game.settlement import EntryKind, LedgerEntry
from controller.game.words import refusal_words
from controller.journal.errors import RecordError
from controller.journal.records import from_record, to_record, to_value
from controller.journal.rows import entry_for
from controller.journal.store import canonical_json
from controller.round.controller import DeviceCommand, StateChanged, SupervisorAction
from controller.round.inputs import KeyedCard
from controller.round.spec import Action, State
from controller.table.app import DeviceNote, InputResult
from drivers.tbl21 import events
from drivers.tbl21.cards import Card, Rank, Suit
from drivers.tbl21.events import (
    CardDrawn,
    DeviceEvent,
    DeviceRef,
    DeviceType,
    ProtocolViolation,
    ViolationKind,
)

EVENT_TYPES = sorted(
    (
        cls
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, DeviceEvent) and dataclasses.is_dataclass(cls)
    ),
    key=lambda cls: cls.__name__,
)


def strategy_for(hint: Any) -> st.SearchStrategy[Any]:
    """Values of a field type, JSON-safe (finite floats)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy_for(a) for a in typing.get_args(hint)))
    if origin is tuple:
        item, _ = typing.get_args(hint)
        return st.lists(strategy_for(item), max_size=3).map(tuple)
    if hint is type(None):
        return st.none()
    if hint is Card:
        return st.builds(Card, st.sampled_from(Rank), st.sampled_from(Suit))
    if hint is DeviceRef:
        return st.builds(
            DeviceRef, st.sampled_from(DeviceType), st.sampled_from(["sim://a", "/dev/ttyUSB0"])
        )
    if isinstance(hint, type) and issubclass(hint, Enum):
        return st.sampled_from(hint)
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-(2**40), 2**40)
    if hint is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if hint is str:
        return st.text(max_size=12)
    if hint is bytes:
        return st.binary(max_size=12)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return instances(hint)
    raise AssertionError(f"no strategy for {hint!r}")


def instances(cls: type[Any]) -> st.SearchStrategy[Any]:
    hints = typing.get_type_hints(cls)
    fields = {f.name: strategy_for(hints[f.name]) for f in dataclasses.fields(cls)}
    return st.fixed_dictionaries(fields).map(lambda kw: cls(**kw))


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda cls: cls.__name__)
@given(data=st.data())
def test_every_event_type_round_trips_through_json(cls: type[Any], data: st.DataObject) -> None:
    event = data.draw(instances(cls))
    record = to_record(event)
    text = canonical_json(record)
    assert from_record(json.loads(text)) == event
    assert next(iter(record)) == "type"
    assert record["type"] == cls.__name__


def test_a_card_drawn_record_reads_like_the_protocol() -> None:
    event = CardDrawn(
        device=DeviceRef(DeviceType.SHOE, "sim://shoe"),
        at=12.5,
        seq=7,
        boot=3,
        card=Card.parse("TH"),
        draw_no=17,
        remaining=295,
        quality=98,
    )
    assert to_record(event) == {
        "type": "CardDrawn",
        "device": {"type": "shoe", "port": "sim://shoe"},
        "at": 12.5,
        "seq": 7,
        "boot": 3,
        "card": "TH",
        "draw_no": 17,
        "remaining": 295,
        "quality": 98,
    }


def test_the_keys_come_in_declaration_order_after_type() -> None:
    event = ProtocolViolation(
        device=DeviceRef(DeviceType.PANEL, "p"),
        at=1.0,
        kind=ViolationKind.SEQ_GAP,
        detail="d",
        raw=b"\x02S",
    )
    record = to_record(event)
    assert list(record) == ["type", "device", "at", "kind", "detail", "raw"]
    assert record["kind"] == "seq_gap"
    assert type(record["kind"]) is str
    assert record["raw"] == "0253"


def test_odds_are_written_as_a_to_b_and_money_stays_integer_cents() -> None:
    entry = LedgerEntry(2, "ann", 1, EntryKind.PAYOUT, 1500, 1000, Fraction(3, 2), "natural")
    record = to_record(entry)
    assert record == {
        "type": "LedgerEntry",
        "box": 2,
        "player": "ann",
        "hand": 1,
        "kind": "payout",
        "amount_cents": 1500,
        "stake_cents": 1000,
        "odds": "3:2",
        "reason": "natural",
    }
    assert from_record(record) == entry


@pytest.mark.parametrize(
    "output",
    [
        Prompt(
            PromptCode.PAY,
            Say.MONEY,
            box=1,
            hand=1,
            player="ann",
            amount_cents=150,
            odds=Fraction(3, 2),
        ),
        LedgerEntry(1, "bo", None, EntryKind.INSURANCE_COLLECT, -500, 500, None, "insurance"),
        DeviceCommand("peek", "arm_peek", ("TH",)),
        StateChanged(State.BETTING, State.DEALING, Action.DEAL),
        SupervisorAction(Action.VOID, "S. Smith", "void"),
    ],
    ids=lambda o: type(o).__name__,
)
def test_controller_outputs_round_trip(output: object) -> None:
    assert from_record(json.loads(canonical_json(to_record(output)))) == output


def test_reading_a_record_as_the_wrong_class_is_refused() -> None:
    record = to_record(DeviceCommand("shoe", "new_shoe"))
    with pytest.raises(RecordError, match="record of type 'DeviceCommand' read as a Prompt"):
        from_record(record, Prompt)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"type": "Nope"}, "unknown record type 'Nope'"),
        ({"card": "AS"}, "no 'type'"),
        ({"type": "DeviceCommand", "device": "shoe"}, "lacks the field 'command'"),
        ({"type": "DeviceCommand", "device": "shoe", "command": "x", "extra": 1}, "unknown fields"),
        ({"type": "DeviceCommand", "device": 5, "command": "x"}, "DeviceCommand.device"),
    ],
)
def test_a_bad_record_is_refused_with_the_field_named(record: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError, match=message):
        from_record(record)


def test_to_record_needs_a_dataclass_instance() -> None:
    with pytest.raises(TypeError, match="dataclass instance"):
        to_record(Card)
    with pytest.raises(TypeError, match="no record form"):
        to_value(object())


def test_entry_for_gives_the_documented_kind_and_payload() -> None:
    assert entry_for(StateChanged(State.BETTING, State.DEALING, Action.DEAL)) == (
        "state",
        {"source": "betting", "dest": "dealing", "action": "deal"},
    )
    assert entry_for(SupervisorAction(Action.VOID, "S. Smith", "x")) == (
        "supervisor",
        {"action": "void", "by": "S. Smith", "detail": "x"},
    )
    kind, payload = entry_for(
        LedgerEntry(1, "ann", 1, EntryKind.COLLECT, -1000, 1000, None, "bust")
    )
    assert kind == "ledger"
    assert payload == {
        "box": 1,
        "player": "ann",
        "hand": 1,
        "kind": "collect",
        "amount_cents": -1000,
        "stake_cents": 1000,
        "odds": None,
        "reason": "bust",
    }
    prompt = Prompt(PromptCode.DEAL, Say.DEAL_TO_BOX, box=1)
    assert entry_for(prompt) == (
        "prompt",
        {"code": "DEAL", "box": 1, "text": "deal to box 1", "shown": "Deal a card to box 1"},
    )
    assert entry_for(DeviceCommand("peek", "arm_peek", ("TH",))) == (
        "command",
        {"device": "peek", "command": "arm_peek", "args": ["TH"]},
    )


def test_entry_for_writes_the_tables_input_results_with_their_data_and_notes() -> None:
    result = InputResult(Action.KEY_CARD, True, "", ("OK_",), KeyedCard(Card.parse("AS")), "dealer")
    assert entry_for(result) == (
        "input",
        {
            "action": "key_card",
            "data": {"card": "AS"},
            "accepted": True,
            "reason": "",
            "why": None,  # accepted: no refusal's code (journal format 11)
            "keys": ["OK_"],
            "by": "dealer",
        },
    )
    why = WhyNot(Why.NO_BETS)
    refused = InputResult(Action.DEAL, False, refusal_words(why), ("DEA",), why=why)
    assert entry_for(refused)[1]["why"] == "no_bets"
    assert entry_for(refused)[1]["reason"] == "no bets on the table"
    assert entry_for(DeviceNote("shoe", "fault cleared")) == (
        "note",
        {"device": "shoe", "text": "fault cleared"},
    )
    with pytest.raises(TypeError, match="no journal row kind for a int"):
        entry_for(5)
