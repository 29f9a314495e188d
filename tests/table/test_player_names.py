"""A player's name is one player whatever its case (issue 21, smaller): "ANN" after "ann" is
ann, named as first entered; so "ANN" on ann's box is refused as her second wager there, and
the round's result has one ann. Through the table of ``croupier run`` (service, display, real
socket) and on the journal it replays from."""

from __future__ import annotations

import json

from websockets.sync.client import connect

from controller.round.inputs import Bet
from controller.table.bets import same_player
from tests.display.conftest import WAIT_S, running_table, table_config
from tests.display.test_api import _answer


def test_same_player_is_the_name_first_entered_but_for_case() -> None:
    assert same_player("ANN", ["bob", "ann"]) == "ann"
    assert same_player("Ann", ["ANN", "ann"]) == "ANN"  # the first spelling entered
    assert same_player("anne", ["ann"]) == "anne"
    assert same_player("ann", []) == "ann"


def test_ann_and_ANN_on_the_display_are_one_player_named_as_first_entered() -> None:
    loaded = table_config("nz-pontoon")
    with running_table(loaded) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        url = table.url.replace("http://", "ws://") + "ws"
        with connect(url, open_timeout=WAIT_S) as ws:
            assert _answer(ws)["role"] == "dealer"
            replies = []
            for n, (box, player) in enumerate(((1, "ann"), (1, "ANN"), (2, "Ann"), (3, "bob"))):
                bet = {"type": "bet", "box": box, "player": player, "amount_cents": 1000, "id": n}
                ws.send(json.dumps(bet))
                replies.append(_answer(ws))
        assert [r["accepted"] for r in replies] == [True, False, True, True]
        assert replies[1]["reason"] == "'ann' already has a wager on box 1"
        state = table.wait_for(lambda s: len([b for b in s["boxes"] if b["wagers"]]) == 3, "bets")
        players = [w["player"] for b in state["boxes"] for w in b["wagers"]]
        assert players == ["ann", "ann", "bob"]
        assert not table.service.submit(Bet(2, "aNN", 1000)).result(WAIT_S).accepted
        path = table.service.journaled.journal.path
    # a restart rebuilds the round from the journal (what was keyed): the same players
    with running_table(table_config("nz-pontoon", journal={"path": str(path)})) as again:
        state = again.wait_for(lambda s: any(b["wagers"] for b in s["boxes"]), "the round back")
        assert [w["player"] for b in state["boxes"] for w in b["wagers"]] == players
