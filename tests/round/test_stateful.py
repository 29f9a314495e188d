"""Hypothesis drives random legal and illegal inputs into the round controller.

Invariants after every step: every card read is somewhere (a hand, the dealer, burned, or held
for a decision); no stake is settled twice and a finished round has settled every stake; no
prompt shows the hole card before the reveal; a refused action changes nothing (state, round,
money, table status, outputs, and all else a memento holds: the undo stack, what the dealer was
last told), so a journal has nothing to record for it.
"""

import copy
from collections import Counter
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.game.hands import is_natural
from controller.game.holds import HoldKind
from controller.game.prompts import Prompt, Say
from controller.game.rules import load_variant
from controller.game.settlement import LedgerEntry
from controller.game.words import line
from controller.play.autoplay import CARD_STATES, WINDOW_ACTIONS
from controller.round.controller import RoundController
from controller.round.errors import ActionRefused
from controller.round.model import RoundState, copy_round
from controller.round.spec import Action, State
from drivers.tbl21.cards import DeckType, deck

VARIANTS = [load_variant(v) for v in ("nz-pontoon", "uk-pontoon", "pa-blackjack",
                                      "pontoon-blackjack")]  # fmt: skip
ALL = deck(DeckType.STANDARD_52)

actions = st.sampled_from(list(Action))
data = st.fixed_dictionaries(
    {},
    optional={
        "box": st.integers(0, 8),
        "player": st.sampled_from(["ann", "bob", "cat", ""]),
        "amount_cents": st.integers(-100, 3000),
        "card": st.sampled_from(ALL),
        "outcome": st.sampled_from(["Y", "N", "U", "E", "Z"]),
        "kind": st.sampled_from([k.value for k in HoldKind]),
        "device": st.sampled_from(["shoe", "peek"]),
    },
)


