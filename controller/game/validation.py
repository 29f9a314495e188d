"""Pydantic's validation errors in a user's words: the one place they are turned into messages.

Every configuration croupier reads is validated by a pydantic model: a variant file, a table
file, a floor file, and the variant (with its overrides) a scenario, ``--set`` or a table names.
:func:`config_error` turns each error into one line that names the key, the value given (as it
is written in a TOML file) and what is allowed, in plain words::

    dealer.hits_soft_17 = "maybe": must be true or false
    shoe.decks = "six": must be a whole number from 1 to 8, without quotes
    hands.ties = "draw": must be one of "push", "dealer-wins"
    shoe.burns = 2: unknown key (did you mean burn_cards?); allowed here: burn_cards, ...
    dealer.hits_soft_17: missing; give true or false

What is allowed is read from the model: the field's type and its bounds (``Field(ge=1, le=8)``),
an enumeration's values, a section's keys. A text that must match a pattern says what the
pattern means where the field is declared (:func:`text_matching`). A validator's own message
(``raise ValueError("...")``) says what is allowed itself and is shown as it is.
"""

from __future__ import annotations

import difflib
import json
import types
from collections.abc import Collection, Mapping
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

from controller.game.errors import ConfigError

if TYPE_CHECKING:  # (pydantic is imported where a model is read: the kernel's strategy only
    # needs shown, issue 26)
    from pydantic import BaseModel, ValidationError

SHOWN_CHARS = 60  # a longer value is shown cut, with "..."

# What each pattern a model declares means, in words (registered by text_matching).
_PATTERN_WORDS: dict[str, str] = {}


def text_matching(pattern: str, words: str) -> Any:
    """``Field(pattern=pattern)`` for a text field, whose refusal says ``words`` ("lower-case
    letters, digits and '-'") instead of the pattern."""
    from pydantic import Field  # noqa: PLC0415 - see the imports

    _PATTERN_WORDS[pattern] = words
    return Field(pattern=pattern)


def config_error(
    source: str,
    exc: ValidationError,
    model: type[BaseModel],
    overridden: Collection[str] = (),
) -> ConfigError:
    """The :class:`ConfigError` of the file ``source``: one line per error of ``exc``.
    ``overridden``: the keys whose values were not the file's (``--set``, a scenario's
    ``rules``): a problem with one of them says so."""
    return ConfigError(
        source, [describe(e, model, overridden) for e in exc.errors(include_url=False)]
    )


def describe(
    error: Mapping[str, Any], model: type[BaseModel], overridden: Collection[str] = ()
) -> str:
    """One of pydantic's errors about data for ``model`` as a line for a person."""
    loc = tuple(error["loc"])
    key = key_text(loc)
    kind = str(error["type"])
    value = error.get("input")
    note = " (an override)" if any(o == key or o.startswith(f"{key}.") for o in overridden) else ""
    given = f"{key} = {shown(value)}{note}"
    found = _field_at(model, loc)
    expected = allowed(*found) if found is not None else None
    if kind == "missing":
        return f"{key}: missing; give {expected or 'a value'}"
    if kind == "extra_forbidden":
        if isinstance(value, Mapping):
            return f"[{key}]{note}: unknown section{_unknown_key_help(model, loc)}"
        return f"{given}: unknown key{_unknown_key_help(model, loc)}"
    if kind in ("value_error", "assertion_error"):
        message = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if not key:
            return message
        if isinstance(value, Mapping):  # a check of a whole section: its keys are named in it
            return f"{key}{note}: {message}"
        return f"{given}: {message}"
    if kind == "string_pattern_mismatch":
        pattern = str(error.get("ctx", {}).get("pattern", ""))
        expected = _PATTERN_WORDS.get(pattern, f"text matching the pattern {pattern}")
    if expected is None:
        expected = _from_context(error)
    if isinstance(value, str) and kind in _NOT_TEXT:
        expected += ", without quotes"
    elif kind in ("enum", "literal_error") and not isinstance(value, str):
        expected += " (text, in quotes)"
    return f"{given}: must be {expected}" if key else f"must be {expected}"


# errors of a value that was text where a number or true/false belongs
_NOT_TEXT = frozenset({"bool_type", "bool_parsing", "int_type", "int_parsing", "float_type",
                       "float_parsing"})  # fmt: skip


def key_text(loc: tuple[int | str, ...]) -> str:
    """``("payouts", "bonus", 0, "hand")`` -> ``payouts.bonus[0].hand``."""
    return ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in loc).replace(".[", "[")


