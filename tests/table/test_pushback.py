"""A card the shoe pushed back (fault 0x12) after the table applied it: lockup; once a
supervisor clears it the table holds until that card is drawn again, which is not applied a
second time (it is dealt already). Found by the fault suite, where the card used to be applied
twice."""

from __future__ import annotations

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import TableApp, decision
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    CardDrawn,
    DeviceRef,
    DeviceType,
    FaultRaised,
    KeyPosition,
    KeySwitch,
)
from drivers.tbl21.faults import Severity

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


def card(app: TableApp, text: str, draw_no: int) -> None:
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text),
                         draw_no=draw_no, remaining=300 - draw_no, quality=99))  # fmt: skip


def pushback(app: TableApp) -> None:
    app.handle(FaultRaised(device=SHOE, at=0.0, seq=90, code=0x12, severity=Severity.LOCKUP,
                           text="CARD_PUSHBACK"))  # fmt: skip


def state(app: TableApp) -> State:
    return app.controller.state


def kinds(app: TableApp) -> list[HoldKind]:
    return [h.kind for h in app.controller.hold_reasons]


def pushed_back_9h() -> TableApp:
    """nz-pontoon, ann on box 1: 9H dealt to the box, then the shoe pushes it back."""
    app = TableApp(load_variant("nz-pontoon"))
    card(app, "2C", 1)  # burn
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    card(app, "9H", 2)
    pushback(app)
    return app


def clear_lockup(app: TableApp) -> None:
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=1, position=KeyPosition.SUPERVISOR))
    assert app.answer(decision(Action.CLEAR_LOCKUP, by="sue")).accepted
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=2, position=KeyPosition.RUN))


def test_a_pushed_back_card_is_dealt_once_when_it_is_drawn_again() -> None:
    app = pushed_back_9h()
    assert kinds(app) == [HoldKind.LOCKUP, HoldKind.REDRAW]
    clear_lockup(app)
    assert kinds(app) == [HoldKind.REDRAW]  # still holding: the card must come out again
    card(app, "9H", 3)
    assert state(app) is State.DEALING
    card(app, "7C", 4)  # the next card of the deal goes to the dealer
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H")]
    assert app.controller.round.dealer.cards == [Card.parse("7C")]


def test_another_card_instead_of_the_pushed_back_one_is_held_for_the_supervisor() -> None:
    app = pushed_back_9h()
    clear_lockup(app)
    card(app, "5D", 3)
    assert HoldKind.UNEXPECTED_CARD in kinds(app)
    assert HoldKind.REDRAW in kinds(app)
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H")]


def test_after_a_void_the_pushed_back_card_comes_out_as_a_new_card() -> None:
    app = pushed_back_9h()
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=1, position=KeyPosition.SUPERVISOR))
    assert app.answer(decision(Action.VOID, by="sue")).accepted
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=2, position=KeyPosition.RUN))
    assert app.shoe.pushed_back is None
    app.controller.perform("ok")  # the void settled: next round
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    card(app, "9H", 3)
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H")]


def test_a_pushback_with_no_card_applied_is_a_plain_lockup() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    pushback(app)
    assert kinds(app) == [HoldKind.LOCKUP]
