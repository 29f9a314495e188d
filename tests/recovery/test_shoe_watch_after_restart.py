"""What the table knows of its shoe and devices is rebuilt from the journal after a restart
(issue 21): the count of the current shoe's cards, the boot and unit its draws came from, the
firmware allowed and each device's identity. The replay gives the journal's effects again (no
mismatch), and the rebuilt table goes on exactly as the one that wrote the journal."""

from __future__ import annotations

from pathlib import Path

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable, recover
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import decision
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
RULES = load_variant("nz-pontoon")  # 6 decks
AS = Card.parse("AS")


def card(table: JournaledTable, text: str, draw_no: int, boot: int = 1) -> None:
    table.handle(CardDrawn(device=SHOE, at=0.0, seq=draw_no % 256, boot=boot,
                           card=Card.parse(text), draw_no=draw_no, remaining=300,
                           quality=99))  # fmt: skip


def deal(table: JournaledTable) -> None:
    table.handle(ButtonPressed(device=PANEL, at=0.0, seq=9, button=Button.DEAL, held_ms=0))
    assert table.app.controller.state is State.DEALING


def identified(table: JournaledTable, device: DeviceRef, serial: str, fw_hash: str) -> None:
    identity = DeviceIdentity("SIM", serial, "1.0.0", fw_hash, 1)
    table.handle(DeviceIdentified(device=device, at=0.0, identity=identity))


def restarted(path: Path, live: JournaledTable) -> JournaledTable:
    live.journal.close()
    rebuilt = recover(RULES, Journal.open(path, table_id="T1"))
    assert rebuilt.recovery is not None
    assert rebuilt.recovery.effects_written == 0
    assert rebuilt.app.outputs == live.app.outputs
    return rebuilt


def test_the_count_of_the_shoes_cards_is_rebuilt_on_restart(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    live = JournaledTable.start(RULES, Journal.open(path, table_id="T1"))
    card(live, "AS", 1)  # burn
    live.answer(Bet(1, "ann", 1000))
    deal(live)
    for draw_no, text in enumerate(["AS", "7S", "AS"], start=2):
        card(live, text, draw_no)
    for draw_no in (5, 6, 7):  # three more, held as cards nobody asked for, and burned
        card(live, "AS", draw_no)
    live.handle(KeySwitch(device=PANEL, at=0.0, seq=0, position=KeyPosition.SUPERVISOR))
    for _ in range(3):
        assert live.answer(decision(Action.BURN_CARD, by="sue")).accepted
    counts = dict(live.app.shoe.counts)
    rebuilt = restarted(path, live)
    assert dict(rebuilt.app.shoe.counts) == counts == {AS: 6, Card.parse("7S"): 1}
    card(rebuilt, "AS", 8)  # the seventh, after the restart
    (hold,) = rebuilt.app.controller.hold_reasons
    assert hold.kept_out
    assert hold.card == AS


def test_a_lost_draw_count_and_an_unapproved_device_replay_as_they_were(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    live = JournaledTable.start(RULES, Journal.open(path, table_id="T1"))
    live.allow_firmware(["A90DFD37667C8C8C"])
    identified(live, SHOE, "S-1", "A90DFD37667C8C8C")
    card(live, "2C", 1)  # burn
    live.answer(Bet(1, "ann", 1000))
    deal(live)
    for draw_no, text in enumerate(["5H", "7S", "6D"], start=2):
        card(live, text, draw_no)
    card(live, "9C", 1, boot=2)  # the shoe restarted at 0
    identified(live, PEEK, "P-1", "0000000000000000")  # a reader nobody approved
    kinds = [h.detail.split(":")[0] for h in live.app.controller.hold_reasons]
    assert kinds == ["DRAW_RESET", "card 9C drawn when no card was due", "FIRMWARE_NOT_APPROVED"]
    rebuilt = restarted(path, live)
    assert rebuilt.app.controller.hold_reasons == live.app.controller.hold_reasons
    assert rebuilt.app.firmware_allow == ("A90DFD37667C8C8C",)
    assert rebuilt.app.shoe.last_boot == 2
    card(rebuilt, "KD", 2, boot=2)  # the new boot's next draw: it waits too, no repeat
    assert rebuilt.app.controller.hold_reasons[-1].card == Card.parse("KD")
    # the same list again at the next start writes nothing; another one is journalled
    rows = len(list(rebuilt.journal.iter_rows()))
    rebuilt.allow_firmware(["a90dfd37667c8c8c"])
    assert len(list(rebuilt.journal.iter_rows())) == rows
    rebuilt.allow_firmware(["A90DFD37667C8C8C", "0000000000000000"])
    assert list(rebuilt.app.firmware_allow) == ["0000000000000000", "A90DFD37667C8C8C"]
    assert rebuilt.app.controller.state is State.HOLD
    assert HoldKind.LOCKUP in {h.kind for h in rebuilt.app.controller.hold_reasons}
