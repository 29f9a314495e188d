"""What the dealer keys on the panel belongs to one decision: a hold wipes it, and CALL is no
key of a decision.

``history --round 103`` of a real table recorded "STAND box=1 [CAL STD]": a CALL pressed
during a hold was carried into the dealer's next decision, and a box keyed before a hold was
still chosen after it.
"""

from __future__ import annotations

from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import InputResult, TableApp
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    LinkLost,
    LinkRestored,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


class Table:
    """nz-pontoon, two boxes in play, box 1 to play (9-3 against a 7)."""

    def __init__(self, *, legacy: bool = False) -> None:
        self.app = TableApp(load_variant("nz-pontoon"))
        self.app.entry_outlives_holds = legacy
        self.draw_no = 0
        self.seq = 0
        self.card("2C")  # burn
        self.app.answer(Bet(1, "ann", 1000))
        self.app.answer(Bet(2, "bob", 1000))
        self.press(Button.DEAL)
        for text in ("9H", "KD", "7C", "3D", "8S"):  # box 1 9-3, box 2 K-8, dealer 7
            self.card(text)
        assert self.app.controller.state is State.PLAYING
        assert self.app.controller.round.turn is not None
        assert self.app.controller.round.turn[0] == 1

    def card(self, text: str) -> None:
        self.draw_no += 1
        self.app.handle(CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=Card.parse(text),
                                  draw_no=self.draw_no, remaining=100, quality=99))  # fmt: skip

    def press(self, button: Button) -> None:
        self.seq += 1
        self.app.handle(ButtonPressed(device=PANEL, at=0.0, seq=self.seq, button=button, held_ms=0))

    def last_result(self) -> InputResult:
        results = [o for o in self.app.outputs if isinstance(o, InputResult)]
        return results[-1]

    def lose_and_restore_the_shoe(self) -> None:
        self.app.handle(LinkLost(device=SHOE, at=0.0, reason="test", last_reply_at=None))
        assert self.app.holding()
        self.app.handle(LinkRestored(device=SHOE, at=0.0, down_since=0.0))
        assert self.app.controller.state is State.PLAYING


def test_a_box_keyed_before_a_hold_is_not_chosen_by_the_decision_after_it() -> None:
    t = Table()
    t.press(Button.BOX2)
    assert t.app.entry.box == 2
    t.lose_and_restore_the_shoe()
    entry = t.app.entry
    assert (entry.box, entry.wagers, entry.digits, entry.keys) == (None, [], "", [])
    t.press(Button.STAND)
    result = t.last_result()
    assert result.accepted
    assert result.action is Action.STAND
    assert result.keys == ("STD",)
    assert t.app.controller.round.boxes[1].hands[0].finished  # box 1, the box in play, stood
    assert not t.app.controller.round.boxes[2].hands[0].finished


def test_a_call_is_noted_alone_and_is_not_among_the_next_decisions_keys() -> None:
    t = Table()
    t.press(Button.CALL)
    assert t.last_result().keys == ("CAL",)
    assert t.app.entry.keys == []
    t.press(Button.BOX1)
    t.press(Button.STAND)
    assert t.last_result().keys == ("B1_", "STD")


def test_a_journal_of_format_4_keeps_the_keys_through_a_hold_as_it_was_written() -> None:
    """Replaying a journal written before format 5 must give what it recorded."""
    t = Table(legacy=True)
    t.press(Button.CALL)
    t.press(Button.BOX2)
    t.lose_and_restore_the_shoe()
    t.press(Button.STAND)
    result = t.last_result()
    assert result.keys == ("CAL", "B2_", "STD")
    # box 2, keyed before the hold, was still chosen (and it is not its turn)
    assert not result.accepted
    assert "box 2" in result.reason
    assert not t.app.controller.round.boxes[1].hands[0].finished
