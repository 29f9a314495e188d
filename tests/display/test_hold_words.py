"""On hold the dealer reads once what stopped the table and what to do; back, where it goes on
(issue 13.10)."""

from __future__ import annotations

import random

from controller.display.state import table_state
from controller.game.rules import load_variant
from controller.game.words import plain
from controller.round.spec import State
from drivers.tbl21.events import DeviceRef, DeviceType, LinkLost, LinkRestored
from tests.round.jargon import jargon
from tests.round.walk import SHOE, Walk

from .conftest import table_config


def test_a_lost_shoe_is_said_once_with_what_to_do_and_its_return_says_where_play_goes_on() -> None:
    walk = Walk(load_variant("nz-pontoon"), random.Random(3))
    walk.step()  # the burn card
    config = table_config("nz-pontoon").config
    walk.app.handle(LinkLost(device=SHOE, at=0.0, reason="COMM_LOST", last_reply_at=None))
    assert walk.app.controller.state is State.HOLD
    state = table_state(walk.app, config, [], [], rounds_completed=0, demo=False)
    told = plain(state["instruction"]["parts"]) + " " + plain(state["instruction"]["detail"])
    assert told.startswith("Stop: the shoe is not answering Check the shoe's cable and power")
    assert state["hold_banners"] == []  # the prompt bar says it: no second banner
    prompt = state["prompt"]["text"]
    assert prompt.startswith("Stop: the shoe is not answering. Check its cable and power")
    assert jargon(prompt) == []
    walk.app.handle(LinkRestored(device=DeviceRef(DeviceType.SHOE, "test://shoe"), at=0.0,
                                 down_since=0.0))  # fmt: skip
    state = table_state(walk.app, config, [], [], rounds_completed=0, demo=False)
    assert state["state"] == "betting"
    assert state["recent_prompts"][-2:] == [
        "The shoe reconnected.",  # (the next prompt says what to do: not twice)
        "Round 1: take the bets, then press DEAL.",
    ]
