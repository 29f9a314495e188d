"""The data of one round and the procedure's checks on it.

Plain mutable dataclasses owned by the round controller (nothing else writes them), and pure
checks that say whether a decision is allowed now and, if not, why. The checks return a reason
string (``None`` when allowed) so that every refusal names the rule that refused it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

from controller.game.hands import HandEnd, hand_value, is_natural
from controller.game.holds import HoldReason
from controller.game.refusals import Why, WhyNot
from controller.game.rule_enums import CardsAfterDouble, DoubleAmount, SplitMatch
from controller.game.settlement import (
    Box,
    Hand,
    InsuranceBet,
    LedgerEntry,
    Stake,
    Wager,
    insurance_limit_cents,
)
from controller.round.spec import State
from drivers.tbl21.cards import Card, DeckType, Rank

if TYPE_CHECKING:
    from controller.game.rules import Variant

_T = TypeVar("_T")

__all__ = [
    "BoxState",
    "DealTarget",
    "DealerState",
    "HandState",
    "RoundState",
    "StakeState",
    "copy_round",
]


@dataclass
class StakeState:
    player: str
    base_cents: int
    double_cents: int = 0
    rescued: bool = False
    settled: bool = False  # paid while the hand plays on (a co-bettor's 21, NZ 12.2)

    @property
    def live(self) -> bool:
        return not self.rescued and not self.settled

    def frozen(self) -> Stake:
        return Stake(self.player, self.base_cents, self.double_cents, self.rescued, self.settled)


@dataclass
class HandState:
    cards: list[Card]
    stakes: list[StakeState]
    from_split: bool = False
    split_aces: bool = False
    doubles: int = 0
    cards_at_double: int = 0
    finished: bool = False  # no more decisions or cards for this hand
    settled: bool = False  # every live stake on it has a ledger entry
    end: HandEnd | None = None  # why it finished (words: controller.game.words)

    def frozen(self) -> Hand:
        return Hand(
            tuple(self.cards),
            tuple(s.frozen() for s in self.stakes),
            self.from_split,
            self.split_aces,
            self.doubles > 0,
        )

    def stake_of(self, player: str) -> StakeState | None:
        return next((s for s in self.stakes if s.player == player), None)

    @property
    def live(self) -> bool:
        return any(s.live for s in self.stakes)


@dataclass
class BoxState:
    number: int
    wagers: list[Wager]
    hands: list[HandState] = field(default_factory=list)
    surrendered: bool = False
    insurance: dict[str, int] = field(default_factory=dict)
    insurance_settled: bool = False
    surrender_settled: bool = False
    natural_paid: bool = False

    @property
    def controller(self) -> str:
        return self.wagers[0].player

    def wager_of(self, player: str) -> Wager | None:
        return next((w for w in self.wagers if w.player == player), None)

    def frozen(self) -> Box:
        return Box(
            self.number,
            tuple(self.wagers),
            tuple(h.frozen() for h in self.hands),
            self.surrendered,
            tuple(InsuranceBet(p, c) for p, c in self.insurance.items()),
        )


@dataclass
class DealerState:
    cards: list[Card] = field(default_factory=list)
    hole_revealed: bool = False

    @property
    def first(self) -> Card | None:
        return self.cards[0] if self.cards else None


class DealTarget(StrEnum):
    BOX = "box"
    DEALER = "dealer"


@dataclass
class RoundState:
    number: int
    boxes: dict[int, BoxState] = field(default_factory=dict)
    dealer: DealerState = field(default_factory=DealerState)
    deal_plan: list[tuple[DealTarget, int]] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    # Where play is: the box number and the hand index within it.
    turn: tuple[int, int] | None = None
    # The hand a card is owed to now (after hit, double, split), or None.
    card_for: tuple[int, int] | None = None
    peek_result: str | None = None  # "Y" / "N" once the reader answered
    dealer_natural: bool | None = None  # known after the peek or the dealer's second card
    voided: bool = False

    def box_numbers(self) -> list[int]:
        return sorted(self.boxes)

    def players(self) -> list[str]:
        """Every player with a wager this round, box by box in the order they bet."""
        return [w.player for n in self.box_numbers() for w in self.boxes[n].wagers]

    def hand(self, box: int, index: int) -> HandState:
        return self.boxes[box].hands[index]

    def open_hands(self, box: BoxState) -> list[int]:
        return [i for i, h in enumerate(box.hands) if not h.settled and h.live]


def _shallow(obj: _T) -> _T:
    new: _T = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def copy_round(state: RoundState) -> RoundState:
    """A copy of the round that shares nothing mutable with it (the undo snapshot).

    What ``copy.deepcopy`` gives, at a tenth of its cost: cards, wagers and ledger entries are
    frozen and shared; every list, dict and state object is new.
    """
    new = _shallow(state)
    new.boxes = {number: _copy_box(box) for number, box in state.boxes.items()}
    new.dealer = _shallow(state.dealer)
    new.dealer.cards = list(state.dealer.cards)
    new.deal_plan = list(state.deal_plan)
    new.ledger = list(state.ledger)
    return new


def _copy_box(box: BoxState) -> BoxState:
    new = _shallow(box)
    new.wagers = list(box.wagers)
    new.insurance = dict(box.insurance)
    new.hands = [_copy_hand(hand) for hand in box.hands]
    return new


def _copy_hand(hand: HandState) -> HandState:
    new = _shallow(hand)
    new.cards = list(hand.cards)
    new.stakes = [_shallow(stake) for stake in hand.stakes]
    return new


# --- the procedure's checks ---------------------------------------------------------------------


def deal_plan(rules: Variant, boxes: list[int]) -> list[tuple[DealTarget, int]]:
    """The order of the initial deal: box cards left to right, the dealer's first card, the
    second round of box cards, and the hole card where the variant has one."""
    plan = [(DealTarget.BOX, b) for b in boxes]
    plan.append((DealTarget.DEALER, 1))
    plan += [(DealTarget.BOX, b) for b in boxes]
    if rules.has_hole_card:
        plan.append((DealTarget.DEALER, 2))
    return plan


def in_variant_shoe(rules: Variant, card: Card) -> bool:
    """The card can be in the variant's shoe (a Spanish 48-card deck has no tens)."""
    return not (rules.shoe.deck is DeckType.SPANISH_48 and card.rank is Rank.TEN)


