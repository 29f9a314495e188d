"""Hypothesis properties of hand evaluation and settlement, over all four variants."""

from collections import defaultdict
from fractions import Fraction
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.hands import Tier, hand_value
from controller.game.rules import Variant, load_variant
from controller.game.settlement import (
    Box,
    EntryKind,
    Hand,
    InsuranceBet,
    Stake,
    Wager,
    insurance_limit_cents,
    settle_round,
)
from drivers.tbl21.cards import Card, DeckType, deck

VARIANTS = {v: load_variant(v) for v in ("nz-pontoon", "uk-pontoon", "pa-blackjack",
                                          "pontoon-blackjack")}  # fmt: skip
ALL_CARDS = deck(DeckType.STANDARD_52)


def reference_total(cards: list[Card], fixed_aces: int) -> int:
    """Brute force: try every value of every free ace; best total of 21 or less, else lowest."""
    aces = [c for c in cards if c.is_ace]
    others = sum(c.points for c in cards if not c.is_ace)
    free = len(aces) - fixed_aces
    totals = {others + fixed_aces + sum(choice) for choice in product((1, 11), repeat=max(free, 0))}
    good = [t for t in totals if t <= 21]
    return max(good) if good else min(totals)


card_lists = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=12)


@given(card_lists, st.data())
def test_hand_value_agrees_with_brute_force_over_all_ace_values(
    cards: list[Card], data: st.DataObject
) -> None:
    aces = sum(1 for c in cards if c.is_ace)
    fixed = data.draw(st.integers(0, aces))
    value = hand_value(cards, fixed)
    assert value.total == reference_total(cards, fixed)
    assert value.hard_total == sum(c.points for c in cards)
    assert value.soft == (value.total != value.hard_total)
    assert value.bust == (value.total > 21)


@st.composite
def rounds(draw: st.DrawFn) -> tuple[Variant, list[Box], list[Card]]:
    rules = draw(st.sampled_from(list(VARIANTS.values())))
    pool = deck(rules.shoe.deck)
    boxes = []
    numbers = draw(st.lists(st.integers(1, 7), min_size=1, max_size=4, unique=True))
    for number in sorted(numbers):
        players = [f"p{number}{k}" for k in range(draw(st.integers(1, rules.table.wagers_per_box)))]
        wagers = tuple(Wager(p, draw(st.integers(1, 5000))) for p in players)
        n_hands = draw(st.integers(1, rules.split.max_hands if rules.split.allowed else 1))
        hands = []
        for _ in range(n_hands):
            cards = tuple(draw(st.lists(st.sampled_from(pool), min_size=2, max_size=7)))
            doubled = rules.double.allowed and len(cards) >= 3 and draw(st.booleans())
            stakes = []
            for w in wagers:
                double = (
                    draw(st.integers(1, w.amount_cents)) if doubled and draw(st.booleans()) else 0
                )
                hand_total = hand_value(cards).total
                rescued = (
                    bool(double)
                    and rules.double.rescue
                    and hand_total <= 21
                    and draw(st.booleans())
                )
                stakes.append(Stake(w.player, w.amount_cents, double, rescued))
            hands.append(Hand(cards, tuple(stakes), from_split=n_hands > 1, doubled=doubled))
        surrendered = rules.surrender.allowed and draw(st.booleans())
        insurance = tuple(
            InsuranceBet(w.player, draw(st.integers(1, insurance_limit_cents(rules, w))))
            for w in wagers
            if rules.insurance.allowed and w.amount_cents >= 2 and draw(st.booleans())
        )
        boxes.append(Box(number, wagers, tuple(hands), surrendered, insurance))
    dealer = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=7))
    return rules, boxes, dealer


def staked(boxes: list[Box]) -> dict[tuple[int, str], int]:
    out: dict[tuple[int, str], int] = defaultdict(int)
    for box in boxes:
        for bet in box.insurance:
            out[box.number, bet.player] += bet.amount_cents
        if box.surrendered:
            for w in box.wagers:
                out[box.number, w.player] += w.amount_cents
            continue
        for hand in box.hands:
            for s in hand.stakes:
                out[box.number, s.player] += s.total_cents
    return dict(out)


@settings(max_examples=400)
@given(rounds())
def test_every_staked_cent_is_settled_exactly_once(
    round_: tuple[Variant, list[Box], list[Card]],
) -> None:
    rules, boxes, dealer = round_
    ledger = settle_round(rules, boxes, dealer)
    settled: dict[tuple[int, str], int] = defaultdict(int)
    for e in ledger.entries:
        settled[e.box, e.player] += e.stake_cents
    assert dict(settled) == staked(boxes)


@settings(max_examples=400)
@given(rounds())
def test_money_is_conserved_and_whole(round_: tuple[Variant, list[Box], list[Card]]) -> None:
    rules, boxes, dealer = round_
    ledger = settle_round(rules, boxes, dealer)
    assert ledger.house_net() == -sum(ledger.net_by_player().values())
    for e in ledger.entries:
        assert type(e.amount_cents) is int
        assert type(e.stake_cents) is int
        assert e.amount_cents >= -e.stake_cents  # nobody loses more than the stake
        if e.kind in (EntryKind.PAYOUT, EntryKind.INSURANCE_PAYOUT):
            assert e.odds is not None
            assert e.amount_cents == e.stake_cents * e.odds.numerator // e.odds.denominator


@settings(max_examples=400)
@given(rounds())
def test_a_busted_hand_is_never_paid(round_: tuple[Variant, list[Box], list[Card]]) -> None:
    rules, boxes, dealer = round_
    ledger = settle_round(rules, boxes, dealer)
    by_number = {b.number: b for b in boxes}
    for e in ledger.entries:
        if e.hand is None or e.kind not in (EntryKind.PAYOUT, EntryKind.SUPER_BONUS):
            continue
        hand = by_number[e.box].hands[e.hand - 1]
        assert hand.rank(rules).tier is not Tier.BUST


@settings(max_examples=400)
@given(rounds().filter(lambda r: r[0].id == "nz-pontoon"))
def test_a_doubled_nz_stake_never_gets_bonus_odds(
    round_: tuple[Variant, list[Box], list[Card]],
) -> None:
    rules, boxes, dealer = round_
    ledger = settle_round(rules, boxes, dealer)
    by_number = {b.number: b for b in boxes}
    for e in ledger.entries:
        if e.hand is None or e.kind not in (EntryKind.PAYOUT, EntryKind.SUPER_BONUS):
            continue
        stake = next(s for s in by_number[e.box].hands[e.hand - 1].stakes if s.player == e.player)
        if stake.double_cents:
            assert e.kind is EntryKind.PAYOUT
            assert e.odds == Fraction(1)
