"""PA Blackjack, UK Pontoon and Pontoon Blackjack rounds through the round controller."""

import pytest

from controller.game.rules import load_variant
from controller.round.controller import RoundController
from controller.round.errors import ActionRefused
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card

from .driver import bet, codes, decide, net, play

BURN = "2C "


def test_pa_surrender_is_offered_before_the_peek_and_settled_right_after_it() -> None:
    # box 1: T 6; dealer up A, hole 9 (no blackjack) -> insurance window, surrender, peek N
    _, [rec], rejected = play(
        "pa-blackjack",
        BURN + "TH AC 6D 9S",
        ([bet(1, "ann", 10)], [decide("surrender", box=1)]),
    )
    assert rejected == []
    sequence = codes(rec)
    assert sequence.index("OFFER_INSURANCE") < sequence.index("OFFER_SURRENDER")
    assert sequence.index("OFFER_SURRENDER") < sequence.index("PEEK")
    assert sequence.index("PEEK") < sequence.index("COLLECT")
    assert net(rec) == {"ann": -500}


def test_pa_dealer_blackjack_ends_the_round_after_the_peek() -> None:
    _, [rec], rejected = play(
        "pa-blackjack",
        BURN + "TH 9C AC 6D 8S KS",
        ([bet(1, "ann", 10), bet(2, "bob", 10)], [decide("hit", box=1)]),
    )
    assert "PEEK" in codes(rec)
    assert "PLAYER_TURN" not in codes(rec)
    assert net(rec) == {"ann": -1000, "bob": -1000}
    assert [r.reason for r in rejected] == ["the round ended before this decision"]


def test_pa_dealer_blackjack_with_surrender_takes_the_whole_wager() -> None:
    _, [rec], rejected = play(
        "pa-blackjack",
        BURN + "TH AC 6D KS",
        ([bet(1, "ann", 10)], [decide("surrender", box=1)]),
    )
    assert rejected == []
    assert "PLAYER_TURN" not in codes(rec)
    assert net(rec) == {"ann": -1000}


def test_pa_surrender_against_a_six_is_collected_at_once() -> None:
    _, [rec], rejected = play(
        "pa-blackjack",
        BURN + "TH 6C 6D 9S",
        ([bet(1, "ann", 10)], [decide("surrender", box=1)]),
    )
    assert rejected == []
    assert "PEEK" not in codes(rec)
    assert net(rec) == {"ann": -500}


def test_pa_blackjack_pays_three_to_two_when_the_dealer_has_none() -> None:
    _, [rec], _ = play("pa-blackjack", BURN + "AH 9C KD 8S", ([bet(1, "ann", 10)], []))
    assert net(rec) == {"ann": 1500}


def test_uk_stand_on_14_is_refused() -> None:
    _, [rec], rejected = play(
        "uk-pontoon",
        BURN + "9H 8C 5D 9S 6C",
        (
            [bet(1, "ann", 10)],
            [decide("stand", box=1), decide("hit", box=1), decide("stand", box=1)],
        ),
    )
    assert [r.reason for r in rejected] == ["stand needs 15 or five cards"]
    assert net(rec) == {"ann": 1000}  # 20 against 17


def test_pontoon_blackjack_stand_on_14_is_refused() -> None:
    _, _, rejected = play(
        "pontoon-blackjack",
        BURN + "9H 8C 5D 9S 6C",
        (
            [bet(1, "ann", 10)],
            [decide("stand", box=1), decide("hit", box=1), decide("stand", box=1)],
        ),
    )
    assert [r.reason for r in rejected] == ["stand needs 15 or five cards"]


def test_uk_doubled_hand_may_keep_drawing() -> None:
    # 5 4 double -> +2 = 11, hit -> +9 = 20, stand; dealer 9 8 = 17
    _, [rec], rejected = play(
        "uk-pontoon",
        BURN + "5H 9C 4D 8S 2C 9D",
        (
            [bet(1, "ann", 10)],
            [decide("double", box=1), decide("hit", box=1), decide("stand", box=1)],
        ),
    )
    assert rejected == []
    assert net(rec) == {"ann": 2000}


def test_uk_dealer_pontoon_wins_every_box_at_once() -> None:
    _, [rec], _ = play(
        "uk-pontoon",
        BURN + "AH KC KD AS",
        ([bet(1, "ann", 10)], [decide("stand", box=1)]),
    )
    assert net(rec) == {"ann": -1000}
    assert "PLAYER_TURN" not in codes(rec)