class RoundMachine(RuleBasedStateMachine):
    @initialize(variant=st.sampled_from(VARIANTS), seed=st.randoms(use_true_random=False))
    def start(self, variant: Any, seed: Any) -> None:
        self.variant = variant
        self.c = RoundController(variant)
        pool = deck(variant.shoe.deck) * 2
        seed.shuffle(pool)
        self.shoe = iter(pool * 4)
        self.cards_in = 0
        self.cards_done = 0  # cards of finished rounds
        self.prompts: list[Prompt] = []
        self.round_ledger: list[LedgerEntry] = []
        self.last_round: RoundState = self.c.round

    def _perform(self, action: Action, **kw: Any) -> None:
        round_before = self.c.round
        state, kept, table = self.c.state, copy_round(self.c.round), copy.deepcopy(self.c.table)
        outbox = list(self.c.outbox)
        memento = self.c.memento()
        try:
            self.c.perform(action, **kw)
        except ActionRefused:
            # A refused action changes nothing: not the state, the round and its money, the
            # table's status, nor what the controller has to say (so nothing is journalled).
            assert self.c.state is state, f"{action} refused but moved {state} -> {self.c.state}"
            assert self.c.round is round_before
            assert self.c.round == kept, f"{action} refused but changed the round"
            assert self.c.table == table, f"{action} refused but changed the table's status"
            assert self.c.outbox == outbox, (
                f"{action} refused but said {self.c.outbox[len(outbox) :]}"
            )
            # ... nor anything else a move may change (the machine's state, the undo stack, the
            # prompt on the bar): the memento taken now equals the one taken before.
            assert self.c.memento() == memento, f"{action} refused but changed the controller"
            return
        if action in (Action.CARD, Action.CONFIRM_CARD):  # read by the shoe, or keyed in
            self.cards_in += 1
        if self.c.round is not round_before and self.c.round.number != round_before.number:
            self._round_finished(round_before)
        for item in self.c.drain():
            if isinstance(item, Prompt):
                self._check_prompt(item)
                self.prompts.append(item)
            elif isinstance(item, LedgerEntry):
                self.round_ledger.append(item)

    def _round_finished(self, old: RoundState) -> None:
        self.cards_done += _cards_on_table(old)
        staked = _staked(old)
        settled: Counter[tuple[int, str]] = Counter()
        for e in old.ledger:
            settled[e.box, e.player] += e.stake_cents
        assert dict(settled) == staked, "a finished round left a stake unsettled or settled twice"
        self.round_ledger = []

    def _check_prompt(self, prompt: Prompt) -> None:
        dealer = self.c.round.dealer
        if not self.variant.has_hole_card or dealer.hole_revealed or len(dealer.cards) < 2:
            return
        hole = str(dealer.cards[1])
        visible = {str(x) for x in self.c.dealer_visible_cards()}
        for box in self.c.round.boxes.values():
            for hand in box.hands:
                visible |= {str(x) for x in hand.cards}
        visible |= {str(h.card) for h in self.c.hold_reasons if h.card is not None}
        if prompt.say is Say.BURNED:  # the card just burned, face up: with 8 decks it may be
            visible |= {str(x) for x in prompt.cards}  # the hole card's twin (TS and TS)
        if hole not in visible:
            assert hole not in line(prompt), f"prompt shows the hole card early: {line(prompt)}"

    @rule(action=actions, payload=data)
    def anything(self, action: Action, payload: dict[str, Any]) -> None:
        if action is Action.CARD and "card" not in payload:
            payload = {**payload, "card": next(self.shoe)}
        self._perform(action, **payload)

    @rule()
    def what_the_dealer_would_do(self) -> None:
        state = self.c.state
        if state in CARD_STATES:
            self._perform(Action.CARD, card=next(self.shoe))
        elif state is State.PEEK:
            natural = is_natural(self.variant, self.c.round.dealer.cards[:2], False)
            self._perform(Action.PEEK, outcome="Y" if natural else "N")
        elif state in WINDOW_ACTIONS or state in (State.REVEAL, State.SETTLING):
            self._perform(Action.OK)
        elif state is State.PLAYING:
            self._perform(Action.STAND) if self.c.can(Action.STAND) else self._perform(Action.HIT)
        elif state is State.BETTING:
            if not self.c.round.boxes:
                self._perform(Action.BET, box=1, player="ann", amount_cents=1000)
            self._perform(Action.DEAL)
        elif state is State.SHUFFLE:
            self._perform(Action.SHUFFLE)
        elif state is State.HOLD:
            self._perform(Action.BURN_CARD)
            self._perform(Action.RESUME, kind="device_lost")

    @invariant()
    def every_card_read_is_accounted_for(self) -> None:
        if not hasattr(self, "c"):
            return
        held = sum(1 for h in self.c.hold_reasons if h.kind is HoldKind.UNEXPECTED_CARD)
        here = _cards_on_table(self.c.round) + self.c.table.cards_burned + held
        assert self.cards_in == self.cards_done + here

    @invariant()
    def no_stake_is_settled_twice(self) -> None:
        if not hasattr(self, "c"):
            return
        staked = _staked(self.c.round)
        settled: Counter[tuple[int, str]] = Counter()
        for e in self.c.round.ledger:
            settled[e.box, e.player] += e.stake_cents
        for key, cents in settled.items():
            assert cents <= staked.get(key, 0), f"{key} settled {cents} of {staked.get(key)}"


def _cards_on_table(r: RoundState) -> int:
    return len(r.dealer.cards) + sum(len(h.cards) for b in r.boxes.values() for h in b.hands)


def _staked(r: RoundState) -> dict[tuple[int, str], int]:
    out: Counter[tuple[int, str]] = Counter()
    for box in r.boxes.values():
        if not box.hands:
            continue
        for player, cents in box.insurance.items():
            out[box.number, player] += cents
        if box.surrendered:
            for w in box.wagers:
                out[box.number, w.player] += w.amount_cents
            continue
        for hand in box.hands:
            for s in hand.stakes:
                out[box.number, s.player] += s.base_cents + s.double_cents
    return dict(out)


RoundMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=50,
                                          deadline=None)  # fmt: skip
test_round_machine = RoundMachine.TestCase
