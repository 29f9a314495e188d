"""What the table's hands and screens ask of the round, through the controller's own questions
instead of reaching into its data (issue 23): who bet on a box and in which order, how many
bets, whether the round is dealt, the hole card."""

from __future__ import annotations

from controller.game.rules import load_variant
from controller.round.controller import RoundController
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card


def test_the_round_says_who_bet_where_whether_it_is_dealt_and_its_hole_card() -> None:
    pa = load_variant("pa-blackjack")
    rules = pa.model_copy(update={"table": pa.table.model_copy(update={"wagers_per_box": 3})})
    c = RoundController(rules)
    c.perform(Action.CARD, card=Card.parse("2C"))  # the burn card
    assert (c.bets_placed(), c.players(), c.box_players(1), c.dealt()) == (0, [], [], False)
    c.perform(Action.BET, box=2, player="bo", amount_cents=1000)
    c.perform(Action.BET, box=1, player="ann", amount_cents=500)
    c.perform(Action.BET, box=2, player="cy", amount_cents=500)
    assert c.bets_placed() == 3
    assert c.box_players(2) == ["bo", "cy"]  # the panel's WAGER 1 and WAGER 2
    assert c.box_players(3) == []
    assert sorted(c.players()) == ["ann", "bo", "cy"]
    c.perform(Action.DEAL)
    assert c.dealt()
    assert c.hole_card() is None
    for text in ("9H", "7C", "KD", "3S", "8D", "QH"):  # box 1, box 2, dealer, box 1, box 2, hole
        c.perform(Action.CARD, card=Card.parse(text))
    assert c.hole_card() == Card.parse("QH")


def test_the_round_says_its_number_its_boxes_the_dealers_up_card_and_the_hand_in_play() -> None:
    """What the demo's players, the card counter, the panel's lit keys and the table ask: the
    round's number, the boxes bet on, one box, the dealer's up card, the box and hand in play,
    whether the round was voided."""
    c = RoundController(load_variant("pa-blackjack"))
    c.perform(Action.CARD, card=Card.parse("2C"))  # the burn card
    assert (c.round_number(), c.bet_boxes(), c.box(1), c.dealer_up()) == (1, [], None, None)
    assert c.hand_in_play() is None
    c.perform(Action.BET, box=3, player="bo", amount_cents=1000)
    c.perform(Action.BET, box=1, player="ann", amount_cents=500)
    assert c.bet_boxes() == [1, 3]
    box = c.box(3)
    assert box is not None
    assert [w.player for w in box.wagers] == ["bo"]
    c.perform(Action.DEAL)
    for text in ("9H", "7C", "5D", "3S", "8D", "QH"):  # box 1, 3, dealer, box 1, 3, the hole
        c.perform(Action.CARD, card=Card.parse(text))
    assert c.hand_in_play() is None  # surrender is offered first
    c.perform(Action.OK)  # nobody surrenders
    assert c.state is State.PLAYING
    assert c.dealer_up() == Card.parse("5D")
    in_play = c.hand_in_play()
    assert in_play is not None
    number, hand = in_play
    assert (number, hand.cards) == (1, [Card.parse("9H"), Card.parse("3S")])
    assert not c.voided()
