"""Each shoe ends with its receipt in the journal (issue 24, point 5): when the shoe loads the
next one, a ``shoe_receipt`` row counts the cards that came out of it against the declared
decks, says which must be left by rank and suit, and any shortfall or surplus against the
shoe's own word. These tests deal real rounds through a journalled table on a real journal and
compare the receipt with the cards the journal shows dealt."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from controller.cli.history import recall, render
from controller.game.rules import Variant, load_variant
from controller.journal.journaled import JournaledTable, replay
from controller.journal.store import Journal, Row
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.shoewatch import ShoeWatch
from drivers.tbl21.cards import Card, deck, shoe_cards
from drivers.tbl21.events import Button, CardDrawn, FaultRaised, ShoeLoaded
from drivers.tbl21.faults import Severity
from tests.round.walk import SHOE, Walk


class Journaled:
    """A journalled table as :class:`Walk` plays one: what it is given goes through the
    journal, what it is looked at is the table's."""

    def __init__(self, table: JournaledTable) -> None:
        self.table = table

    def handle(self, event: Any) -> None:
        self.table.handle(event)

    def answer(self, call: Bet) -> Any:
        return self.table.answer(call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.table.app, name)


class ShoeWalk(Walk):
    """Rounds dealt from a real shuffled shoe (each card once per deck) by a random dealer; the
    shoe says how many cards are left after each draw, as the device does."""

    def __init__(self, rules: Variant, journal: Journal, seed: int, missing: int = 0) -> None:
        super().__init__(rules, random.Random(seed))
        self.table = JournaledTable.start(rules, journal)
        self.app = Journaled(self.table)  # type: ignore[assignment]
        self.stack: list[Card] = []
        self.load(missing)

    def load(self, missing: int = 0) -> None:
        """A new shoe in the device (``missing`` cards short of the decks), reported loaded."""
        cards = shoe_cards(self.rules.shoe.deck, self.rules.shoe.decks)
        self.rng.shuffle(cards)
        self.stack = cards[missing:]
        self.seq += 1
        self.draw_no = 0
        self.app.handle(
            ShoeLoaded(device=SHOE, at=0.0, seq=self.seq, cards_detected=len(self.stack))
        )

    def card(self) -> None:
        self.draw_no += 1
        card = self.stack.pop()
        self.app.handle(CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=card,
                                  draw_no=self.draw_no, remaining=len(self.stack),
                                  quality=99))  # fmt: skip

    def play(self, count: int) -> None:
        """Play until ``count`` more rounds are settled and the next waits for bets."""
        goal = self.app.controller.round.number + count
        for _ in range(5000):
            c = self.app.controller
            if c.state is State.BETTING and not c.round.boxes and c.round.number >= goal:
                return
            self.step()
        raise AssertionError("the rounds did not finish")


def dealt_in_journal(rows: list[Row], receipt_seq: int) -> Counter[str]:
    """The cards the journal shows came out of the shoe that the receipt at ``receipt_seq``
    closes: the shoe's card events after the last shoe loaded before it (and cards keyed in)."""
    loads = [
        r.seq
        for r in rows
        if r.kind == "device_event" and r.payload["type"] == "ShoeLoaded" and r.seq < receipt_seq
    ]
    since = loads[-2] if len(loads) > 1 else 0  # the last load is the one the receipt ends
    dealt: Counter[str] = Counter()
    for r in rows:
        if not since < r.seq < loads[-1]:
            continue
        drawn = r.kind == "device_event" and r.payload["type"] == "CardDrawn"
        if drawn or (r.kind == "call" and r.payload.get("type") == "KeyedCard"):
            dealt[str(r.payload["card"])] += 1
    return dealt


def receipts(journal: Journal) -> list[Row]:
    return list(journal.iter_rows(kinds=["shoe_receipt"]))


