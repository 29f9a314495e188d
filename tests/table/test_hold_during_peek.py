"""A hold in the middle of the peek (a lost link, a lid lockup) does not lose the reader's
arming: after the resume the reader is armed for the hole card already in it, or when the card
is sensed. (Found by the fault suite: the round used to wait in PEEK for ever.)"""

from __future__ import annotations

from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.app import TableApp
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    CardDrawn,
    CardMotion,
    CardSensed,
    DeviceRef,
    DeviceType,
    LinkLost,
    LinkRestored,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PEEK = DeviceRef(DeviceType.PEEK, "test://peek")


class Recorder:
    def __init__(self) -> None:
        self.armed: list[str] = []

    def arm_peek(self, up: str) -> None:
        self.armed.append(up)

    def new_shoe(self) -> None:
        return None

    def light(self, lit: frozenset[Button]) -> None:
        return None


def at_the_peek() -> tuple[TableApp, Recorder]:
    """pa-blackjack, one box, the dealer's up card a king: the round waits for the reader."""
    recorder = Recorder()
    app = TableApp(load_variant("pa-blackjack"), recorder)
    for draw_no, text in enumerate(["2C"], start=1):  # the burn card
        app.handle(card(text, draw_no))
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    for draw_no, text in enumerate(["9H", "KD", "7C", "5S"], start=2):
        app.handle(card(text, draw_no))
    app.controller.perform("ok")  # close the surrender window
    assert app.controller.state is State.PEEK
    return app, recorder


def card(text: str, draw_no: int) -> CardDrawn:
    return CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text), draw_no=draw_no,
                     remaining=300 - draw_no, quality=99)  # fmt: skip


def state(app: TableApp) -> State:
    return app.controller.state


def lose_and_restore(app: TableApp) -> None:
    app.handle(LinkLost(device=PEEK, at=0.0, reason="unplugged", last_reply_at=None))
    assert state(app) is State.HOLD
    app.handle(LinkRestored(device=PEEK, at=1.0, down_since=0.0))
    assert state(app) is State.PEEK


def test_a_hole_card_sensed_after_a_hold_in_the_peek_arms_the_reader() -> None:
    app, recorder = at_the_peek()
    assert recorder.armed == []  # the hole card is not in the reader yet
    lose_and_restore(app)
    app.handle(CardSensed(device=PEEK, at=2.0, seq=1, motion=CardMotion.INSERTED))
    assert recorder.armed == ["T"]  # the up card, ten-valued


def test_a_hole_card_already_in_the_reader_is_armed_again_after_the_hold() -> None:
    app, recorder = at_the_peek()
    app.handle(CardSensed(device=PEEK, at=0.5, seq=1, motion=CardMotion.INSERTED))
    assert recorder.armed == ["T"]  # the up card, ten-valued
    lose_and_restore(app)
    assert recorder.armed == ["T", "T"]  # the reader may have lost its arming with the link
