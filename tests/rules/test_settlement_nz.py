"""NZ Pontoon settlement: every worked example of the foundation issue, $10 wagers unless said."""

from fractions import Fraction

import pytest

from controller.game.rules import BonusHand, load_variant
from controller.game.settlement import (
    Box,
    EntryKind,
    Hand,
    InsuranceBet,
    Stake,
    Wager,
    settle_natural,
    settle_rescue,
    settle_round,
    settle_twenty_one,
)

from .helpers import cards, one_hand_box

NZ = load_variant("nz-pontoon")
DEALER_BUSTS = cards("9C 5D KS")  # a dealer hand that settles nothing by itself


def test_pontoon_is_paid_three_to_two_at_once() -> None:
    entries = settle_natural(NZ, one_hand_box("AS KH"), 0)
    assert [(e.kind, e.amount_cents, e.odds) for e in entries] == [
        (EntryKind.PAYOUT, 1500, Fraction(3, 2))
    ]


def test_three_card_21_without_a_bonus_row_pays_even_money_at_once() -> None:
    [entry] = settle_twenty_one(NZ, one_hand_box("7D 4C KH"), 0)
    assert (entry.amount_cents, entry.odds) == (1000, Fraction(1))


@pytest.mark.parametrize(
    ("hand", "paid", "reason"),
    [
        ("2C 3D 4H 5S 7C", 1500, "5 cards totalling 21"),
        ("2C 2D 3H 3S 4C 7D", 2000, "6 cards totalling 21"),
        ("AC 2D 2H 3S 3C 4D 6H", 3000, "7 or more cards totalling 21"),
        ("6H 7C 8D", 1500, "6-7-8 mixed suits"),
        ("6H 7H 8H", 2000, "6-7-8 same suit"),
        ("6S 7S 8S", 3000, "6-7-8 all spades"),
        ("7H 7C 7D", 1500, "7-7-7 mixed suits"),
        ("7D 7D 7D", 2000, "7-7-7 same suit"),
        ("7S 7S 7S", 3000, "7-7-7 all spades"),
    ],
)
def test_every_row_of_the_nz_odds_table_pays_its_odds(hand: str, paid: int, reason: str) -> None:
    [entry] = settle_twenty_one(NZ, one_hand_box(hand), 0)
    assert (entry.amount_cents, entry.reason) == (paid, reason)


def test_the_odds_table_has_every_row_of_rule_11_1() -> None:
    assert {row.hand for row in NZ.payouts.bonus} == set(BonusHand)


def test_a_hand_in_two_rows_gets_the_better_one() -> None:
    # 6-7-8 spades is also a three-card 21: it gets the 3:1 row, not even money.
    [entry] = settle_twenty_one(NZ, one_hand_box("8S 6S 7S"), 0)
    assert entry.odds == Fraction(3)


def _super_bonus_round(cents: int) -> dict[str, int]:
    winner = one_hand_box("7H 7H 7H", cents=cents)
    other = one_hand_box("KD 9C", box=3, player="bob")
    ledger = settle_round(NZ, [winner, other], cards("7C KS 5D"))
    kinds = {(e.player, e.kind): e.amount_cents for e in ledger.entries}
    return {
        "odds": kinds[("ann", EntryKind.PAYOUT)],
        "super": kinds[("ann", EntryKind.SUPER_BONUS)],
        "bob_bonus": kinds[("bob", EntryKind.TABLE_BONUS)],
        "ann_table_bonus": kinds.get(("ann", EntryKind.TABLE_BONUS), 0),
    }


def test_suited_777_against_a_dealer_7_wins_1000_on_top_of_two_to_one() -> None:
    assert _super_bonus_round(1000) == {
        "odds": 2000, "super": 100000, "bob_bonus": 5000, "ann_table_bonus": 0
    }  # fmt: skip


def test_suited_777_at_25_dollars_wins_5000() -> None:
    assert _super_bonus_round(2500) == {
        "odds": 5000, "super": 500000, "bob_bonus": 5000, "ann_table_bonus": 0
    }  # fmt: skip


def test_super_bonus_is_not_paid_at_once_but_with_the_round() -> None:
    # rule 9.2 excepts it: settle_round pays it only after the dealer's hand (last entries).
    ledger = settle_round(NZ, [one_hand_box("7H 7H 7H")], cards("7C KS 5D"))
    assert [e.kind for e in ledger.entries] == [EntryKind.PAYOUT, EntryKind.SUPER_BONUS]


