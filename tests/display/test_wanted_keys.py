"""The keys the screen lights: only those the rules want now, out of the keys that may be
pressed (issue 22, item 8). The panel still lights every key that may be pressed."""

from __future__ import annotations

from typing import Any

from controller.round.inputs import Bet
from controller.service.service import Press
from controller.table.config import hash_secret
from drivers.tbl21.events import Button

from .conftest import WAIT_S, running_table, table_config
from .test_api import PA_ROUND, play_to_the_reveal

DIGITS = {f"D{n}_" for n in range(10)}
ENTRY = {*(f"B{n}_" for n in range(1, 8)), "W1_", "W2_", "W3_"}


def test_the_screen_wants_the_steps_decisions_and_leaves_digits_boxes_cancel_and_call_ready() -> (
    None
):
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        wanted: dict[str, set[str]] = {}

        def check(step: str) -> None:
            state: dict[str, Any] = table.state()
            assert set(state["wanted"]) <= set(state["lit"]), step
            wanted[step] = set(state["wanted"])

        play_to_the_reveal(table, check)
        # burn: a card is drawn, no key wanted; the offers: the offer's key and OK; the hand
        # (T 8, 18): its decisions, not the 24 keys the panel lights (digits, boxes, CAN, CAL)
        assert wanted["burn"] == set()
        assert wanted["insurance"] == {"INS", "OK_"}
        assert wanted["surrender"] == {"SUR", "OK_"}
        assert wanted["peek"] == set()
        assert wanted["playing"] == {"HIT", "STD", "DBL"}
        assert wanted["reveal prompt"] == {"OK_"}


def test_bets_want_deal_a_new_shoe_early_is_ready_a_hold_wants_call_and_a_pin_pad_its_digits() -> (
    None
):
    pin = "73915084"
    loaded = table_config("nz-pontoon", supervisor={"pin_hash": hash_secret(pin)})
    with running_table(loaded, "2C 9H 7C 3D 8S 4S 5S 6S") as table:
        table.draw()
        state = table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert state["wanted"] == []
        assert "SHF" in state["lit"]  # a new shoe early: ready, not wanted
        assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
        state = table.wait_for(lambda s: "DEA" in s["lit"], "DEAL lit")
        assert state["wanted"] == ["DEA"]
        assert set(state["lit"]) == {"DEA", "UND", "CAN", "CAL"}  # undo the bet: ready
        assert table.service.submit(Press(Button.DEAL)).result(WAIT_S).accepted
        for _ in range(3):
            table.draw()
        table.wait_for(lambda s: s["state"] == "playing", "box 1 plays")
        table.shoe.unplug()
        state = table.wait_for(lambda s: s["state"] == "hold", "the hold")
        assert state["wanted"] == ["CAL"]
        assert set(state["lit"]) == {"CAN", "CAL"}
        table.panel.turn_key("SUP")
        state = table.wait_for(lambda s: s["access"]["pin_pad"], "the PIN pad")
        assert set(state["wanted"]) == DIGITS | {"OK_"}
        assert set(state["lit"]) - set(state["wanted"]) == {"CAN", "CAL"}
        assert not ENTRY & set(state["lit"])