def total(rules: Variant, hand: HandState) -> int:
    fixed = 0
    if hand.doubles and rules.double.initial_aces_count_one:
        fixed = sum(1 for c in hand.cards[:2] if c.is_ace)
    return hand_value(hand.cards, fixed).total


def end_of_hand(rules: Variant, hand: HandState) -> HandEnd | None:
    """Why a hand ends by itself after its latest card, or None while it is still in play."""
    value = total(rules, hand)
    if value > 21:
        return HandEnd.BUST
    if len(hand.cards) < 2:
        return None
    if value == 21:
        if is_natural(rules, hand.cards, hand.from_split) and hand.doubles == 0:
            return HandEnd.NATURAL
        if rules.hands.twenty_one_ends_hand:
            return HandEnd.TWENTY_ONE
        # hands.twenty_one_ends_hand = false: only what ends any other hand ends this 21
    if hand.split_aces and rules.split.split_aces_one_card:
        return HandEnd.SPLIT_ACES
    if hand.doubles and rules.double.cards_after is CardsAfterDouble.ONE:
        return HandEnd.ONE_AFTER_DOUBLE
    if rules.hands.max_cards and len(hand.cards) >= rules.hands.max_cards:
        return HandEnd.CARD_LIMIT
    return None


def why_not_hit(rules: Variant, hand: HandState) -> WhyNot | None:
    if hand.finished:
        return WhyNot(Why.HAND_FINISHED)
    if len(hand.cards) < 2:
        return WhyNot(Why.SECOND_CARD_OWED)
    if hand.doubles and rules.double.cards_after is CardsAfterDouble.ONE:
        return WhyNot(Why.ONE_CARD_AFTER_DOUBLE)
    value = total(rules, hand)
    if value > 21 or (value == 21 and rules.hands.twenty_one_ends_hand):
        return WhyNot(Why.HAS_21)
    return None


def why_not_stand(rules: Variant, hand: HandState) -> WhyNot | None:
    if hand.finished:
        return WhyNot(Why.HAND_FINISHED)
    minimum = rules.hands.stand_minimum
    if minimum and total(rules, hand) < minimum and len(hand.cards) < 5:
        return WhyNot(Why.STAND_MINIMUM, number=minimum)
    return None


def why_not_double(
    rules: Variant, box: BoxState, hand: HandState, amount_cents: int | None, players: list[str]
) -> WhyNot | None:
    d = rules.double
    if not d.allowed:
        return WhyNot(Why.NO_DOUBLE, game=rules.id)
    if hand.finished:
        return WhyNot(Why.HAND_FINISHED)
    if hand.doubles >= d.times_per_hand:
        return WhyNot(Why.DOUBLE_TIMES, number=d.times_per_hand)
    n = len(hand.cards)
    if n < d.min_cards or (d.max_cards and n > d.max_cards):
        return WhyNot(Why.DOUBLE_CARDS, low=d.min_cards, high=d.max_cards or 0, number=n)
    value = total(rules, hand)
    if n > 2 and value > d.max_total_after_two:
        return WhyNot(Why.DOUBLE_TOTAL, number=d.max_total_after_two)
    if value > 21 or (value == 21 and rules.hands.twenty_one_ends_hand):
        return WhyNot(Why.HAS_21)
    if d.on_totals and value not in d.on_totals:
        return WhyNot(Why.DOUBLE_ON_TOTALS, totals=d.on_totals, number=value)
    if hand.from_split and not d.after_split:
        return WhyNot(Why.NO_DOUBLE_AFTER_SPLIT)
    if hand.split_aces and not d.on_split_aces:
        return WhyNot(Why.SPLIT_ACES_NO_DOUBLE)
    if not players:
        return WhyNot(Why.NO_PLAYER_JOINS)
    if box.controller not in players:
        return WhyNot(Why.CONTROLLER_MUST_JOIN, player=box.controller)
    for player in players:
        stake = hand.stake_of(player)
        if stake is None:
            return WhyNot(Why.NO_WAGER_ON_BOX, player=player, box=box.number)
        if amount_cents is None:
            continue
        if d.amount is DoubleAmount.ORIGINAL and amount_cents != stake.base_cents:
            return WhyNot(Why.DOUBLE_ORIGINAL_ONLY, cents=stake.base_cents)
        if amount_cents > stake.base_cents:
            return WhyNot(Why.DOUBLE_OVER_WAGER, cents=amount_cents, player=player)
        increment = rules.table.min_increment_cents
        if amount_cents < increment:
            return WhyNot(Why.DOUBLE_UNDER_INCREMENT, cents=increment)
    return None


