"""What the round emits, in order, for the table to journal, show and send (the controller does
no I/O): prompts, ledger entries, device commands, state changes, the round's start and end, a
supervisor's decisions."""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.prompts import Prompt
from controller.game.settlement import LedgerEntry
from controller.round.spec import Action, State


@dataclass(frozen=True, slots=True)
class DeviceCommand:
    """A command for a device, for the application to send (the controller does no I/O)."""

    device: str  # "shoe", "peek", "panel"
    command: str  # "arm_peek", "new_shoe", "gate"
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StateChanged:
    source: State
    dest: State
    action: Action


@dataclass(frozen=True, slots=True)
class SupervisorAction:
    action: Action
    by: str
    detail: str


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """The round's cards are being dealt: bets are closed (the move out of betting)."""

    number: int
    variant: str


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round is settled, once (a hold while settling that resumes into settling does not end
    it again): what it made each player, in cents (+ paid to them)."""

    number: int
    net_by_player: tuple[tuple[str, int], ...]


Output = (
    Prompt
    | LedgerEntry
    | DeviceCommand
    | StateChanged
    | RoundStarted
    | RoundEnded
    | SupervisorAction
)
