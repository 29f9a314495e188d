"""The emulated hole-card reader (protocol.md, "Hole-card reader (P)").

It knows the real hole card (a test, the scenario runner or a person inserts it) and answers a
peek only with Y, N, U or E, never the rank. ``K A`` (ace up) answers Y when the hole card is
ten-valued; ``K T`` (ten-value up) answers Y when the hole card is an ace. Choices where
protocol.md is silent: ``k`` follows the ``s`` that answers ``K``; a disabled reader refuses
``K`` with ``n DISABLED``; status device_specific is ``card_present;last_arm`` (``Y;A``,
``N;-``); quality is 95..99 for Y/N, 00..20 for U and 00 for E.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Unpack

from drivers.tbl21.cards import Card
from drivers.tbl21.framing import Frame
from sim_hardware.device import DeviceCore, DeviceOptions, Flag, action
from sim_hardware.errors import SimActionError
from sim_hardware.faults import COMMON_FAULTS, PeekAnswer, PeekMode


def blackjack_with(up: str, hole: Card) -> bool:
    """Whether ``hole`` makes blackjack with an up card of class ``up`` (A or T)."""
    return hole.is_ten_value if up == "A" else hole.is_ace


class EmulatedPeekReader(DeviceCore):
    """The hole-card reader. Tell it to lie or fail with :class:`PeekAnswer` specs."""

    dev_code = "P"
    model = "SIM-PEEK"
    accepted_faults = (*COMMON_FAULTS, PeekAnswer)

    def __init__(
        self,
        *,
        hole_card: Card | str | None = None,
        seed: int | None = 0,
        **kwargs: Unpack[DeviceOptions],
    ) -> None:
        self._quality = random.Random(seed)
        self._hole: Card | None = None
        self._armed = "-"
        self.answers: list[str] = []  # every Y/N/U/E sent, for tests and people
        super().__init__(seed=seed, **kwargs)
        if hole_card is not None:
            self.insert_hole_card(hole_card)

    @property
    def hole_card(self) -> Card | None:
        """The real hole card (the test's view; the host never learns it from the reader)."""
        return self._hole

    @action
    def insert_hole_card(self, card: Card | str) -> None:
        """The dealer slides the hole card in: ``h I``."""
        if self._hole is not None:
            raise SimActionError(f"a hole card is already in the reader ({self._hole})")
        self._hole = card if isinstance(card, Card) else Card.parse(card)
        self._emit("h", "I")

    @action
    def remove_hole_card(self) -> Card:
        """The dealer takes the hole card out (to turn it over): ``h R``."""
        if self._hole is None:
            raise SimActionError("there is no hole card in the reader to remove")
        card, self._hole = self._hole, None
        self._armed = "-"
        self._emit("h", "R")
        return card

    @action
    def set_answer_mode(self, mode: PeekMode, count: int | None = None) -> None:
        """Answer the next ``count`` peeks (all, if None) as ``mode`` says."""
        self._injections = [s for s in self._injections if not isinstance(s, PeekAnswer)]
        self._add_injection(PeekAnswer(mode, count))

    def _mode(self) -> PeekMode:
        for index, spec in enumerate(self._injections):
            if isinstance(spec, PeekAnswer):
                if spec.count is not None:
                    if spec.count == 1:
                        del self._injections[index]
                    else:
                        self._injections[index] = dataclasses.replace(spec, count=spec.count - 1)
                return spec.mode
        return PeekMode.HONEST

    def _answer(self, up: str) -> str:
        mode = self._mode()
        if mode is PeekMode.UNREADABLE:
            return "U"
        if mode is PeekMode.NO_CARD or self._hole is None:
            return "E"
        honest = "Y" if blackjack_with(up, self._hole) else "N"
        if mode is PeekMode.LIE:
            return "N" if honest == "Y" else "Y"
        return honest

    def _device_command(self, frame: Frame, now: float) -> bool | str | None:
        if frame.kind != "K":
            return None
        if frame.payload not in ("A", "T"):
            return "BAD_ARG"
        if not self._enabled:
            return "DISABLED"
        self._armed = frame.payload
        answer = self._answer(frame.payload)
        quality = {"Y": 95, "N": 95, "U": 0, "E": 0}[answer]
        if answer in "YN":
            quality = self._quality.randint(95, 99)
        elif answer == "U":
            quality = self._quality.randint(0, 20)
        self.answers.append(answer)
        self._emit("k", f"{answer};{quality:02d}")
        return True

    def _device_specific(self) -> str:
        return f"{'Y' if self._hole is not None else 'N'};{self._armed}"

    def _device_flags(self) -> int:
        return int(Flag.CARD_PRESENT) if self._hole is not None else 0

    def _device_reboot(self) -> None:
        self._armed = "-"

    def describe(self) -> str:
        """One line for a person watching (it does show the hole card: the operator knows)."""
        card = str(self._hole) if self._hole is not None else "none"
        last = self.answers[-1] if self.answers else "-"
        return f"peek {self.state.value}: hole card {card}, last answer {last}"
