"""NZ Pontoon rounds played through the round controller."""

from controller.game.rules import load_variant
from controller.game.words import line
from controller.round.controller import RoundController
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card

from .driver import bet, codes, decide, net, play

BURN = "2C "


def test_pontoon_is_paid_at_once_and_the_dealer_still_plays_the_others() -> None:
    # burn, box1 A, box2 9, dealer 7, box1 K (pontoon), box2 8 (17), dealer draws K -> 17
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "AS 9D 7C KH 8C KD",
        ([bet(1, "ann", 10), bet(2, "bob", 10)], [decide("stand", box=2)]),
    )
    assert rejected == []
    assert net(rec) == {"ann": 1500, "bob": 0}
    assert codes(rec).index("PAY") < codes(rec).index("PLAYER_TURN")


def test_insurance_offered_on_an_ace_and_wins_on_a_dealer_pontoon() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "KH AC 9D QS",
        (
            [bet(1, "ann", 10)],
            [decide("insurance", box=1, player="ann", amount_cents=500), decide("stand", box=1)],
        ),
    )
    assert rejected == []
    assert "OFFER_INSURANCE" in codes(rec)
    assert net(rec) == {"ann": 0}  # +10 insurance, -10 main


def test_no_insurance_offered_when_the_dealer_shows_a_king() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "KH KC 9D 8S",
        (
            [bet(1, "ann", 10)],
            [decide("insurance", box=1, player="ann", amount_cents=500), decide("stand", box=1)],
        ),
    )
    assert "OFFER_INSURANCE" not in codes(rec)
    assert "OFFER_SURRENDER" in codes(rec)
    assert [getattr(r.decision, "action", None) for r in rejected] == [Action.INSURANCE]
    assert net(rec) == {"ann": 1000}  # 19 against dealer K 8 = 18


def test_surrender_against_a_king_loses_half_after_the_dealer_second_card() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "KH KC 6D 6S",
        ([bet(1, "ann", 10)], [decide("surrender", box=1)]),
    )
    assert rejected == []
    assert net(rec) == {"ann": -500}


def test_pontoon_box_is_not_offered_insurance() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "AH AC KD 9S",
        ([bet(1, "ann", 10)], [decide("insurance", box=1, player="ann", amount_cents=500)]),
    )
    # The only box has pontoon: no window opens, the insurance decision is never used.
    assert "OFFER_INSURANCE" not in codes(rec)
    assert net(rec) == {"ann": 1500}
    assert [r.reason for r in rejected] == ["the round ended before this decision"]


def test_double_then_rescue_returns_the_double() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "5H 9C 4D 2S KD 7H",
        ([bet(1, "ann", 10)], [decide("double", box=1), decide("rescue", box=1, player="ann")]),
    )
    assert rejected == []
    assert net(rec) == {"ann": -1000}


def test_split_aces_take_one_card_each_and_a_21_is_paid_at_once() -> None:
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "AS 9C AD KH 5C 8D",
        ([bet(1, "ann", 10)], [decide("split", box=1)]),
    )
    assert rejected == []
    # hand 1: A K = plain 21, +10 at once; hand 2: A 5 = 16; dealer 9 8 = 17 -> -10
    assert [(e.hand, e.amount_cents) for e in rec.ledger] == [(1, 1000), (2, -1000)]


def test_dealer_pontoon_against_doubled_and_split_hands_takes_the_original_only() -> None:
    # box 1: 8 8 split; hand 1 8+3 doubled +9 = 20; hand 2 8+9 = 17 stands; dealer A then K.
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "8S AC 8D 3H 9C 9D KS",
        (
            [bet(1, "ann", 10)],
            [decide("split", box=1), decide("double", box=1), decide("stand", box=1)],
        ),
    )
    assert rejected == []
    assert net(rec) == {"ann": -1000}


def test_card_for_a_player_who_has_not_asked_holds_the_round() -> None:
    c = RoundController(load_variant("nz-pontoon"))
    c.perform(Action.CARD, card=Card.parse("2C"))  # burn
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    for text in ("9H", "7C", "6D"):
        c.perform(Action.CARD, card=Card.parse(text))
    assert c.state is State.PLAYING
    assert c.perform(Action.CARD, card=Card.parse("KD")) is State.HOLD


def test_a_co_bettor_who_does_not_join_the_double_is_paid_his_21_at_once() -> None:
    # Issue 13, NZ 12.2: A-5 doubled by ann (box controller) alone, third card 5: 11 for ann,
    # 21 for bob, who is paid 1:1 at once, before the dealer's second card.
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "AH 9C 5D 5C 8D",
        (
            [bet(1, "ann", 10), bet(1, "bob", 5)],
            [decide("double", box=1, players=["ann"])],
        ),
    )
    assert rejected == []
    paid = [(e.player, e.amount_cents, str(e.odds)) for e in rec.ledger if e.amount_cents > 0]
    assert paid == [("bob", 500, "1")]
    assert rec.ledger[0].player == "bob"
    texts = [line(p) for p in rec.prompts]
    assert texts.index("pay box 1 hand 1 (bob) $5 at 1:1: win") < texts.index(
        "deal the dealer's second card"
    )
    assert net(rec) == {"ann": -2000, "bob": 500}  # ann's doubled 11 loses to the dealer's 17


def test_surrender_forfeits_half_at_the_completion_of_the_dealer_hand() -> None:
    # NZ 9.5: box 1 surrenders against a king; box 2 stands on 19; the dealer draws 2 then 5
    # (17). The surrender settles after the dealer's draws, with box 2's showdown.
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "KH QH KC 6D 9D 2S 5S",
        (
            [bet(1, "ann", 10), bet(2, "bob", 10)],
            [decide("surrender", box=1), decide("stand", box=2)],
        ),
    )
    assert rejected == []
    seen = codes(rec)
    surrender = next(
        i for i, p in enumerate(rec.prompts) if p.box == 1 and p.code.value == "COLLECT"
    )
    assert seen.index("DEALER_DRAWS") < seen.index("DEALER_STANDS") < surrender
    assert [(e.box, e.kind.value) for e in rec.ledger] == [(1, "surrender"), (2, "payout")]
    assert net(rec) == {"ann": -500, "bob": 1000}


def test_a_dealer_pontoon_voids_a_surrender_as_soon_as_it_is_made() -> None:
    # NZ 9.4: the dealer's second card makes pontoon: the surrendered box loses its whole wager
    # at once, with the rest of the table.
    _, [rec], rejected = play(
        "nz-pontoon",
        BURN + "KH QH KC 6D 9D AS",
        (
            [bet(1, "ann", 10), bet(2, "bob", 10)],
            [decide("surrender", box=1), decide("stand", box=2)],
        ),
    )
    assert rejected == []
    assert codes(rec).index("COLLECT") < codes(rec).index("DEALER_NATURAL")
    assert net(rec) == {"ann": -1000, "bob": -1000}
