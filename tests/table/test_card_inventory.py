"""The table counts the cards of the current shoe against the decks the variant declares, whatever
the shoe reports of its own inventory (issue 21: 21 aces of spades were dealt in one round from a
6-deck shoe): one card more than the decks hold is kept out of the round until a supervisor burns
it or voids the round. The count starts afresh with each new shoe."""

from __future__ import annotations

from controller.game.holds import HoldKind
from controller.game.rules import load_variant
from controller.game.words import hold_words, plain
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from controller.table.app import TableApp, decision
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    KeyPosition,
    KeySwitch,
    ShoeLoaded,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")
AS = Card.parse("AS")


class Shoe:
    """Draws for a table, numbered as a shoe numbers them."""

    def __init__(self, app: TableApp) -> None:
        self.app, self.draw_no = app, 0

    def draw(self, text: str) -> None:
        self.draw_no += 1
        card = Card.parse(text)
        event = CardDrawn(
            device=SHOE, at=0.0, seq=self.draw_no % 256, card=card, draw_no=self.draw_no,
            remaining=300, quality=99,
        )  # fmt: skip
        self.app.handle(event)

    def loaded(self) -> None:
        self.draw_no = 0
        self.app.handle(ShoeLoaded(device=SHOE, at=0.0, seq=0, cards_detected=312))


def in_play() -> tuple[TableApp, Shoe]:
    """nz-pontoon (6 decks), box 1 in play on 5 aces of spades' worth of shoe: the burn card and
    the deal (box 1 AS AS, the dealer 7S) leave 4 aces of spades in the decks."""
    app = TableApp(load_variant("nz-pontoon"))
    shoe = Shoe(app)
    shoe.draw("AS")  # burn
    app.answer(Bet(1, "ann", 1000))
    app.controller.perform("deal")
    for text in ("AS", "7S", "AS"):
        shoe.draw(text)
    assert app.controller.state is State.PLAYING
    return app, shoe


def test_a_seventh_ace_of_spades_from_six_decks_is_kept_out_of_the_round() -> None:
    app, shoe = in_play()
    app.controller.perform("hit")
    for _ in range(3):  # aces 4 to 6: possible, though unlikely
        shoe.draw("AS")
        if app.controller.state is State.PLAYING:
            app.controller.perform("hit")
    hand = app.controller.round.boxes[1].hands[0]
    before = list(hand.cards)
    shoe.draw("AS")  # the seventh
    assert app.controller.state is State.HOLD
    (hold,) = app.controller.hold_reasons
    assert hold.kind is HoldKind.UNEXPECTED_CARD
    assert hold.card == AS
    assert hold.kept_out
    assert "one more than this game's shoe holds (6 decks: 6 of each card" in hold.detail
    assert hand.cards == before  # not dealt


def test_the_card_over_the_count_can_be_burned_but_not_given_to_a_hand() -> None:
    app, shoe = in_play()
    for _ in range(4):
        shoe.draw("AS")  # aces 4 to 6 held as cards out of turn, burned; the 7th over the count
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=0, position=KeyPosition.SUPERVISOR))
    for _ in range(3):
        assert app.answer(decision(Action.BURN_CARD, by="sue")).accepted
    assert app.controller.hold_reasons[0].kept_out
    assert "assign" not in app.supervisor_choices()
    assert "burn" in app.supervisor_choices()
    refused = app.answer(decision(Action.ASSIGN_CARD, by="sue"))
    assert not refused.accepted
    assert "burn it or void the round" in refused.reason
    # at the panel, HIT assigns nothing either: CAN burns
    app.handle(ButtonPressed(device=PANEL, at=0.0, seq=1, button=Button.HIT, held_ms=0))
    assert app.holding()
    app.handle(ButtonPressed(device=PANEL, at=0.0, seq=2, button=Button.CANCEL, held_ms=0))
    assert app.controller.state is State.PLAYING
    assert [c for c in app.controller.round.boxes[1].hands[0].cards if c == AS] == [AS, AS]


def test_the_dealer_reads_plain_words_for_a_card_over_the_count() -> None:
    app, shoe = in_play()
    for _ in range(4):
        shoe.draw("AS")
    words = hold_words(app.controller.hold_reasons[-1])
    assert plain(words["what"]) == "one card more than this game's shoe holds came out: AS"
    assert "burns it or voids the round" in words["todo"]
    assert "kept_out" not in str(words)


def test_the_count_starts_afresh_with_a_new_shoe() -> None:
    app = TableApp(load_variant("nz-pontoon"))
    shoe = Shoe(app)
    shoe.draw("AS")  # burn
    for _ in range(5):  # between rounds: each a card out of turn, burned
        shoe.draw("AS")
        app.handle(KeySwitch(device=PANEL, at=0.0, seq=0, position=KeyPosition.SUPERVISOR))
        assert app.answer(decision(Action.BURN_CARD, by="sue")).accepted
    assert app.shoe.counts[AS] == 6
    app.handle(KeySwitch(device=PANEL, at=0.0, seq=4, position=KeyPosition.RUN))
    app.handle(ButtonPressed(device=PANEL, at=0.0, seq=5, button=Button.SHUFFLE, held_ms=0))
    assert app.shoe.shuffle_requested
    shoe.loaded()
    assert app.shoe.counts[AS] == 0
    shoe.draw("AS")  # the new shoe's burn card
    assert app.controller.hold_reasons == []
    assert app.controller.state is State.BETTING


def test_a_resent_card_is_not_counted_twice() -> None:
    app, _shoe = in_play()
    app.handle(
        CardDrawn(device=SHOE, at=0.0, seq=4, card=AS, draw_no=4, remaining=300, quality=99)
    )  # draw 4 again
    assert app.shoe.counts[AS] == 3
