"""The simulator's fast engine: the round controller's procedure on integer-coded hands.

:class:`Kernel` plays the rounds ``croupier simulate`` plays (every box one wager, basic
strategy, a truthful hole-card reader, the dealer's hands automatic) without the round
controller's objects. It walks the same procedure, state by state and action by action as
:data:`controller.round.spec.SPEC` declares it, in the order of
``controller.round.controller.RoundController`` (whose handler each step mirrors is named
there), and asks every rule of a :class:`~controller.play.hand_graph.HandGraph`: a hand is an
integer node, and what the rules say about it (end of hand, basic strategy, settlement, what is
counted) was worked out by the round model, the hand evaluation, the settlement and the
strategy themselves. The variant's settings it reads directly (natural paid at once, the hole
card, the rescue) are the ones the controller reads at the same step.

Two modes. Counting (``trace=None``, the simulator's): each settlement adds the counts of the
settlement function's entries (cached per kind of hand), and the round's totals go to a
:class:`~controller.play.tally.Tally`. Tracing (a list): the kernel also appends what a
headless controller emits, in its order: every ledger entry (made by the settlement function on
the round's hands), every device command and a ``StateChanged`` for every action, each move
checked against ``SPEC``, and each entry's counts against the cached counts.
``tests/simulate/test_kernel_differential.py`` holds both to the controller, output for output.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from controller.game.errors import CroupierError
from controller.game.rules import Variant
from controller.game.settlement import (
    Box,
    Hand,
    LedgerEntry,
    Stake,
    Wager,
    settle_bust,
    settle_dealer_natural,
    settle_natural,
    settle_rescue,
    settle_showdown,
    settle_super_bonus,
    settle_surrender,
    settle_twenty_one,
)
from controller.play.hand_graph import (
    CARDS,
    CODES,
    END_BUST,
    END_NONE,
    END_ONE_AFTER_DOUBLE,
    END_TWENTY_ONE,
    NCODES,
    NO_UP,
    Counts,
    HandGraph,
)
from controller.play.tally import DEALER_CATEGORIES, UP_CARDS, Tally, ledger_counts
from controller.round.controller import DeviceCommand, Output, StateChanged
from controller.round.model import insurance_offered, surrender_offered
from controller.round.spec import SPEC, Action, State
from drivers.tbl21.cards import Card, DeckType, Rank, Suit, shoe_cards

__all__ = ["CodeShoe", "Kernel", "KernelError", "ShoeEnded"]

_STATES: Final = tuple(State)
_SI: Final = {state: i for i, state in enumerate(_STATES)}
(
    _SHUFFLE, _BURN, _BETTING, _DEALING, _OFFERS, _INSURANCE, _SURRENDER, _PEEK, _PLAYING,
    _CARD_DUE, _RESCUE, _REVEAL, _DEALER, _SETTLING,
) = (_SI[s] for s in (
    State.SHUFFLE, State.BURN, State.BETTING, State.DEALING, State.OFFERS, State.INSURANCE,
    State.SURRENDER, State.PEEK, State.PLAYING, State.CARD_DUE, State.RESCUE, State.REVEAL,
    State.DEALER, State.SETTLING,
))  # fmt: skip
_HIT, _STAND, _DOUBLE, _SPLIT = range(4)  # hand_graph.DECISIONS
_RANKS: Final = tuple(Rank)
_SUITS = len(Suit)

# Hand records: [node, finished, settled, rescued]; box records: see _Box.
_NODE, _FINISHED, _SETTLED, _RESCUED = range(4)


class KernelError(CroupierError):
    """The kernel and the rules disagree (a move outside SPEC, cached counts that differ from
    the settlement's entries): a bug, never a user's mistake."""


class ShoeEnded(Exception):
    """The card stream has no card left (``at`` cards were drawn from the current shoe)."""

    def __init__(self, at: int, recorded: bool) -> None:
        super().__init__(at, recorded)
        self.at = at
        self.recorded = recorded


class CodeShoe:
    """The cards as codes, shuffled exactly as :class:`controller.play.simulate.ShoeStream`
    shuffles them (one ``random.Random(seed)`` shuffling a fresh ``shoe_cards`` shoe for each
    new shoe: the same permutation of the same order), or a recorded order that goes on
    across shuffles."""

    def __init__(
        self,
        deck: DeckType,
        decks: int,
        *,
        seed: int | None = None,
        cards: Sequence[Card] | None = None,
    ) -> None:
        self._order = [CODES[c] for c in shoe_cards(deck, decks)]
        self._rng = random.Random(seed)
        self._recorded = [CODES[c] for c in cards] if cards is not None else None
        self.cards: list[int] = []
        self.at = 0  # next card of self.cards
        self.since = 0  # self.at when the current shoe was loaded
        self.shoes = 0
        self._drawn_before = 0  # cards drawn from shoes before self.cards
        self.new_shoe()

    @property
    def recorded(self) -> bool:
        return self._recorded is not None

    @property
    def drawn(self) -> int:
        return self._drawn_before + self.at

    def new_shoe(self) -> None:
        self.shoes += 1
        if self._recorded is not None:
            if self.shoes == 1:
                self.cards, self.at = self._recorded, 0
            self.since = self.at
            return
        self._drawn_before += self.at
        cards = self._order[:]
        self._rng.shuffle(cards)
        self.cards, self.at, self.since = cards, 0, 0


class _Box:
    __slots__ = ("hands", "losses", "natural_paid", "number", "surrender_settled", "surrendered")

    def __init__(self, number: int) -> None:
        self.number = number
        self.hands: list[list[int]] = []
        self.surrendered = False
        self.surrender_settled = False
        self.natural_paid = False
        self.losses = 0  # collected from this box's hands this round (settle_dealer_natural)


class Kernel:
    """Plays the simulator's rounds of one table (see the module's docstring)."""

    def __init__(
        self,
        rules: Variant,
        graph: HandGraph,
        shoe: CodeShoe,
        *,
        boxes: int,
        players: Sequence[str],
        each_round: bool,
        cut_after: int | None,
        trace: list[Output] | None = None,
    ) -> None:
        self.rules = rules
        self.g = graph
        self.shoe = shoe
        self.nboxes = boxes
        self.players = tuple(players[:boxes])
        self.wager = graph.wager_cents
        self.each_round = each_round
        self.cut_after = cut_after
        self.trace = trace
        self.tally = Tally()
        self._dealer_counts = [0] * (len(UP_CARDS) * len(DEALER_CATEGORIES))
        self._bonus: dict[str, int] = {}
        # What the controller reads of the variant, per rank of the dealer's first card.
        cards = [Card(rank, Suit.SPADES) for rank in _RANKS]
        self._insurance = tuple(insurance_offered(rules, c) for c in cards)
        self._surrender = tuple(surrender_offered(rules, c) for c in cards)
        self._surrender_window = tuple(rules.surrender.allowed and s for s in self._surrender)
        self._peek = tuple(c.rank in rules.dealer.peek_up_cards for c in cards)
        self._arm = tuple("A" if c.is_ace else "T" for c in cards)
        self._column = tuple(UP_CARDS.index(graph.column(code)) for code in range(NCODES))
        self.hole = rules.has_hole_card
        self.face_up = rules.dealer.first_card_face_up
        self.natural_at_once = rules.payouts.natural_paid_at_once
        self.twenty_one_at_once = rules.payouts.twenty_one_paid_at_once
        self.rescue_window = rules.double.rescue
        self.burn_cards = rules.shoe.burn_cards
        # the table
        self.state = _BURN if rules.shoe.burn_cards else _BETTING
        self.burn_left = rules.shoe.burn_cards
        self._new_round()

    # --- the round's data ---------------------------------------------------------------------

    def _new_round(self) -> None:
        self.boxes = [_Box(n) for n in range(1, self.nboxes + 1)]
        self.dealer = self.g.start
        self.dealer_two = -1  # the dealer's hand after two cards
        self.first = -1  # code of the dealer's first card
        self.up = NO_UP  # rank index of the first card where the strategy sees it
        self.first_rank = 0
        self.turn: tuple[int, int] | None = None
        self.card_for: tuple[int, int] | None = None
        self.dealer_natural: bool | None = None
        self.peek_result: str | None = None
        self.revealed = False
        self.net = self.net_no_sb = self.super_bonuses = self.rescues = 0

    def _move(self, source: int, action: Action, dest: int) -> None:
        """Record one action (trace mode): checked against SPEC as the controller checks it."""
        trace = self.trace
        assert trace is not None
        src, dst = _STATES[source], _STATES[dest]
        allowed = SPEC.get((src, action))
        if allowed is None or dst not in allowed:
            raise KernelError(f"{src.value} --{action.value}--> {dst.value} is not in SPEC")
        trace.append(StateChanged(src, dst, action))

    # --- drawing --------------------------------------------------------------------------------

    def _draw(self) -> int:
        shoe = self.shoe
        at = shoe.at
        try:
            code = shoe.cards[at]
        except IndexError:
            raise ShoeEnded(at - shoe.since, shoe.recorded) from None
        shoe.at = at + 1
        return code

    def _peek_card(self, ahead: int) -> int:
        shoe = self.shoe
        at = shoe.at + ahead
        return shoe.cards[at] if at < len(shoe.cards) else -1

    def _step(self, node: int, code: int) -> int:
        nxt = self.g.step[node * NCODES + code]
        return nxt if nxt >= 0 else self.g.add(node, code)

    # --- settlement --------------------------------------------------------------------------

    def _frozen_box(self, box: _Box) -> Box:
        g, w = self.g, self.wager
        player = self.players[box.number - 1]
        hands = []
        for h in box.hands:
            node = h[_NODE]
            from_split, split_aces, doubles = g.flags[node]
            stake = Stake(player, w, doubles * w, bool(h[_RESCUED]))
            hands.append(Hand(g.cards[node], (stake,), from_split, split_aces, doubles > 0))
        return Box(box.number, (Wager(player, w),), tuple(hands), box.surrendered)

    def _book(
        self,
        box: _Box,
        counts: Counts,
        settle: Callable[..., list[LedgerEntry]],
        *args: object,
    ) -> None:
        """Add a settlement's counts to the round; in trace mode make its entries with the
        settlement function, ``settle(rules, box, *args)``, and check them against the counts."""
        self.net += counts[0]
        self.net_no_sb += counts[1]
        self.super_bonuses += counts[2]
        self.rescues += counts[3]
        box.losses += counts[4]
        if self.trace is not None:
            made = settle(self.rules, self._frozen_box(box), *args)
            c = ledger_counts(made)
            if (
                c.net_cents,
                c.net_no_sb_cents,
                c.super_bonuses,
                c.rescues,
                c.hand_losses_cents,
            ) != counts:
                raise KernelError(f"cached counts {counts} differ from the entries {made}")
            self.trace.extend(made)

    def _book_entries(self, box: _Box | None, entries: list[LedgerEntry]) -> None:
        """Add entries made by a settlement function (the rare paths)."""
        c = ledger_counts(entries)
        self.net += c.net_cents
        self.net_no_sb += c.net_no_sb_cents
        self.super_bonuses += c.super_bonuses
        self.rescues += c.rescues
        if box is not None:
            box.losses += c.hand_losses_cents
        if self.trace is not None:
            self.trace.extend(entries)

    def _open_hands(self, box: _Box) -> list[int]:
        return [i for i, h in enumerate(box.hands) if not h[_SETTLED] and not h[_RESCUED]]

    # --- the procedure (RoundController's handlers, in its order) -----------------------------

    def _after_deal(self) -> int:  # RoundController._after_deal
        g = self.g
        if self.natural_at_once:
            for box in self.boxes:
                hand = box.hands[0]
                node = hand[_NODE]
                if g.is_natural(node):
                    self._book(box, g.natural(node), settle_natural, 0)
                    hand[_FINISHED] = hand[_SETTLED] = 1
                    box.natural_paid = True
        rank = self.first_rank
        if not self.hole:
            eligible = any(not b.natural_paid for b in self.boxes)
            if eligible and (self._insurance[rank] or self._surrender[rank]):
                return _OFFERS
            return self._find_turn(0, 0)
        if self._insurance[rank]:
            return _INSURANCE
        return self._after_insurance()

    def _after_insurance(self) -> int:
        if self._surrender_window[self.first_rank]:
            return _SURRENDER
        return self._after_surrender()

    def _after_surrender(self) -> int:
        rank = self.first_rank
        if self._peek[rank]:
            if self.trace is not None:
                self.trace.append(DeviceCommand("peek", "arm_peek", (self._arm[rank],)))
            return _PEEK
        self._dealer_natural_known(False)
        return self._find_turn(0, 0)

    def _dealer_natural_known(self, natural: bool) -> None:
        self.dealer_natural = natural
        for box in self.boxes:
            if box.surrendered and not box.surrender_settled:
                self._settle_surrender(box, natural)

    def _settle_surrender(self, box: _Box, natural: bool) -> None:
        self._book(box, self.g.surrender(natural), settle_surrender, natural)
        box.surrender_settled = True
        for hand in box.hands:
            hand[_FINISHED] = hand[_SETTLED] = 1

    def _surrender_window_decisions(self, state: int) -> None:
        """What StrategyPlayer decides in OFFERS or SURRENDER: each box whose strategy
        surrenders, in box order; RoundController._surrender for each."""
        g = self.g
        for box in self.boxes:
            if box.natural_paid or box.surrendered:
                continue
            hand = box.hands[0]
            if hand[_FINISHED] or not g.surrenders_now(hand[_NODE], self.first_rank):
                continue
            box.surrendered = True
            if self.dealer_natural is not None or (self.hole and not self._peek[self.first_rank]):
                self._settle_surrender(box, False)
            if self.trace is not None:
                self._move(state, Action.SURRENDER, state)

    def _find_turn(self, box_index: int, index: int) -> int:  # RoundController._find_turn
        g = self.g
        end, size = g.end, g.size
        for b in range(box_index, self.nboxes):
            box = self.boxes[b]
            if box.surrendered:
                continue
            hands = box.hands
            for i in range(index if b == box_index else 0, len(hands)):
                hand = hands[i]
                if hand[_FINISHED]:
                    continue
                node = hand[_NODE]
                if size[node] < 2:
                    self.card_for = (b, i)
                    return _CARD_DUE
                reason = end[node]
                if reason != END_NONE:
                    self.card_for = None
                    hand[_FINISHED] = 1
                    if reason == END_TWENTY_ONE and self._pays_21_at_once(node):
                        self._settle_twenty_one(box, i)
                    continue
                self.turn = (b, i)
                return _PLAYING
        self.turn = None
        return self._dealer_phase()

    def _pays_21_at_once(self, node: int) -> bool:
        return self.twenty_one_at_once and not self.g.is_super_bonus(node, self.first)

    def _settle_twenty_one(self, box: _Box, i: int) -> None:
        hand = box.hands[i]
        self._book(box, self.g.twenty_one(hand[_NODE]), settle_twenty_one, i)
        hand[_SETTLED] = 1

    def _player_card(self, code: int) -> int:  # RoundController._player_card
        assert self.card_for is not None
        b, i = self.card_for
        self.card_for = None
        box = self.boxes[b]
        hand = box.hands[i]
        node = hand[_NODE] = self._step(hand[_NODE], code)
        reason = self.g.end[node]
        if reason == END_NONE:
            self.turn = (b, i)
            return _PLAYING
        hand[_FINISHED] = 1
        if reason == END_BUST:
            self._book(box, self.g.bust(node), settle_bust, i)
            hand[_SETTLED] = 1
        elif reason == END_TWENTY_ONE and self._pays_21_at_once(node):
            self._settle_twenty_one(box, i)
        elif reason == END_ONE_AFTER_DOUBLE and self.rescue_window:
            self.turn = (b, i)
            return _RESCUE
        return self._find_turn(b, i + 1)

    def _unsettled(self) -> bool:
        for box in self.boxes:
            if box.surrendered:
                if not box.surrender_settled:
                    return True
            elif self._open_hands(box):
                return True
        return False

    def _dealer_phase(self) -> int:
        if not self.hole:
            if not self._unsettled():
                return self._finish()
            return _DEALER
        if not self.revealed:
            return _REVEAL
        return self._dealer_draws_or_finish()

    def _dealer_card(self, code: int) -> int:  # RoundController._dealer_card
        g = self.g
        node = self.dealer = self._step(self.dealer, code)
        if g.size[node] == 2:
            self.dealer_two = node
            if not self.hole:
                natural = g.is_natural(node)
                self._dealer_natural_known(natural)
                if natural:
                    for box in self.boxes:
                        self._settle_against_natural(box)
                    return self._finish()
        return self._dealer_draws_or_finish()

    def _dealer_draws_or_finish(self) -> int:
        if not self._unsettled():
            return self._finish()
        g = self.g
        dealer = self.dealer
        if g.must_draw[dealer]:
            return _DEALER
        dealer_cards = g.cards[dealer]
        for box in self.boxes:
            if box.surrendered:
                continue
            for i in self._open_hands(box):
                hand = box.hands[i]
                self._book(box, g.showdown(hand[_NODE], dealer), settle_showdown, i, dealer_cards)
                hand[_SETTLED] = 1
        return self._finish()

    def _finish(self) -> int:  # RoundController._finish: the Super Bonus
        g, first = self.g, self.first
        if any(
            g.is_super_bonus(h[_NODE], first)
            for box in self.boxes
            if not box.surrendered
            for h in box.hands
        ):
            boxes = [self._frozen_box(box) for box in self.boxes]
            self._book_entries(None, settle_super_bonus(self.rules, boxes, CARDS[first]))
        return _SETTLING

    def _settle_against_natural(self, box: _Box) -> None:
        if box.surrendered:
            return
        open_hands = self._open_hands(box)
        if not open_hands:
            return
        player = self.players[box.number - 1]
        lost = {player: box.losses} if box.losses else {}
        entries = settle_dealer_natural(self.rules, self._frozen_box(box), open_hands, lost)
        self._book_entries(box, entries)
        for i in open_hands:
            box.hands[i][_FINISHED] = box.hands[i][_SETTLED] = 1

    def _reveal(self) -> int:  # RoundController._reveal and _after_reveal
        self.revealed = True
        natural = self.g.is_natural(self.dealer_two)
        if self.peek_result is not None and (self.peek_result == "Y") != natural:
            raise KernelError("a truthful reader disagreed with the hole card")
        if self.dealer_natural is None:
            self._dealer_natural_known(natural)
        if natural:
            for box in self.boxes:
                self._settle_against_natural(box)
            return self._finish()
        return self._dealer_draws_or_finish()

    def _peek_answer(self) -> int:  # RoundController._peek, the reader telling the truth
        natural = self.g.is_natural(self.dealer_two)
        self.peek_result = "Y" if natural else "N"
        self._dealer_natural_known(natural)
        if natural:
            return _REVEAL
        return self._find_turn(0, 0)

    def _decide(self) -> tuple[Action, int]:  # StrategyPlayer and the decision's handler
        assert self.turn is not None
        b, i = self.turn
        box = self.boxes[b]
        hand = box.hands[i]
        node = hand[_NODE]
        decision = self.g.decision(node, self.up, len(box.hands))
        if decision == _HIT:
            self.card_for = (b, i)
            return Action.HIT, _CARD_DUE
        if decision == _STAND:
            hand[_FINISHED] = 1
            return Action.STAND, self._find_turn(b, i + 1)
        if decision == _DOUBLE:
            hand[_NODE] = self.g.double(node)
            self.card_for = (b, i)
            return Action.DOUBLE, _CARD_DUE
        if decision == _SPLIT:
            first, second = self.g.split(node)
            hand[_NODE] = first
            box.hands.insert(i + 1, [second, 0, 0, 0])
            self.card_for = (b, i)
            return Action.SPLIT, _CARD_DUE
        raise KernelError(f"no decision {decision} while a hand is in play")

    def _rescue_window(self) -> tuple[Action, int]:  # StrategyPlayer in RESCUE, _rescue / _ok
        assert self.turn is not None
        b, i = self.turn
        box = self.boxes[b]
        hand = box.hands[i]
        node = hand[_NODE]
        if self.g.rescues_now(node, self.first_rank):
            self._book(box, self.g.rescue(node), settle_rescue, i, self.players[b])
            hand[_RESCUED] = 1
            hand[_SETTLED] = 1  # its only stake is rescued: nothing of it is live
            return Action.RESCUE, self._find_turn(b, i + 1)
        return Action.OK, self._find_turn(b, i + 1)

    # --- the table ------------------------------------------------------------------------------

    def play(self, rounds: int) -> int:
        """Play ``rounds`` rounds (fewer where a recorded order ends: ShoeEnded); returns the
        rounds played."""
        played = 0
        trace = self.trace
        while played < rounds:
            state = self.state
            # SHUFFLE and BURN (play_rounds' _prepare_table)
            if state == _SHUFFLE:
                self.burn_left = self.burn_cards
                dest = _BURN if self.burn_left else _BETTING
                if trace is not None:
                    self._move(state, Action.SHUFFLE, dest)
                self.shoe.new_shoe()
                state = dest
            while state == _BURN:
                self._draw()
                self.burn_left -= 1
                dest = _BURN if self.burn_left > 0 else _BETTING
                if trace is not None:
                    self._move(state, Action.CARD, dest)
                state = dest
            self.state = state
            self._play_round()
            played += 1
        return played

    def _play_round(self) -> None:
        trace = self.trace
        g = self.g
        step = g.step
        boxes = self.boxes
        for box in boxes:
            box.hands.append([g.start, 0, 0, 0])
        if trace is not None:
            for _ in boxes:
                self._move(_BETTING, Action.BET, _BETTING)
            self._move(_BETTING, Action.DEAL, _DEALING)
        # the deal (model.deal_plan): box cards, the dealer's first, box cards, the hole card
        plan: list[int] = [*range(len(boxes)), -1, *range(len(boxes))]
        if self.hole:
            plan.append(-1)
        last = len(plan) - 1
        for k, target in enumerate(plan):
            code = self._draw()
            if target >= 0:
                hand = boxes[target].hands[0]
                node = hand[_NODE]
                nxt = step[node * NCODES + code]
                hand[_NODE] = nxt if nxt >= 0 else g.add(node, code)
            else:
                if self.first < 0:
                    self.first = code
                    self.first_rank = code // _SUITS
                    if self.face_up:
                        self.up = self.first_rank
                node = self.dealer = self._step(self.dealer, code)
                if g.size[node] == 2:
                    self.dealer_two = node
            dest = _DEALING if k < last else self._after_deal()
            if trace is not None:
                self._move(_DEALING, Action.CARD, dest)
        state = dest
        while state != _SETTLING:
            source = state
            if state == _PLAYING:
                action, state = self._decide()
            elif state == _CARD_DUE:
                action, state = Action.CARD, self._player_card(self._draw())
            elif state == _DEALER:
                action, state = Action.CARD, self._dealer_card(self._draw())
            elif state == _REVEAL:
                action, state = Action.OK, self._reveal()
            elif state == _PEEK:
                action, state = Action.PEEK, self._peek_answer()
            elif state == _INSURANCE:  # basic strategy never insures
                action, state = Action.OK, self._after_insurance()
            elif state == _SURRENDER:
                self._surrender_window_decisions(state)
                action, state = Action.OK, self._after_surrender()
            elif state == _OFFERS:
                self._surrender_window_decisions(state)
                action, state = Action.OK, self._find_turn(0, 0)
            elif state == _RESCUE:
                action, state = self._rescue_window()
            else:  # pragma: no cover - every state of a round is handled above
                raise KernelError(f"the kernel has no step for {_STATES[state].value}")
            if trace is not None:
                self._move(source, action, state)
        self._count_round()
        # OK: the next round (RoundController._next_round), shuffling where the cut card came
        # out (or before every round)
        shoe = self.shoe
        cut = self.each_round or (
            self.cut_after is not None and shoe.at - shoe.since >= self.cut_after
        )
        dest = _SHUFFLE if cut else _BETTING
        if trace is not None:
            self._move(_SETTLING, Action.OK, dest)
        self.state = dest
        self._new_round()

    # --- counting (controller.play.tally.Tally.count_round) -------------------------------------

    def _count_round(self) -> None:
        t, g = self.tally, self.g
        net, net_no_sb = self.net, self.net_no_sb
        t.rounds += 1
        t.net_cents += net
        t.net_sq += net * net
        t.net_no_sb_cents += net_no_sb
        t.net_no_sb_sq += net_no_sb * net_no_sb
        t.super_bonuses += self.super_bonuses
        t.rescues += self.rescues
        bonus = self._bonus
        for box in self.boxes:
            t.initial_hands += 1
            t.wagered_cents += self.wager
            hands = box.hands
            if box.surrendered:
                t.surrenders += 1
            if len(hands) == 1 and g.hand_tally(hands[0][_NODE]).natural:
                t.naturals += 1
            if box.surrendered:
                continue
            for hand in hands:
                counted = g.hand_tally(hand[_NODE])
                for row in counted.bonus:
                    bonus[row] = bonus.get(row, 0) + 1
                t.five_card_tricks += counted.five_card_trick
        # the dealer's final hand, completed from the shoe where the round ended first
        node = self.dealer
        two = self.dealer_two
        natural = two >= 0 and g.is_two_card_21(two)
        if not natural and g.needs[node]:
            t.dealer_completed += 1
            ahead = 0
            while g.needs[node]:
                code = self._peek_card(ahead)
                if code < 0:
                    t.dealer_unknown += 1
                    return
                node = self._step(node, code)
                ahead += 1
            natural = g.size[node] == 2 and g.is_two_card_21(node)
        category = g.dealer_category(node, natural, DEALER_CATEGORIES)
        self._dealer_counts[self._column[self.first] * len(DEALER_CATEGORIES) + category] += 1

    def result(self) -> Tally:
        """The totals so far (the shoe's counts included)."""
        t = self.tally
        for row, count in self._bonus.items():
            t.bonus[row] += count
        self._bonus = {}
        ncat = len(DEALER_CATEGORIES)
        for c, up in enumerate(UP_CARDS):
            for k, category in enumerate(DEALER_CATEGORIES):
                t.dealer[up][category] += self._dealer_counts[c * ncat + k]
        self._dealer_counts = [0] * len(self._dealer_counts)
        t.shoes = self.shoe.shoes
        t.cards_drawn = self.shoe.drawn
        return t
