"""After a double the box shows what is at stake, beside what is paid (13.12)."""

from __future__ import annotations

from controller.round.inputs import Bet
from controller.service.service import Press
from drivers.tbl21.events import Button

from .conftest import WAIT_S, running_table, table_config

# NZ: the burn card, box 1 5-6 against the dealer's 9; bob doubles his $9 and draws the king:
# 21, paid at once ($18 on $18; the dealer draws no more for a table with no box left).
ROUND = "2C 5H 9C 6D KS 8S"


def test_a_doubled_wager_reads_the_doubled_stake_beside_its_payment() -> None:
    with running_table(table_config("nz-pontoon"), ROUND) as table:
        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert table.service.submit(Bet(1, "bob", 900)).result(WAIT_S).accepted
        assert table.service.submit(Press(Button.DEAL)).result(WAIT_S).accepted
        for _ in range(3):
            table.draw()
        table.wait_for(lambda s: s["state"] == "playing", "box 1 to play")
        assert table.service.submit(Press(Button.DOUBLE)).result(WAIT_S).accepted
        table.draw()
        state = table.wait_for(lambda s: s["state"] in ("rescue", "settling"), "the double")
        if state["state"] == "rescue":
            assert table.service.submit(Press(Button.OK)).result(WAIT_S).accepted
            state = table.wait_for(lambda s: s["state"] == "settling", "the round settled")
    box = state["boxes"][0]
    assert box["wagers"] == [{"player": "bob", "cents": 900, "stake_cents": 1800, "text": "$18"}]
    assert box["stake"]["text"] == "$18"
    assert box["settlement"]["pay"] == "$18"
