"""The table checks the shoe's draw numbers: a repeat is not applied twice, a jump locks up."""

from controller.game.rules import load_variant
from controller.round.model import HoldKind
from controller.round.spec import Action, State
from controller.table.app import TableApp
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    CardDrawn,
    DeviceIdentified,
    DeviceIdentity,
    DeviceRef,
    DeviceType,
    FaultRaised,
    KeyPosition,
    KeySwitch,
    LinkLost,
)
from drivers.tbl21.faults import Severity

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


def card(app: TableApp, text: str, draw_no: int, seq: int) -> None:
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=seq, card=Card.parse(text), draw_no=draw_no,
                         remaining=300 - draw_no, quality=99))  # fmt: skip


def dealt_table() -> TableApp:
    app = TableApp(load_variant("nz-pontoon"))
    card(app, "2C", 1, 0)  # burn
    app.place_bet(1, "ann", 1000)
    app.controller.perform("deal")
    return app


def test_a_card_whose_draw_number_was_seen_is_not_applied_again() -> None:
    app = dealt_table()
    card(app, "9H", 2, 1)
    card(app, "9H", 2, 1)  # the same draw again (e.g. resent after a restart)
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H")]
    assert app.cards_handled == 2
    assert app.controller.state is State.DEALING


def test_a_jump_in_draw_numbers_locks_the_table_for_a_supervisor() -> None:
    app = dealt_table()
    card(app, "9H", 2, 1)
    card(app, "7C", 5, 2)  # draws 3 and 4 never reached the table
    assert app.controller.state is State.HOLD
    kinds = [h.kind for h in app.controller.hold_reasons]
    assert HoldKind.LOCKUP in kinds
    assert any("DRAW_GAP: 2 card(s)" in h.detail for h in app.controller.hold_reasons)
    # the card that came after the gap waits for the supervisor, it is not dealt
    assert app.controller.round.dealer.cards == []


def test_an_unreadable_card_leaves_a_gap_of_one_that_is_expected() -> None:
    app = dealt_table()
    card(app, "9H", 2, 1)
    app.handle(FaultRaised(device=SHOE, at=0.0, seq=2, code=0x10, severity=Severity.WARNING,
                           text="CARD_UNREADABLE"))  # fmt: skip
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=3, position=KeyPosition.SUPERVISOR))
    app.supervisor(Action.KEY_CARD, card=Card.parse("7C"))
    app.supervisor(Action.CONFIRM_CARD, by="sue")
    card(app, "6D", 4, 3)
    assert app.controller.state is not State.HOLD
    assert app.controller.round.dealer.cards == [Card.parse("7C")]
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("9H"), Card.parse("6D")]


def test_a_device_identified_after_a_restart_clears_the_hold_for_its_lost_link() -> None:
    app = dealt_table()
    app.handle(LinkLost(device=SHOE, at=0.0, reason="unplugged", last_reply_at=None))
    assert app.holding()
    # the controller restarts (the journal carries the hold over); the new driver identifies
    # the shoe instead of reporting the link restored
    identity = DeviceIdentity("SIM-SHOE", "S-1", "1.0.0", "A90DFD37667C8C8C", 2)
    app.handle(DeviceIdentified(device=SHOE, at=0.0, identity=identity))
    assert app.controller.state is State.DEALING