def test_second_double_on_a_hand_is_refused() -> None:
    _, _, rejected = play(
        "uk-pontoon",
        BURN + "5H 9C 4D 8S 2C 9D",
        (
            [bet(1, "ann", 10)],
            [
                decide("double", box=1),
                decide("double", box=1),
                decide("hit", box=1),
                decide("stand", box=1),
            ],
        ),
    )
    assert [r.reason for r in rejected] == ["a hand may be doubled once only"]


def test_split_limit_is_three_hands_in_nz() -> None:
    # 8 8 split, hand 1 gets 8 -> split again, hand 1 gets 8 -> third split refused
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "8S 9C 8D 8H 8C 2D 2S 2H KS",
        (
            [bet(1, "ann", 10)],
            [
                decide("split", box=1),
                decide("split", box=1),
                decide("split", box=1),
                decide("stand", box=1),
                decide("stand", box=1),
                decide("stand", box=1),
            ],
        ),
    )
    assert [r.reason for r in rejected] == ["at most 3 hands per box"]
    assert len(rec.controller_round.boxes[1].hands) == 3


def test_a_refused_decision_changes_nothing() -> None:
    c = RoundController(load_variant("uk-pontoon"))
    c.perform(Action.CARD, card=Card.parse("2C"))
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    for text in ("9H", "5C", "4D", "9S"):  # dealer cards 5 and 9: no peek
        c.perform(Action.CARD, card=Card.parse(text))
    assert c.state is State.PLAYING
    before = (repr(c.round), c.state, len(c.outbox))
    with pytest.raises(ActionRefused, match="stand needs 15 or five cards"):
        c.perform(Action.STAND, box=1)
    assert (repr(c.round), c.state, len(c.outbox)) == before


def test_pontoon_blackjack_splits_up_to_four_hands_one_split_and_two_resplits() -> None:
    # Seed 004: "split two cards of the same value and re-split at most twice". 8-8 split,
    # each new 8 re-split: four hands; a fourth pair on the box cannot be split again.
    split, stand = decide("split", box=1), decide("stand", box=1)
    _, [rec], rejected = play(
        "pontoon-blackjack",
        BURN + "8S 9C 8D 7C 8H 8C KS 8C KH KD TD",
        ([bet(1, "ann", 10)], [split, split, split, stand, split, stand, stand, stand]),
    )
    assert [r.reason for r in rejected] == ["at most 4 hands per box"]
    [box] = rec.controller_round.boxes.values()
    assert [" ".join(map(str, h.cards)) for h in box.hands] == [
        "8S KS", "8C 8C", "8H KH", "8D KD",
    ]  # fmt: skip
    assert net(rec) == {"ann": 4000}  # 18, 16, 18, 18 against a dealer 9 7 10: bust


def test_doubling_on_some_totals_only_refuses_a_double_on_another_total() -> None:
    # 7 5 = 12: the double is refused, stand; 6 4 = 10 doubles and draws a king (20)
    ten_eleven = {"double.on_totals": [10, 11]}
    _, [twelve, ten], rejected = play(
        "pa-blackjack",
        BURN + "7H 9C 5D 8S" + " 6H 9C 4D 8S KS",
        ([bet(1, "ann", 10)], [decide("double", box=1), decide("stand", box=1)]),
        ([bet(1, "ann", 10)], [decide("double", box=1)]),
        overrides=ten_eleven,
    )
    assert [r.reason for r in rejected] == ["double only on a total of 10 or 11, the hand has 12"]
    assert net(twelve) == {"ann": -1000}
    assert net(ten) == {"ann": 2000}


def test_a_21_that_plays_on_is_doubled_and_drawn_to_a_five_card_trick() -> None:
    # A 5 hit 5 = soft 21 in three cards: doubled (2: 13), hit (5: 18 in five cards), stand;
    # the doubled five-card trick pays 2:1 on both stakes
    plays_on = {"hands.twenty_one_ends_hand": False, "double.max_total_after_two": 21}
    moves = [decide("hit", box=1), decide("double", box=1), decide("hit", box=1)]
    _, [rec], rejected = play(
        "pontoon-blackjack",
        BURN + "AH 9C 5D 8S 5C 2H 5S",
        ([bet(1, "ann", 10)], [*moves, decide("stand", box=1)]),
        overrides=plays_on,
    )
    assert rejected == []
    assert net(rec) == {"ann": 4000}
    # where a 21 ends the hand (the shipped rule), the same 21 stands and wins 1:1
    _, [ends], rejected = play(
        "pontoon-blackjack",
        BURN + "AH 9C 5D 8S 5C 2H 5S",
        ([bet(1, "ann", 10)], moves),
        overrides={"double.max_total_after_two": 21},
    )
    assert [r.reason for r in rejected] == ["the round ended before this decision"] * 2
    assert net(ends) == {"ann": 1000}
