"""Errors of play: a scripted session that cannot go on, a simulation that cannot, the
simulator's kernel disagreeing with the rules, a scenario file that is no scenario, a strategy
asked about a hand it has no decision for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.game.errors import CroupierError


class PlayError(CroupierError):
    """A scripted session could not go on (script ended mid-decision, shoe ran out...)."""


class SimulationError(CroupierError):
    """The simulation could not be set up or could not go on."""


class KernelError(CroupierError):
    """The kernel and the rules disagree (a move outside SPEC, cached counts that differ from
    the settlement's entries): a bug, never a user's mistake."""

    bug = True


class StrategyError(CroupierError, ValueError):
    """decide() was asked about a hand no decision exists for (bust, finished)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a scenario file.

    ``line`` and ``column`` are 1-based (``None`` when the file could not be read at all);
    ``path`` is the key path (``rounds[0].bets[1].amount``, empty for the whole file);
    ``message`` says what is wrong; ``allowed`` lists the accepted choices, when there is a
    closed set of them (keys, actions, variant ids, spec versions).
    """

    file: str
    line: int | None
    path: str
    message: str
    allowed: tuple[str, ...] = ()
    column: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        text = self.message
        if self.allowed:
            text += f"; allowed: {', '.join(self.allowed)}"
        return f"{where}: {self.path}: {text}" if self.path else f"{where}: {text}"


class ScenarioError(CroupierError):
    """A file that is not a valid scenario. ``problems`` holds every problem found, in order."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a ScenarioError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
