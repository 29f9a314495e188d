"""The demo's card counter (issue 24, point 3): a rated player who counts Hi-Lo (the count that
fits the deck, :class:`~controller.floor.advantage.ShoeCount`) from every card they see, bets
1 to 8 units with the true count and makes the Illustrious 18 index plays where the count says
to; otherwise basic strategy, as the other demo players. Surveillance should flag them.

:data:`DEMO_COUNTERS` are the counters ``croupier floor demo`` seats (kept apart from the demo's
other rated players). A :class:`CardCounter` is given to the demo dealer, whose hands tell it
every card drawn (the burn card unseen) and every shuffle, and ask it for its box's bet and for
an index play before the chart's."""

from __future__ import annotations

from dataclasses import dataclass

from controller.floor.advantage import INDICES, ShoeCount, index_for
from controller.play.autoplay import Decision
from controller.round.controller import RoundController
from controller.round.spec import Action, State


@dataclass(frozen=True, slots=True)
class CounterSeat:
    """Where a demo counter sits: the box, their player card number and name."""

    box: int
    card: str
    player: str


DEMO_COUNTERS: tuple[CounterSeat, ...] = (CounterSeat(3, "7700000013", "carl the counter"),)

_ACTIONS = {
    "stand": Action.STAND,
    "hit": Action.HIT,
    "double": Action.DOUBLE,
    "split": Action.SPLIT,
}


class CardCounter:
    """A counter at one box: the count, the bet it makes of it, the index plays."""

    def __init__(self, seat: CounterSeat, decks: int, deck_size: int, unit_cents: int) -> None:
        self.seat = seat
        self.shoe = ShoeCount(decks, deck_size)
        self.unit_cents = unit_cents
        self.index_plays = 0

    def saw(self, card: str, *, burn: bool) -> None:
        self.shoe.dealt(card, seen=not burn)

    def shuffled(self) -> None:
        self.shoe.shuffle()

    def units(self) -> int:
        """1 unit below a true count of +1, then 2 more a true count, at most 8 (a 1-8 spread)."""
        return max(1, min(8, 1 + 2 * int(self.shoe.now().true)))

    def bet_cents(self, max_cents: int) -> int:
        return min(max_cents, self.unit_cents * self.units())

    def decide(self, controller: RoundController) -> Decision | None:
        """An index play for the counter's box now (None: play the chart)."""
        up = controller.dealer_up()
        if up is None or not controller.rules.dealer.first_card_face_up:
            return None
        true = self.shoe.now().true
        box_no = self.seat.box
        box = controller.box(box_no)
        if box is None or not box.hands:
            return None
        if controller.state in (State.OFFERS, State.INSURANCE):
            insure = INDICES[0]
            if up.is_ace and insure.past(true) and not box.insurance:
                self.index_plays += 1
                return Decision(Action.INSURANCE, {"box": box_no})
            return None
        in_play = controller.hand_in_play()
        if controller.state is not State.PLAYING or in_play is None:
            return None
        number, hand = in_play
        if number != box_no or len(box.hands) > 1:
            return None
        cards = [str(c) for c in hand.cards]
        for name, action in _ACTIONS.items():
            found = index_for(cards, str(up), name)
            if found is not None and found.past(true):
                self.index_plays += 1
                return Decision(action, {"box": box_no})
        return None