def test_losing_and_forfeited_wagers_also_get_the_50_dollar_bonus() -> None:
    winner = one_hand_box("7H 7H 7H")
    loser = one_hand_box("KD 5C 9S", box=2, player="cat")
    surrendered = one_hand_box("KC 6C", box=4, player="dan", surrendered=True)
    ledger = settle_round(NZ, [winner, loser, surrendered], cards("7C KS 5D"))
    net = ledger.net_by_player()
    assert net["cat"] == -1000 + 5000
    assert net["dan"] == -500 + 5000


def test_doubled_678_spades_is_paid_even_money_with_no_bonus() -> None:
    [entry] = settle_twenty_one(NZ, one_hand_box("6S 7S 8S", double=1000), 0)
    assert (entry.amount_cents, entry.odds) == (2000, Fraction(1))


def test_doubled_hand_against_dealer_pontoon_loses_the_original_only() -> None:
    box = one_hand_box("5H 6D 9C", double=1000)
    ledger = settle_round(NZ, [box], cards("AS KD"))
    assert ledger.net_by_player() == {"ann": -1000}
    assert {e.kind for e in ledger.entries} == {EntryKind.COLLECT, EntryKind.RETURN}


def test_rescue_returns_the_double_and_forfeits_the_original() -> None:
    box = one_hand_box("5H 4D 2C", double=1000, rescued=True)
    [entry] = settle_rescue(NZ, box, 0, "ann")
    assert (entry.kind, entry.amount_cents, entry.stake_cents) == (EntryKind.RESCUE, -1000, 2000)
    assert settle_round(NZ, [box], DEALER_BUSTS).net_by_player() == {"ann": -1000}


def test_rescue_of_a_double_for_less_still_forfeits_the_whole_original() -> None:
    box = one_hand_box("5H 4D 2C", double=400, rescued=True)
    assert settle_round(NZ, [box], DEALER_BUSTS).net_by_player() == {"ann": -1000}


def test_insurance_wins_two_to_one_while_the_main_hand_loses_to_the_pontoon() -> None:
    box = one_hand_box("KH 9D", insurance=500)
    ledger = settle_round(NZ, [box], cards("AC KS"))
    by_kind = {e.kind: e.amount_cents for e in ledger.entries}
    assert by_kind == {EntryKind.INSURANCE_PAYOUT: 1000, EntryKind.COLLECT: -1000}


def test_surrender_against_a_king_without_dealer_pontoon_loses_half() -> None:
    box = one_hand_box("KH 6D", surrendered=True)
    assert settle_round(NZ, [box], cards("KC 6S 5D")).net_by_player() == {"ann": -500}


def test_surrender_is_void_on_a_dealer_pontoon() -> None:
    box = one_hand_box("KH 6D", surrendered=True)
    assert settle_round(NZ, [box], cards("QC AS")).net_by_player() == {"ann": -1000}


def test_split_aces_make_a_plain_21_paid_even_money_and_a_16_that_stands() -> None:
    first = Hand(cards("AS KH"), (Stake("ann", 1000),), from_split=True, split_aces=True)
    second = Hand(cards("AD 5C"), (Stake("ann", 1000),), from_split=True, split_aces=True)
    box = Box(1, (Wager("ann", 1000),), (first, second))
    [paid] = settle_twenty_one(NZ, box, 0)
    assert (paid.amount_cents, paid.odds, paid.reason) == (1000, Fraction(1), "win")
    assert second.total(NZ) == 16
    ledger = settle_round(NZ, [box], cards("9C 8D"))  # dealer 17 beats the 16
    assert [(e.hand, e.amount_cents) for e in ledger.entries] == [(1, 1000), (2, -1000)]


def test_co_bettor_who_did_not_double_keeps_the_five_card_bonus() -> None:
    hand = Hand(
        cards("2C 3D 4H 5S 7C"),
        (Stake("ann", 1000, 1000), Stake("bob", 500)),
        doubled=True,
    )
    box = Box(1, (Wager("ann", 1000), Wager("bob", 500)), (hand,))
    entries = settle_twenty_one(NZ, box, 0)
    assert {e.player: (e.amount_cents, e.odds) for e in entries} == {
        "ann": (2000, Fraction(1)),
        "bob": (750, Fraction(3, 2)),
    }


def test_nz_doubled_hand_counts_an_initial_ace_as_one() -> None:
    # A-5 doubled receives a 5: with rule 12.2 that is 11, not 21.
    box = one_hand_box("AH 5D 5C", double=1000)
    assert box.hands[0].total(NZ) == 11