def why_not_split(rules: Variant, box: BoxState, hand: HandState) -> WhyNot | None:
    s = rules.split
    if not s.allowed:
        return WhyNot(Why.NO_SPLIT, game=rules.id)
    if hand.finished:
        return WhyNot(Why.HAND_FINISHED)
    if len(hand.cards) != 2 or hand.doubles:
        return WhyNot(Why.SPLIT_NEEDS_PAIR)
    a, b = hand.cards
    pair = a.rank is b.rank if s.match is SplitMatch.RANK else a.points == b.points
    if not pair:
        return WhyNot(Why.NOT_A_PAIR, cards=(a, b), match=s.match.value)
    if len(box.hands) >= s.max_hands:
        return WhyNot(Why.MAX_HANDS, number=s.max_hands)
    if a.is_ace and hand.from_split and not s.resplit_aces:
        return WhyNot(Why.ACES_SPLIT_ONCE)
    return None


def why_not_rescue(rules: Variant, hand: HandState, player: str) -> WhyNot | None:
    if not rules.double.rescue:
        return WhyNot(Why.NO_RESCUE, game=rules.id)
    stake = hand.stake_of(player)
    if stake is None:
        return WhyNot(Why.NO_STAKE_ON_HAND, player=player)
    if not stake.double_cents:
        return WhyNot(Why.NOT_IN_DOUBLE, player=player)
    if stake.rescued:
        return WhyNot(Why.ALREADY_RESCUED, player=player)
    if total(rules, hand) > 21:
        return WhyNot(Why.BUST_NO_RESCUE)
    return None


def insurance_offered(rules: Variant, dealer_first: Card | None) -> bool:
    return (
        rules.insurance.allowed
        and dealer_first is not None
        and dealer_first.rank in rules.insurance.up_cards
        and rules.dealer.first_card_face_up
    )


def surrender_offered(rules: Variant, dealer_first: Card | None) -> bool:
    return (
        rules.surrender.allowed
        and dealer_first is not None
        and dealer_first.rank in rules.surrender.up_cards
    )


def why_not_insure(rules: Variant, box: BoxState, player: str, amount_cents: int) -> WhyNot | None:
    wager = box.wager_of(player)
    if wager is None:
        return WhyNot(Why.NO_WAGER_ON_BOX, player=player, box=box.number)
    if box.natural_paid and not rules.insurance.natural_boxes_may_insure:
        return WhyNot(Why.NATURAL_NO_INSURANCE)
    if (
        box.hands
        and is_natural(rules, box.hands[0].cards, False)
        and not (rules.insurance.natural_boxes_may_insure)
    ):
        return WhyNot(Why.NATURAL_NO_INSURANCE)
    if player in box.insurance:
        return WhyNot(Why.ALREADY_INSURED, player=player, box=box.number)
    limit = insurance_limit_cents(rules, wager)
    if amount_cents <= 0 or amount_cents > limit:
        return WhyNot(Why.INSURANCE_LIMIT, cents=limit)
    return None


def why_not_surrender(rules: Variant, box: BoxState) -> WhyNot | None:
    if box.surrendered:
        return WhyNot(Why.ALREADY_SURRENDERED, box=box.number)
    if box.natural_paid or (box.hands and is_natural(rules, box.hands[0].cards, False)):
        return WhyNot(Why.NATURAL_NO_SURRENDER)
    if len(box.hands) != 1 or len(box.hands[0].cards) != 2:
        return WhyNot(Why.SURRENDER_FIRST_TWO)
    return None


@dataclass
class TableStatus:
    shuffle_due: bool = False
    burn_left: int = 0
    round_number: int = 0
    holds: list[HoldReason] = field(default_factory=list)
    resume_state: State | None = None
    cards_burned: int = 0  # burn cards of new shoes and irregular cards a supervisor burned
    shoe_number: int = 1  # 1 for the shoe the table started with, +1 at each shuffle
    ended_round: int = 0  # the last round whose end was announced (a round ends once)
