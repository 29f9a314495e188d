"""Recall (issue 25, point 2), in process: rounds rebuilt from the journal's rows (never the
table's memory), refused to the dealer's screen without a signed-in supervisor, and the number
of rounds set in the table file."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.display.recall import read_recall, recall_refusal
from controller.game.errors import ConfigError
from controller.table.config import table_from_mapping


def test_the_dealers_screen_gets_the_recall_only_with_a_supervisor_signed_in() -> None:
    running = {"access": {"signed_in": None}}
    why = recall_refusal(running)
    assert why is not None
    assert "key at SUP and the supervisor signed in" in why
    assert recall_refusal({"access": {"signed_in": "technician"}}) is not None
    assert recall_refusal({"access": {"signed_in": "supervisor"}}) is None
    assert recall_refusal({"halted": {"signed_in": None}}) is not None  # stopped at start
    assert recall_refusal({"halted": {"signed_in": "supervisor"}}) is None


def test_a_journal_that_cannot_be_read_is_said_not_shown_as_no_rounds(tmp_path: Path) -> None:
    found = read_recall(tmp_path / "none.sqlite3", 10)
    assert found["rounds"] == []
    assert found["error"]
    assert found["mark"].startswith("RECALL")


@pytest.mark.parametrize("bad", [0, 101, "ten"])
def test_recall_rounds_is_checked_in_the_table_file(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ConfigError, match="recall_rounds"):
        table_from_mapping({"display": {"recall_rounds": bad}}, "<test>", tmp_path)
    loaded = table_from_mapping({}, "<test>", tmp_path)
    assert loaded.config.display.recall_rounds == 10