def test_player_21_wins_even_against_a_dealer_21() -> None:
    box = one_hand_box("7H 7C 7D")  # a super-bonus-shaped hand with no dealer 7 is paid at once
    ledger = settle_round(NZ, [box], cards("KC 5S 6D"))
    assert ledger.net_by_player() == {"ann": 1500}


def test_dealer_pontoon_against_split_hands_takes_one_original_wager() -> None:
    first = Hand(cards("8S 2D KC"), (Stake("ann", 1000, 1000),), from_split=True, doubled=True)
    second = Hand(cards("8H 9C"), (Stake("ann", 1000),), from_split=True)
    box = Box(1, (Wager("ann", 1000),), (first, second))
    ledger = settle_round(NZ, [box], cards("AC QD"))
    assert ledger.net_by_player() == {"ann": -1000}
    assert sum(e.stake_cents for e in ledger.entries) == 3000


def test_a_bust_split_hand_already_lost_the_original_before_a_dealer_pontoon() -> None:
    first = Hand(cards("8S 5D KC"), (Stake("ann", 1000),), from_split=True)
    second = Hand(cards("8H 9C"), (Stake("ann", 1000),), from_split=True)
    box = Box(1, (Wager("ann", 1000),), (first, second))
    ledger = settle_round(NZ, [box], cards("AC QD"))
    assert ledger.net_by_player() == {"ann": -1000}


def _a5_doubled_by_ann_alone() -> Box:
    # Issue 13: A-5 doubled by the box controller alone, third card 5.
    hand = Hand(cards("AH 5D 5C"), (Stake("ann", 1000, 1000), Stake("bob", 500)), doubled=True)
    return Box(1, (Wager("ann", 1000), Wager("bob", 500)), (hand,))


def test_rule_12_2_binds_only_the_doubler_a_co_bettor_values_the_ace_normally() -> None:
    box = _a5_doubled_by_ann_alone()
    [hand] = box.hands
    ann, bob = hand.stakes
    assert (hand.total(NZ, ann), hand.total(NZ, bob)) == (11, 21)
    assert hand.total(NZ) == 11  # the controller decides the hand: 11


def test_a_co_bettor_21_on_a_hand_doubled_to_11_is_paid_at_once_at_even_money() -> None:
    box = _a5_doubled_by_ann_alone()
    [paid] = settle_twenty_one(NZ, box, 0)
    assert (paid.player, paid.amount_cents, paid.odds) == ("bob", 500, Fraction(1))
    # The whole round: bob's 21 paid before anything else, ann's doubled 11 loses to a 17.
    ledger = settle_round(NZ, [box], cards("9C 8D"))
    assert [(e.player, e.kind, e.amount_cents) for e in ledger.entries] == [
        ("bob", EntryKind.PAYOUT, 500),
        ("ann", EntryKind.COLLECT, -2000),
    ]


def test_a_co_bettor_who_did_not_double_wins_a_showdown_the_doubler_loses() -> None:
    # A-2 doubled by ann alone, third card 5: 8 for ann, soft 18 for bob, dealer 17.
    hand = Hand(cards("AH 2D 5C"), (Stake("ann", 1000, 1000), Stake("bob", 500)), doubled=True)
    box = Box(1, (Wager("ann", 1000), Wager("bob", 500)), (hand,))
    ledger = settle_round(NZ, [box], cards("9C 8D"))
    assert ledger.net_by_player() == {"ann": -2000, "bob": 500}


def test_surrenders_settle_at_the_completion_of_the_dealer_hand_in_box_order() -> None:
    # NZ 9.5: box 1 surrendered, box 2 stood on 19; the surrender settles with the showdown,
    # after the insurance that settled on the dealer's second card (10.6).
    first = one_hand_box("KH 6D", surrendered=True)
    second = Box(2, (Wager("bob", 1000),), (Hand(cards("QH 9D"), (Stake("bob", 1000),)),))
    insured = Box(
        3, (Wager("cat", 1000),), (Hand(cards("JH 7D"), (Stake("cat", 1000),)),), False,
        (InsuranceBet("cat", 500),),
    )  # fmt: skip
    ledger = settle_round(NZ, [first, second, insured], cards("AC 6S KD"))
    assert [(e.box, e.kind) for e in ledger.entries] == [
        (3, EntryKind.INSURANCE_COLLECT),
        (1, EntryKind.SURRENDER),
        (2, EntryKind.PAYOUT),
        (3, EntryKind.PUSH),
    ]
    assert ledger.net_by_player() == {"ann": -500, "bob": 1000, "cat": -500}