def test_a_shoe_changed_before_its_cut_card_gets_a_receipt_of_what_is_left(tmp_path: Path) -> None:
    rules = load_variant("pa-blackjack")
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    walk = ShoeWalk(rules, journal, seed=24)
    assert receipts(journal) == []  # the table's first shoe: nothing came out of any before
    walk.play(6)
    left_in_device = len(walk.stack)
    walk.press(Button.SHUFFLE)  # before the cut card: the supervisor changes the shoe
    walk.load()
    walk.play(1)
    journal.close()

    with Journal.open(tmp_path / "j.sqlite3", readonly=True) as journal:
        (row,) = receipts(journal)
        rows = journal.rows()
    receipt = row.payload
    dealt = dealt_in_journal(rows, row.seq)
    decks = rules.shoe.decks
    assert sum(dealt.values()) > 20  # six rounds' worth of cards
    expected = {str(card): decks - dealt[str(card)] for card in deck(rules.shoe.deck)}
    assert receipt["left"] == expected
    assert receipt["reason"] == "shuffle"
    assert receipt["cut_card"] is False
    assert receipt["dealt"] == sum(dealt.values())
    assert receipt["declared"] == 52 * decks
    assert receipt["cards_left"] == receipt["declared"] - receipt["dealt"] == left_in_device
    assert receipt["shoe_left"] == left_in_device
    assert (receipt["shortfall"], receipt["surplus"], receipt["kept_out"]) == (0, 0, [])
    with Journal.open(tmp_path / "j.sqlite3", readonly=True) as journal:
        text = render(recall(journal), path=tmp_path / "j.sqlite3", table_id="T1", verified=True)
    assert (
        f"SHOE      ended (shuffle, before the cut card): {receipt['dealt']} cards dealt, "
        f"{left_in_device} left in the decks, the shoe says {left_in_device}; shortfall 0, "
        "surplus 0"
    ) in text


def test_a_shoe_short_of_a_card_shows_a_shortfall_of_one(tmp_path: Path) -> None:
    rules = load_variant("pa-blackjack")
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    walk = ShoeWalk(rules, journal, seed=7)
    walk.load(missing=1)  # nobody asked for it: the shoe was changed for one a card short
    walk.play(3)
    walk.load()  # and changed again between rounds
    first, row = receipts(journal)
    assert first.payload["dealt"] == 0  # the shoe changed before a card came out of it
    receipt = row.payload
    assert receipt["reason"] == "changed"
    assert receipt["loaded"] == 52 * rules.shoe.decks - 1
    assert receipt["shortfall"] == 1
    assert receipt["surplus"] == 0
    journal.close()


def test_a_card_keyed_in_for_an_unreadable_one_counts_as_dealt() -> None:
    watch = ShoeWatch(6)
    watch.loaded(False, 0, 312)
    watch.fault(FaultRaised(device=SHOE, at=0.0, seq=1, code=0x10, severity=Severity.WARNING,
                            text="CARD_UNREADABLE"), "shoe")  # fmt: skip
    watch.keyed_in(Card.parse("AS"))  # the table does so for an accepted KeyedCard
    receipt = watch.receipt("changed", 1)
    assert receipt is not None
    assert (receipt.dealt, receipt.keyed, receipt.left["AS"]) == (1, 1, 5)
    assert (receipt.shoe_left, receipt.cards_left) == (311, 311)
    assert (receipt.shortfall, receipt.surplus) == (0, 0)


def test_cards_set_aside_by_a_supervisor_are_no_shortfall() -> None:
    watch = ShoeWatch(6)
    watch.loaded(False, 0, 312)
    for draw_no, text in enumerate(("2C", "3C", "4C", "5C"), start=1):
        watch.drawn(CardDrawn(device=SHOE, at=0.0, seq=draw_no, card=Card.parse(text),
                              draw_no=draw_no, remaining=312 - draw_no, quality=99))  # fmt: skip
    watch.skip_to(6)  # rows of two more cards set aside (the table adds them so)
    watch.set_aside += 2
    watch.drawn(CardDrawn(device=SHOE, at=0.0, seq=7, card=Card.parse("6C"), draw_no=7,
                          remaining=305, quality=99))  # fmt: skip
    receipt = watch.receipt("shuffle", 3)
    assert receipt is not None
    assert (receipt.dealt, receipt.set_aside, receipt.cards_left, receipt.shoe_left) == (
        5,
        2,
        307,
        305,
    )
    assert (receipt.shortfall, receipt.surplus) == (0, 0)


def test_the_receipts_replay_as_they_were_written(tmp_path: Path) -> None:
    rules = load_variant("pa-blackjack")
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    walk = ShoeWalk(rules, journal, seed=11)
    walk.play(2)
    walk.press(Button.SHUFFLE)
    walk.load()
    walk.play(1)
    walk.load(missing=2)
    written = [r.payload for r in receipts(journal)]
    assert len(written) == 2
    prepared = replay(rules, journal)  # compares every receipt with the replay's own
    assert prepared.replayed is not None
    assert prepared.replayed.missing == []
    assert prepared.replayed.checked > 0
    journal.close()
