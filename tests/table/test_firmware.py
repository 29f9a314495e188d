"""Which units and firmware may deal (issue 21: a swapped shoe and unapproved firmware were
accepted): a device whose firmware is not on a non-empty ``devices.firmware_allow`` never deals
and its hold cannot be cleared while it stays unapproved; a unit or firmware that changed in the
middle of a round holds for a supervisor, between rounds it is noted."""

from __future__ import annotations

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.game.words import hold_words, plain
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import DeviceNote, TableApp, decision
from controller.table.firmware import AllowFirmware
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceIdentified,
    DeviceIdentity,
    DeviceRef,
    DeviceType,
    KeyPosition,
    KeySwitch,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PEEK = DeviceRef(DeviceType.PEEK, "test://peek")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")
GOOD, OTHER = "A90DFD37667C8C8C", "0123456789ABCDEF"


def identify(app: TableApp, device: DeviceRef, serial: str, fw_hash: str, fw: str = "1.0") -> None:
    identity = DeviceIdentity("SIM-X", serial, fw, fw_hash, 1)
    app.handle(DeviceIdentified(device=device, at=0.0, identity=identity))


def draw(app: TableApp, text: str, draw_no: int) -> None:
    app.handle(CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text),
                         draw_no=draw_no, remaining=300, quality=99))  # fmt: skip


def supervisor_key(app: TableApp) -> None:
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=0, position=KeyPosition.SUPERVISOR))


def test_a_device_with_firmware_not_on_the_list_holds_the_table_and_says_what_to_do() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    app.apply(AllowFirmware.of([GOOD.lower()]))
    identify(app, SHOE, "S-1", GOOD)
    assert app.controller.hold_reasons == []
    identify(app, PEEK, "P-9", OTHER, "6.6.6")
    (hold,) = app.controller.hold_reasons
    assert hold.kind is HoldKind.LOCKUP
    assert hold.device == "peek"
    assert "SIM-X serial P-9, firmware 6.6.6 (hash 0123456789ABCDEF)" in hold.detail
    words = hold_words(hold)
    assert plain(words["what"]) == (
        "the hole-card reader runs firmware this table does not allow: no deal"
    )
    assert "install approved firmware on the hole-card reader" in words["todo"]
    assert "devices.firmware_allow" in words["todo"]
    assert not app.answer(Bet(1, "ann", 1000)).accepted  # never deals


def test_the_hold_for_unapproved_firmware_cannot_be_cleared_while_the_device_stays_so() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    app.apply(AllowFirmware.of([GOOD]))
    identify(app, SHOE, "S-1", OTHER)
    supervisor_key(app)
    assert "clear_lockup" not in app.supervisor_choices()
    assert Button.OK not in app.lit
    refused = app.answer(decision(Action.CLEAR_LOCKUP, by="sue"))
    assert not refused.accepted
    assert "the shoe still runs firmware this table does not allow" in refused.reason
    app.handle(ButtonPressed(device=PANEL, at=0.0, seq=1, button=Button.OK, held_ms=0))
    assert app.holding()
    # approved firmware installed: the shoe identifies again, and the supervisor clears the hold
    identify(app, SHOE, "S-1", GOOD, "1.1")
    assert "clear_lockup" in app.supervisor_choices()
    assert app.answer(decision(Action.CLEAR_LOCKUP, by="sue")).accepted
    assert app.controller.state is State.BURN


def test_a_void_does_not_let_an_unapproved_device_deal() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    draw(app, "2C", 1)  # burn
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    draw(app, "5H", 2)
    app.apply(AllowFirmware.of([GOOD]))
    identify(app, PANEL, "B-1", OTHER)
    supervisor_key(app)
    assert app.answer(decision(Action.VOID, by="sue")).accepted
    assert app.holding()  # held again at once: the panel is still unapproved
    assert any("FIRMWARE_NOT_APPROVED" in h.detail for h in app.controller.hold_reasons)


def test_an_empty_list_lets_any_firmware_deal() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    app.apply(AllowFirmware.of([]))
    identify(app, SHOE, "S-1", OTHER)
    assert app.controller.hold_reasons == []


def test_another_unit_in_the_middle_of_a_round_holds_for_a_supervisor() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    identify(app, SHOE, "S-1", GOOD)
    draw(app, "2C", 1)
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    identify(app, SHOE, "S-2", OTHER, "6.6.6")
    (hold,) = app.controller.hold_reasons
    assert hold.detail.startswith("DEVICE_CHANGED: the shoe came back as another unit")
    assert "was SIM-X serial S-1" in hold.detail
    assert "now SIM-X serial S-2, firmware 6.6.6" in hold.detail
    assert plain(hold_words(hold)["what"]) == (
        "the shoe came back as another unit or with other firmware"
    )
    supervisor_key(app)
    assert app.answer(decision(Action.CLEAR_LOCKUP, by="sue")).accepted
    assert app.controller.state is State.DEALING


def test_other_firmware_between_rounds_is_noted() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    identify(app, PEEK, "P-1", GOOD)
    identify(app, PEEK, "P-1", OTHER, "1.1")
    assert app.controller.hold_reasons == []
    notes = [o.text for o in app.outputs if isinstance(o, DeviceNote)]
    assert any(n.startswith("another unit or firmware than before") for n in notes)
