"""Recall (issue 25, point 2), in process: rounds rebuilt from the journal's rows (never the
table's memory), refused to the dealer's screen without a signed-in supervisor, and the number
of rounds set in the table file."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.display.recall import read_recall, recall_refusal, recall_round
from controller.game.errors import ConfigError
from controller.journal.store import Row
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


def _row(seq: int, kind: str, payload: dict[str, object]) -> Row:
    return Row(seq, f"2026-12-04T16:16:{seq:02d}", "t-1", 1, kind, payload, "", "")


def test_a_recalled_card_reads_as_on_the_table_and_a_prompt_as_the_bar_showed_it() -> None:
    rows = [
        _row(1, "round_start", {"round": 1, "variant": "pa-blackjack"}),
        _row(2, "device_event", {"type": "CardDrawn", "card": "TD", "draw_no": 7}),
        _row(3, "prompt", {"code": "PLAYER_TURN", "text": "box 1 hand 1: TD 9C (19) - hit, stand",
                           "shown": "Box 1: 10♦ 9♣ 19 - HIT or STAND"}),
        _row(4, "prompt", {"code": "PLAYER_TURN", "text": "box 2 hand 1: 5H 5D (10) - hit"}),
    ]  # fmt: skip
    steps = [step["text"] for step in recall_round(1, rows)["steps"]]
    assert steps[0] == "card 10♦ (draw 7)"
    assert "Box 1: 10♦ 9♣ 19 - HIT or STAND" in steps  # the words the dealer read
    assert "box 2 hand 1: 5H 5D (10) - hit" in steps  # a row from before format 8: its line
