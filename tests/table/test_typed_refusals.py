"""A refused input carries the round's reason as a value beside its words (issue 23): the code
and its fields come from the round, the words from controller/game/words.py alone."""

from __future__ import annotations

from controller.game.refusals import Why, WhyNot
from controller.game.rules import load_variant
from controller.game.words import refusal_words
from controller.round.inputs import Bet
from controller.table.app import TableApp
from drivers.tbl21.cards import Card
from drivers.tbl21.events import CardDrawn, DeviceRef, DeviceType

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")


def test_a_refused_bet_carries_the_typed_reason_and_its_words() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    early = app.answer(Bet(1, "ann", 1000))  # the new shoe's burn card is still due
    assert early.why == WhyNot(Why.NOT_NOW, action="bet", state="burn")
    assert early.reason == "bet is not possible while burn cards are due"
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=1, card=Card.parse("2C"), draw_no=1,
                         remaining=100, quality=99))  # fmt: skip
    odd = app.answer(Bet(1, "ann", 1001))
    assert odd.why is not None
    assert odd.why.code is Why.BET_INCREMENT
    assert odd.reason == refusal_words(odd.why)
    assert odd.reason.startswith("a bet must be a multiple of the table increment $")
    taken = app.answer(Bet(1, "ann", 1000))
    assert taken.accepted
    assert taken.why is None
