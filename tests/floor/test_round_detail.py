"""A round on the floor page: its cards with where they went, and each ledger line with where it
settles (a split box's hands told apart)."""

from __future__ import annotations

from typing import Any

from controller.floor.rounds import round_detail
from controller.journal.store import Row


def _row(seq: int, kind: str, payload: dict[str, Any]) -> Row:
    return Row(seq, f"2026-12-02T03:00:{seq:02d}.000Z", "t1", 2, kind, payload, "", "")


def _ledger(box: int, hand: int | None, amount: int, reason: str) -> dict[str, Any]:
    return {
        "box": box,
        "hand": hand,
        "player": "ann" if box == 1 else "bob",
        "kind": "push" if amount == 0 else "collect",
        "amount_cents": amount,
        "odds": None,
        "reason": reason,
    }


def test_a_split_box_s_ledger_lines_name_their_hand_and_a_box_played_whole_does_not() -> None:
    rows = [
        _row(1, "prompt", {"code": "DEAL", "box": 1, "hand": 2, "text": "Deal a card to box 1"}),
        _row(2, "device_event", {"type": "CardDrawn", "card": "QH"}),
        _row(3, "ledger", _ledger(1, 1, 0, "stand-off at 18")),
        _row(4, "ledger", _ledger(1, 2, 0, "stand-off at 18")),
        _row(5, "ledger", _ledger(2, 1, -2000, "16 loses to dealer 18")),
        _row(6, "ledger", _ledger(2, None, -500, "insurance lost")),
        _row(7, "round_end", {"net_cents": -2500}),
    ]
    detail = round_detail(rows)
    assert [c["to"] for c in detail["cards"]] == ["box 1 hand 2"]
    assert [e["where"] for e in detail["ledger"]] == [
        "box 1 hand 1",
        "box 1 hand 2",
        "box 2",
        "box 2",
    ]
    assert detail["net"] == "-$25"
