"""Every command's ``--help`` says what it does, and the documents it names exist."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli.commands import SCENARIO_EXTENSIONS, SCENARIO_FORMAT
from controller.cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[2]


def commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name), sub
                yield from commands(sub, (*words, name))


ALL = list(commands(build_parser()))


def test_every_command_is_found() -> None:
    names = {" ".join(words) for words, _ in ALL}
    assert {"doctor", "scenario run", "simulate", "analyze", "floor serve", "history"} <= names


@pytest.mark.parametrize(("words", "parser"), ALL, ids=[" ".join(w) for w, _ in ALL])
def test_every_commands_help_has_a_description(
    words: tuple[str, ...], parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    assert parser.description, f"croupier {' '.join(words)} --help has no description"
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    first_words = parser.description.split()[:4]
    assert " ".join(first_words) in " ".join(text.split())


def test_scenario_help_names_the_format_documents_and_they_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["scenario", "run", "--help"])
    text = capsys.readouterr().out
    named = [Path(p) for p in re.findall(r"(/\S+\.md)", text)]
    assert SCENARIO_FORMAT in named
    assert SCENARIO_EXTENSIONS in named
    for path in named:
        assert path.is_file(), f"scenario --help names {path}, which does not exist"
    assert "## File (YAML)" in SCENARIO_FORMAT.read_text(encoding="utf-8")


def test_the_shipped_scenario_format_is_the_projects_docs_file() -> None:
    """In the source tree the package's copy is docs/ itself (controller/docs links to it);
    the wheel ships it as package data (.ci/wheel-smoke checks the installed one)."""
    assert (REPO / "docs" / "scenarios.md").resolve() == SCENARIO_FORMAT
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"controller.docs" = ["scenarios.md", "scenario-extensions.md", "lab.md"]' in pyproject


def test_the_readme_command_table_lists_every_top_level_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `croupier ([a-z]+)", readme, flags=re.MULTILINE)
    top = {words[0] for words, _ in ALL if len(words) == 1}
    assert top <= set(rows), f"README lacks {sorted(top - set(rows))}"
