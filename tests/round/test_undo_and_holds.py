"""Undo of the dealer's last entry, holds for lost devices, and the supervisor's void."""

import pytest

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.game.settlement import EntryKind
from controller.round.controller import RoundController
from controller.round.errors import ActionRefused
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card

NZ = load_variant("nz-pontoon")


def playing(*cards: str) -> RoundController:
    c = RoundController(NZ)
    c.perform(Action.CARD, card=Card.parse("2C"))
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    for text in cards:
        c.perform(Action.CARD, card=Card.parse(text))
    return c


def test_undo_takes_back_a_hit_before_its_card_comes_out() -> None:
    c = playing("9H", "7C", "3D")
    c.perform(Action.HIT, box=1)
    assert c.state is State.CARD_DUE
    assert c.perform(Action.UNDO) is State.PLAYING
    assert c.round.card_for is None
    assert c.perform(Action.STAND, box=1) is State.DEALER


def test_undo_takes_back_a_double_and_its_stake() -> None:
    c = playing("9H", "7C", "2D")
    c.perform(Action.DOUBLE, box=1)
    assert c.round.boxes[1].hands[0].stakes[0].double_cents == 1000
    c.perform(Action.UNDO)
    hand = c.round.boxes[1].hands[0]
    assert (hand.doubles, hand.stakes[0].double_cents, c.state) == (0, 0, State.PLAYING)


def test_nothing_is_undone_once_a_card_has_come_out() -> None:
    c = playing("9H", "7C", "3D")
    c.perform(Action.HIT, box=1)
    c.perform(Action.CARD, card=Card.parse("2S"))
    c.perform(Action.HIT, box=1)
    c.perform(Action.CARD, card=Card.parse("2H"))
    with pytest.raises(ActionRefused, match="is not possible while a hand waits"):
        c.perform(Action.UNDO)


def test_undo_of_a_bet_while_bets_are_open() -> None:
    c = RoundController(NZ)
    c.perform(Action.CARD, card=Card.parse("2C"))
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.BET, box=2, player="bob", amount_cents=500)
    c.perform(Action.UNDO)
    assert list(c.round.boxes) == [1]
    c.perform(Action.UNDO)
    assert c.round.boxes == {}
    with pytest.raises(ActionRefused, match="nothing to undo"):
        c.perform(Action.UNDO)


def test_a_lost_device_holds_the_round_and_its_return_resumes_it() -> None:
    c = playing("9H", "7C", "3D")
    c.perform(Action.HOLD, kind="device_lost", detail="shoe link lost", device="shoe")
    assert c.state is State.HOLD
    with pytest.raises(ActionRefused, match="hit is not possible while the table is on hold"):
        c.perform(Action.HIT, box=1)
    assert c.perform(Action.RESUME, kind="device_lost", device="shoe") is State.PLAYING


def test_two_lost_devices_hold_until_both_are_back() -> None:
    c = playing("9H", "7C", "3D")
    c.perform(Action.HOLD, kind="device_lost", device="shoe")
    c.perform(Action.HOLD, kind="device_lost", device="panel")
    assert c.perform(Action.RESUME, kind="device_lost", device="shoe") is State.HOLD
    assert c.perform(Action.RESUME, kind="device_lost", device="panel") is State.PLAYING


def test_supervisor_void_returns_every_open_wager_and_the_insurance() -> None:
    c = RoundController(NZ)
    c.perform(Action.CARD, card=Card.parse("2C"))
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    for text in ("9H", "AC", "8D"):
        c.perform(Action.CARD, card=Card.parse(text))
    c.perform(Action.INSURANCE, box=1, player="ann", amount_cents=500)
    c.perform(Action.OK)
    assert c.perform(Action.VOID, by="sue") is State.SETTLING
    entries = [(e.kind, e.amount_cents, e.stake_cents) for e in c.round.ledger]
    assert entries == [(EntryKind.RETURN, 0, 500), (EntryKind.RETURN, 0, 1000)]


def test_a_card_the_variants_shoe_cannot_hold_is_never_dealt_nor_assigned() -> None:
    # Issue 13 point 6: a ten at a Spanish 48-card game, as the burn card, with no card due
    # and for a hit: each time a hold; a supervisor can only burn it (or void the round).
    c = RoundController(load_variant("nz-pontoon"))
    assert c.perform(Action.CARD, card=Card.parse("TC")) is State.HOLD
    assert c.perform(Action.BURN_CARD) is State.BURN
    c.perform(Action.CARD, card=Card.parse("2C"))
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    for text in ("9H", "7C", "6D"):
        c.perform(Action.CARD, card=Card.parse(text))
    assert c.perform(Action.CARD, card=Card.parse("TS")) is State.HOLD  # no card was due
    [hold] = c.hold_reasons
    assert (hold.kind, hold.card) == (HoldKind.UNEXPECTED_CARD, Card.parse("TS"))
    with pytest.raises(ActionRefused, match=r"cannot be in this game's shoe \(Spanish 48-card"):
        c.perform(Action.ASSIGN_CARD)
    assert c.perform(Action.BURN_CARD) is State.PLAYING
    c.perform(Action.HIT, box=1)
    assert c.perform(Action.CARD, card=Card.parse("TD")) is State.HOLD  # asked for, still held
    assert c.round.boxes[1].hands[0].cards == [Card.parse("9H"), Card.parse("6D")]
    assert c.perform(Action.BURN_CARD) is State.CARD_DUE  # the hit still waits for its card
    c.perform(Action.CARD, card=Card.parse("KS"))
    assert [e.amount_cents for e in c.round.ledger] == [-1000]  # 9 6 K: bust, collected


def test_a_keyed_card_no_one_owed_is_burned_and_the_round_settles_as_before() -> None:
    """The shoe could not read a card drawn after the dealer's hand was done; the supervisor
    confirms the keyed card, which no one was owed: the table holds on it as a card out of turn,
    and once it is burned the round is back at its settlement (the stateful test found the table
    left in a hold with nothing to clear, then dealing a new round into the unsettled one)."""
    c = playing("9H", "7C", "8D")
    c.perform(Action.STAND, box=1)
    c.perform(Action.CARD, card=Card.parse("KS"))  # dealer 7 K: 17, stands
    assert c.state is State.SETTLING
    number, dealer = c.round.number, list(c.round.dealer.cards)
    c.perform(Action.HOLD, kind="unreadable_card", device="shoe")
    c.perform(Action.KEY_CARD, card=Card.parse("AS"))
    assert c.perform(Action.CONFIRM_CARD) is State.HOLD
    assert [h.kind for h in c.hold_reasons] == [HoldKind.UNEXPECTED_CARD]
    assert c.perform(Action.BURN_CARD) is State.SETTLING
    assert (c.round.number, c.round.dealer.cards, c.table.cards_burned) == (number, dealer, 2)
    assert c.perform(Action.OK) is State.BETTING
    assert (c.round.number, c.round.dealer.cards) == (number + 1, [])
