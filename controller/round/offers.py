"""The offers and their reasons: what the round offers now (insurance, surrender, rescue, the
decisions on the hand in play, an undo, a deal, a shuffle) and why a move would be refused, and
the handlers of the offers."""

from __future__ import annotations

from collections.abc import Sequence

from controller.game.refusals import Why, WhyNot
from controller.game.settlement import settle_rescue
from controller.round.errors import Refusal
from controller.round.inputs import Insure, Rescue, Surrender
from controller.round.model import (
    insurance_offered,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_insure,
    why_not_rescue,
    why_not_split,
    why_not_stand,
    why_not_surrender,
)
from controller.round.procedure import Procedure
from controller.round.spec import SPEC, A, Action, S, State


class Offers(Procedure):
    """What the round offers now and why not; the offers' handlers."""

    def can(self, action: Action) -> bool:
        """Whether a decision on the hand in play would be accepted now."""
        return self.why_not(action) is None

    def why_not(self, action: Action) -> WhyNot | None:
        """Why ``action`` would be refused now (None when it would be accepted, as far as the
        decisions on the hand in play go)."""
        if (self.state, action) not in SPEC:
            return WhyNot(Why.NOT_NOW, action=action.value, state=self.state.value)
        window = self._why_not_now(action)
        if window is not None:
            return window
        turn = self.round.turn
        if action not in (A.HIT, A.STAND, A.DOUBLE, A.SPLIT) or turn is None:
            return None
        box = self.round.boxes[turn[0]]
        hand = box.hands[turn[1]]
        reasons = {
            A.HIT: lambda: why_not_hit(self.rules, hand),
            A.STAND: lambda: why_not_stand(self.rules, hand),
            A.DOUBLE: lambda: why_not_double(
                self.rules, box, hand, None, [s.player for s in hand.stakes]
            ),
            A.SPLIT: lambda: why_not_split(self.rules, box, hand),
        }
        return reasons[action]()

    def _why_not_now(self, action: Action) -> WhyNot | None:
        """The rules of the moment for the round's own decisions: an offer only against the up
        cards it is made against and only while some box may still take it, an undo only of
        something undoable, a deal only with bets, a shuffle only without them (None: allowed)."""
        boxes = list(self.round.boxes.values())
        first = self.round.dealer.first
        if action is A.INSURANCE:
            if not insurance_offered(self.rules, first):
                return _only_against("insurance", self.rules.insurance.up_cards)
            reasons = [
                why_not_insure(self.rules, box, w.player, w.amount_cents // 2)
                for box in boxes
                for w in box.wagers
            ]
            if all(reasons):
                return _none_left("take insurance", reasons)
        elif action is A.SURRENDER:
            if self.state is S.OFFERS and not surrender_offered(self.rules, first):
                return _only_against("surrender", self.rules.surrender.up_cards)
            reasons = [why_not_surrender(self.rules, box) for box in boxes]
            if all(reasons):
                return _none_left("surrender", reasons)
        elif action is A.RESCUE and self.round.turn is not None:
            box_no, index = self.round.turn
            hand = self.round.hand(box_no, index)
            reasons = [why_not_rescue(self.rules, hand, s.player) for s in hand.stakes]
            if all(reasons):
                return _none_left("rescue", reasons)
        elif action is A.UNDO and not self._undo:
            return WhyNot(Why.NOTHING_TO_UNDO)
        elif action is A.DEAL and not self.round.boxes:
            return WhyNot(Why.NO_BETS)
        elif action is A.SHUFFLE and self.round.boxes:
            return WhyNot(Why.BETS_ON_TABLE)
        return None

    def _insurance(self, move: Insure) -> State:
        if not insurance_offered(self.rules, self.round.dealer.first):
            raise Refusal(_only_against("insurance", self.rules.insurance.up_cards))
        box = self._box(move.box)
        player = move.player or box.controller
        amount = move.amount_cents
        wager = box.wager_of(player)
        if amount is None and wager is not None:
            amount = wager.amount_cents // 2
        if amount is None:
            raise Refusal(WhyNot(Why.AMOUNT_MISSING))
        amount_cents = amount
        reason = why_not_insure(self.rules, box, player, amount_cents)
        if reason:
            raise Refusal(reason)
        self._push_undo()
        box.insurance[player] = amount_cents
        return self.state

    def _surrender(self, move: Surrender) -> State:
        if self.state is S.OFFERS and not surrender_offered(self.rules, self.round.dealer.first):
            raise Refusal(_only_against("surrender", self.rules.surrender.up_cards))
        box = self._box(move.box)
        reason = why_not_surrender(self.rules, box)
        if reason:
            raise Refusal(reason)
        self._push_undo()
        box.surrendered = True
        if not self._surrender_waits() and (
            self.round.dealer_natural is not None or self._natural_impossible()
        ):
            self._settle_surrender(box, False)
        return self.state

    def _natural_impossible(self) -> bool:
        first = self.round.dealer.first
        return self.rules.has_hole_card and (
            first is None or first.rank not in self.rules.dealer.peek_up_cards
        )

    def _rescue(self, move: Rescue) -> State:
        assert self.round.turn is not None
        box_no, index = self.round.turn
        box = self.round.boxes[box_no]
        if move.box is not None and move.box != box_no:
            raise Refusal(WhyNot(Why.NOT_IN_PLAY, box=move.box, in_play=box_no))
        hand = box.hands[index]
        player = move.player or box.controller
        reason = why_not_rescue(self.rules, hand, player)
        if reason:
            raise Refusal(reason)
        self._settle(settle_rescue(self.rules, box.frozen(), index, player))
        stake = hand.stake_of(player)
        assert stake is not None
        stake.rescued = True
        if not hand.live:
            hand.settled = True
        if any(s.double_cents and not s.rescued for s in hand.stakes):
            return S.RESCUE
        return self._next_hand(box_no, index)


def _none_left(what: str, reasons: Sequence[WhyNot | None]) -> WhyNot:
    """Why no box may ``what`` now: the one box's reason, or that none may."""
    said = {r for r in reasons if r}
    if len(said) == 1:
        return said.pop()
    return WhyNot(Why.NO_BOX_CAN, action=what)


def _only_against(offer: str, ranks: Sequence[str]) -> WhyNot:
    """That ``offer`` is made only against the up cards ``ranks``."""
    return WhyNot(Why.OFFERED_ONLY_AGAINST, action=offer, ranks=tuple(ranks))
