"""Players who decide by basic strategy (the demo table and the simulator).

:class:`StrategyPlayer` answers the play loop's question "the table waits for a person: what do
they do?" with a :class:`~controller.autoplay.Decision` taken from the variant's basic strategy,
or ``None`` to let the dealer close the window. It sees what the players see: the dealer's
visible cards only, never the hole card.
"""

from __future__ import annotations

from controller.autoplay import Decision
from controller.round import Action, RoundController, State
from controller.strategy import Strategy


class StrategyPlayer:
    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self._asked: set[tuple[int, State, int]] = set()  # (round, window, box) already decided

    def __call__(self, controller: RoundController) -> Decision | None:
        state = controller.state
        rules = controller.rules
        visible = controller.dealer_visible_cards()
        up = visible[0] if visible else None
        round_ = controller.round
        if state is State.PLAYING and round_.turn is not None:
            box_no, index = round_.turn
            box = round_.boxes[box_no]
            action = self.strategy.decide_hand(rules, box, box.hands[index], up)
            return Decision(action, {"box": box_no})
        if state in (State.OFFERS, State.SURRENDER):
            for box in (round_.boxes[n] for n in round_.box_numbers()):
                key = (round_.number, state, box.number)
                if key in self._asked or box.surrendered or box.natural_paid:
                    continue
                self._asked.add(key)
                hand = box.hands[0]
                if hand.finished:
                    continue
                action = self.strategy.decide_hand(rules, box, hand, up, surrender_window=True)
                if action is Action.SURRENDER:
                    return Decision(Action.SURRENDER, {"box": box.number})
            return None
        if state is State.RESCUE and round_.turn is not None and up is not None:
            box_no, index = round_.turn
            hand = round_.boxes[box_no].hands[index]
            for stake in hand.stakes:
                if self.strategy.rescue_hand(rules, hand, stake.player, up):
                    return Decision(Action.RESCUE, {"box": box_no, "player": stake.player})
            return None
        return None  # insurance: never
