"""The table's own bet limits: the boxes in use, the minimum, the maximum and the step.

The game's rules (a box the variant has, a multiple of its increment, wagers per box) are the
round's to check; these are the table file's, checked before a bet is recorded, whoever places
it: the display, the demo's players or a script.

A player's name is one player whatever its case: "ANN" after "ann" this round is ann (named as
first entered), so "ANN" on ann's box is ann's second wager there, refused, and the round's
result has one ann, as the pit counts her (:func:`same_player`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.game.refusals import Why, WhyNot
from controller.round.spec import State
from controller.table.config import TableConfig


@dataclass(frozen=True, slots=True)
class BetLimits:
    boxes: tuple[int, ...]
    min_cents: int
    max_cents: int
    increment_cents: int

    @classmethod
    def of(cls, config: TableConfig) -> BetLimits:
        limits = config.limits
        return cls(tuple(config.boxes), limits.min_cents, limits.max_cents, limits.increment_cents)

    def refusal(self, box: int, amount_cents: int, state: State) -> WhyNot | None:
        """Why this table takes no such bet now (None: it may, as far as its limits go)."""
        if box not in self.boxes:
            return WhyNot(Why.BOX_NOT_IN_USE, box=box, boxes=self.boxes)
        if not self.min_cents <= amount_cents <= self.max_cents:
            return WhyNot(
                Why.BET_OUTSIDE_LIMITS, low=self.min_cents, high=self.max_cents, cents=amount_cents
            )
        if amount_cents % self.increment_cents:
            return WhyNot(Why.BET_STEPS, cents=self.increment_cents)
        if state is not State.BETTING:
            return WhyNot(Why.BETS_CLOSED)
        return None


def same_player(name: str, players: Iterable[str]) -> str:
    """The player ``name`` is among ``players`` (the names already on the round, in the order
    they bet): the first one spelt the same but for case, else ``name`` itself."""
    folded = name.casefold()
    return next((p for p in players if p.casefold() == folded), name)
