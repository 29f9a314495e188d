"""Rounds of any variant played through a :class:`TableApp` by a random dealer at its panel.

The dealer presses only keys (and places bets, as the display does); the shoe deals from a
random list of the variant's cards and the reader answers the truth. ``Walk.step`` does one
thing the table waits for; the tests look at the table between two steps.
"""

from __future__ import annotations

import copy
import random

from controller.game.hands import is_natural
from controller.game.rules import Variant
from controller.round.inputs import Bet
from controller.round.spec import State
from controller.table.app import InputResult, TableApp
from controller.table.keypad import BOX_KEYS, DECISION_KEYS, WAGER_KEYS
from drivers.tbl21.cards import deck
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    CutCard,
    CutKind,
    DeviceRef,
    DeviceType,
    PeekOutcome,
    PeekResult,
    ShoeLoaded,
)

SHOE = DeviceRef(DeviceType.SHOE, "test://shoe")
PEEK = DeviceRef(DeviceType.PEEK, "test://peek")
PANEL = DeviceRef(DeviceType.PANEL, "test://panel")
PLAYERS = ("ann", "bob", "cy")
CARD_STATES = (State.BURN, State.DEALING, State.CARD_DUE, State.DEALER)


class Walk:
    def __init__(self, rules: Variant, rng: random.Random) -> None:
        self.rules = rules
        self.rng = rng
        self.app = TableApp(rules)
        self.seq = 0
        self.draw_no = 0
        self.deck = deck(rules.shoe.deck)
        self.rounds = 0

    def press(self, button: Button) -> list[InputResult]:
        """Press a key; the table's answers to it."""
        self.seq += 1
        before = len(self.app.outputs)
        self.app.handle(ButtonPressed(device=PANEL, at=0.0, seq=self.seq, button=button, held_ms=0))
        return [o for o in self.app.outputs[before:] if isinstance(o, InputResult)]

    def card(self) -> None:
        self.draw_no += 1
        card = self.rng.choice(self.deck)
        self.app.handle(CardDrawn(device=SHOE, at=0.0, seq=self.draw_no, card=card,
                                  draw_no=self.draw_no, remaining=200, quality=99))  # fmt: skip

    def cut_card(self) -> None:
        """The cut card came out: the round ends, then a new shoe."""
        self.seq += 1
        self.app.handle(CutCard(device=SHOE, at=0.0, seq=self.seq, draw_no=self.draw_no,
                                kind=CutKind.PHYSICAL))  # fmt: skip

    def prefixes(self) -> list[list[Button]]:
        """The box and wager keys a decision may start with: none, a box, a box and a wager."""
        out: list[list[Button]] = []
        for number, box in self.app.controller.round.boxes.items():
            out.append([BOX_KEYS[number - 1]])
            out += [[BOX_KEYS[number - 1], WAGER_KEYS[k]] for k in range(len(box.wagers))]
        # The hand in play needs no box key; an offer does.
        return [[], *out] if self.app.controller.round.turn is not None else [*out, []]

    def accepted_somewhere(self, button: Button) -> list[Button] | None:
        """The keys (ending with ``button``) that a copy of the table accepts, if any."""
        self.app.trim_outputs(0)  # (copies stay small: the outputs are looked at as they come)
        for prefix in self.prefixes():
            trial = copy.deepcopy(self)
            for key in prefix:
                trial.press(key)
            answers = trial.press(button)
            if answers and answers[-1].accepted:
                return [*prefix, button]
        return None

    def press_for_some_box(self, button: Button) -> list[Button] | None:
        """Press ``button`` after each box (and wager) prefix in turn until the table accepts
        it; a refusal changes nothing, so the attempts are made on the table itself. The keys
        accepted, or None."""
        for prefix in self.prefixes():
            for key in prefix:
                self.press(key)
            answers = self.press(button)
            if answers and answers[-1].accepted:
                return [*prefix, button]
            self.press(Button.CANCEL)
        return None

    def step(self) -> None:
        """Do what the table waits for now."""
        app = self.app
        c = app.controller
        state = c.state
        if state in CARD_STATES:
            self.card()
        elif state is State.PEEK:
            natural = is_natural(self.rules, c.round.dealer.cards[:2], False)
            outcome = PeekOutcome.BLACKJACK if natural else PeekOutcome.NO_BLACKJACK
            self.seq += 1
            app.handle(PeekResult(device=PEEK, at=0.0, seq=self.seq, outcome=outcome, quality=99))
        elif state is State.BETTING:
            if not c.round.boxes:
                self.rounds += 1
                for number in self.rng.sample(range(1, 4), self.rng.randint(1, 3)):
                    for player in PLAYERS[: self.rng.randint(1, self.rules.table.wagers_per_box)]:
                        app.answer(Bet(number, player, self.rng.choice((500, 1000, 2500))))
            self.press(Button.DEAL)
        elif state is State.SHUFFLE and app.shoe.shuffle_requested:
            self.seq += 1
            app.handle(ShoeLoaded(device=SHOE, at=0.0, seq=self.seq, cards_detected=312))
            self.draw_no = 0  # a new shoe counts its draws from 1
        elif state is State.SHUFFLE:
            self.press(Button.SHUFFLE)
        else:
            choices = [b for b in sorted(app.lit) if b in DECISION_KEYS]
            if not choices:
                raise AssertionError(f"nothing lit to go on with in {state}")
            button = self.rng.choice(choices)
            if self.press_for_some_box(button) is None:
                raise AssertionError(f"{button.value} is lit in {state} but refused for every box")
