"""After a restart the display's "last rounds" and round count come from the journal (13.8)."""

from __future__ import annotations

from controller.round.inputs import Bet
from controller.service.service import Press
from drivers.tbl21.events import Button

from .conftest import WAIT_S, running_table, table_config

# NZ: the burn card, then box 1 K 8, the dealer's 9 (no offers); box 1 stands on 18, the dealer
# draws the 8 of spades: 17, box 1 wins $10.
ROUND = "2C KC 9D 8H 8S"


def test_last_rounds_with_the_dealers_cards_and_the_count_are_rebuilt_after_a_restart() -> None:
    loaded = table_config("nz-pontoon")
    with running_table(loaded, ROUND) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert table.service.submit(Bet(1, "ann", 1000)).result(WAIT_S).accepted
        assert table.service.submit(Press(Button.DEAL)).result(WAIT_S).accepted
        for _ in range(3):
            table.draw()
        table.wait_for(lambda s: s["state"] == "playing", "box 1 to play")
        assert table.service.submit(Press(Button.STAND)).result(WAIT_S).accepted
        table.draw()
        table.wait_for(lambda s: s["state"] == "settling", "the round settled")
        assert table.service.submit(Press(Button.OK)).result(WAIT_S).accepted
        before = table.wait_for(lambda s: s["rounds_completed"] == 1, "round 1 finished")
        shown = before["last_rounds"]
    assert [r["round"] for r in shown] == [1]
    with running_table(loaded) as table:
        after = table.api_state()
    assert after["rounds_completed"] == 1
    (rebuilt,) = after["last_rounds"]
    assert rebuilt["round"] == 1
    assert rebuilt["net"] == shown[0]["net"] == [{"player": "ann", "cents": 1000, "text": "$10"}]
    assert rebuilt["dealer_total"] == shown[0]["dealer_total"]
    assert rebuilt["void"] is False
    # NZ deals the dealer no hole card: no reveal names the cards, the replay has them
    assert rebuilt["dealer"] == shown[0]["dealer"] == ["9D", "8S"]
    assert rebuilt == shown[0]
