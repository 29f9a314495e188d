"""Driver of the dealer button panel (DEV ``B``): LED ``L``, text ``M``, buzzer ``W``.

Events: :class:`~drivers.tbl21.events.ButtonPressed`,
:class:`~drivers.tbl21.events.ButtonReleased`, :class:`~drivers.tbl21.events.ButtonHeld`,
:class:`~drivers.tbl21.events.KeySwitch` and the common ones.
"""

from __future__ import annotations

from concurrent.futures import Future
from enum import StrEnum
from typing import ClassVar, Literal, TypeVar

from drivers.device import DeviceDriver
from drivers.errors import CommandError
from drivers.tbl21.events import Button, DeviceType, Reply

E = TypeVar("E", bound=StrEnum)

LINE_WIDTH = 16
MAX_BUZZ_MS = 10_000


class LedMode(StrEnum):
    OFF = "O"
    STEADY = "S"
    BLINK = "B"
    FAST = "F"
    PULSE = "P"  # a 2 s pulse


class LedColour(StrEnum):
    RED = "R"
    GREEN = "G"
    AMBER = "A"
    WHITE = "W"


def _enum_arg(enum: type[E], value: str, what: str) -> E:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(f"{m.value} ({m.name.lower()})" for m in enum)
        raise CommandError(f"LED: {what} {value!r} is not one of {allowed}") from None


def led_payload(
    button: Button | Literal["ALL"] | str, mode: LedMode | str, colour: LedColour | str
) -> str:
    """``button or ALL;mode;colour``"""
    target = "ALL" if button == "ALL" else _enum_arg(Button, button, "button").value
    led_mode = _enum_arg(LedMode, mode, "mode")
    led_colour = _enum_arg(LedColour, colour, "colour")
    return f"{target};{led_mode.value};{led_colour.value}"


def text_payload(line1: str, line2: str = "") -> str:
    """``line1|line2``, each padded to 16 characters; longer lines are refused, not cut."""
    lines = []
    for number, line in ((1, line1), (2, line2)):
        if not isinstance(line, str):
            raise CommandError(f"text line {number} must be a string, got {line!r}")
        if len(line) > LINE_WIDTH:
            raise CommandError(
                f"text line {number} {line!r} has {len(line)} characters; at most {LINE_WIDTH}"
            )
        bad = sorted({c for c in line if not (" " <= c <= "~") or c in "|;"})
        if bad:
            raise CommandError(
                f"text line {number} {line!r}: characters {bad!r} cannot be shown; use "
                "printable ASCII without '|' and ';'"
            )
        lines.append(line.ljust(LINE_WIDTH))
    return "|".join(lines)


def buzzer_payload(ms: int) -> str:
    if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= MAX_BUZZ_MS:
        raise CommandError(
            f"buzzer: milliseconds must be a whole number 1..{MAX_BUZZ_MS}, got {ms!r}"
        )
    return str(ms)


class PanelDriver(DeviceDriver):
    device_type: ClassVar[DeviceType] = DeviceType.PANEL

    def set_led(
        self,
        button: Button | Literal["ALL"] | str,
        mode: LedMode | str,
        colour: LedColour | str = LedColour.GREEN,
    ) -> Future[Reply]:
        """``L``: light one button (or ``"ALL"``)."""
        return self.send("L", led_payload(button, mode, colour))

    def all_leds_off(self) -> Future[Reply]:
        return self.set_led("ALL", LedMode.OFF, LedColour.WHITE)

    def show_text(self, line1: str, line2: str = "") -> Future[Reply]:
        """``M``: two lines of at most 16 characters (padded with spaces)."""
        return self.send("M", text_payload(line1, line2))

    def buzz(self, ms: int) -> Future[Reply]:
        """``W``: sound the buzzer for ``ms`` milliseconds (1..10000)."""
        return self.send("W", buzzer_payload(ms))
