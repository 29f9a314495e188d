"""Where the table's device commands go: the production drivers, or nowhere.

The table decides its commands as :class:`~controller.table.app.DeviceOrder` outputs (journalled
before they are sent); :func:`send_order` hands one to a :class:`DeviceCommands`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from controller.game.rules import Variant
from drivers.table import TableDevices
from drivers.tbl21.events import Button

if TYPE_CHECKING:
    from controller.table.app import DeviceOrder


class DeviceCommands(Protocol):
    """Where the table's device commands go (the drivers, or a recorder in tests)."""

    def arm_peek(self, up: str) -> None: ...

    def new_shoe(self) -> None: ...

    def light(self, lit: frozenset[Button]) -> None: ...


class NoDevices:
    """Commands that go nowhere (a table driven without devices)."""

    def arm_peek(self, up: str) -> None:
        return None

    def new_shoe(self) -> None:
        return None

    def light(self, lit: frozenset[Button]) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Relight:
    """The devices were opened: tell the panel which keys are lit (a cause of the table's, so
    the command it makes is journalled and replayed like any other)."""


def send_order(commands: DeviceCommands, order: DeviceOrder) -> None:
    """Carry out one of the table's device orders."""
    if order.command == "arm_peek":
        commands.arm_peek(order.args[0])
    elif order.command == "new_shoe":
        commands.new_shoe()
    elif order.command == "light":
        commands.light(frozenset(Button(key) for key in order.args))
    else:  # pragma: no cover - the table makes these three only
        raise ValueError(f"no such device command {order.command!r}")


class DriverCommands:
    """Device commands of the table sent through the production drivers.

    While the dealer has a notice to read (:meth:`notice`), the always-lit ``CAL`` key blinks
    amber instead of shining green: the panel says "look at the screen" even when the journal
    takes nothing (the lamp is no command of the round, so it needs no journal row)."""

    def __init__(self, devices: TableDevices, rules: Variant) -> None:
        self.devices = devices
        self.rules = rules
        self._lit: frozenset[Button] = frozenset()
        self._notice = False

    def arm_peek(self, up: str) -> None:
        self.devices.peek.arm(up)

    def new_shoe(self) -> None:
        self.devices.shoe.new_shoe(self.rules.shoe.decks, self.rules.shoe.deck)

    def light(self, lit: frozenset[Button]) -> None:
        panel = self.devices.panel
        for button in sorted(self._lit - lit):
            panel.set_led(button, "O", "W")
        for button in sorted(lit - self._lit):
            panel.set_led(button, *self._lamp(button))
        self._lit = lit

    def notice(self, open_: bool) -> None:
        """Blink ``CAL`` amber while a notice is open (``open_``), green again once read."""
        if open_ is self._notice:
            return
        self._notice = open_
        if Button.CALL in self._lit:
            self.devices.panel.set_led(Button.CALL, *self._lamp(Button.CALL))

    def _lamp(self, button: Button) -> tuple[str, str]:
        return ("B", "A") if button is Button.CALL and self._notice else ("S", "G")
