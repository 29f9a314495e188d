"""The simulator's fast engine: the round controller's procedure on integer-coded hands.

:class:`Kernel` plays the rounds ``croupier simulate`` plays (every box one wager, basic
strategy, a truthful hole-card reader, the dealer's hands automatic) without the round
controller's objects. It walks the same procedure, state by state and action by action as
:data:`controller.round.spec.SPEC` declares it, in the order of
``controller.round.controller.RoundController``: each inner function of :meth:`Kernel.play`
is named after the controller method it follows. Every rule comes from a
:class:`~controller.play.hand_graph.HandGraph`: a hand is an integer node, and what the rules
say about it (end of hand, basic strategy, settlement, what is counted) was worked out by the
round model, the hand evaluation, the settlement and the strategy themselves. The variant
settings it reads directly (natural paid at once, the hole card, the rescue window, the
burn cards) are the ones the controller reads at the same step, and the windows offered per
dealer card are asked of ``insurance_offered`` and ``surrender_offered``.

Two modes. Counting (``trace=None``, the simulator's): each settlement adds the counts of the
settlement function's entries (cached per kind of hand), and the round's totals go to a
:class:`~controller.play.tally.Tally`. Tracing (a list): the kernel also appends what a
headless controller emits, in its order: every ledger entry (made by the settlement function on
the round's hands), every device command and a ``StateChanged`` for every action, each move
checked against ``SPEC``, and each entry's counts against the cached counts.
``tests/simulate/test_kernel_differential.py`` holds both modes to the controller.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from controller.game.settlement import (
    Box,
    LedgerEntry,
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
from controller.play.errors import KernelError
from controller.play.hand_graph import (
    CARDS,
    CODES,
    END_BUST,
    END_NONE,
    END_ONE_AFTER_DOUBLE,
    END_TWENTY_ONE,
    NCODES,
    NO_UP,
    TALLY_NATURAL,
    TALLY_OTHER,
    Counts,
    HandGraph,
)
from controller.play.tally import DEALER_CATEGORIES, UP_CARDS, Tally, ledger_counts
from controller.round.model import insurance_offered, surrender_offered
from controller.round.spec import SPEC, Action, State
from drivers.tbl21.cards import Card, DeckType, Rank, Suit, shoe_cards

if TYPE_CHECKING:  # (the counting mode runs without the round controller's module)
    from controller.game.rules import Variant
    from controller.round.controller import Output

__all__ = ["CodeShoe", "Kernel", "ShoeEnded"]

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
# The actions as module constants (an Enum member read on the class costs an attribute lookup).
_A_CARD = Action.CARD
_A_HIT = Action.HIT
_A_STAND = Action.STAND
_A_DOUBLE = Action.DOUBLE
_A_SPLIT = Action.SPLIT
_A_OK = Action.OK
_A_PEEK = Action.PEEK
_A_RESCUE = Action.RESCUE
_A_SURRENDER = Action.SURRENDER
_A_SHUFFLE = Action.SHUFFLE
_A_BET = Action.BET
_A_DEAL = Action.DEAL
_RANKS: Final = tuple(Rank)
_NSUITS: Final = len(Suit)
_NCAT: Final = len(DEALER_CATEGORIES)

# A hand is [node, status]: in play, finished (no more cards or decisions), settled (every
# live stake has its entry), rescued (its one stake rescued: settled, nothing live).
_OPEN, _FINISHED, _SETTLED, _RESCUED = range(4)
# A box's surrender: none, surrendered (settled once the dealer's natural is known), settled.
_NO, _PENDING, _DONE = range(3)

_BUST, _TWENTY_ONE, _NATURAL, _RESCUE_KEY, _SHOWDOWN = (
    HandGraph.BUST,
    HandGraph.TWENTY_ONE,
    HandGraph.NATURAL,
    HandGraph.RESCUE,
    HandGraph.SHOWDOWN,
)


_SETTLE_HAND: Final = {
    _BUST: settle_bust,
    _TWENTY_ONE: settle_twenty_one,
    _NATURAL: settle_natural,
}


class ShoeEnded(Exception):
    """The card stream has no card left (``at`` cards were drawn from the current shoe)."""

    def __init__(self, at: int, recorded: bool) -> None:
        super().__init__(at, recorded)
        self.at = at
        self.recorded = recorded


def _bulk_shuffle(rng: random.Random, x: list[int]) -> None:
    """``rng.shuffle(x)``: the same permutation, and the same generator state after it.

    CPython's shuffle takes, for each place ``i`` from the last down, ``getrandbits(k)`` (the
    top ``k`` bits of one 32-bit word, ``k`` the bit length of ``i + 1``), drawing again while
    the value is above ``i``, and swaps. This draws the words in blocks (``getrandbits(32 * m)``
    is ``m`` words, the first in the lowest bits): first one word per place, and whenever a
    block runs out (the values drawn again took words), one per place still to fill, so it
    never takes a word the shuffle would not. :func:`_shuffle_for` checks it against
    ``random.shuffle`` before it is used.
    """
    getrandbits = rng.getrandbits
    places = len(x) - 1  # places still to fill: len(x) - 1 down to 1
    while places:
        block = getrandbits(32 * places).to_bytes(4 * places, "little")
        word = iter(memoryview(block).cast("I").tolist()).__next__
        i = places
        try:
            for i, shift in _STEPS[len(_STEPS) - places :]:
                r = word() >> shift
                while r > i:
                    r = word() >> shift
                x[i], x[r] = x[r], x[i]
        except StopIteration:  # place i has its value still to draw
            places = i
        else:
            places = 0


_MAX_SHOE: Final = 8 * 52
# (place, shift) for a shoe of _MAX_SHOE cards, the last place first; a smaller shoe takes
# the tail (its places are the same numbers).
_STEPS: Final = [(i, 32 - (i + 1).bit_length()) for i in range(_MAX_SHOE - 1, 0, -1)]
_SHUFFLE_CHECKED: list[Callable[[random.Random, list[int]], None]] = []


def _shuffle_for() -> Callable[[random.Random, list[int]], None]:
    """The bulk shuffle where it gives what random.shuffle gives on this Python (three shoes
    in a row from two seeds), else random.shuffle itself."""
    if not _SHUFFLE_CHECKED:
        same = sys.byteorder == "little" and memoryview(b"\0" * 4).cast("I").itemsize == 4
        for seed in (1, 2026):
            a, b = random.Random(seed), random.Random(seed)
            x, y = list(range(_MAX_SHOE)), list(range(_MAX_SHOE))
            for _ in range(3):
                a.shuffle(x)
                if same:
                    _bulk_shuffle(b, y)
                same = same and x == y
            same = same and a.random() == b.random()
        _SHUFFLE_CHECKED.append(_bulk_shuffle if same else random.Random.shuffle)
    return _SHUFFLE_CHECKED[0]


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
        self._shuffle = _shuffle_for() if 2 <= len(self._order) <= _MAX_SHOE else None
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
        if self._shuffle is not None:
            self._shuffle(self._rng, cards)
        else:
            self._rng.shuffle(cards)
        self.cards, self.at, self.since = cards, 0, 0


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
        self.each_round = each_round
        self.cut_after = cut_after
        self.trace = trace
        self.tally = Tally()
        self._dealer_counts = [0] * (len(UP_CARDS) * _NCAT)
        self._bonus: dict[str, int] = {}
        self.state = _BURN if rules.shoe.burn_cards else _BETTING  # RoundController(start=BURN)
        self.burn_left = rules.shoe.burn_cards
        # what the controller reads of the variant at each step, per rank of the first card
        # (asked once per kernel: play() is called every batch of rounds)
        first_cards = [Card(rank, Suit.SPADES) for rank in _RANKS]
        offers_surrender = tuple(surrender_offered(rules, c) for c in first_cards)
        self._reads = (
            tuple(insurance_offered(rules, c) for c in first_cards),
            offers_surrender,
            tuple(rules.surrender.allowed and s for s in offers_surrender),
            tuple(c.rank in rules.dealer.peek_up_cards for c in first_cards),
            tuple("A" if c.is_ace else "T" for c in first_cards),
            tuple(UP_CARDS.index(graph.column(code)) for code in range(NCODES)),
        )

    def play(self, rounds: int) -> int:
        """Play ``rounds`` rounds; returns the rounds played. A recorded order or a shoe that
        ends mid-round raises :class:`ShoeEnded` (the unfinished round is not counted)."""
        g, rules, trace = self.g, self.rules, self.trace
        if trace is not None:  # what the headless controller emits (trace mode only)
            from controller.round.controller import DeviceCommand, StateChanged  # noqa: PLC0415
        nb = self.nboxes
        box_range = range(nb)
        players = self.players
        wager = g.wager_cents
        # the graph's tables (lists grow as nodes are added; these names stay valid)
        step, add, end, size = g.step, g.add, g.end, g.size
        must_draw, needs, natural, two_card_21 = g.must_draw, g.needs, g.natural, g.two_card_21
        shape, signature, dealer_rank, doubled = g.shape, g.signature, g.dealer_rank, g.doubled
        super_bonus_mask, signature_of, dealer_rank_of = (
            g.super_bonus_mask,
            g.signature_of,
            g.dealer_rank_of,
        )
        decisions, surrenders, settle, settled = g.decisions, g.surrenders, g.settle, g.settled
        tally_bits, decision_base = g.tally_bits, g.decision_base
        dealer_category = g.dealer_category
        start = g.start
        # what the controller reads of the variant per rank of the first card (see __init__)
        offers_insurance, offers_surrender, surrender_window, peeks, arm, column = self._reads
        hole = rules.has_hole_card
        face_up = rules.dealer.first_card_face_up
        natural_at_once = rules.payouts.natural_paid_at_once
        twenty_one_at_once = rules.payouts.twenty_one_paid_at_once
        rescue_window = rules.double.rescue
        burn_cards = rules.shoe.burn_cards
        each_round, cut_after = self.each_round, self.cut_after
        last_deal = 2 * nb + hole  # the deal's cards but the last
        shoe = self.shoe
        cards, at = shoe.cards, shoe.at

        def cut_position() -> int:
            """Where the round that draws this card shuffles after it: the cut card comes out
            behind the cut_after-th card of the shoe, or at the first card (every round)."""
            if each_round or cut_after is None:
                return shoe.since
            return shoe.since + cut_after

        cut_at = cut_position()

        # the round (reset for every round)
        hands_of: list[list[list[int]]] = []
        surrendered: list[int] = []
        natural_paid: list[bool] = []
        losses: list[int] = []  # collected from a box's hands (settle_dealer_natural)
        dealer = dealer_two = first = first_rank = 0
        turn_box = turn_hand = card_box = card_hand = 0
        dealer_natural = -1  # unknown, 0, 1
        peek_result = -1
        revealed = False
        net = net_no_sb = super_bonuses = rescues = 0
        unsettled = 0  # see unsettled_scan
        sb_hands = 0  # see finish
        # the chunk's totals (written to self.tally at the end)
        t = self.tally
        dealer_counts, bonus = self._dealer_counts, self._bonus
        n_rounds = n_hands = n_naturals = n_surrenders = n_super = n_rescues = n_tricks = 0
        sum_net = sum_net_sq = sum_no_sb = sum_no_sb_sq = completed = unknown = 0

        # --- trace mode -------------------------------------------------------------------

        def move(source: int, action: Action, dest: int) -> None:
            assert trace is not None
            src, dst = _STATES[source], _STATES[dest]
            allowed = SPEC.get((src, action))
            if allowed is None or dst not in allowed:
                raise KernelError(f"{src.value} --{action.value}--> {dst.value} is not in SPEC")
            trace.append(StateChanged(src, dst, action))
            in_play = dest not in (_SHUFFLE, _BURN, _BETTING, _SETTLING)  # (DEALING: all open)
            if in_play and (unsettled > 0) != unsettled_scan():
                raise KernelError(f"{unsettled} unsettled by the count, not by the hands")

        def frozen_box(b: int) -> Box:
            player = players[b]
            hands = tuple(g.frozen_hand(h[0], player, h[1] == _RESCUED) for h in hands_of[b])
            return Box(b + 1, (Wager(player, wager),), hands, surrendered[b] != _NO)

        def traced(
            b: int, counts: Counts, settle_fn: Callable[..., list[LedgerEntry]], *args: object
        ) -> None:
            assert trace is not None
            made = settle_fn(rules, frozen_box(b), *args)
            c = ledger_counts(made)
            made_counts = (
                c.net_cents,
                c.net_no_sb_cents,
                c.super_bonuses,
                c.rescues,
                c.hand_losses_cents,
            )
            if made_counts != counts:
                raise KernelError(f"cached counts {counts} differ from the entries {made}")
            trace.extend(made)

        # --- settlement -------------------------------------------------------------------

        def book(b: int, c: Counts) -> None:
            nonlocal net, net_no_sb, super_bonuses, rescues
            net += c[0]
            net_no_sb += c[1]
            super_bonuses += c[2]
            rescues += c[3]
            losses[b] += c[4]

        def book_entries(b: int, entries: list[LedgerEntry]) -> None:  # the rare paths
            c = ledger_counts(entries)
            book(
                b, (c.net_cents, c.net_no_sb_cents, c.super_bonuses, c.rescues, c.hand_losses_cents)
            )
            if trace is not None:
                trace.extend(entries)

        def is_super_bonus(node: int) -> bool:
            mask = super_bonus_mask[node]
            if mask < 0:
                mask = g.super_bonus[signature_of(node)]
            return bool(mask >> first & 1)

        def settle_hand(b: int, i: int, what: int, node: int) -> None:
            """A bust, a 21 paid at once or a natural paid at once."""
            nonlocal net, net_no_sb, super_bonuses, rescues, unsettled, sb_hands
            sig = signature[node]
            counts = settle.get(sig * 8 + what) if sig >= 0 else None
            if counts is None:
                counts = settled(what, node)
            sb_hands |= super_bonus_mask[node]
            net += counts[0]  # book(b, counts)
            net_no_sb += counts[1]
            super_bonuses += counts[2]
            rescues += counts[3]
            losses[b] += counts[4]
            if trace is not None:
                traced(b, counts, _SETTLE_HAND[what], i)
            hands_of[b][i][1] = _SETTLED
            unsettled -= 1

        def settle_surrender_of(b: int, dealer_has_natural: bool) -> None:
            nonlocal unsettled
            counts = g.surrender(dealer_has_natural)
            book(b, counts)
            if trace is not None:
                traced(b, counts, settle_surrender, dealer_has_natural)
            surrendered[b] = _DONE  # (its hands left the count when it surrendered)
            unsettled -= 1
            for h in hands_of[b]:
                h[1] = _SETTLED

        # --- the procedure (RoundController's methods of the same names) ------------------

        def after_deal() -> int:
            if natural_at_once:
                for b in box_range:
                    node = hands_of[b][0][0]
                    if natural[node]:
                        settle_hand(b, 0, _NATURAL, node)
                        natural_paid[b] = True
            if not hole:
                eligible = not all(natural_paid)
                if eligible and (offers_insurance[first_rank] or offers_surrender[first_rank]):
                    return _OFFERS
                return find_turn(0, 0)
            if offers_insurance[first_rank]:
                return _INSURANCE
            return after_insurance()

        def after_insurance() -> int:
            if surrender_window[first_rank]:
                return _SURRENDER
            return after_surrender()

        def after_surrender() -> int:
            if peeks[first_rank]:
                if trace is not None:
                    trace.append(DeviceCommand("peek", "arm_peek", (arm[first_rank],)))
                return _PEEK
            dealer_natural_known(False)
            return find_turn(0, 0)

        def dealer_natural_known(is_natural: bool) -> None:
            nonlocal dealer_natural
            dealer_natural = is_natural
            for b in box_range:
                if surrendered[b] == _PENDING:
                    settle_surrender_of(b, is_natural)

        def surrender_decisions(state: int) -> None:
            """StrategyPlayer in OFFERS or SURRENDER, then RoundController._surrender."""
            for b in box_range:
                if natural_paid[b] or surrendered[b]:
                    continue
                hand = hands_of[b][0]
                if hand[1] != _OPEN:
                    continue
                answer = surrenders[shape[hand[0]] * (NO_UP + 1) + first_rank]
                if answer == 0 or (answer < 0 and not g.surrenders_now(hand[0], first_rank)):
                    continue
                surrendered[b] = _PENDING  # its one open hand becomes one pending surrender
                if dealer_natural >= 0 or (hole and not peeks[first_rank]):
                    settle_surrender_of(b, False)
                if trace is not None:
                    move(state, _A_SURRENDER, state)

        def find_turn(box_index: int, index: int) -> int:
            nonlocal turn_box, turn_hand, card_box, card_hand
            b, i = box_index, index
            while b < nb:
                if not surrendered[b]:
                    hands = hands_of[b]
                    while i < len(hands):
                        hand = hands[i]
                        if not hand[1]:
                            node = hand[0]
                            if size[node] < 2:
                                card_box, card_hand = b, i
                                return _CARD_DUE
                            reason = end[node]
                            if reason == END_NONE:
                                turn_box, turn_hand = b, i
                                return _PLAYING
                            hand[1] = _FINISHED
                            if (
                                reason == END_TWENTY_ONE
                                and twenty_one_at_once
                                and not is_super_bonus(node)
                            ):
                                settle_hand(b, i, _TWENTY_ONE, node)
                        i += 1
                b += 1
                i = 0
            turn_box = -1
            return dealer_phase()

        def unsettled_scan() -> bool:
            """RoundController._unsettled, by looking at the hands. The kernel keeps it as a
            count, ``unsettled``: one per box at the deal, one more per split, one less per
            settlement; trace mode checks the count by this after every action."""
            for b in box_range:
                if surrendered[b]:
                    if surrendered[b] == _PENDING:
                        return True
                    continue
                for hand in hands_of[b]:
                    if hand[1] < _SETTLED:
                        return True
            return False

        def dealer_phase() -> int:
            if not hole:
                if unsettled <= 0:
                    return finish()
                return _DEALER
            if not revealed:
                return _REVEAL
            return dealer_draws_or_finish()

        def dealer_second_card(node: int) -> int:
            """The dealer's second card where there is no hole card: a natural is known now."""
            is_natural = natural[node]
            dealer_natural_known(is_natural)
            if is_natural:
                for b in box_range:
                    settle_against_natural(b)
                return finish()
            return dealer_draws_or_finish()

        def dealer_draws_or_finish() -> int:
            nonlocal net, net_no_sb, super_bonuses, rescues, unsettled, sb_hands
            if unsettled <= 0:
                return finish()
            if must_draw[dealer]:
                return _DEALER
            rank = dealer_rank[dealer]
            if rank < 0:
                rank = dealer_rank_of(dealer)
            rank_key = rank << 20
            for b in box_range:
                if surrendered[b]:
                    continue
                for i, hand in enumerate(hands_of[b]):
                    if hand[1] >= _SETTLED:
                        continue
                    node = hand[0]
                    sig = signature[node]
                    counts = settle.get((rank_key + sig) * 8 + _SHOWDOWN) if sig >= 0 else None
                    if counts is None:
                        counts = settled(_SHOWDOWN, node, dealer)
                    sb_hands |= super_bonus_mask[node]
                    net += counts[0]  # book(b, counts), inline: the most frequent settlement
                    net_no_sb += counts[1]
                    super_bonuses += counts[2]
                    rescues += counts[3]
                    losses[b] += counts[4]
                    if trace is not None:
                        traced(b, counts, settle_showdown, i, g.cards[dealer])
                    hand[1] = _SETTLED
                    unsettled -= 1
            return finish()

        def super_bonus_scan() -> bool:
            """Does any hand of the round make a Super Bonus (trace mode checks the mask)?"""
            for b in box_range:
                if not surrendered[b]:
                    for h in hands_of[b]:
                        mask = super_bonus_mask[h[0]]
                        if mask < 0:
                            mask = g.super_bonus[signature_of(h[0])]
                        if mask >> first & 1:
                            return True
            return False

        def finish() -> int:  # RoundController._finish: the Super Bonus
            # sb_hands: the super-bonus masks of every hand settled this round (every hand
            # of a box that did not surrender is settled once before the round finishes)
            found = bool(sb_hands >> first & 1)
            if trace is not None and found != super_bonus_scan():
                raise KernelError("the Super Bonus mask missed a hand")
            if found:
                boxes = [frozen_box(x) for x in box_range]
                for entry in settle_super_bonus(rules, boxes, CARDS[first]):
                    book_entries(entry.box - 1, [entry])
            return _SETTLING

        def settle_against_natural(b: int) -> None:
            nonlocal unsettled, sb_hands
            if surrendered[b]:
                return
            hands = hands_of[b]
            open_hands = tuple(i for i, h in enumerate(hands) if h[1] < _SETTLED)
            if not open_hands:
                return
            lost = losses[b]
            counts = g.against_natural(
                tuple((h[0], h[1] == _RESCUED) for h in hands), open_hands, lost
            )
            book(b, counts)
            if trace is not None:
                traced(
                    b,
                    counts,
                    settle_dealer_natural,
                    list(open_hands),
                    {players[b]: lost} if lost else {},
                )
            for i in open_hands:
                hands[i][1] = _SETTLED
                sb_hands |= super_bonus_mask[hands[i][0]]  # (against_natural knows them)
            unsettled -= len(open_hands)

        def reveal() -> int:  # RoundController._reveal and _after_reveal
            nonlocal revealed
            revealed = True
            is_natural = natural[dealer_two]
            if peek_result >= 0 and peek_result != is_natural:
                raise KernelError("a truthful reader disagreed with the hole card")
            if dealer_natural < 0:
                dealer_natural_known(is_natural)
            if is_natural:
                for b in box_range:
                    settle_against_natural(b)
                return finish()
            return dealer_draws_or_finish()

        def peek() -> int:  # RoundController._peek, the reader telling the truth
            nonlocal peek_result
            is_natural = natural[dealer_two]
            peek_result = is_natural
            dealer_natural_known(is_natural)
            if is_natural:
                return _REVEAL
            return find_turn(0, 0)

        def rescue_or_ok() -> tuple[Action, int]:  # StrategyPlayer in RESCUE; _rescue or _ok
            nonlocal unsettled, sb_hands
            b, i = turn_box, turn_hand
            hand = hands_of[b][i]
            node = hand[0]
            if g.rescues_now(node, first_rank):
                counts = settled(_RESCUE_KEY, node)
                sb_hands |= super_bonus_mask[node]
                book(b, counts)
                if trace is not None:
                    traced(b, counts, settle_rescue, i, players[b])
                hand[1] = _RESCUED
                unsettled -= 1
                return _A_RESCUE, find_turn(b, i + 1)
            return _A_OK, find_turn(b, i + 1)

        # --- the table ----------------------------------------------------------------------

        played = 0
        state = self.state
        try:
            while played < rounds:
                # SHUFFLE and BURN (play_rounds' _prepare_table; RoundController._shuffle)
                if state == _SHUFFLE:
                    self.burn_left = burn_cards
                    dest = _BURN if burn_cards else _BETTING
                    if trace is not None:
                        move(state, _A_SHUFFLE, dest)
                    shoe.at = at
                    shoe.new_shoe()
                    cards, at = shoe.cards, shoe.at
                    cut_at = cut_position()
                    state = dest
                while state == _BURN:
                    _ = cards[at]  # the burn card (IndexError: the shoe has ended)
                    at += 1
                    self.burn_left -= 1
                    dest = _BURN if self.burn_left > 0 else _BETTING
                    if trace is not None:
                        move(state, _A_CARD, dest)
                    state = dest
                self.state = state
                # BETTING: one wager per box, then DEAL
                if nb == 1:
                    hands_of = [[[start, _OPEN]]]
                    surrendered, natural_paid, losses = [_NO], [False], [0]
                else:
                    hands_of = [[[start, _OPEN]] for _ in box_range]
                    surrendered, natural_paid, losses = [_NO] * nb, [False] * nb, [0] * nb
                dealer, dealer_two = start, -1
                dealer_natural = peek_result = -1
                revealed = False
                net = net_no_sb = super_bonuses = rescues = 0
                unsettled = nb
                sb_hands = 0
                if trace is not None:
                    for _ in box_range:
                        move(_BETTING, _A_BET, _BETTING)
                    move(_BETTING, _A_DEAL, _DEALING)
                # DEALING (model.deal_plan): a card to each box, the dealer's first, a second
                # card to each box, the hole card
                for b in box_range:
                    hand = hands_of[b][0]
                    code = cards[at]
                    at += 1
                    node = step[start * NCODES + code]
                    hand[0] = node if node >= 0 else add(start, code)
                first = cards[at]
                at += 1
                first_rank = first // _NSUITS
                dealer = step[start * NCODES + first]
                if dealer < 0:
                    dealer = add(start, first)
                for b in box_range:
                    hand = hands_of[b][0]
                    code = cards[at]
                    at += 1
                    node = step[hand[0] * NCODES + code]
                    hand[0] = node if node >= 0 else add(hand[0], code)
                if hole:
                    code = cards[at]
                    at += 1
                    node = step[dealer * NCODES + code]
                    dealer = dealer_two = node if node >= 0 else add(dealer, code)
                if trace is not None:
                    for _ in range(last_deal):
                        move(_DEALING, _A_CARD, _DEALING)
                state = after_deal()
                if trace is not None:
                    move(_DEALING, _A_CARD, state)
                up = first_rank if face_up else NO_UP
                up8 = up * 8  # (HandGraph.decision_slot)
                # the round: one action per pass, as play_rounds and the hands enter them
                # the windows before play (OFFERS, INSURANCE, SURRENDER, PEEK), in order
                while _OFFERS <= state <= _PEEK:
                    source = state
                    if state == _SURRENDER:
                        surrender_decisions(state)
                        action, state = _A_OK, after_surrender()
                    elif state == _INSURANCE:  # basic strategy never insures
                        action, state = _A_OK, after_insurance()
                    elif state == _PEEK:
                        action, state = _A_PEEK, peek()
                    else:
                        surrender_decisions(state)
                        action, state = _A_OK, find_turn(0, 0)
                    if trace is not None:
                        move(source, action, state)
                while state != _SETTLING:
                    # One action after the other as play_rounds and the hands enter them; a
                    # decision and the card it asks for, and the dealer's cards, in one pass.
                    if state == _PLAYING:  # StrategyPlayer, then the decision's handler
                        b, i = turn_box, turn_hand
                        hands = hands_of[b]
                        hand = hands[i]
                        node = hand[0]
                        decision = decisions[decision_base[node] + up8 + len(hands)]
                        if decision < 0:
                            decision = g.decision(node, up, len(hands))
                        if decision == _STAND:
                            hand[1] = _FINISHED
                            state = find_turn(b, i + 1)
                            if trace is not None:
                                move(_PLAYING, _A_STAND, state)
                            continue
                        # RoundController._card_due: the card goes to this hand
                        card_box, card_hand = b, i
                        if decision == _HIT:
                            action = _A_HIT
                        elif decision == _DOUBLE:
                            node = doubled[node]
                            hand[0] = node if node >= 0 else g.double(hand[0])
                            action = _A_DOUBLE
                        elif decision == _SPLIT:
                            one, other = g.split(node)
                            hand[0] = one
                            hands.insert(i + 1, [other, _OPEN])
                            unsettled += 1
                            action = _A_SPLIT
                        else:  # pragma: no cover - decide_hand never surrenders in play
                            raise KernelError(f"decision {decision} with a hand in play")
                        state = _CARD_DUE
                        if trace is not None:
                            move(_PLAYING, action, state)
                    if state == _CARD_DUE:  # RoundController._player_card
                        code = cards[at]
                        at += 1
                        b, i = card_box, card_hand
                        hand = hands_of[b][i]
                        node = step[hand[0] * NCODES + code]
                        node = hand[0] = node if node >= 0 else add(hand[0], code)
                        reason = end[node]
                        if reason == END_NONE:
                            turn_box, turn_hand = b, i
                            state = _PLAYING
                        else:
                            hand[1] = _FINISHED
                            if reason == END_BUST:
                                settle_hand(b, i, _BUST, node)
                            elif reason == END_TWENTY_ONE:
                                if twenty_one_at_once and not is_super_bonus(node):
                                    settle_hand(b, i, _TWENTY_ONE, node)
                            elif reason == END_ONE_AFTER_DOUBLE and rescue_window:
                                turn_box, turn_hand = b, i
                                state = _RESCUE
                            if state != _RESCUE:
                                state = find_turn(b, i + 1)
                        if trace is not None:
                            move(_CARD_DUE, _A_CARD, state)
                        continue
                    while state == _DEALER:  # RoundController._dealer_card, card by card
                        code = cards[at]
                        at += 1
                        node = step[dealer * NCODES + code]
                        node = dealer = node if node >= 0 else add(dealer, code)
                        if size[node] == 2:
                            dealer_two = node
                            if not hole:
                                state = dealer_second_card(node)
                            else:
                                state = dealer_draws_or_finish()
                        elif not (must_draw[node] and unsettled > 0):  # else it draws again
                            state = dealer_draws_or_finish()
                        if trace is not None:
                            move(_DEALER, _A_CARD, state)
                    if state == _SETTLING:
                        break
                    source = state
                    if state == _REVEAL:
                        action, state = _A_OK, reveal()
                    elif state == _RESCUE:
                        action, state = rescue_or_ok()
                    elif state not in (_PLAYING, _CARD_DUE, _DEALER):  # pragma: no cover
                        raise KernelError(f"the kernel has no step for {_STATES[state].value}")
                    else:
                        continue
                    if trace is not None:
                        move(source, action, state)
                # SETTLING: count the round (controller.play.tally.Tally.count_round) ...
                n_rounds += 1
                sum_net += net
                sum_net_sq += net * net
                sum_no_sb += net_no_sb
                sum_no_sb_sq += net_no_sb * net_no_sb
                n_super += super_bonuses
                n_rescues += rescues
                n_hands += nb
                for b in box_range:
                    hands = hands_of[b]
                    if surrendered[b]:
                        n_surrenders += 1
                    if len(hands) == 1:
                        bits = tally_bits[hands[0][0]]
                        if bits < 0:
                            bits = g.tally_of(hands[0][0])
                        if bits & TALLY_NATURAL:
                            n_naturals += 1
                    if surrendered[b]:
                        continue
                    for hand in hands:
                        bits = tally_bits[hand[0]]
                        if bits < 0:
                            bits = g.tally_of(hand[0])
                        if bits & TALLY_OTHER:
                            counted = g.hand_tally(hand[0])
                            for row in counted.bonus:
                                bonus[row] = bonus.get(row, 0) + 1
                            n_tricks += counted.five_card_trick
                # ... the dealer's final hand, completed from the shoe where the round ended
                node = dealer
                is_natural = dealer_two >= 0 and two_card_21[dealer_two]
                category = -1
                if not is_natural and needs[node]:
                    completed += 1
                    ahead = at
                    while needs[node]:
                        if ahead >= len(cards):  # a recording that ends here
                            unknown += 1
                            break
                        code = cards[ahead]
                        nxt = step[node * NCODES + code]
                        node = nxt if nxt >= 0 else add(node, code)
                        ahead += 1
                    else:
                        is_natural = size[node] == 2 and two_card_21[node]
                        category = g.dealer_category_of(node, is_natural, DEALER_CATEGORIES)
                elif is_natural:
                    category = g.dealer_category_of(node, True, DEALER_CATEGORIES)
                else:
                    category = dealer_category[node]
                    if category < 0:
                        category = g.dealer_category_of(node, False, DEALER_CATEGORIES)
                if category >= 0:
                    dealer_counts[column[first] * _NCAT + category] += 1
                # ... and OK: the next round (RoundController._next_round), after a shuffle
                # where the cut card came out (or before every round)
                state = _SHUFFLE if at >= cut_at else _BETTING
                if trace is not None:
                    move(_SETTLING, _A_OK, state)
                self.state = state
                played += 1
        except IndexError:
            if at < len(cards):
                raise
            raise ShoeEnded(at - shoe.since, shoe.recorded) from None
        finally:
            shoe.at = at
            t.rounds += n_rounds
            t.initial_hands += n_hands
            t.net_cents += sum_net
            t.net_sq += sum_net_sq
            t.net_no_sb_cents += sum_no_sb
            t.net_no_sb_sq += sum_no_sb_sq
            t.wagered_cents += n_hands * wager
            t.naturals += n_naturals
            t.surrenders += n_surrenders
            t.super_bonuses += n_super
            t.rescues += n_rescues
            t.five_card_tricks += n_tricks
            t.dealer_completed += completed
            t.dealer_unknown += unknown
        return played

    def result(self) -> Tally:
        """The totals so far (the shoe's counts included)."""
        t = self.tally
        for row, count in self._bonus.items():
            t.bonus[row] += count
        self._bonus.clear()
        for c, up in enumerate(UP_CARDS):
            for k, category in enumerate(DEALER_CATEGORIES):
                t.dealer[up][category] += self._dealer_counts[c * _NCAT + k]
        self._dealer_counts[:] = [0] * len(self._dealer_counts)
        t.shoes = self.shoe.shoes
        t.cards_drawn = self.shoe.drawn
        return t
