"""What the table's hands and screens ask of the round, through the controller's own questions
instead of reaching into its data (issue 23): who bet on a box and in which order, how many
bets, whether the round is dealt, the hole card."""

from __future__ import annotations

from controller.game.rules import load_variant
from controller.round.controller import RoundController
from controller.round.spec import Action
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
