"""With the key at SUP while the table holds, the panel takes the supervisor's decisions."""

from controller.game.rules import load_variant
from controller.game.settlement import EntryKind
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import TableApp, decision
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    KeyPosition,
    KeySwitch,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


class Table:
    def __init__(self) -> None:
        self.app = TableApp(load_variant("nz-pontoon"))
        self.draw_no = 0
        self.seq = 0
        for text in ("2C",):  # burn
            self.card(text)
        self.app.answer(Bet(1, "ann", 1000))
        self.press(Button.DEAL)
        for text in ("9H", "7C", "3D"):  # box 1 9-3, dealer 7: box 1 to play
            self.card(text)

    def card(self, text: str) -> None:
        self.draw_no += 1
        self.app.handle(CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=Card.parse(text),
                                  draw_no=self.draw_no, remaining=100, quality=99))  # fmt: skip

    def press(self, button: Button, *, held: bool = False) -> None:
        self.seq += 1
        cls = ButtonHeld if held else ButtonPressed
        self.app.handle(cls(device=PANEL, at=0.0, seq=self.seq, button=button, held_ms=2000))

    def key(self, position: KeyPosition) -> None:
        self.seq += 1
        self.app.handle(KeySwitch(device=PANEL, at=0.0, seq=self.seq, position=position))


def test_hit_with_the_supervisor_key_gives_the_unexpected_card_to_the_hand_in_play() -> None:
    t = Table()
    t.card("8S")  # nobody asked for it
    assert t.app.holding()
    t.press(Button.HIT)  # the key is at RUN: the dealer alone cannot decide
    assert t.app.holding()
    t.key(KeyPosition.SUPERVISOR)
    assert Button.HIT in t.app.lit
    t.press(Button.HIT)
    t.key(KeyPosition.RUN)
    assert t.app.controller.state is State.PLAYING
    assert t.app.controller.round.boxes[1].hands[0].cards == [
        Card.parse(c) for c in ("9H", "3D", "8S")
    ]


def test_cancel_with_the_supervisor_key_burns_it() -> None:
    t = Table()
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    t.press(Button.CANCEL)
    assert t.app.controller.state is State.PLAYING
    assert t.app.controller.table.cards_burned == 2  # the new shoe's burn card and this one


def test_deal_held_with_the_supervisor_key_voids_the_round() -> None:
    t = Table()
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    t.press(Button.DEAL)  # a plain press does not void
    assert t.app.holding()
    t.press(Button.DEAL, held=True)
    assert t.app.controller.state is State.SETTLING
    assert [e.kind for e in t.app.controller.round.ledger] == [EntryKind.RETURN]


def test_deal_lights_only_once_there_are_bets_and_shuffle_only_while_there_are_none() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=1, card=Card.parse("2C"), draw_no=1,
                         remaining=100, quality=99))  # fmt: skip
    assert Button.DEAL not in app.lit
    assert Button.SHUFFLE in app.lit
    app.answer(Bet(1, "ann", 1000))
    assert Button.DEAL in app.lit
    assert Button.SHUFFLE not in app.lit


def test_a_supervisor_decision_needs_the_supervisor_key() -> None:
    """(The round takes whatever decision it is given: who may decide is the table's.)"""
    t = Table()
    t.card("8S")  # nobody asked for it: the table holds
    refused = t.app.answer(decision(Action.BURN_CARD))
    assert not refused.accepted
    assert "supervisor key" in refused.reason
    assert t.app.holding()
    t.key(KeyPosition.SUPERVISOR)
    assert t.app.answer(decision(Action.BURN_CARD)).accepted
    assert t.app.controller.state is State.PLAYING


def test_a_void_needs_the_supervisor_key() -> None:
    t = Table()
    refused = t.app.answer(decision(Action.VOID))
    assert not refused.accepted
    assert "supervisor key" in refused.reason
    assert t.app.controller.state is State.PLAYING
