"""Records: our frozen dataclasses and enums as JSON-able dicts, and back.

:func:`to_record` turns a dataclass (a driver event, a controller output, a reply) into a plain
dict whose first key is ``"type"`` (the class name) followed by the fields in declaration order.
It is deterministic: the same object always gives the same dict, so the journal's canonical JSON
of it (and so its hash) is stable. Values are converted like this:

=====================  ==========================================================
``Card``               ``"AS"`` (rank then suit)
``Fraction``           ``"3:2"`` (odds)
``StrEnum``            its value (``Button.HIT`` -> ``"HIT"``)
``IntEnum``            its integer value
``DeviceRef``          ``{"type": "shoe", "port": "sim://shoe"}`` (the role's label)
nested dataclass       a nested record (with its own ``"type"``)
tuple / list           a list
``bytes``              lower-case hex text (``b"\\x02S"`` -> ``"0253"``)
``None``, bool, int,   as they are
float, str
=====================  ==========================================================

:func:`from_record` reads a record back into its class, using the field type hints to undo each
conversion. It knows every dataclass of :mod:`drivers.tbl21.events`, the controller's outputs
(Prompt, LedgerEntry, DeviceCommand, StateChanged, SupervisorAction), the round's inputs
(:mod:`controller.round.inputs`) and the table's calls (PinAttempt, SignOut, RequirePins,
Relight, SetAside, AllowFirmware, IntegrityAlarm, the people calls of
:mod:`controller.table.people` and the gaming day's of :mod:`controller.table.day`).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from enum import Enum, IntEnum
from fractions import Fraction
from typing import Any, TypeVar, Union

from controller.game.rules import format_odds, parse_odds
from controller.journal.errors import RecordError
from drivers.tbl21 import events
from drivers.tbl21.cards import Card
from drivers.tbl21.events import DeviceRef, DeviceType

T = TypeVar("T")


def to_record(obj: object) -> dict[str, Any]:
    """``obj`` (a dataclass instance) as a JSON-able dict with ``"type"`` first."""
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise TypeError(f"to_record needs a dataclass instance, got {type(obj).__name__}")
    return _dataclass_record(obj)


def to_value(value: object) -> Any:
    """One value converted as in a record (see the module docstring)."""
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Fraction):
        return format_odds(value)
    if isinstance(value, DeviceRef):
        return {"type": value.type.label, "port": value.port}
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (tuple, list)):
        return [to_value(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): to_value(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_record(value)
    raise TypeError(f"no record form for a {type(value).__name__}: {value!r}")


def _dataclass_record(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(obj).__name__}
    for f in dataclasses.fields(obj):
        out[f.name] = to_value(getattr(obj, f.name))
    return out


# --- back ------------------------------------------------------------------------------------


def from_record(record: Mapping[str, Any], cls: type[T] | None = None) -> T:
    """The object ``record`` was made from. ``cls`` defaults to the class its ``"type"`` names."""
    name = record.get("type")
    target: type[Any]
    if cls is not None:
        target = cls
        if name is not None and name != cls.__name__:
            raise RecordError(f"record of type {name!r} read as a {cls.__name__}")
    else:
        if not isinstance(name, str):
            raise RecordError(f"record has no 'type' naming its class: {dict(record)!r}")
        found = _registry().get(name)
        if found is None:
            raise RecordError(
                f"unknown record type {name!r}; known: {', '.join(sorted(_registry()))}"
            )
        target = found
    result: T = _read_dataclass(target, record)
    return result


def _read_dataclass(cls: type[Any], record: Mapping[str, Any]) -> Any:
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in record:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise RecordError(f"{cls.__name__} record lacks the field {f.name!r}")
            continue
        try:
            values[f.name] = _read_value(hints[f.name], record[f.name])
        except (ValueError, TypeError, KeyError) as exc:
            raise RecordError(
                f"{cls.__name__}.{f.name}: cannot read {record[f.name]!r}: {exc}"
            ) from exc
    extra = set(record) - {f.name for f in dataclasses.fields(cls)} - {"type"}
    if extra:
        raise RecordError(f"{cls.__name__} record has unknown fields {sorted(extra)}")
    return cls(**values)


def _read_value(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None:
            if type(None) in options:
                return None
            raise ValueError("None where a value is required")
        errors: list[str] = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _read_value(option, value)
            except (ValueError, TypeError, KeyError, RecordError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors))
    if origin is tuple:
        if not isinstance(value, list):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_read_value(args[0], item) for item in value)
        if len(args) != len(value):
            raise ValueError(f"expected {len(args)} items, got {len(value)}")
        return tuple(_read_value(a, item) for a, item in zip(args, value, strict=True))
    if origin is list:
        (item_hint,) = typing.get_args(hint)
        return [_read_value(item_hint, item) for item in value]
    if hint is Any:
        return value
    if hint is type(None):
        if value is not None:
            raise ValueError("expected None")
        return None
    if not isinstance(hint, type):
        raise TypeError(f"unsupported field type {hint!r}")
    if hint is DeviceRef:
        if not isinstance(value, Mapping):
            raise TypeError("a device is written as {'type': label, 'port': url}")
        return DeviceRef(_device_type(value["type"]), _str(value["port"]))
    if hint is Card:
        return Card.parse(value)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise TypeError(f"expected a {hint.__name__} record")
        return _read_dataclass(hint, value)
    if hint is Fraction:
        return parse_odds(value)
    if issubclass(hint, IntEnum):
        return hint(_int(value))
    if issubclass(hint, Enum):
        return hint(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise TypeError(f"expected true/false, got {value!r}")
        return value
    if hint is int:
        return _int(value)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expected a number, got {value!r}")
        return float(value)
    if hint is str:
        return _str(value)
    if hint is bytes:
        return bytes.fromhex(_str(value))
    raise TypeError(f"unsupported field type {hint.__name__}")


def _device_type(label: object) -> DeviceType:
    for member in DeviceType:
        if member.label == label:
            return member
    raise ValueError(f"unknown device type {label!r}")


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


@functools.cache
def _registry() -> dict[str, type]:
    from controller.game.prompts import Prompt  # noqa: PLC0415
    from controller.game.settlement import LedgerEntry  # noqa: PLC0415
    from controller.round.controller import DeviceCommand, StateChanged, SupervisorAction  # noqa: PLC0415
    from controller.round.inputs import INPUT_TYPES  # noqa: PLC0415
    from controller.table.access import PinAttempt, RequirePins, SignOut  # noqa: PLC0415
    from controller.table.app import SetAside  # noqa: PLC0415
    from controller.table.commands import Relight  # noqa: PLC0415
    from controller.table.day import DayCall, RequireOpening  # noqa: PLC0415
    from controller.table.firmware import AllowFirmware  # noqa: PLC0415
    from controller.table.integrity import IntegrityAlarm  # noqa: PLC0415
    from controller.table.people import PEOPLE_CALLS  # noqa: PLC0415

    known: dict[str, type] = {cls.__name__: cls for cls in INPUT_TYPES.values()}
    calls: tuple[type, ...] = (
        PinAttempt,
        RequirePins,
        SignOut,
        Relight,
        SetAside,
        AllowFirmware,
        IntegrityAlarm,
        *PEOPLE_CALLS,
        DayCall,
        RequireOpening,
    )
    for cls in calls:
        known[cls.__name__] = cls
    for value in vars(events).values():
        if (
            isinstance(value, type)
            and dataclasses.is_dataclass(value)
            and value.__module__ == events.__name__
        ):
            known[value.__name__] = value
    for cls in (Prompt, LedgerEntry, DeviceCommand, StateChanged, SupervisorAction):
        known[cls.__name__] = cls
    return known
