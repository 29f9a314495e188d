"""The table checks the shoe's draw numbers: a repeat is not applied twice, a jump locks up."""

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import TableApp, decision
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
    app.answer(Bet(1, "ann", 1000))
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
    assert any("DRAW_GAP: 2 cards left" in h.detail for h in app.controller.hold_reasons)
    # the card that came after the gap waits for the supervisor, it is not dealt
    assert app.controller.round.dealer.cards == []


def test_an_unreadable_card_leaves_a_gap_of_one_that_is_expected() -> None:
    app = dealt_table()
    card(app, "9H", 2, 1)
    app.handle(FaultRaised(device=SHOE, at=0.0, seq=2, code=0x10, severity=Severity.WARNING,
                           text="CARD_UNREADABLE"))  # fmt: skip
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=3, position=KeyPosition.SUPERVISOR))
    app.answer(decision(Action.KEY_CARD, card=Card.parse("7C")))
    app.answer(decision(Action.CONFIRM_CARD, by="sue"))
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


# --- one boot of one unit (issue 21: a shoe whose count went back lost cards silently) -------


def shoe_card(app: TableApp, text: str, draw_no: int, seq: int, boot: int) -> None:
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=seq, boot=boot, card=Card.parse(text),
                         draw_no=draw_no, remaining=300 - draw_no, quality=99))  # fmt: skip


def shoe_identified(app: TableApp, serial: str, boot: int) -> None:
    identity = DeviceIdentity("SIM-SHOE", serial, "1.0.0", "A90DFD37667C8C8C", boot)
    app.handle(DeviceIdentified(device=SHOE, at=0.0, identity=identity))


def hit_due_table() -> TableApp:
    """A nz-pontoon round in box 1's turn, box 1 asked for a card (HIT): draws 1 to 4 out."""
    app = TableApp(load_variant("nz-pontoon"))
    shoe_identified(app, "S-1", 1)
    shoe_card(app, "2C", 1, 0, boot=1)  # burn
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    shoe_card(app, "5H", 2, 1, boot=1)  # box 1
    shoe_card(app, "7S", 3, 2, boot=1)  # the dealer
    shoe_card(app, "6D", 4, 3, boot=1)  # box 1: 11
    app.controller.perform("hit")
    assert app.controller.state is State.CARD_DUE
    return app


def test_a_repeat_of_a_draw_number_within_one_boot_is_not_applied_again() -> None:
    app = hit_due_table()
    shoe_card(app, "6D", 4, 3, boot=1)  # resent
    assert app.controller.state is State.CARD_DUE
    assert app.controller.hold_reasons == []


def test_a_draw_number_that_went_back_after_a_reboot_holds_and_the_card_waits() -> None:
    app = hit_due_table()
    shoe_card(app, "9C", 1, 0, boot=2)  # the shoe rebooted and counts from 0 again
    holds = app.controller.hold_reasons
    assert [h.kind for h in holds] == [HoldKind.LOCKUP, HoldKind.UNEXPECTED_CARD]
    assert holds[0].detail.startswith("DRAW_RESET: the shoe restarted (boot 2)")
    assert "went back from 4 to 1" in holds[0].detail
    assert holds[1].card == Card.parse("9C")
    shoe_card(app, "KD", 2, 1, boot=2)  # the next cards follow on in the new boot: they wait too
    assert [h.card for h in app.controller.hold_reasons[1:]] == [
        Card.parse(c) for c in ("9C", "KD")
    ]
    assert app.controller.round.boxes[1].hands[0].cards == [Card.parse("5H"), Card.parse("6D")]


def test_a_draw_number_that_went_back_from_another_unit_holds_and_names_it() -> None:
    app = hit_due_table()
    shoe_identified(app, "S-2", 1)  # another shoe, at its first boot as well
    shoe_card(app, "9C", 1, 0, boot=1)
    details = [h.detail for h in app.controller.hold_reasons]
    assert details[0].startswith("DEVICE_CHANGED: the shoe came back as another unit")
    assert details[1].startswith("DRAW_RESET: the shoe was replaced by SIM-SHOE S-2")
    assert app.controller.hold_reasons[2].card == Card.parse("9C")


def test_a_reboot_whose_draw_number_follows_on_deals_as_ever() -> None:
    app = hit_due_table()
    shoe_card(app, "9C", 5, 0, boot=2)  # a shoe that keeps its count (or a restarted host)
    assert app.controller.hold_reasons == []
    assert app.controller.round.boxes[1].hands[0].cards[-1] == Card.parse("9C")


def test_the_supervisor_gives_the_first_waiting_card_to_the_hand_it_was_due_to() -> None:
    app = hit_due_table()
    shoe_card(app, "9C", 1, 0, boot=2)
    shoe_card(app, "KD", 2, 1, boot=2)
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=0, position=KeyPosition.SUPERVISOR))
    assert "assign" in app.supervisor_choices()
    assert app.answer(decision(Action.CLEAR_LOCKUP, by="sue")).accepted
    assert app.answer(decision(Action.ASSIGN_CARD, by="sue")).accepted
    assert app.answer(decision(Action.BURN_CARD, by="sue")).accepted
    hand = app.controller.round.boxes[1].hands[0]
    assert hand.cards == [Card.parse("5H"), Card.parse("6D"), Card.parse("9C")]
    assert app.controller.state is State.PLAYING
    shoe_card(app, "4S", 3, 2, boot=2)  # the new boot's numbers go on from there
    assert app.holding()  # (nobody asked for it)
    assert [h.kind for h in app.controller.hold_reasons] == [HoldKind.UNEXPECTED_CARD]
