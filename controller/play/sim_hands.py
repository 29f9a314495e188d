"""The simulator's dealer for the controller engine (``--engine controller``): kept apart from
:mod:`controller.play.simulate` so that a kernel run does not import the round controller's
autoplay (and through it the round's errors and the dealer's words) at its start (issue 26)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.play.autoplay import DirectHands
from controller.play.tally import Tally
from controller.round.spec import Action, State

if TYPE_CHECKING:
    from controller.play.simulate import ShoeStream
    from controller.round.controller import RoundController

__all__ = ["SimHands"]


class SimHands(DirectHands):
    """The simulator's dealer: cards from a :class:`ShoeStream`, a perfect reader, the cut card
    reported to the controller when it comes out, SHF loading the next shoe."""

    def __init__(
        self, controller: RoundController, stream: ShoeStream, tally: Tally, *, each_round: bool
    ) -> None:
        super().__init__(controller, stream)
        self.stream = stream
        self.tally = tally
        self.each_round = each_round
        self._cut_reported = False

    def draw(self) -> None:
        stream = self.stream
        self.controller.perform(Action.CARD, card=stream.draw())
        if (stream.cut_out or self.each_round) and not self._cut_reported:
            self._cut_reported = True
            self.controller.cut_card_seen()

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        controller = self.controller
        if action is Action.OK and controller.state is State.SETTLING:
            # The dealer acknowledges the settlement: the round is over, count it (with the
            # shoe as it is now, for the dealer's hand the round did not need).
            self.tally.count_round(controller.rules, controller.round, self.stream.peek)
        controller.perform(action, **data)
        if action is Action.SHUFFLE:
            self.stream.new_shoe()
            self._cut_reported = False
