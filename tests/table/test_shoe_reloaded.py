"""A shoe that reports a new shoe loaded in the middle of a round, when nobody pressed SHF (the
soak run saw one: a retried command taken for a new one), locks the table up for a supervisor;
between rounds the table just notes it."""

from __future__ import annotations

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.app import TableApp
from drivers.tbl21.cards import Card
from drivers.tbl21.events import CardDrawn, DeviceRef, DeviceType, ShoeLoaded

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")


def card(app: TableApp, text: str, draw_no: int) -> None:
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text),
                         draw_no=draw_no, remaining=300 - draw_no, quality=99))  # fmt: skip


def loaded(app: TableApp) -> None:
    app.handle(ShoeLoaded(device=SHOE, at=0.0, seq=99, cards_detected=288))


def test_a_new_shoe_nobody_asked_for_in_the_middle_of_a_round_locks_the_table_up() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    card(app, "2C", 1)  # burn
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    card(app, "9H", 2)
    loaded(app)
    holds = app.controller.hold_reasons
    assert [h.kind for h in holds] == [HoldKind.LOCKUP]
    assert "SHOE_RELOADED" in holds[0].detail
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H")]


def test_a_new_shoe_between_rounds_is_only_noted() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    card(app, "2C", 1)  # burn
    assert app.controller.state is State.BETTING
    loaded(app)
    assert app.controller.hold_reasons == []
    assert app.shoe.last_draw_no == 0  # the new shoe counts its draws from 1
