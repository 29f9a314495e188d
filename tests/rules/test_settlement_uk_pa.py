"""Settlement in UK Pontoon, Pontoon Blackjack and Pennsylvania Blackjack."""

from fractions import Fraction

import pytest

from controller.game.errors import ConfigError
from controller.game.hands import Result, Tier, compare, dealer_rank, player_rank
from controller.game.rules import load_variant
from controller.game.settlement import EntryKind, settle_round, settle_surrender

from .helpers import cards, one_hand_box

UK = load_variant("uk-pontoon")
PB = load_variant("pontoon-blackjack")
PA = load_variant("pa-blackjack")


def test_uk_tie_at_19_loses_to_the_dealer() -> None:
    ledger = settle_round(UK, [one_hand_box("KH 9D")], cards("QC 9S"))
    assert ledger.net_by_player() == {"ann": -1000}


def test_uk_five_card_trick_beats_a_three_card_dealer_21_and_pays_two_to_one() -> None:
    ledger = settle_round(UK, [one_hand_box("2C 3D 4H 5S 2D")], cards("KC 5S 6D"))
    [entry] = ledger.entries
    assert (entry.amount_cents, entry.odds, entry.reason) == (2000, Fraction(2), "five-card trick")


def test_uk_player_pontoon_loses_to_a_dealer_pontoon() -> None:
    ledger = settle_round(UK, [one_hand_box("AS KH")], cards("AC QD"))
    assert ledger.net_by_player() == {"ann": -1000}


def test_uk_pontoon_pays_two_to_one() -> None:
    ledger = settle_round(UK, [one_hand_box("AS KH")], cards("9C QD"))
    assert ledger.net_by_player() == {"ann": 2000}


def test_uk_dealer_five_card_trick_beats_a_player_21_of_three_cards() -> None:
    player = player_rank(UK, cards("7H 7C 7D"), from_split=False)
    dealer = dealer_rank(UK, cards("2C 3D 4H 5S 3C"))
    assert (dealer.tier, compare(UK, player, dealer)) == (Tier.FIVE_CARD_TRICK, Result.LOSE)


def test_uk_ace_and_ten_after_splitting_aces_is_pontoon() -> None:
    assert player_rank(UK, cards("AS KH"), from_split=True).tier is Tier.NATURAL


def test_pontoon_blackjack_dealer_wins_ties_and_trick_pays_two_to_one() -> None:
    assert settle_round(PB, [one_hand_box("KH 8D")], cards("QC 8S")).net_by_player() == {
        "ann": -1000
    }
    assert settle_round(PB, [one_hand_box("2C 3D 4H 5S 2D")], cards("QC 8S")).net_by_player() == {
        "ann": 2000
    }


def test_pa_blackjack_pays_three_to_two() -> None:
    ledger = settle_round(PA, [one_hand_box("AS KH")], cards("9C 8D"))
    [entry] = ledger.entries
    assert (entry.kind, entry.amount_cents, entry.odds) == (EntryKind.PAYOUT, 1500, Fraction(3, 2))


def test_pa_blackjack_against_dealer_blackjack_is_a_push() -> None:
    assert settle_round(PA, [one_hand_box("AS KH")], cards("AC QD")).net_by_player() == {"ann": 0}


def test_pa_ace_and_ten_after_a_split_is_21_not_blackjack() -> None:
    assert player_rank(PA, cards("AS KH"), from_split=True).tier is Tier.TOTAL


def test_pa_surrender_against_a_six_loses_half_at_once() -> None:
    box = one_hand_box("TH 6D", surrendered=True)
    [entry] = settle_surrender(PA, box, dealer_natural=False)
    assert (entry.kind, entry.amount_cents) == (EntryKind.SURRENDER, -500)


def test_pa_surrender_against_an_ace_with_reader_blackjack_loses_the_whole_wager() -> None:
    box = one_hand_box("TH 6D", surrendered=True)
    [entry] = settle_surrender(PA, box, dealer_natural=True)
    assert (entry.kind, entry.amount_cents) == (EntryKind.COLLECT, -1000)


def test_pa_surrender_of_an_odd_wager_returns_half_rounded_down() -> None:
    box = one_hand_box("TH 6D", cents=1001, surrendered=True)
    [entry] = settle_surrender(PA, box, dealer_natural=False)
    assert entry.amount_cents == -501


def test_pa_dealer_blackjack_takes_every_stake_with_no_original_only_rule() -> None:
    ledger = settle_round(PA, [one_hand_box("TH 9D")], cards("AC KD"))
    assert ledger.net_by_player() == {"ann": -1000}


PA_HALF_UP = load_variant("pa-blackjack", {"payouts.rounding": "half-up"})


def test_a_blackjack_on_an_odd_wager_is_paid_rounded_down_by_default() -> None:
    ledger = settle_round(PA, [one_hand_box("AS KH", cents=1001)], cards("9C 8D"))
    assert [e.amount_cents for e in ledger.entries] == [1501]  # 1501.5


def test_half_up_rounding_pays_the_half_cent_of_a_blackjack_to_the_player() -> None:
    ledger = settle_round(PA_HALF_UP, [one_hand_box("AS KH", cents=1001)], cards("9C 8D"))
    assert [e.amount_cents for e in ledger.entries] == [1502]


def test_half_up_rounding_returns_the_larger_half_of_an_odd_surrendered_wager() -> None:
    box = one_hand_box("TH 6D", cents=1001, surrendered=True)
    [entry] = settle_surrender(PA_HALF_UP, box, dealer_natural=False)
    assert entry.amount_cents == -500


def test_an_unknown_rounding_is_refused_naming_what_is_allowed() -> None:
    with pytest.raises(ConfigError) as refused:
        load_variant("pa-blackjack", {"payouts.rounding": "nearest"})
    message = str(refused.value)
    assert "payouts.rounding" in message
    assert "half-up" in message
