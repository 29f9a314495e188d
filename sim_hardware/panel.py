"""The emulated dealer button panel (protocol.md, "Button panel (B)").

Scriptable presses, releases, holds and the key switch; it keeps the LED of every button, the
two text lines and the buzzer so tests and a person can see them. Choices where protocol.md is
silent: ``held_ms`` is four digits (capped at 9999); a button held for ``stuck_after_s``
(10 s unless a :class:`StuckButton` says otherwise) raises 0x70 with text ``BUTTON_STUCK
<button>``, cleared on release; an LED in mode P goes off by itself after 2 s; while OFFLINE
the text reads ``OFFLINE`` and the host's text comes back when the host is heard again; a
reboot turns every LED off and blanks the text (buttons physically down stay down); status
device_specific is the key switch position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Unpack

from drivers.tbl21.events import button_named, button_words_help
from drivers.tbl21.faults import FaultCode
from drivers.tbl21.framing import Frame
from sim_hardware.device import DeviceCore, DeviceOptions, Flag, action
from sim_hardware.errors import SimActionError, SimConfigError
from sim_hardware.faults import COMMON_FAULTS, FaultSpec, StuckButton

BUTTONS: tuple[str, ...] = (
    "DEA",
    "INS",
    "SUR",
    "HIT",
    "STD",
    "DBL",
    "SPL",
    "RES",
    "OK_",
    "CAN",
    "UND",
    "SHF",
    "CAL",
    *(f"B{i}_" for i in range(1, 8)),
    *(f"W{i}_" for i in range(1, 4)),
    *(f"D{i}_" for i in range(10)),
)
LED_MODES = "OSBFP"
LED_COLOURS = "RGAW"
KEY_POSITIONS = ("RUN", "SUP", "TEC")
HOLD_S = 2.0
PULSE_S = 2.0
TEXT_WIDTH = 16
BUTTON_STUCK = FaultCode.BUTTON_STUCK


@dataclass(frozen=True, slots=True)
class Led:
    mode: str = "O"  # O off, S steady, B blink, F fast, P 2 s pulse
    colour: str = "W"  # R, G, A, W

    @property
    def lit(self) -> bool:
        return self.mode != "O"


@dataclass(slots=True)
class _Press:
    since: float
    stuck_after_s: float
    held_sent: bool = False
    stuck_sent: bool = False


def check_button(button: str) -> str:
    """The wire code of the key a person names by its word on the screen (``STAND``, ``OK``,
    ``BOX1``, ``5``) or its code (``STD``)."""
    found = button_named(button)
    if found is None:
        raise SimConfigError(f"unknown button {button!r}; the keys are {button_words_help()}")
    return found.value


class EmulatedPanel(DeviceCore):
    """The dealer's button panel."""

    dev_code = "B"
    model = "SIM-PANEL"
    accepted_faults = (*COMMON_FAULTS, StuckButton)

    def __init__(
        self,
        *,
        stuck_after_s: float = 10.0,
        seed: int | None = 0,
        **kwargs: Unpack[DeviceOptions],
    ) -> None:
        self.stuck_after_s = stuck_after_s
        self._leds: dict[str, Led] = dict.fromkeys(BUTTONS, Led())
        self._pulse_until: dict[str, float] = {}
        self._text = ("", "")
        self._host_text = ("", "")
        self._key = "RUN"
        self._pressed: dict[str, _Press] = {}
        self.buzzer_ms = 0  # the last buzzer length the host asked for
        self.buzzer_count = 0
        self._buzz_until = 0.0
        super().__init__(seed=seed, **kwargs)

    # ---- what tests and people look at ----------------------------------------------------

    @property
    def leds(self) -> dict[str, Led]:
        with self.lock:
            return dict(self._leds)

    def led(self, button: str) -> Led:
        return self._leds[check_button(button)]

    @property
    def lit_buttons(self) -> list[str]:
        with self.lock:
            return [b for b, led in self._leds.items() if led.lit]

    @property
    def text(self) -> tuple[str, str]:
        """The two text lines as shown now (``OFFLINE`` while offline)."""
        return self._text

    @property
    def key(self) -> str:
        return self._key

    @property
    def pressed(self) -> list[str]:
        with self.lock:
            return list(self._pressed)

    def buzzing(self, now: float) -> bool:
        return now < self._buzz_until

    # ---- the dealer's hands -----------------------------------------------------------------

    @action
    def press(self, button: str, now: float | None = None) -> None:
        """Press ``button`` (``b button;P;0000``); it stays down until :meth:`release`."""
        self._press(check_button(button), self._at(now), self.stuck_after_s)

    def _press(self, button: str, at: float, stuck_after_s: float) -> None:
        if button in self._pressed:
            raise SimActionError(f"button {button} is already pressed; release it first")
        self._pressed[button] = _Press(since=at, stuck_after_s=stuck_after_s)
        self._emit("b", f"{button};P;0000")

    @action
    def release(self, button: str, now: float | None = None) -> None:
        """Release ``button`` (``b button;R;held_ms``)."""
        if check_button(button) not in self._pressed:
            raise SimActionError(f"button {button} is not pressed, so it cannot be released")
        self._release(button, self._at(now))

    def _release(self, button: str, at: float) -> None:
        press = self._pressed.pop(button, None)
        if press is None:
            raise SimActionError(f"button {button} is not pressed, so it cannot be released")
        self._advance_press(button, press, at)
        held = min(9999, round((at - press.since) * 1000))
        self._emit("b", f"{button};R;{max(held, 0):04d}")
        if press.stuck_sent and not any(p.stuck_sent for p in self._pressed.values()):
            self._clear(BUTTON_STUCK)

    @action
    def tap(self, button: str, now: float | None = None) -> None:
        """Press and release at once."""
        at = self._now if now is None else now  # no time passes, so none is needed
        self._press(check_button(button), at, self.stuck_after_s)
        self._release(button, at)

    @action
    def hold(self, button: str, seconds: float, now: float | None = None) -> None:
        """Press now and release after ``seconds`` (``b H`` comes at 2 s if held that long)."""
        if seconds < 0:
            raise SimConfigError(f"hold time must be >= 0 seconds, got {seconds}")
        at = self._at(now)
        self._press(check_button(button), at, self.stuck_after_s)
        self._schedule(at + seconds, lambda when: self._release_if_down(button, when))

    def _release_if_down(self, button: str, at: float) -> None:
        if button in self._pressed:
            self._release(button, at)

    @action
    def turn_key(self, position: str) -> None:
        """Turn the key switch: ``y RUN|SUP|TEC``."""
        if position not in KEY_POSITIONS:
            raise SimConfigError(f"key position must be one of {KEY_POSITIONS}, got {position!r}")
        self._key = position
        self._emit("y", position)

    def _at(self, now: float | None) -> float:
        if now is None and self._booted_at is None:
            raise SimActionError(
                "the panel has no time yet: serve it (or tick it once) before pressing or "
                "holding buttons, or pass now="
            )
        return self._now if now is None else now

    # ---- host commands ----------------------------------------------------------------------

    def _device_command(self, frame: Frame, now: float) -> bool | str | None:
        if frame.kind == "L":
            fields = frame.fields
            if len(fields) != 3:
                return "BAD_ARG"
            target, mode, colour = fields
            if (target != "ALL" and target not in BUTTONS) or len(mode) != 1 or len(colour) != 1:
                return "BAD_ARG"
            if mode not in LED_MODES or colour not in LED_COLOURS:
                return "BAD_ARG"
            for button in BUTTONS if target == "ALL" else (target,):
                self._leds[button] = Led(mode, colour)
                if mode == "P":
                    self._pulse_until[button] = now + PULSE_S
                else:
                    self._pulse_until.pop(button, None)
            return True
        if frame.kind == "M":
            line1, _, line2 = frame.payload.partition("|")
            if len(line1) > TEXT_WIDTH or len(line2) > TEXT_WIDTH or "|" in line2:
                return "BAD_ARG"
            self._host_text = (line1, line2)
            if not self._offline:
                self._text = self._host_text
            return True
        if frame.kind == "W":
            if not frame.payload.isdigit() or int(frame.payload) > 10000:
                return "BAD_ARG"
            self.buzzer_ms = int(frame.payload)
            self.buzzer_count += 1
            self._buzz_until = now + self.buzzer_ms / 1000
            return True
        return None

    # ---- time -------------------------------------------------------------------------------

    def _advance_press(self, button: str, press: _Press, now: float) -> None:
        held = now - press.since
        if not press.held_sent and held >= HOLD_S:
            press.held_sent = True
            self._emit("b", f"{button};H;{int(HOLD_S * 1000):04d}")  # the firmware's 2 s timer
        if not press.stuck_sent and held >= press.stuck_after_s:
            press.stuck_sent = True
            self._raise(BUTTON_STUCK, text=f"BUTTON_STUCK {button}", repeat=True)

    def _device_advance(self, now: float) -> None:
        for button, press in list(self._pressed.items()):
            self._advance_press(button, press, now)
        for button, until in list(self._pulse_until.items()):
            if now >= until:
                del self._pulse_until[button]
                self._leds[button] = Led("O", self._leds[button].colour)

    def _device_deadline(self) -> float | None:
        times = list(self._pulse_until.values())
        for press in self._pressed.values():
            if not press.held_sent:
                times.append(press.since + HOLD_S)
            if not press.stuck_sent:
                times.append(press.since + press.stuck_after_s)
        return min(times) if times else None

    def _device_fire(self, spec: FaultSpec, now: float) -> None:
        if isinstance(spec, StuckButton):
            self._press(check_button(spec.button), now, spec.stuck_after_s)
            return
        super()._device_fire(spec, now)

    def _device_flags(self) -> int:
        return int(Flag.KEY_NOT_RUN) if self._key != "RUN" else 0

    def _device_specific(self) -> str:
        return self._key

    def _device_offline_changed(self) -> None:
        self._text = ("OFFLINE", "") if self._offline else self._host_text

    def _device_reboot(self) -> None:
        self._leds = dict.fromkeys(BUTTONS, Led())
        self._pulse_until.clear()
        self._text = self._host_text = ("", "")
        self._buzz_until = 0.0

    def render(self) -> str:
        """The panel as a person would see it: text lines, lit buttons, key, buzzer."""
        with self.lock:
            leds = self._leds.items()
            lit = " ".join(f"{b}:{led.mode}{led.colour}" for b, led in leds if led.lit)
            down = " ".join(self._pressed) or "-"
            return (
                f"+{'-' * TEXT_WIDTH}+\n|{self._text[0]:<{TEXT_WIDTH}}|\n"
                f"|{self._text[1]:<{TEXT_WIDTH}}|\n+{'-' * TEXT_WIDTH}+\n"
                f"lit: {lit or '-'}  down: {down}  key: {self._key}  "
                f"buzzer: {self.buzzer_count}x (last {self.buzzer_ms} ms)"
            )

    def describe(self) -> str:
        return f"panel {self.state.value}: {self._text[0]!r}/{self._text[1]!r}, key {self._key}"
