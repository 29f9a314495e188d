"""Course files: validated like every other file, each problem with its line; the shipped
courses load and follow the school criteria."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.errors import ConfigError
from controller.game.shipped import VARIANT_IDS
from controller.training.course import load_course, parse_course, shipped_course
from controller.training.drills import DrillKind

GOOD = """\
[course]
id = "mine"
name = "Mine"
variant = "nz-pontoon"

[[drill]]
kind = "payout"
count = 3
time_limit_s = 30

[[drill]]
kind = "insurance_max"
count = 2
time_limit_s = 10
"""


def test_a_course_file_loads_with_its_drills_and_marks() -> None:
    course = parse_course(GOOD, "mine.toml")
    assert course.rules.id == "nz-pontoon"
    assert course.questions == 5
    assert [(d.kind, d.time_limit_s, d.pass_percent) for d in course.drills] == [
        (DrillKind.PAYOUT, 30, 90),
        (DrillKind.INSURANCE_MAX, 10, 90),
    ]


def test_each_problem_names_its_line_the_key_the_value_and_what_is_allowed() -> None:
    bad = (
        GOOD.replace("count = 3", 'count = "3"')
        .replace('kind = "insurance_max"', 'kind = "insurance"')
        .replace('name = "Mine"', 'name = "Mine"\ncolour = "red"')
    )
    with pytest.raises(ConfigError) as refused:
        parse_course(bad, "mine.toml")
    assert refused.value.problems == [
        'line 4: course.colour = "red": unknown key; allowed here: id, name, pass_percent, variant',
        'line 9: drill[0].count = "3": must be a whole number from 1 to 200, without quotes',
        'line 13: drill[1].kind = "insurance": must be one of "payout", "insurance_max", '
        '"surrender", "total", "next_prompt", "hold", "procedure"',
    ]


def test_a_drill_the_courses_game_does_not_have_is_refused_on_its_line() -> None:
    with pytest.raises(ConfigError) as refused:
        parse_course(GOOD.replace("nz-pontoon", "uk-pontoon"), "mine.toml")
    assert refused.value.problems == [
        "line 12: drill[1].kind = 'insurance_max': uk-pontoon has no such drill (its rules "
        "offer none); leave it out"
    ]


def test_an_unknown_variant_and_bad_toml_are_refused_saying_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"line 4: course.variant = 'nz-pontoo'"):
        parse_course(GOOD.replace("nz-pontoon", "nz-pontoo"), "mine.toml")
    path = tmp_path / "broken.toml"
    path.write_text("[course\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_course(path)
    with pytest.raises(ConfigError, match="no such file"):
        load_course(tmp_path / "none.toml")


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_every_variant_ships_a_course_on_the_school_criteria(variant: str) -> None:
    course = shipped_course(variant)
    limits = {d.kind: d.time_limit_s for d in course.drills}
    assert course.rules.id == variant
    assert limits[DrillKind.PAYOUT] <= 30
    if course.rules.insurance.allowed:
        assert limits[DrillKind.INSURANCE_MAX] <= 10
