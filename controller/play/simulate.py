"""The headless simulator: many rounds through the table's own round controller and settlement.

Each round is dealt by :func:`controller.play.autoplay.play_rounds` into a :class:`RoundController`
(the same machine and settlement functions the table runs), fed card by card from the emulated
shoe's seeded stream in-process (no serial framing): :class:`ShoeStream` shuffles exactly as
:class:`sim_hardware.shoe.EmulatedShoe` does (one ``random.Random(seed)`` shuffling a fresh
:func:`~drivers.tbl21.cards.shoe_cards` shoe in turn), or replays a recorded card order. Every
player decision comes from the variant's basic strategy (:class:`StrategyPlayer`); the dealer's
hands (cards, reader, reveal, OK) are automatic.

The work is cut into chunks of :data:`CHUNK_ROUNDS` rounds, each with its own table (a fresh
controller and a fresh shoe) and its own stream seeded from ``(seed, chunk number)``; workers
(separate processes) take chunks, and the totals are added up in chunk order. So the results
depend on the seed and the number of rounds only, never on the number of workers. Money is
integer cents and every total is an exact integer; the floats of the report (edges, standard
errors, frequencies) are computed once at the end from those integers.

The shuffle: ``cut-card`` (default) deals each shoe to the cut card (``shoe.cut_card_reserve``
cards left behind it), finishes the round and shuffles, as at the table; ``each-round``
shuffles a fresh shoe before every round (the cut card is placed on top).

What is counted (see :func:`report` for the JSON): the house edge is the players' net loss per
unit of initial wager (each round's initial wagers on all boxes), with its standard error from
the per-round nets; the per-round variance is in units of one box's wager squared. "Without
the Super Bonus" leaves out the Super Bonus and the table bonus entries (the hand's odds stay).
Frequencies are per initial hand (a box in a round): naturals dealt, boxes surrendered or
insured, stakes rescued, Super Bonuses paid, and final hands that make a bonus combination or
a five-card trick (doubled hands included). The dealer's final hand is counted for every round:
where the round ended before the dealer finished (every box settled already), the hand is
completed by the drawing rule from the next cards in the shoe, as the dealer would have drawn.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from controller.game.errors import CroupierError
from controller.game.hands import (
    Tier,
    bonus_hands,
    dealer_must_draw,
    hand_value,
    is_natural,
    is_two_card_21,
    player_rank,
)
from controller.game.rules import BonusHand, Variant, load_variant
from controller.game.settlement import EntryKind
from controller.play.autoplay import DirectHands, ScriptedBet, ScriptedRound, play_rounds
from controller.play.errors import PlayError
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.round.controller import RoundController
from controller.round.model import RoundState
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card, DeckType, shoe_cards
from sim_hardware.cardlist import read_card_file
from sim_hardware.errors import CardListError

__all__ = [
    "CHUNK_ROUNDS",
    "DEALER_CATEGORIES",
    "ShoeStream",
    "SimConfig",
    "SimError",
    "Tally",
    "chunk_seed",
    "report",
    "run_chunk",
    "simulate",
]

CHUNK_ROUNDS = 5_000  # rounds per chunk: fixed, so the plan does not depend on the workers
BATCH_ROUNDS = 250  # rounds per play_rounds call inside a chunk (bounds the records kept)
PLAYERS = ("p1", "p2", "p3", "p4", "p5", "p6", "p7")
DEALER_CATEGORIES = ("bust", "17", "18", "19", "20", "21", "natural", "other")
UP_CARDS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
BONUS_KINDS = (EntryKind.SUPER_BONUS, EntryKind.TABLE_BONUS)

Shuffle = Literal["each-round", "cut-card"]
SHUFFLES: tuple[Shuffle, ...] = ("each-round", "cut-card")


class SimError(CroupierError):
    """The simulation could not be set up or could not go on."""


@dataclass(frozen=True, slots=True)
class SimConfig:
    variant: str  # a variant id or a variant file
    rounds: int
    boxes: int = 1
    wager_cents: int = 1000
    seed: int = 1
    workers: int = 1
    overrides: Mapping[str, Any] = field(default_factory=dict)
    shuffle: Shuffle = "cut-card"
    shoe_file: str | None = None  # replay this card order (one stream, one process)


def chunk_seed(seed: int, chunk: int) -> int:
    """The stream seed of one chunk: independent of the others and of the worker count."""
    digest = hashlib.sha256(f"croupier-simulate:{seed}:{chunk}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def chunk_plan(rounds: int) -> list[int]:
    """Rounds per chunk: full chunks of CHUNK_ROUNDS, the remainder last."""
    full, rest = divmod(rounds, CHUNK_ROUNDS)
    return [CHUNK_ROUNDS] * full + ([rest] if rest else [])


# --- the card stream ------------------------------------------------------------------------


class ShoeStream:
    """The cards as the dealer draws them, and the cut card.

    Seeded: each new shoe is ``shoe_cards(deck, decks)`` shuffled by one ``random.Random(seed)``
    in turn, exactly the emulated shoe's order (its first shoe, then one per ``L`` command).
    Recorded (``cards``): the cards come out in the recorded order, across shuffles; the stream
    ends with the recording.
    """

    def __init__(
        self,
        deck: DeckType,
        decks: int,
        *,
        seed: int | None = None,
        cards: Sequence[Card] | None = None,
        cut_after: int | None = None,
    ) -> None:
        self.deck = deck
        self.decks = decks
        self.cut_after = cut_after  # cards drawn from a shoe before the cut card comes out
        self._rng = random.Random(seed)
        self._recorded = list(cards) if cards is not None else None
        self._shoe: list[Card] = []
        self._at = 0  # next card of self._shoe
        self._drawn_since_shuffle = 0
        self.cut_out = False
        self.shoes = 0
        self.drawn = 0
        self.new_shoe()

    def shuffled_shoe(self) -> list[Card]:
        cards = shoe_cards(self.deck, self.decks)
        self._rng.shuffle(cards)
        return cards

    def new_shoe(self) -> None:
        """Load the next shoe (the dealer pressed SHF)."""
        self.shoes += 1
        self._drawn_since_shuffle = 0
        self.cut_out = False
        if self._recorded is not None:
            if self.shoes == 1:
                self._shoe, self._at = self._recorded, 0
            return  # a recording goes on where it is
        self._shoe, self._at = self.shuffled_shoe(), 0

    def draw(self) -> Card:
        """The next card; sets ``cut_out`` when the cut card comes out behind it."""
        if self._at >= len(self._shoe):
            if self._recorded is not None:
                raise PlayError("the recorded card order ran out")
            raise PlayError(
                f"the shoe ran out after {self._at} cards: shoe.cut_card_reserve is too small"
            )
        card = self._shoe[self._at]
        self._at += 1
        self._drawn_since_shuffle += 1
        self.drawn += 1
        if self.cut_after is not None and self._drawn_since_shuffle >= self.cut_after:
            self.cut_out = True
        return card

    def peek(self, ahead: int) -> Card | None:
        """The card ``ahead`` places below the top (0: the next card), without drawing it."""
        at = self._at + ahead
        return self._shoe[at] if at < len(self._shoe) else None

    def __iter__(self) -> Iterator[Card]:
        return self

    def __next__(self) -> Card:
        return self.draw()


class SimHands(DirectHands):
    """The simulator's dealer: cards from a :class:`ShoeStream`, a perfect reader, the cut card
    reported to the controller when it comes out, SHF loading the next shoe."""

    def __init__(
        self, controller: RoundController, stream: ShoeStream, tally: Tally, *, each_round: bool
    ) -> None:
        super().__init__(controller, stream)
        self.stream = stream
        self.tally = tally
        self.each_round = each_round
        self._cut_reported = False

    def draw(self) -> None:
        stream = self.stream
        self.controller.perform(Action.CARD, card=stream.draw())
        if (stream.cut_out or self.each_round) and not self._cut_reported:
            self._cut_reported = True
            self.controller.cut_card_seen()

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        controller = self.controller
        if action is Action.OK and controller.state is State.SETTLING:
            # The dealer acknowledges the settlement: the round is over, count it (with the
            # shoe as it is now, for the dealer's hand the round did not need).
            self.tally.count_round(controller.rules, controller.round, self.stream.peek)
        controller.perform(action, **data)
        if action is Action.SHUFFLE:
            self.stream.new_shoe()
            self._cut_reported = False


# --- tallies --------------------------------------------------------------------------------


def _counter(keys: Sequence[str]) -> dict[str, int]:
    return dict.fromkeys(keys, 0)


@dataclass
class Tally:
    """Exact integer totals of a number of rounds (chunks add up in any order)."""

    rounds: int = 0
    initial_hands: int = 0
    net_cents: int = 0  # player's side: + the players won
    net_sq: int = 0  # sum of squared per-round nets (cents^2)
    net_no_sb_cents: int = 0  # without the Super Bonus and the table bonus
    net_no_sb_sq: int = 0
    wagered_cents: int = 0  # initial wagers
    naturals: int = 0
    surrenders: int = 0
    insurances: int = 0
    rescues: int = 0
    super_bonuses: int = 0
    five_card_tricks: int = 0
    bonus: dict[str, int] = field(default_factory=lambda: _counter([b.value for b in BonusHand]))
    dealer: dict[str, dict[str, int]] = field(
        default_factory=lambda: {up: _counter(DEALER_CATEGORIES) for up in UP_CARDS}
    )
    dealer_completed: int = 0  # dealer hands completed from the shoe (the round had ended)
    dealer_unknown: int = 0  # ... where the recorded card order ended first
    cards_drawn: int = 0
    shoes: int = 0
    shoe_exhausted: bool = False

    def add(self, other: Tally) -> None:
        for name in (
            "rounds", "initial_hands", "net_cents", "net_sq", "net_no_sb_cents", "net_no_sb_sq",
            "wagered_cents", "naturals", "surrenders", "insurances", "rescues", "super_bonuses",
            "five_card_tricks", "dealer_completed", "dealer_unknown", "cards_drawn", "shoes",
        ):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, count in other.bonus.items():
            self.bonus[key] += count
        for up, row in other.dealer.items():
            for key, count in row.items():
                self.dealer[up][key] += count
        self.shoe_exhausted = self.shoe_exhausted or other.shoe_exhausted

    def count_round(
        self, rules: Variant, state: RoundState, peek: Callable[[int], Card | None]
    ) -> None:
        """Add a finished round. ``peek(i)``: the i-th card still in the shoe (for the dealer's
        hand where the round ended before the dealer drew: every box was already settled)."""
        self.rounds += 1
        net = net_no_sb = 0
        for entry in state.ledger:
            net += entry.amount_cents
            kind = entry.kind
            if kind in BONUS_KINDS:
                if kind is EntryKind.SUPER_BONUS:
                    self.super_bonuses += 1
            else:
                net_no_sb += entry.amount_cents
            if kind is EntryKind.RESCUE:
                self.rescues += 1
        self.net_cents += net
        self.net_sq += net * net
        self.net_no_sb_cents += net_no_sb
        self.net_no_sb_sq += net_no_sb * net_no_sb
        five_card_trick = rules.hands.five_card_trick
        for box in state.boxes.values():
            self.initial_hands += 1
            self.wagered_cents += sum(w.amount_cents for w in box.wagers)
            if box.surrendered:
                self.surrenders += 1
            if box.insurance:
                self.insurances += 1
            hands = box.hands
            first = hands[0]
            if (
                len(hands) == 1
                and len(first.cards) == 2
                and not first.doubles
                and is_natural(rules, first.cards, False)
            ):
                self.naturals += 1
            if box.surrendered:
                continue
            for hand in hands:
                cards = hand.cards
                if len(cards) < 3:
                    continue
                value = hand_value(cards)
                if value.total > 21:
                    continue
                for row in bonus_hands(cards, value):
                    self.bonus[row.value] += 1
                if five_card_trick and len(cards) == 5:
                    rank = player_rank(rules, cards, hand.from_split)
                    self.five_card_tricks += rank.tier is Tier.FIVE_CARD_TRICK
        self._count_dealer(rules, state, peek)

    def _count_dealer(
        self, rules: Variant, state: RoundState, peek: Callable[[int], Card | None]
    ) -> None:
        cards = list(state.dealer.cards)
        if not cards:
            return
        up = cards[0]
        column = "A" if up.is_ace else ("T" if up.points == 10 else str(up.points))
        natural = len(cards) >= 2 and is_two_card_21(cards[:2])
        if not natural and (len(cards) < 2 or dealer_must_draw(rules, cards)):
            # The round was over before the dealer finished: complete the hand by the drawing
            # rule from the cards the dealer would have drawn next.
            self.dealer_completed += 1
            ahead = 0
            while len(cards) < 2 or dealer_must_draw(rules, cards):
                card = peek(ahead)
                if card is None:  # a recording that ends here
                    self.dealer_unknown += 1
                    return
                cards.append(card)
                ahead += 1
            natural = len(cards) == 2 and is_two_card_21(cards)
        value = hand_value(cards)
        if natural:
            category = "natural"
        elif value.total > 21:
            category = "bust"
        elif value.total >= 17:
            category = str(value.total)
        else:  # a five-card hand under 17 where the dealer stands on five cards
            category = "other"
        self.dealer[column][category] += 1


# --- running ------------------------------------------------------------------------------


def load_rules(config: SimConfig) -> Variant:
    return load_variant(config.variant, dict(config.overrides) or None)


def run_chunk(
    config: SimConfig, chunk: int, rounds: int, on_batch: Callable[[int], None] | None = None
) -> Tally:
    """Play one chunk of rounds on a fresh table; the chunk's totals. ``on_batch(n)`` hears of
    every batch of ``n`` rounds played (for a progress bar)."""
    rules = load_rules(config)
    strategy = strategy_for(rules)
    controller = RoundController(rules, prompts=False)  # nobody reads a simulated prompt
    cards_in_shoe = rules.shoe.decks * rules.shoe.deck.size
    each_round = config.shuffle == "each-round"
    recorded = read_shoe_file(config.shoe_file) if config.shoe_file else None
    stream = ShoeStream(
        rules.shoe.deck,
        rules.shoe.decks,
        seed=None if recorded is not None else chunk_seed(config.seed, chunk),
        cards=recorded,
        cut_after=None if each_round else cards_in_shoe - rules.shoe.cut_card_reserve,
    )
    tally = Tally()
    hands = SimHands(controller, stream, tally, each_round=each_round)
    player = StrategyPlayer(strategy)
    bets = [ScriptedBet(b, PLAYERS[b - 1], config.wager_cents) for b in range(1, config.boxes + 1)]
    script = ScriptedRound(bets, [])

    def drain() -> list[Any]:  # the hands count each round from its ledger; prompts are unread
        controller.outbox.clear()
        return []

    left = rounds
    while left > 0:
        batch = min(left, BATCH_ROUNDS)
        try:
            _, rejected = play_rounds(controller, hands, [script] * batch, auto=player, drain=drain)
        except PlayError as exc:
            if recorded is None:
                raise SimError(f"chunk {chunk}: {exc}") from exc
            tally.shoe_exhausted = True  # the rounds it finished are counted; not the last one
            break
        if rejected:
            first = rejected[0]
            raise SimError(f"round {first.round}: the table refused a decision: {first.reason}")
        left -= batch
        if on_batch is not None:
            on_batch(batch)
    tally.shoes = stream.shoes
    tally.cards_drawn = stream.drawn
    return tally


def read_shoe_file(path: str) -> list[Card]:
    """A recorded card order (``AS KH 7C ...``, commas, new lines, ``#`` comments)."""
    try:
        return read_card_file(path)
    except CardListError as exc:
        raise SimError(str(exc)) from exc


# --- the whole run ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SimResult:
    config: SimConfig
    rules: Variant
    tally: Tally
    seconds: float
    chunks: int


Progress = Callable[[int, int], None]  # (rounds done, rounds planned)


def check_config(config: SimConfig) -> Variant:
    """The rules of the run, after refusing what cannot be simulated (with the reason)."""
    if config.rounds < 1:
        raise SimError(f"--rounds must be at least 1, got {config.rounds}")
    if config.workers < 1:
        raise SimError(f"--workers must be at least 1, got {config.workers}")
    if config.shuffle not in SHUFFLES:
        raise SimError(f"--shuffle must be one of {', '.join(SHUFFLES)}, got {config.shuffle!r}")
    rules = load_rules(config)
    if not 1 <= config.boxes <= rules.table.boxes:
        raise SimError(f"--boxes must be 1-{rules.table.boxes} for {rules.id}, got {config.boxes}")
    increment = rules.table.min_increment_cents
    if config.wager_cents <= 0 or config.wager_cents % increment:
        raise SimError(
            f"--wager must be a positive multiple of the table increment "
            f"({increment / 100:.2f}), got {config.wager_cents / 100:.2f}"
        )
    if config.shoe_file is not None:
        if config.workers != 1:
            raise SimError("--shoe-file replays one card order in one process: use --workers 1")
        cards = read_shoe_file(config.shoe_file)
        if rules.shoe.deck is DeckType.SPANISH_48:
            tens = [i for i, c in enumerate(cards, 1) if c.points == 10 and c.rank.value == "T"]
            if tens:
                raise SimError(
                    f"{config.shoe_file}: card {tens[0]} is a ten, but {rules.id} deals a "
                    "Spanish 48-card shoe without tens"
                )
    strategy_for(rules)  # a strategy that does not fit the rules is refused here
    return rules


def simulate(config: SimConfig, progress: Progress | None = None) -> SimResult:
    """Run the simulation (in this process with one worker, else in a process pool)."""
    rules = check_config(config)
    plan = [config.rounds] if config.shoe_file else chunk_plan(config.rounds)
    started = time.perf_counter()
    total = Tally()
    done = 0
    workers = min(config.workers, len(plan))
    if progress is not None:
        progress(0, config.rounds)
    if workers == 1:

        def played(batch: int) -> None:
            nonlocal done
            done += batch
            if progress is not None:
                progress(done, config.rounds)

        for chunk, rounds in enumerate(plan):
            tally = run_chunk(config, chunk, rounds, played)
            total.add(tally)
            if tally.shoe_exhausted:
                break
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures: list[Future[Tally]] = [
                pool.submit(run_chunk, config, chunk, rounds) for chunk, rounds in enumerate(plan)
            ]
            for future, rounds in zip(futures, plan, strict=True):  # in chunk order
                total.add(future.result())
                done += rounds
                if progress is not None:
                    progress(done, config.rounds)
    return SimResult(config, rules, total, time.perf_counter() - started, len(plan))


# --- the report -----------------------------------------------------------------------------


def _ratio(count: int, of: int) -> float:
    return count / of if of else 0.0


def _edge(net: int, net_sq: int, rounds: int, unit: int) -> tuple[float, float, float]:
    """House edge per initial unit, its standard error and the per-round variance (in units
    of one box's wager), from exact integer totals."""
    if rounds == 0:
        return 0.0, 0.0, 0.0
    edge = -net / (rounds * unit)
    if rounds < 2:
        return edge, 0.0, 0.0
    spread = rounds * net_sq - net * net  # exact: rounds^2 * (mean of squares - square of mean)
    variance_cents = spread / (rounds * (rounds - 1))
    return edge, math.sqrt(variance_cents / rounds) / unit, variance_cents


def report(result: SimResult) -> dict[str, Any]:
    """The documented JSON report. Everything but ``performance`` depends only on the
    configuration (and the recorded card order), never on the machine or the worker count."""
    c, t = result.config, result.tally
    unit = c.boxes * c.wager_cents  # initial units per round
    edge, se, var = _edge(t.net_cents, t.net_sq, t.rounds, unit)
    edge_nb, se_nb, var_nb = _edge(t.net_no_sb_cents, t.net_no_sb_sq, t.rounds, unit)
    wager_sq = c.wager_cents * c.wager_cents
    hands = t.initial_hands
    dealer_rows: dict[str, dict[str, Any]] = {}
    overall = _counter(DEALER_CATEGORIES)
    for up in UP_CARDS:
        row = t.dealer[up]
        n = sum(row.values())
        dealer_rows[up] = {"hands": n, **{k: _ratio(v, n) for k, v in row.items()}}
        for k, v in row.items():
            overall[k] += v
    n_all = sum(overall.values())
    paid = [row.hand.value for row in result.rules.payouts.bonus]  # the rows the variant pays
    bonus = {k: _ratio(t.bonus[k], hands) for k in paid}
    rounds_per_s = t.rounds / result.seconds if result.seconds > 0 else 0.0
    return {
        "variant": result.rules.id,
        "overrides": {k: c.overrides[k] for k in sorted(c.overrides)},
        "shuffle": c.shuffle,
        "seed": None if c.shoe_file else c.seed,
        "shoe_file": c.shoe_file,
        "rounds": t.rounds,
        "boxes": c.boxes,
        "wager_cents": c.wager_cents,
        "initial_hands": hands,
        "chunks": result.chunks,
        "chunk_rounds": None if c.shoe_file else CHUNK_ROUNDS,
        "shoe_exhausted": t.shoe_exhausted,
        "house_edge": {
            "with_super_bonus": {"edge": edge, "standard_error": se},
            "without_super_bonus": {"edge": edge_nb, "standard_error": se_nb},
        },
        "variance_per_round": {
            "with_super_bonus": var / wager_sq,
            "without_super_bonus": var_nb / wager_sq,
        },
        "net_cents": {"with_super_bonus": t.net_cents, "without_super_bonus": t.net_no_sb_cents},
        "frequency": {
            "player_natural": _ratio(t.naturals, hands),
            "surrender": _ratio(t.surrenders, hands),
            "insurance": _ratio(t.insurances, hands),
            "rescue": _ratio(t.rescues, hands),
            "super_bonus": _ratio(t.super_bonuses, hands),
            "five_card_trick": _ratio(t.five_card_tricks, hands),
            "bonus_hands": bonus,
        },
        "counts": {
            "player_natural": t.naturals,
            "surrender": t.surrenders,
            "insurance": t.insurances,
            "rescue": t.rescues,
            "super_bonus": t.super_bonuses,
            "five_card_trick": t.five_card_tricks,
            "bonus_hands": {k: t.bonus[k] for k in paid},
            "cards_drawn": t.cards_drawn,
            "shoes": t.shoes,
        },
        "dealer_final": {
            "overall": {"hands": n_all, **{k: _ratio(v, n_all) for k, v in overall.items()}},
            "by_up_card": dealer_rows,
            "completed_from_shoe": t.dealer_completed,
            "unknown": t.dealer_unknown,
        },
        "performance": {
            "seconds": round(result.seconds, 3),
            "rounds_per_second": round(rounds_per_s, 1),
            "workers": min(c.workers, result.chunks),
            "rounds_per_second_per_worker": round(
                rounds_per_s / max(1, min(c.workers, result.chunks)), 1
            ),
        },
    }
