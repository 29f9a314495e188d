"""The round controller against an independent reference, round for round.

``ReferencePontoon`` below is a deliberately plain implementation of the two British-style
pontoon variants (uk-pontoon and pontoon-blackjack: both dealer cards dealt face down and checked
for pontoon, then the boxes, then the dealer), written from ``shared/docs/rules.md`` without any
of the controller's code: its own hand totals, drawing rules, ranking and payouts. Only the
basic-strategy table lookup (``Strategy.decide``) and the shoe (``ShoeStream``) are shared, so
both play the same decisions on the same cards.

Played over the same shuffled shoes, the two must agree on every round: the cards each hand and
the dealer end with and every player's net. This is how the simulator's house edges for these
variants were cross-checked (the pontoon-blackjack figure is far from the published 0.38 %: the
reference gives the same figure, so the difference lies in the published game's rules, not in
the controller).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from controller.game.rules import SplitMatch, Ties, Variant, load_variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.sim_hands import SimHands
from controller.play.simulate import ShoeStream, Tally
from controller.play.strategy import Strategy, StrategyPlayer, strategy_for
from controller.round.controller import RoundController
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Rank

ROUNDS = 3_000
WAGER = 1000


def value(cards: list[Card]) -> tuple[int, bool]:
    """Best total and whether an ace counts 11 in it."""
    hard = 0
    aces = 0
    for card in cards:
        rank = card.rank
        if rank is Rank.ACE:
            hard += 1
            aces += 1
        elif rank in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING):
            hard += 10
        else:
            hard += int(rank.value)
    if aces and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


@dataclass
class RefHand:
    cards: list[Card]
    stake: int
    from_split: bool = False
    doubled: bool = False


@dataclass
class RefRound:
    hands: list[RefHand] = field(default_factory=list)
    dealer: list[Card] = field(default_factory=list)
    net: int = 0


class ReferencePontoon:
    """One box, one wager, basic strategy, British-style pontoon."""

    def __init__(self, rules: Variant, strategy: Strategy, stream: ShoeStream) -> None:
        assert rules.dealer.second_card.value == "hole-card"
        self.rules = rules
        self.strategy = strategy
        self.stream = stream
        self.first = True

    def play(self) -> RefRound:
        rules, stream = self.rules, self.stream
        if self.first or stream.cut_out:  # the cut card came out last round: a new shoe
            if not self.first:
                stream.new_shoe()
            for _ in range(rules.shoe.burn_cards):
                stream.draw()
            self.first = False
        draw = stream.draw
        player = [draw()]
        dealer = [draw()]
        player.append(draw())
        dealer.append(draw())
        out = RefRound(dealer=dealer)
        if value(dealer)[0] == 21:  # the dealer's pontoon takes the wager at once
            out.hands.append(RefHand(player, WAGER))
            out.net = -WAGER
            return out
        hands = [RefHand(player, WAGER)]
        i = 0
        while i < len(hands):
            self._play_hand(hands, i)
            i += 1
        out.hands = hands
        if any(value(h.cards)[0] <= 21 for h in hands):  # as the controller: unless all bust
            self._dealer_draws(dealer)
        out.net = sum(self._settle(h, dealer) for h in hands)
        return out

    def _natural(self, hand: RefHand) -> bool:
        return (
            len(hand.cards) == 2
            and value(hand.cards)[0] == 21
            and (not hand.from_split or self.rules.hands.natural_after_split)
        )

    def _play_hand(self, hands: list[RefHand], i: int) -> None:
        rules, hand = self.rules, hands[i]
        while True:
            if len(hand.cards) == 1:
                hand.cards.append(self.stream.draw())
            total, _ = value(hand.cards)
            n = len(hand.cards)
            if total >= 21 or (rules.hands.max_cards and n >= rules.hands.max_cards):
                return
            double = rules.double
            can_double = (
                not hand.doubled
                and double.min_cards <= n <= double.max_cards
                and (n == 2 or total <= double.max_total_after_two)
            )
            first, second = hand.cards[0].rank, hand.cards[-1].rank
            pair = (
                first is second
                if rules.split.match is SplitMatch.RANK
                else value([hand.cards[0]])[0] == value([hand.cards[-1]])[0]
            )
            can_split = n == 2 and pair and len(hands) < rules.split.max_hands
            action = self.strategy.decide(
                rules,
                hand.cards,
                None,
                can_double=can_double,
                can_split=can_split,
                doubled=hand.doubled,
            )
            if action is Action.STAND:
                return
            if action is Action.SPLIT:
                hands.insert(i + 1, RefHand([hand.cards.pop()], hand.stake, from_split=True))
                hand.from_split = True
                continue
            if action is Action.DOUBLE:
                hand.stake *= 2
                hand.doubled = True
            hand.cards.append(self.stream.draw())

    def _dealer_draws(self, dealer: list[Card]) -> None:
        rules = self.rules
        while True:
            total, soft = value(dealer)
            if total > 21 or (rules.dealer.stands_on_five_cards and len(dealer) >= 5):
                return
            if total < 17 or (total == 17 and soft and rules.dealer.hits_soft_17):
                dealer.append(self.stream.draw())
            else:
                return

    def _rank(self, cards: list[Card], natural: bool, *, dealer: bool) -> tuple[int, int]:
        """(tier, total): bust 0, a total 1, a five-card trick 2, pontoon 3."""
        total, _ = value(cards)
        hands = self.rules.hands
        if total > 21:
            return (0, 0)
        if natural:
            return (3, 0)
        trick = hands.dealer_five_card_trick if dealer else hands.five_card_trick
        if trick and len(cards) == 5:
            return (2, 0)
        return (1, total)

    def _settle(self, hand: RefHand, dealer: list[Card]) -> int:
        payouts = self.rules.payouts
        mine = self._rank(hand.cards, self._natural(hand), dealer=False)
        theirs = self._rank(dealer, len(dealer) == 2 and value(dealer)[0] == 21, dealer=True)
        if mine[0] == 0:
            return -hand.stake
        if theirs[0] == 0 or mine > theirs:
            odds = {3: payouts.natural, 2: payouts.five_card_trick}.get(mine[0], payouts.win)
            assert odds is not None
            return hand.stake * odds.numerator // odds.denominator
        if mine == theirs and self.rules.hands.ties is Ties.PUSH:
            return 0
        return -hand.stake


def stream_for(rules: Variant, seed: int) -> ShoeStream:
    cut_after = rules.shoe.decks * rules.shoe.deck.size - rules.shoe.cut_card_reserve
    return ShoeStream(rules.shoe.deck, rules.shoe.decks, seed=seed, cut_after=cut_after)


@pytest.mark.parametrize("variant", ["uk-pontoon", "pontoon-blackjack"])
def test_the_controller_settles_every_round_as_an_independent_reference_does(
    variant: str,
) -> None:
    rules = load_variant(variant)
    strategy = strategy_for(rules)
    reference = ReferencePontoon(rules, strategy, stream_for(rules, seed=20))
    expected = [reference.play() for _ in range(ROUNDS)]

    controller = RoundController(rules, prompts=False)
    hands = SimHands(controller, stream_for(rules, seed=20), Tally(), each_round=False)
    script = ScriptedRound([ScriptedBet(1, "p1", WAGER)], decisions=[])
    records, rejected = play_rounds(
        controller, hands, [script] * ROUNDS, auto=StrategyPlayer(strategy)
    )
    assert rejected == []
    for number, (record, ref) in enumerate(zip(records, expected, strict=True), start=1):
        played = record.controller_round.boxes[1].hands
        assert [list(h.cards) for h in played] == [h.cards for h in ref.hands], number
        assert record.dealer_cards == ref.dealer, number
        assert sum(e.amount_cents for e in record.ledger) == ref.net, number
    assert {r.net for r in expected} >= {-WAGER, WAGER, 2 * WAGER}  # losses, wins, 2:1 wins
