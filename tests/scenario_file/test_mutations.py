"""Whatever is done to a valid file, the loader answers with a Scenario or a ScenarioError.

Never a crash: every broken file gets problems that name a line, so the CLI can exit 2 with a
message instead of a traceback.
"""

import copy
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.play.errors import Problem, ScenarioError
from controller.play.scenario_file import parse_scenario

Path_ = tuple[str | int, ...]

VALID: dict[str, Any] = {
    "spec": 1,
    "variant": "nz-pontoon",
    "rules": {"decks": 8, "dealer_hits_soft_17": True},
    "shoe": ["2C", "AS", "KH", "7C", "9D"],
    "rounds": [
        {
            "bets": [
                {"box": 1, "player": "ann", "amount": 10},
                {"box": 1, "player": "bob", "amount": 5},
                {"box": 3, "player": "cat", "amount": 2.5},
            ],
            "actions": [
                {"insurance": {"box": 1, "player": "ann", "amount": 5}},
                {"surrender": {"box": 3}},
                {"hit": {"box": 1}},
                {"double": {"box": 1, "amount": 10, "players": ["ann"]}},
                {"split": {"box": 1}},
                {"stand": {"box": 1}},
                {"rescue": {"box": 1, "player": "ann"}},
            ],
        },
        {"bets": [{"box": 2, "player": "ann", "amount": 1}], "actions": []},
    ],
}

# Keys whose absence makes the file invalid, with the key path the error must name.
REQUIRED: list[tuple[Path_, str]] = [
    (("spec",), "spec"),
    (("variant",), "variant"),
    (("shoe",), "shoe"),
    (("rounds",), "rounds"),
    (("rounds", 0, "bets"), "rounds[0].bets"),
    (("rounds", 0, "bets", 1, "box"), "rounds[0].bets[1].box"),
    (("rounds", 0, "bets", 1, "player"), "rounds[0].bets[1].player"),
    (("rounds", 0, "bets", 1, "amount"), "rounds[0].bets[1].amount"),
    (("rounds", 0, "actions", 0, "insurance", "amount"), "rounds[0].actions[0].insurance.amount"),
    (("rounds", 0, "actions", 6, "rescue", "player"), "rounds[0].actions[6].rescue.player"),
    (("rounds", 0, "actions", 5, "stand", "box"), "rounds[0].actions[5].stand.box"),
]


def all_paths(node: object, prefix: Path_ = ()) -> list[Path_]:
    paths: list[Path_] = []
    if isinstance(node, dict):
        for key, value in node.items():
            paths.append((*prefix, key))
            paths.extend(all_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            paths.append((*prefix, i))
            paths.extend(all_paths(value, (*prefix, i)))
    return paths


def parent_of(doc: Any, path: Path_) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


def dump(doc: object) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None)


def problems_of(text: str) -> tuple[Problem, ...]:
    try:
        parse_scenario(text, "game.yaml")
    except ScenarioError as exc:
        return exc.problems
    return ()


def check_outcome(text: str) -> None:
    """Valid, or refused with problems that each carry a line (the only other outcome)."""
    for problem in problems_of(text):
        assert problem.line is not None
        assert problem.line >= 1
        assert str(problem).startswith(f"game.yaml:{problem.line}: ")


def test_the_unmutated_document_is_valid() -> None:
    parse_scenario(dump(VALID), "game.yaml")


@pytest.mark.parametrize(("path", "named"), REQUIRED, ids=[n for _, n in REQUIRED])
def test_deleting_a_required_key_is_reported_at_that_key(path: Path_, named: str) -> None:
    doc = copy.deepcopy(VALID)
    del parent_of(doc, path)[path[-1]]

    with pytest.raises(ScenarioError) as caught:
        parse_scenario(dump(doc), "game.yaml")

    assert named in [p.path for p in caught.value.problems]


WRONG_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.sampled_from(["hitt", "acions", "10H", "1e3", "0.001", "-5", "yes", "<<"]),
)


@st.composite
def mutated_documents(draw: st.DrawFn) -> object:
    doc: Any = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = all_paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = parent_of(doc, path)
        how = draw(st.sampled_from(["delete", "rename", "replace"]))
        if how == "delete":
            del parent[path[-1]]
        elif how == "rename" and isinstance(parent, dict):
            new_key = draw(st.one_of(st.text(max_size=10), st.integers(), st.booleans()))
            parent[new_key] = parent.pop(path[-1])
        else:
            parent[path[-1]] = draw(WRONG_VALUES)
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_mutated_document_gives_a_scenario_or_a_scenario_error(doc: object) -> None:
    check_outcome(dump(doc))


# Single characters that matter to YAML, and tokens that make PyYAML's own constructors fail
# (explicit tags on bad text, digit groups Python refuses, numbers too long to convert).
TOKENS = st.sampled_from(
    [
        *"-:[]{},&*!|>'\"#% \n\t0aé",
        "!!int ",
        "!!bool ",
        "!!float ",
        "!!str ",
        "!!map ",
        "!!python/object ",
        "!custom ",
        "<<: ",
        "*nope ",
        "&a ",
        "1__0",
        "0x1F",
        "1:30",
        "9" * 5000,
        "\x1f",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_mangled_text_gives_a_scenario_or_a_scenario_error(data: st.DataObject) -> None:
    text = dump(VALID)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        at = data.draw(st.integers(min_value=0, max_value=len(text)))
        if data.draw(st.booleans()) and at < len(text):
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + data.draw(TOKENS) + text[at:]
    check_outcome(text)


@given(st.text(max_size=200))
def test_arbitrary_text_gives_a_scenario_error_with_a_line(text: str) -> None:
    problems = problems_of(text)

    assert problems
    check_outcome(text)


def test_control_character_is_reported_at_its_line_and_column() -> None:
    text = dump(VALID).replace("variant: nz-pontoon", "variant: nz-\x1fpontoon")

    (problem,) = problems_of(text)

    assert (
        str(problem)
        == "game.yaml:2: not valid YAML: character U+001F is not allowed in a YAML file"
    )
    assert problem.column == 13
