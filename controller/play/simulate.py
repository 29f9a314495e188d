"""The headless simulator: many rounds by the table's own rules and settlement.

Two engines play the same rounds with the same results (``SimConfig.engine``):

* ``kernel`` (the default): :mod:`controller.play.kernel` walks the round controller's
  procedure on integer-coded hands whose every rule (end of hand, the ``why_not_*`` checks,
  basic strategy, settlement, what is counted) is asked of the round model, the hand
  evaluation, the settlement and the strategy once per kind of hand
  (:mod:`controller.play.hand_graph`); about twenty times faster.
* ``controller``: each round is dealt by :func:`controller.play.autoplay.play_rounds` into a
  :class:`RoundController` (the same machine and settlement functions the table runs). The
  differential test (``tests/simulate/test_kernel_differential.py``) holds the kernel to it
  output for output: every state change, ledger entry, device command and tally.

Both are fed card by card from the emulated shoe's seeded stream in-process (no serial
framing): :class:`ShoeStream` (and the kernel's :class:`~controller.play.kernel.CodeShoe`)
shuffles exactly as :class:`sim_hardware.shoe.EmulatedShoe` does (one ``random.Random(seed)``
shuffling a fresh :func:`~drivers.tbl21.cards.shoe_cards` shoe in turn), or replays a recorded
card order. Every player decision comes from the variant's basic strategy
(:class:`StrategyPlayer`); the dealer's hands (cards, reader, reveal, OK) are automatic.

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
import json
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller import compiled
from controller.play import choices, tables_cache
from controller.play.errors import PlayError, SimulationError
from controller.play.hand_graph import HandGraph
from controller.play.kernel import CodeShoe, Kernel, ShoeEnded
from controller.play.strategy import Strategy, strategy_for
from controller.play.tally import DEALER_CATEGORIES, UP_CARDS, Tally
from drivers.tbl21.cards import Card, DeckType, shoe_cards
from sim_hardware.cardlist import read_card_file
from sim_hardware.errors import CardListError

if TYPE_CHECKING:  # (a kernel run imports neither the round controller nor a process pool)
    from concurrent.futures import Future

    from controller.game.rules import Variant
    from controller.round.controller import Output

__all__ = [
    "CHUNK_ROUNDS",
    "DEALER_CATEGORIES",
    "ENGINES",
    "UP_CARDS",
    "ShoeStream",
    "SimConfig",
    "Tally",
    "chunk_seed",
    "report",
    "run_chunk",
    "simulate",
]

CHUNK_ROUNDS = 5_000  # rounds per chunk: fixed, so the plan does not depend on the workers
BATCH_ROUNDS = 250  # rounds per play_rounds call inside a chunk (bounds the records kept)
PLAYERS = ("p1", "p2", "p3", "p4", "p5", "p6", "p7")

Shuffle = choices.Shuffle
SHUFFLES = choices.SHUFFLES
Engine = choices.Engine
ENGINES = choices.ENGINES


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
    engine: Engine = "kernel"


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


# --- running ------------------------------------------------------------------------------


def load_rules(config: SimConfig, kept: Path | None = None) -> Variant:
    """The rules of ``config``, validated; kept in the folder ``kept``
    (:func:`controller.play.tables_cache.kept_rules`) where given."""
    if kept is not None:
        return tables_cache.kept_rules(config.variant, config.overrides, kept)
    from controller.game.rules import load_variant  # noqa: PLC0415 - pydantic, where needed

    return load_variant(config.variant, dict(config.overrides) or None)


def run_chunk(
    config: SimConfig,
    chunk: int,
    rounds: int,
    on_batch: Callable[[int], None] | None = None,
    outputs: list[Output] | None = None,
) -> Tally:
    """Play one chunk of rounds on a fresh table with the configured engine; the chunk's
    totals. ``on_batch(n)`` hears of every batch of ``n`` rounds played (for a progress bar);
    ``outputs`` (for the differential test) receives what the table emitted: the headless
    controller's outputs, or the kernel's trace of them."""
    if config.engine == "controller":
        return _controller_chunk(config, chunk, rounds, on_batch, outputs)
    return _kernel_chunk(config, chunk, rounds, on_batch, outputs)


def _cut_after(rules: Variant, config: SimConfig) -> int | None:
    """Cards drawn from a shoe before the cut card comes out (None: shuffle every round)."""
    if config.shuffle == "each-round":
        return None
    return rules.shoe.decks * rules.shoe.deck.size - rules.shoe.cut_card_reserve


def _controller_chunk(
    config: SimConfig,
    chunk: int,
    rounds: int,
    on_batch: Callable[[int], None] | None,
    outputs: list[Output] | None,
) -> Tally:
    # this engine only (a kernel run imports neither the controller nor autoplay)
    from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds  # noqa: PLC0415
    from controller.play.sim_hands import SimHands  # noqa: PLC0415
    from controller.play.strategy import StrategyPlayer  # noqa: PLC0415
    from controller.round.controller import RoundController  # noqa: PLC0415

    rules = load_rules(config)
    strategy = strategy_for(rules)
    controller = RoundController(rules, prompts=False)  # nobody reads a simulated prompt
    each_round = config.shuffle == "each-round"
    recorded = read_shoe_file(config.shoe_file) if config.shoe_file else None
    stream = ShoeStream(
        rules.shoe.deck,
        rules.shoe.decks,
        seed=None if recorded is not None else chunk_seed(config.seed, chunk),
        cards=recorded,
        cut_after=_cut_after(rules, config),
    )
    tally = Tally()
    hands = SimHands(controller, stream, tally, each_round=each_round)
    player = StrategyPlayer(strategy)
    bets = [ScriptedBet(b, PLAYERS[b - 1], config.wager_cents) for b in range(1, config.boxes + 1)]
    script = ScriptedRound(bets, [])

    def drain() -> list[Any]:  # the hands count each round from its ledger; prompts are unread
        if outputs is not None:
            return controller.drain()
        controller.outbox.clear()
        return []

    on_output = outputs.extend if outputs is not None else None
    left = rounds
    while left > 0:
        batch = min(left, BATCH_ROUNDS)
        try:
            _, rejected = play_rounds(
                controller, hands, [script] * batch, auto=player, drain=drain, on_output=on_output
            )
        except PlayError as exc:
            if recorded is None:
                raise SimulationError(f"chunk {chunk}: {exc}") from exc
            tally.shoe_exhausted = True  # the rounds it finished are counted; not the last one
            break
        if rejected:
            first = rejected[0]
            raise SimulationError(
                f"round {first.round}: the table refused a decision: {first.reason}"
            )
        left -= batch
        if on_batch is not None:
            on_batch(batch)
    tally.shoes = stream.shoes
    tally.cards_drawn = stream.drawn
    return tally


# The kernel's tables depend on the rules, the strategy and the wager only: one per process,
# shared by its chunks (they are filled as rounds need them; the results do not depend on it).
_GRAPHS: dict[tuple[str, str, int], tuple[Variant, HandGraph]] = {}


def kernel_tables(config: SimConfig, kept: Path | None = None) -> tuple[Variant, HandGraph]:
    """The rules and the kernel's graph of ``config`` (one per process); from the folder
    ``kept`` (:mod:`controller.play.tables_cache`) where it holds the graph of the same key."""
    key = (
        config.variant,
        json.dumps(dict(config.overrides), sort_keys=True, default=str),
        config.wager_cents,
    )
    found = _GRAPHS.get(key)
    if found is None:
        rules = load_rules(config, kept)
        strategy: Strategy = strategy_for(rules)
        graph = None
        if kept is not None:
            graph = tables_cache.load_graph(
                rules, strategy, config.wager_cents, _kept_key(rules, strategy, config), kept
            )
        if graph is None:
            graph = HandGraph(rules, strategy, config.wager_cents)
        found = _GRAPHS[key] = (rules, graph)
    return found


def _kept_key(rules: Variant, strategy: Strategy, config: SimConfig) -> str:
    return tables_cache.tables_key(rules, strategy, config.wager_cents)


def keep_tables(config: SimConfig, kept: Path, filled_before: tuple[int, ...]) -> None:
    """Keep the graph of ``config`` in ``kept`` where the run filled more of it."""
    rules, graph = kernel_tables(config)
    if tables_cache.filled(graph) != filled_before:
        tables_cache.save_graph(graph, _kept_key(rules, graph.strategy, config), kept)


def _kernel_chunk(
    config: SimConfig,
    chunk: int,
    rounds: int,
    on_batch: Callable[[int], None] | None,
    outputs: list[Output] | None,
) -> Tally:
    rules, graph = kernel_tables(config)
    recorded = read_shoe_file(config.shoe_file) if config.shoe_file else None
    shoe = CodeShoe(
        rules.shoe.deck,
        rules.shoe.decks,
        seed=None if recorded is not None else chunk_seed(config.seed, chunk),
        cards=recorded,
    )
    kernel = Kernel(
        rules,
        graph,
        shoe,
        boxes=config.boxes,
        players=PLAYERS,
        each_round=config.shuffle == "each-round",
        cut_after=_cut_after(rules, config),
        trace=outputs,
    )
    left = rounds
    exhausted = False
    while left > 0:
        batch = min(left, BATCH_ROUNDS)
        try:
            kernel.play(batch)
        except ShoeEnded as end:
            if not end.recorded:
                raise SimulationError(
                    f"chunk {chunk}: the shoe ran out after {end.at} cards: "
                    "shoe.cut_card_reserve is too small"
                ) from None
            exhausted = True  # the rounds it finished are counted; not the last one
            break
        left -= batch
        if on_batch is not None:
            on_batch(batch)
    tally = kernel.result()
    tally.shoe_exhausted = exhausted
    return tally


def read_shoe_file(path: str) -> list[Card]:
    """A recorded card order (``AS KH 7C ...``, commas, new lines, ``#`` comments)."""
    try:
        return read_card_file(path)
    except CardListError as exc:
        raise SimulationError(str(exc)) from exc


# --- the whole run ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SimResult:
    config: SimConfig
    rules: Variant
    tally: Tally
    seconds: float  # wall-clock time of the run
    chunks: int
    cpu_seconds: float = 0.0  # CPU time of the chunks, every worker's added up


Progress = Callable[[int, int], None]  # (rounds done, rounds planned)


def check_config(config: SimConfig, kept: Path | None = None) -> Variant:
    """The rules of the run, after refusing what cannot be simulated (with the reason);
    ``kept``: see :func:`load_rules`."""
    if config.rounds < 1:
        raise SimulationError(f"--rounds must be at least 1, got {config.rounds}")
    if config.workers < 1:
        raise SimulationError(f"--workers must be at least 1, got {config.workers}")
    if config.shuffle not in SHUFFLES:
        raise SimulationError(
            f"--shuffle must be one of {', '.join(SHUFFLES)}, got {config.shuffle!r}"
        )
    if config.engine not in ENGINES:
        raise SimulationError(
            f"--engine must be one of {', '.join(ENGINES)}, got {config.engine!r}"
        )
    rules = load_rules(config, kept)
    if not 1 <= config.boxes <= rules.table.boxes:
        raise SimulationError(
            f"--boxes must be 1-{rules.table.boxes} for {rules.id}, got {config.boxes}"
        )
    increment = rules.table.min_increment_cents
    if config.wager_cents <= 0 or config.wager_cents % increment:
        raise SimulationError(
            f"--wager must be a positive multiple of the table increment "
            f"({increment / 100:.2f}), got {config.wager_cents / 100:.2f}"
        )
    if config.shoe_file is not None:
        if config.workers != 1:
            raise SimulationError(
                "--shoe-file replays one card order in one process: use --workers 1"
            )
        cards = read_shoe_file(config.shoe_file)
        if rules.shoe.deck is DeckType.SPANISH_48:
            tens = [i for i, c in enumerate(cards, 1) if c.points == 10 and c.rank.value == "T"]
            if tens:
                raise SimulationError(
                    f"{config.shoe_file}: card {tens[0]} is a ten, but {rules.id} deals a "
                    "Spanish 48-card shoe without tens"
                )
    strategy_for(rules)  # a strategy that does not fit the rules is refused here
    return rules


def timed_chunk(config: SimConfig, chunk: int, rounds: int) -> tuple[Tally, float]:
    """:func:`run_chunk` in a worker: its totals and the CPU seconds it took there."""
    cpu = time.process_time()
    tally = run_chunk(config, chunk, rounds)
    return tally, time.process_time() - cpu


def simulate(
    config: SimConfig, progress: Progress | None = None, tables: Path | None = None
) -> SimResult:
    """Run the simulation (in this process with one worker, else in a process pool).
    ``tables``: the folder of the kernel's kept tables (:mod:`controller.play.tables_cache`),
    read before the run and written after it where the run filled more of them."""
    rules = check_config(config, tables if config.engine == "kernel" else None)
    filled_before: tuple[int, ...] = ()
    if tables is not None and config.engine == "kernel":
        filled_before = tables_cache.filled(kernel_tables(config, tables)[1])
    plan = [config.rounds] if config.shoe_file else chunk_plan(config.rounds)
    started = time.perf_counter()
    total = Tally()
    done = 0
    cpu = 0.0
    workers = min(config.workers, len(plan))
    if progress is not None:
        progress(0, config.rounds)
    if workers == 1:

        def played(batch: int) -> None:
            nonlocal done
            done += batch
            if progress is not None:
                progress(done, config.rounds)

        cpu_started = time.process_time()
        for chunk, rounds in enumerate(plan):
            tally = run_chunk(config, chunk, rounds, played)
            total.add(tally)
            if tally.shoe_exhausted:
                break
        cpu = time.process_time() - cpu_started
    else:
        if config.engine == "kernel":
            kernel_tables(config)  # built once here; forked workers start with it
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415 - workers only

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures: list[Future[tuple[Tally, float]]] = [
                pool.submit(timed_chunk, config, chunk, rounds) for chunk, rounds in enumerate(plan)
            ]
            for future, rounds in zip(futures, plan, strict=True):  # in chunk order
                tally, chunk_cpu = future.result()
                total.add(tally)
                cpu += chunk_cpu
                done += rounds
                if progress is not None:
                    progress(done, config.rounds)
    seconds = time.perf_counter() - started
    if tables is not None and config.engine == "kernel":
        keep_tables(config, tables, filled_before)
    return SimResult(config, rules, total, seconds, len(plan), cpu)


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


def _kernel_build() -> str:
    """How the kernel ran: compiled (setup.py), or its Python source and why."""
    for choice in compiled.status():
        if choice.module == Kernel.__module__:
            return "compiled" if choice.compiled else f"Python source: {choice.reason}"
    return "Python source"


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
    overall = dict.fromkeys(DEALER_CATEGORIES, 0)
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
    rounds_per_cpu_s = t.rounds / result.cpu_seconds if result.cpu_seconds > 0 else 0.0
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
            "engine": c.engine,
            "kernel": _kernel_build() if c.engine == "kernel" else None,
            "seconds": round(result.seconds, 3),
            "cpu_seconds": round(result.cpu_seconds, 3),
            "rounds_per_second": round(rounds_per_s, 1),
            "rounds_per_cpu_second": round(rounds_per_cpu_s, 1),
            "workers": min(c.workers, result.chunks),
            "rounds_per_second_per_worker": round(
                rounds_per_s / max(1, min(c.workers, result.chunks)), 1
            ),
        },
    }
