"""A journaled table (real SQLite) that takes PINs, and the dealer's and supervisor's hands on
its panel: key switch, keys, PIN digits. The wall clock is a test clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from controller.round.inputs import Bet
from controller.table.access import AccessEvent, AccessPolicy, Role
from controller.table.app import InputResult, TableApp
from controller.table.config import hash_secret
from controller.table.keypad import DIGIT_KEYS
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    FaultRaised,
    KeyPosition,
    KeySwitch,
)
from drivers.tbl21.faults import Severity
from tests.live_pins import LIVE_PEPPER

SUPERVISOR_PIN = "73915084"
TECHNICIAN_PIN = "50284617"
# made once per run (scrypt at the production cost, a few tens of milliseconds each)
SUPERVISOR_HASH = hash_secret(SUPERVISOR_PIN, pepper=LIVE_PEPPER)
TECHNICIAN_HASH = hash_secret(TECHNICIAN_PIN, pepper=LIVE_PEPPER)
LOCKOUT_S = 120
START = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")


class Clock:
    """Wall-clock seconds that move only when told."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def pins(
    clock: Clock,
    *,
    supervisor: str | None = SUPERVISOR_HASH,
    technician: str | None = TECHNICIAN_HASH,
    max_wrong_pins: int = 5,
    lockout_seconds: int = LOCKOUT_S,
) -> AccessPolicy:
    return AccessPolicy(
        pins_required=True,
        pin_hashes={Role.SUPERVISOR: supervisor, Role.TECHNICIAN: technician},
        names={Role.SUPERVISOR: "sue", Role.TECHNICIAN: "tom"},
        max_wrong_pins=max_wrong_pins,
        lockout_seconds=lockout_seconds,
        clock=clock,
        pepper=LIVE_PEPPER,
    )


class PinTable:
    """NZ Pontoon on a journal file: the burn card, a bet on box 1, the deal (box 1 9H 3D
    against the dealer's 7C), so box 1 is in play."""

    def __init__(self, path: Path, access: AccessPolicy, *, deal: bool = True) -> None:
        self.path = path
        self.access = access
        self.journal = Journal.open(path, table_id="T1")
        self.table = JournaledTable.start(load_variant("nz-pontoon"), self.journal, access=access)
        self.seq = 0
        self.draw_no = self.table.app.shoe.last_draw_no or 0
        if deal:
            self.card("2C")
            self.table.answer(Bet(1, "ann", 1000))
            self.press(Button.DEAL)
            for text in ("9H", "7C", "3D"):
                self.card(text)

    @property
    def app(self) -> TableApp:
        return self.table.app

    def _event(self, cls: type[Any], device: DeviceRef, **fields: Any) -> None:
        self.seq += 1
        assert self.table.handle(cls(device=device, at=0.0, seq=self.seq, **fields))

    def card(self, text: str) -> None:
        self.draw_no += 1
        self._event(CardDrawn, SHOE, card=Card.parse(text), draw_no=self.draw_no, remaining=99,
                    quality=99)  # fmt: skip

    def press(self, button: Button, *, held: bool = False) -> None:
        self._event(ButtonHeld if held else ButtonPressed, PANEL, button=button, held_ms=2000)

    def key(self, position: KeyPosition) -> None:
        self._event(KeySwitch, PANEL, position=position)

    def fault(self, code: int, severity: Severity = Severity.LOCKUP) -> None:
        self._event(FaultRaised, SHOE, code=code, severity=severity, text="")

    def pin(self, digits: str) -> AccessEvent:
        """Key ``digits`` on the panel, then OK_; the access event it gave."""
        start = len(self.app.outputs)
        for digit in digits:
            self.press(DIGIT_KEYS[int(digit)])
        assert self.app.outputs[start:] == [], "a PIN digit made an output"
        self.press(Button.OK)
        events = [o for o in self.app.outputs[start:] if isinstance(o, AccessEvent)]
        assert events, "OK_ after the digits made no access event"
        return events[-1]

    def last_input(self) -> InputResult:
        return next(o for o in reversed(self.app.outputs) if isinstance(o, InputResult))

    def close(self) -> None:
        self.journal.close()
