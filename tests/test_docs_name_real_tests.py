"""Every test the documents name exists: a row of ``docs/reliability.md`` (or any other page of
``docs/``, the README, the bench README) that proves a behaviour by a test names a test that is
there. A reference is ``tests/PATH.py`` or ``tests/PATH.py::test_name`` in backticks; a
``::test_name`` after it in the same row names another test of that file (issue 25: four names
in docs/reliability.md had been renamed away)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "bench" / "README.md"]
# `tests/a/b.py`, `tests/a/b.py::test_x[param-*]`, `::test_y`: the file (if any), then names
REFERENCE = re.compile(r"`(tests/[\w/.-]+\.py)?((?:::[^`\s:]+)*)`")


@cache
def _defined(path: Path) -> frozenset[str]:
    """The names a pytest id may start with in ``path``: its functions and classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(node.name for node in tree.body if isinstance(node, kinds))


def named_tests(text: str) -> list[tuple[int, str, str | None]]:
    """Each (line, file, test name or None) that ``text`` names; a bare ``::name`` belongs to
    the file named last on its line (a row of a table is one line)."""
    found: list[tuple[int, str, str | None]] = []
    for number, line in enumerate(text.splitlines(), 1):
        current: str | None = None
        for match in REFERENCE.finditer(line):
            path, names = match.group(1), match.group(2)
            if path:
                current = path
            if not names:
                if path:
                    found.append((number, path, None))
                continue
            if current is None:
                found.append((number, "(no file named before it on the line)", names))
                continue
            first = names.split("::")[1].split("[")[0]  # a class's method: the class
            found.append((number, current, first))
    return found


def missing(doc: Path) -> list[str]:
    wrong: list[str] = []
    for number, path, name in named_tests(doc.read_text(encoding="utf-8")):
        where = f"{doc.relative_to(ROOT)}:{number}"
        file = ROOT / path
        if not file.is_file():
            wrong.append(f"{where}: {path} does not exist")
        elif name is not None and name not in _defined(file):
            wrong.append(f"{where}: {path} has no {name}")
    return wrong


def test_the_reference_reader_takes_a_bare_name_for_the_file_named_before_it_on_its_line() -> None:
    text = (
        "| a | `tests/x/test_a.py::test_one[p-*]`, `::test_two` |\n"
        "| b | `tests/x/test_b.py`; `tests/y/test_c.py::test_three`, `::test_four` |\n"
        "| c | `::test_orphan` |\n"
    )
    assert named_tests(text) == [
        (1, "tests/x/test_a.py", "test_one"),
        (1, "tests/x/test_a.py", "test_two"),
        (2, "tests/x/test_b.py", None),
        (2, "tests/y/test_c.py", "test_three"),
        (2, "tests/y/test_c.py", "test_four"),
        (3, "(no file named before it on the line)", "::test_orphan"),
    ]


def test_docs_reliability_names_tests_at_all() -> None:
    """(So that the check below cannot pass by reading nothing.)"""
    assert len(named_tests((ROOT / "docs" / "reliability.md").read_text(encoding="utf-8"))) > 80


def test_the_lab_kit_names_a_test_for_every_requirement_and_each_exists() -> None:
    """docs/lab.md: each requirement's row names its proof (a lab reads the test), and every
    test it names is there."""
    lab = ROOT / "docs" / "lab.md"
    text = lab.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    requirements = rows[1:]  # (the header row first)
    assert len(requirements) >= 15
    for row in requirements:
        assert named_tests(row) or "`tests/scenarios/" in row, f"no test named: {row[:80]}"
    assert len(named_tests(text)) > 30
    assert missing(lab) == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_test_a_document_names_exists(doc: Path) -> None:
    assert missing(doc) == []