def shown(value: object) -> str:
    """A value as it is written in a TOML file (``"six"``, ``true``, ``[1, 2]``), cut short."""
    text = _toml(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


def allowed(annotation: Any, constraints: list[Any]) -> str | None:
    """What a field of this type and these constraints takes, in words (None: not known)."""
    from pydantic import BaseModel  # noqa: PLC0415 - see the imports

    if annotation is bool:
        return "true or false"
    if annotation is int:
        return _number("a whole number", constraints)
    if annotation is float:
        return _number("a number", constraints)
    if annotation is str:
        return _text(constraints)
    if annotation is Fraction:
        return 'odds written as text "A:B", such as "3:2"'
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _one_of([m.value for m in annotation])
    if get_origin(annotation) is Literal:
        return _one_of([a.value if isinstance(a, Enum) else a for a in get_args(annotation)])
    if get_origin(annotation) in (tuple, list):
        args = [a for a in get_args(annotation) if a is not Ellipsis]
        each = allowed(*_unwrapped(args[0], [])) if args else None
        length = _length(constraints, "items")
        return "a list" + (f" of {length}" if length else "") + (f", each {each}" if each else "")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"a table with the keys {', '.join(annotation.model_fields)}"
    return None


def _one_of(values: list[Any]) -> str:
    return "one of " + ", ".join(_toml(v) for v in values)


def _number(what: str, constraints: list[Any]) -> str:
    low = _bound(constraints, "ge")
    high = _bound(constraints, "le")
    above = _bound(constraints, "gt")
    if low is not None and high is not None:
        return f"{what} from {low} to {high}"
    if above is not None:
        return f"{what} above {above}" + (f" and at most {high}" if high is not None else "")
    if low is not None:
        return f"{what} of {low} or more"
    if high is not None:
        return f"{what} of at most {high}"
    return what


def _text(constraints: list[Any]) -> str:
    for constraint in constraints:
        pattern = getattr(constraint, "pattern", None)
        if pattern is not None:
            return _PATTERN_WORDS.get(str(pattern), f"text matching the pattern {pattern}")
    length = _length(constraints, "characters")
    return f"text of {length}" if length else "text, in quotes"


def _length(constraints: list[Any], unit: str) -> str:
    """``1 to 40 characters`` (empty: no bounds)."""
    low = _bound(constraints, "min_length")
    high = _bound(constraints, "max_length")
    if low is not None and high is not None:
        return f"{low} to {high} {unit}"
    if high is not None:
        return f"at most {high} {unit}"
    if low is not None and low > 0:
        return f"at least {low} {unit}"
    return ""


def _bound(constraints: list[Any], name: str) -> int | float | None:
    for constraint in constraints:
        found = getattr(constraint, name, None)
        if isinstance(found, int | float) and not isinstance(found, bool):
            return int(found) if float(found).is_integer() else found
    return None


def _from_context(error: Mapping[str, Any]) -> str:
    """What is allowed from the error's own context, where the model did not say."""
    context = error.get("ctx", {})
    words = {"ge": "{} or more", "le": "at most {}", "gt": "more than {}", "lt": "less than {}"}
    for name, form in words.items():
        if name in context:
            return form.format(context[name])
    if "expected" in context:
        return f"one of {context['expected']}"
    return str(error["msg"]).removeprefix("Input should be ")


def _unknown_key_help(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    from pydantic import BaseModel  # noqa: PLC0415 - see the imports

    found = _field_at(model, loc[:-1])
    section = found[0] if found is not None else None
    if not (isinstance(section, type) and issubclass(section, BaseModel)):
        return ""
    keys = list(section.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), keys, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{hint}; allowed here: {', '.join(sorted(keys))}"


def _field_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[Any, list[Any]] | None:
    """The type and the constraints of the value at ``loc`` in ``model`` (None: not a field)."""
    from pydantic import BaseModel  # noqa: PLC0415 - see the imports

    annotation: Any = model
    constraints: list[Any] = []
    for part in loc:
        annotation, constraints = _unwrapped(annotation, constraints)
        if isinstance(part, int):
            args = get_args(annotation)
            if get_origin(annotation) not in (tuple, list) or not args:
                return None
            annotation, constraints = args[0], []
            continue
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        field = annotation.model_fields.get(part)
        if field is None:
            return None
        annotation, constraints = field.annotation, list(field.metadata)
    return _unwrapped(annotation, constraints)


def _unwrapped(annotation: Any, constraints: list[Any]) -> tuple[Any, list[Any]]:
    """``Annotated[int, Field(ge=1)] | None`` -> ``int`` and ``[Ge(1)]``."""
    constraints = list(constraints)
    from pydantic.fields import FieldInfo  # noqa: PLC0415 - see the imports

    while True:
        if get_origin(annotation) is Annotated:
            annotation, *extra = get_args(annotation)
            for item in extra:
                constraints += item.metadata if isinstance(item, FieldInfo) else [item]
            continue
        if get_origin(annotation) in (Union, types.UnionType):
            others = [a for a in get_args(annotation) if a is not type(None)]
            if len(others) == 1:
                annotation = others[0]
                continue
        return annotation, constraints
