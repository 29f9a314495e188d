"""Advantage-play statistics (issue 24, point 3): the counts from the shoe's actual cards, the
bet-count correlation and its flag, the index plays; the flag's false-positive rate over basic
strategy players' sessions and its power on a counter's, played by the round controller."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from controller.floor.advantage import (
    FLAG_STATISTIC,
    FLAG_Z,
    INDICES,
    MIN_ROUNDS,
    BoxRound,
    Count,
    ShoeCount,
    correlation_z,
    evidence,
    hand_key,
    index_for,
    ranks,
    spearman,
)
from controller.floor.surveillance import mean_bet_words
from drivers.tbl21.cards import DeckType, shoe_cards
from tests.floor.advantage_sim import counter, flat, play_sessions, random_bets


def _codes(deck: DeckType, decks: int, seed: int) -> list[str]:
    cards = [str(c) for c in shoe_cards(deck, decks)]
    random.Random(seed).shuffle(cards)
    return cards


def test_hi_lo_of_a_whole_52_card_shoe_comes_back_to_zero() -> None:
    shoe = ShoeCount(6, 52)
    for card in _codes(DeckType("52"), 6, 1):
        shoe.dealt(card)
    assert shoe.running == 0
    assert shoe.left == 0


def test_the_spanish_deck_count_is_balanced_where_hi_lo_drifts_up_four_a_deck() -> None:
    shoe = ShoeCount(6, 48)
    one_deck = [str(c) for c in shoe_cards(DeckType("48"), 1)]
    for card in one_deck * 3:  # three decks dealt in the deck's own mix
        shoe.dealt(card)
    count = shoe.now()
    assert count.running == 12  # Hi-Lo: +4 a Spanish deck
    assert count.hi_lo_true == 4  # 12 over the 3 decks left
    assert count.true == 0  # the fitting count: nothing in anyone's favour
    assert shoe.count_name == "Hi-Lo balanced for the Spanish 48-card deck"


def test_the_true_count_is_the_running_count_over_the_decks_not_yet_dealt() -> None:
    shoe = ShoeCount(6, 52)
    for card in ["2C", "3D", "4H", "5S", "6C"] * 2 + ["7C"] * 42:  # +10 in one deck dealt
        shoe.dealt(card)
    count = shoe.now()
    assert (count.running, count.left) == (10, 260)
    assert count.true == Fraction(2)  # 10 / 5 decks left, exactly


def test_a_burn_card_leaves_the_shoe_uncounted() -> None:
    shoe = ShoeCount(1, 52)
    shoe.dealt("5C", seen=False)
    assert (shoe.running, shoe.counted, shoe.left) == (0, 0, 51)


def test_a_shuffle_starts_the_count_again() -> None:
    shoe = ShoeCount(1, 52)
    shoe.dealt("5C")
    shoe.shuffle()
    assert (shoe.running, shoe.left) == (0, 52)


def test_ranks_share_their_mean_rank_when_tied() -> None:
    assert ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_spearman_is_one_for_any_rising_relation_and_zero_for_a_flat_bettor() -> None:
    assert spearman([1, 2, 3, 4], [1, 4, 9, 100]) == pytest.approx(1.0)
    assert spearman([4, 3, 2, 1], [1, 2, 3, 4]) == pytest.approx(-1.0)
    assert spearman([5, 5, 5, 5], [1, 2, 3, 4]) == 0.0


def test_the_z_is_rho_times_the_root_of_n_less_one() -> None:
    rho, z = correlation_z([1, 2, 3, 4, 5], [Fraction(n) for n in (1, 2, 3, 5, 4)])
    assert rho == pytest.approx(0.9)
    assert z == pytest.approx(0.9 * 2)


def test_hands_are_keyed_by_hard_total_or_as_a_ten_pair() -> None:
    assert hand_key(["TH", "6S"]) == ("16", False)
    assert hand_key(["KH", "QS"]) == ("TT", False)
    assert hand_key(["AH", "5S"]) == ("16", True)
    assert hand_key(["AH", "5S", "KD"]) == ("16", False)


def test_a_play_matches_an_index_by_hand_up_card_and_action() -> None:
    found = index_for(["TH", "6S"], "QD", "stand")
    assert found is not None
    assert found.name == "16 v T: stand at 0"
    assert index_for(["TH", "6S"], "QD", "hit") is None  # the chart's play
    assert index_for(["AH", "5S"], "QD", "stand") is None  # a soft 16 is no index hand
    assert index_for(["TH", "6S"], None, "stand") is None  # no up card: no index applies
    insured = index_for(["TH", "6S"], "AS", "insurance")
    assert insured is not None
    assert insured.at == 3


def test_an_index_is_past_at_or_beyond_its_number_in_its_direction() -> None:
    stand16 = next(i for i in INDICES if i.name == "16 v T: stand at 0")
    hit12 = next(i for i in INDICES if i.name == "12 v 4: hit below 0")
    assert stand16.past(Fraction(0))
    assert not stand16.past(Fraction(-1, 3))
    assert hit12.past(Fraction(-1))
    assert not hit12.past(Fraction(-1, 2))


def _rounds(pairs: list[tuple[int, int]]) -> list[BoxRound]:
    out = []
    for n, (true, cents) in enumerate(pairs, 1):
        count = Count(true, Fraction(true), Fraction(true), 0, 312)
        out.append(BoxRound("t", n, 1, "ann", cents, count, session="s"))
    return out


def test_a_bettor_who_raises_with_the_count_is_flagged_with_the_statistic_named() -> None:
    pairs = [(tc, 1_000 * max(1, min(8, 1 + 2 * tc))) for tc in [-2, -1, 0, 1, 2, 3, 4] * 4]
    found = evidence("s", _rounds(pairs))
    assert found is not None
    assert found.flagged
    assert found.z >= FLAG_Z
    assert found.spread == 8
    assert found.mean_bet_high_cents > found.mean_bet_low_cents
    assert FLAG_STATISTIC in found.why
    assert "at or above the threshold 3.09" in found.why


def test_too_few_rounds_are_never_flagged_however_they_correlate() -> None:
    pairs = [(tc, 1_000 * (tc + 3)) for tc in range(-2, -2 + MIN_ROUNDS - 1)]
    found = evidence("s", _rounds(pairs))
    assert found is not None
    assert found.rho == pytest.approx(1.0)
    assert not found.flagged
    assert "too few to judge" in found.why


def test_a_flat_bettor_is_never_flagged() -> None:
    found = evidence("s", _rounds([(tc % 7 - 3, 1_000) for tc in range(200)]))
    assert found is not None
    assert (found.rho, found.flagged) == (0.0, False)


@pytest.mark.parametrize("variant", ["pa-blackjack", "nz-pontoon"])
def test_a_simulated_counter_is_flagged_in_most_sessions(variant: str) -> None:
    played = play_sessions(variant, counter, 30, seed=11, rounds=(40, 120))
    flagged = [e for s in played if (e := evidence(s[0].session or "", s)) and e.flagged]
    assert len(flagged) >= 0.8 * len(played)


@pytest.mark.slow
def test_basic_strategy_players_false_positive_rate_over_1200_sessions() -> None:
    """1,000 sessions of basic strategy with random bets (1-8 units, whatever the count) and
    200 with flat bets, 20-80 rounds each, on pa-blackjack and nz-pontoon: the flag (the
    bet-count correlation z at or above 3.09, one-sided p = 0.001) fires on at most 0.5 %."""
    judged = []
    for variant, seed in (("pa-blackjack", 101), ("nz-pontoon", 202)):
        for betting, sessions in ((random_bets, 500), (flat, 100)):
            for played in play_sessions(variant, betting, sessions, seed, rounds=(20, 80)):
                found = evidence(played[0].session or "", played)
                assert found is not None
                judged.append(found)
    assert len(judged) == 1_200
    flagged = sum(e.flagged for e in judged)
    rate = flagged / len(judged)
    print(f"false positives: {flagged} of {len(judged)} sessions ({rate:.2%})")
    assert rate <= 0.005
    assert not any(e.flagged for e in judged if e.rho == 0.0)  # flat bettors: never


def test_a_true_count_near_minus_9_at_a_spanish_shoe_s_end_is_the_remaining_cards_own() -> None:
    """nz-pontoon showed a true count of -9.28 near a shoe's end. It is right, not a fault of
    the Spanish deck's drift correction: with 2 decks left (the cut card leaves 1.5), the
    balanced count equals the remaining cards' own Hi-Lo excess over their deck's mix per deck,
    worked out here from the remaining cards alone (no drift term), and a remaining shoe rich in
    low cards reads that low."""
    full = [str(c) for c in shoe_cards(DeckType("48"), 6)]  # 288 cards
    low = [c for c in full if c[0] in "23456"]
    high = [c for c in full if c[0] in "JQKA"]
    neutral = [c for c in full if c[0] in "789"]
    remaining = low[:60] + high[:33] + neutral[:3]  # 96 cards, Hi-Lo +27 (the mix gives +8)
    dealt = low[60:] + high[33:] + neutral[3:]
    shoe = ShoeCount(6, 48)
    for card in dealt:
        shoe.dealt(card)
    count = shoe.now()
    assert count.left == 96
    left_hi_lo = sum(1 if c[0] in "23456" else -1 if c[0] in "JQKA" else 0 for c in remaining)
    own = (Fraction(4, 48) * len(remaining) - left_hi_lo) / Fraction(len(remaining), 48)
    assert count.true == own == Fraction(-19, 2)
    assert count.running == -27 + 24  # Hi-Lo alone: -3 over 2 decks, -1.5, which misreads it
    assert count.hi_lo_true == Fraction(-3, 2)


def test_a_session_that_never_saw_plus_2_has_no_mean_bet_there_rather_than_0() -> None:
    found = evidence("s", _rounds([(-1, 500), (0, 500), (1, 1_500)] * 8))
    assert found is not None
    assert (found.rounds_low, found.rounds_high) == (16, 0)
    assert mean_bet_words(found) == "$5 below +1 (16 rounds), no round at +2 or more"
    both = evidence("s", _rounds([(0, 500), (3, 2_000)]))
    assert both is not None
    assert mean_bet_words(both) == "$5 below +1 (1 round), $20 at +2 or more (1 round)"
    assert both.as_json()["rounds_at_plus_2_or_more"] == 1
