"""Course files: which drills a training session asks, how many, in what time, to what mark.

A course is TOML like the rest of croupier's configuration, validated on load by a pydantic
model; each problem names the file, the line and the key, the value and what is allowed::

    courses/mine.toml: 1 problem:
      - line 9: drill[1].time_limit_s = 0: must be a whole number from 1 to 3600, without quotes

::

    [course]
    id = "nz-pontoon-school"
    name = "NZ Pontoon: the dealer school's checks"
    variant = "nz-pontoon"
    pass_percent = 90           # of the whole course's questions, right and in time

    [[drill]]
    kind = "payout"             # payout, insurance_max, surrender, total, next_prompt, hold,
                                # procedure (a shipped scenario, step by step)
    count = 10
    time_limit_s = 30           # each answer
    pass_percent = 90           # of this drill's questions

A course passes when every drill and the whole course reach their marks. The shipped courses
(one per variant, ``controller/defaults/courses``) follow the published school criteria: a payout
in under 30 seconds, the insurance maximum in under 10.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from controller.game.errors import ConfigError
from controller.game.files import read_config_file
from controller.game.rules import Variant, load_variant
from controller.game.shipped import CONFIG_DIR, VARIANT_IDS
from controller.game.validation import describe, key_text, text_matching
from controller.training.drills import DrillKind, available

COURSES_DIR = CONFIG_DIR / "courses"
_ID = r"^[a-z0-9][a-z0-9-]{0,63}$"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CourseInfo(_Section):
    id: Annotated[StrictStr, text_matching(_ID, "lower-case letters, digits and '-'")]
    name: Annotated[StrictStr, Field(min_length=1, max_length=120)]
    variant: Annotated[StrictStr, Field(min_length=1)]
    pass_percent: Annotated[StrictInt, Field(ge=0, le=100)] = 90


class DrillSpec(_Section):
    kind: DrillKind
    count: Annotated[StrictInt, Field(ge=1, le=200)]
    time_limit_s: Annotated[StrictInt, Field(ge=1, le=3600)]
    pass_percent: Annotated[StrictInt, Field(ge=0, le=100)] = 90


class CourseFile(_Section):
    course: CourseInfo
    drill: Annotated[list[DrillSpec], Field(min_length=1)]


@dataclass(frozen=True, slots=True)
class Course:
    """A validated course and the rules of its variant."""

    id: str
    name: str
    rules: Variant
    pass_percent: int
    drills: tuple[DrillSpec, ...]
    source: str

    @property
    def questions(self) -> int:
        return sum(d.count for d in self.drills)


def lines_of(text: str) -> dict[tuple[str | int, ...], int]:
    """Where each table and key of a TOML text is: ``("drill", 1, "count")`` -> its line (1-based).
    Enough for a course's flat sections and arrays of tables."""
    found: dict[tuple[str | int, ...], int] = {}
    where: tuple[str | int, ...] = ()
    counts: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if match := re.match(r"^\[\[\s*([A-Za-z0-9_-]+)\s*\]\]", stripped):
            name = match.group(1)
            index = counts.get(name, -1) + 1
            counts[name] = index
            where = (name, index)
            found.setdefault((name,), number)
        elif match := re.match(r"^\[\s*([A-Za-z0-9_-]+)\s*\]", stripped):
            where = (match.group(1),)
        elif match := re.match(r"^([A-Za-z0-9_-]+)\s*=", stripped):
            found.setdefault((*where, match.group(1)), number)
            continue
        else:
            continue
        found.setdefault(where, number)
    return found


def _line(lines: dict[tuple[str | int, ...], int], loc: tuple[str | int, ...]) -> int | None:
    for end in range(len(loc), 0, -1):  # the key, else its table
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _at(line: int | None, problem: str) -> str:
    return problem if line is None else f"line {line}: {problem}"


def parse_course(text: str, source: str) -> Course:
    """Validate a course's text. Raises :class:`ConfigError` naming each problem's line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from None
    lines = lines_of(text)
    try:
        model = CourseFile.model_validate(data)
    except ValidationError as exc:
        problems = [
            _at(_line(lines, tuple(e["loc"])), describe(e, CourseFile))
            for e in exc.errors(include_url=False)
        ]
        raise ConfigError(source, problems) from None
    try:
        rules = load_variant(model.course.variant)
    except ConfigError as exc:
        line = _line(lines, ("course", "variant"))
        known = ", ".join(VARIANT_IDS)
        raise ConfigError(
            source,
            [
                _at(line, f"course.variant = {model.course.variant!r}: {p} (variants: {known})")
                for p in exc.problems
            ],
        ) from None
    problems = [
        _at(
            _line(lines, ("drill", n, "kind")),
            f"{key_text(('drill', n, 'kind'))} = {d.kind.value!r}: {rules.id} has no such "
            "drill (its rules offer none); leave it out",
        )
        for n, d in enumerate(model.drill)
        if not available(rules, d.kind)
    ]
    if problems:
        raise ConfigError(source, problems)
    info = model.course
    return Course(info.id, info.name, rules, info.pass_percent, tuple(model.drill), source)


def load_course(path: str | Path) -> Course:
    """Read and validate a course file. Raises :class:`ConfigError`."""
    file = Path(path)
    raw = read_config_file(file, "course file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(str(file), [f"not UTF-8 text: {exc}"]) from None
    return parse_course(text, str(file))


def shipped_course(variant: str) -> Course:
    """The course shipped for a variant (``controller/defaults/courses/VARIANT.toml``)."""
    return load_course(COURSES_DIR / f"{variant}.toml")


def drill_course(rules: Variant, kind: DrillKind, count: int, time_limit_s: int) -> Course:
    """A course of one drill (``croupier train --drill NAME``)."""
    spec = DrillSpec(kind=kind, count=count, time_limit_s=time_limit_s)
    return Course(f"drill-{kind.value}", kind.value, rules, 90, (spec,), "--drill")
