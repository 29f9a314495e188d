"""The data of one round and the procedure's checks on it.

Plain mutable dataclasses owned by the round controller (nothing else writes them), and pure
checks that say whether a decision is allowed now and, if not, why. The checks return a reason
string (``None`` when allowed) so that every refusal names the rule that refused it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from controller.game.hands import hand_value, is_natural
from controller.game.holds import HoldReason
from controller.game.prompts import money
from controller.game.rules import CardsAfterDouble, DoubleAmount, SplitMatch, Variant
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
    end_reason: str = ""

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


DECK_WORDS = {
    DeckType.STANDARD_52: "standard 52-card decks",
    DeckType.SPANISH_48: "Spanish 48-card decks, no tens",
}


def deck_words(rules: Variant) -> str:
    return DECK_WORDS[rules.shoe.deck]


def count_words(decks: int) -> str:
    """How many of each card a shoe of ``decks`` holds: '6 decks: 6 of each card'."""
    return f"{decks} deck{'s' if decks > 1 else ''}: {decks} of each card"


def total(rules: Variant, hand: HandState) -> int:
    fixed = 0
    if hand.doubles and rules.double.initial_aces_count_one:
        fixed = sum(1 for c in hand.cards[:2] if c.is_ace)
    return hand_value(hand.cards, fixed).total


def end_of_hand(rules: Variant, hand: HandState) -> str | None:
    """Why a hand ends by itself after its latest card, or None while it is still in play."""
    value = total(rules, hand)
    if value > 21:
        return "bust"
    if len(hand.cards) < 2:
        return None
    if value == 21:
        if is_natural(rules, hand.cards, hand.from_split) and hand.doubles == 0:
            return "natural"
        return "21"
    if hand.split_aces and rules.split.split_aces_one_card:
        return "split aces take one card"
    if hand.doubles and rules.double.cards_after is CardsAfterDouble.ONE:
        return "one card after a double"
    if rules.hands.max_cards and len(hand.cards) >= rules.hands.max_cards:
        return f"{rules.hands.max_cards} cards"
    return None


def why_not_hit(rules: Variant, hand: HandState) -> str | None:
    if hand.finished:
        return "that hand has finished"
    if len(hand.cards) < 2:
        return "the hand is still owed its second card"
    if hand.doubles and rules.double.cards_after is CardsAfterDouble.ONE:
        return "only one card after a double"
    if total(rules, hand) >= 21:
        return "the hand already has 21"
    return None


def why_not_stand(rules: Variant, hand: HandState) -> str | None:
    if hand.finished:
        return "that hand has finished"
    minimum = rules.hands.stand_minimum
    if minimum and total(rules, hand) < minimum and len(hand.cards) < 5:
        return f"stand needs {minimum} or five cards"
    return None


def why_not_double(
    rules: Variant, box: BoxState, hand: HandState, amount_cents: int | None, players: list[str]
) -> str | None:
    d = rules.double
    if not d.allowed:
        return f"{rules.id} has no double down"
    if hand.finished:
        return "that hand has finished"
    if hand.doubles >= d.times_per_hand:
        return "a hand may be doubled " + (
            "once only" if d.times_per_hand == 1 else f"{d.times_per_hand} times only"
        )
    n = len(hand.cards)
    if n < d.min_cards or (d.max_cards and n > d.max_cards):
        allowed = f"{d.min_cards}-{d.max_cards}" if d.max_cards else f"{d.min_cards} or more"
        return f"double needs {allowed} cards, the hand has {n}"
    value = total(rules, hand)
    if n > 2 and value > d.max_total_after_two:
        return f"double on three or more cards needs a total of {d.max_total_after_two} or less"
    if value >= 21:
        return "the hand already has 21"
    if hand.from_split and not d.after_split:
        return "no double after a split"
    if hand.split_aces and not d.on_split_aces:
        return "split aces cannot be doubled"
    if not players:
        return "no player joins the double"
    if box.controller not in players:
        return f"the box controller {box.controller!r} decides the double and must join it"
    for player in players:
        stake = hand.stake_of(player)
        if stake is None:
            return f"{player!r} has no wager on box {box.number}"
        if amount_cents is None:
            continue
        if d.amount is DoubleAmount.ORIGINAL and amount_cents != stake.base_cents:
            return f"double is for the original wager ({money(stake.base_cents)}) only"
        if amount_cents > stake.base_cents:
            return f"double of {money(amount_cents)} is more than {player!r}'s wager"
        increment = rules.table.min_increment_cents
        if amount_cents < increment:
            return f"double must be at least the table increment ({money(increment)})"
    return None


def why_not_split(rules: Variant, box: BoxState, hand: HandState) -> str | None:
    s = rules.split
    if not s.allowed:
        return f"{rules.id} has no split"
    if hand.finished:
        return "that hand has finished"
    if len(hand.cards) != 2 or hand.doubles:
        return "split needs a pair as the hand's only two cards"
    a, b = hand.cards
    pair = a.rank is b.rank if s.match is SplitMatch.RANK else a.points == b.points
    if not pair:
        return f"{a} and {b} are not a pair ({s.match.value} must match)"
    if len(box.hands) >= s.max_hands:
        return f"at most {s.max_hands} hands per box"
    if a.is_ace and hand.from_split and not s.resplit_aces:
        return "aces may be split only once"
    return None


def why_not_rescue(rules: Variant, hand: HandState, player: str) -> str | None:
    if not rules.double.rescue:
        return f"{rules.id} has no double-down rescue"
    stake = hand.stake_of(player)
    if stake is None:
        return f"{player!r} has no stake on this hand"
    if not stake.double_cents:
        return f"{player!r} did not join the double"
    if stake.rescued:
        return f"{player!r} has already rescued"
    if total(rules, hand) > 21:
        return "a bust hand cannot be rescued"
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


def why_not_insure(rules: Variant, box: BoxState, player: str, amount_cents: int) -> str | None:
    wager = box.wager_of(player)
    if wager is None:
        return f"{player!r} has no wager on box {box.number}"
    if box.natural_paid and not rules.insurance.natural_boxes_may_insure:
        return "a box with a natural cannot take insurance"
    if (
        box.hands
        and is_natural(rules, box.hands[0].cards, False)
        and not (rules.insurance.natural_boxes_may_insure)
    ):
        return "a box with a natural cannot take insurance"
    if player in box.insurance:
        return f"{player!r} has already insured box {box.number}"
    limit = insurance_limit_cents(rules, wager)
    if amount_cents <= 0 or amount_cents > limit:
        return f"insurance must be more than $0 and at most {money(limit)} (half the wager)"
    return None


def why_not_surrender(rules: Variant, box: BoxState) -> str | None:
    if box.surrendered:
        return f"box {box.number} has already surrendered"
    if box.natural_paid or (box.hands and is_natural(rules, box.hands[0].cards, False)):
        return "a box with a natural cannot surrender"
    if len(box.hands) != 1 or len(box.hands[0].cards) != 2:
        return "surrender is decided on the first two cards"
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
