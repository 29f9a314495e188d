"""The table's device commands, sent through the production drivers."""

from __future__ import annotations

from controller.game.rules import Variant
from drivers.table import TableDevices
from drivers.tbl21.events import Button


class DriverCommands:
    """Device commands of the table sent through the production drivers."""

    def __init__(self, devices: TableDevices, rules: Variant) -> None:
        self.devices = devices
        self.rules = rules
        self._lit: frozenset[Button] = frozenset()

    def arm_peek(self, up: str) -> None:
        self.devices.peek.arm(up)

    def new_shoe(self) -> None:
        self.devices.shoe.new_shoe(self.rules.shoe.decks, self.rules.shoe.deck)

    def light(self, lit: frozenset[Button]) -> None:
        panel = self.devices.panel
        for button in sorted(self._lit - lit):
            panel.set_led(button, "O", "W")
        for button in sorted(lit - self._lit):
            panel.set_led(button, "S", "G")
        self._lit = lit
