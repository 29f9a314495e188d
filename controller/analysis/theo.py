"""Exact, skill-adjusted theo: the value of every action a rated player could take at each of
their decisions, and what the action they took cost them against the best one.

A decision is a :class:`Spot`: the dealer's first card (where the player sees it), the hand's
cards, whether it came from a split (how many hands the box holds, and which of them it is),
and the action taken. Its actions are valued by the composition-dependent optimum
(:class:`~.engine.Analysis` with no strategy) for the shoe **as configured**, less only the
cards the player sees in that hand (its own cards, the dealer's first card and, for a split
hand, the other cards of the pair split from it, as the analysis values splits): never the
cards left in the actual shoe, so a rating neither rewards nor punishes the luck of the shoe.
Each action's value is the optimum played after it, in units of the hand's initial wager,
*given that the dealer has no natural* where the dealer checked for one before the player
decides (the engine's "W" values divided by the chance of no natural).

Splits are valued as the engine values them, by appendix 9's approximation
(:meth:`~.engine.Analysis.split_hands_value`): every split hand is played from the shoe less
the dealer's card and the pair cards split so far, never the other cards drawn to the box,
and the hands are otherwise independent. A split's value is that of all the hands it makes,
in units of one wager. At a first decision it is the engine's :meth:`~.engine.Analysis.
split_value`. At a split hand dealt a second pair card that the rules let split again (a
**re-split**: ``split.max_hands`` not reached, aces only where ``split.resplit_aces``), the
value of splitting again is, in the same model, the hands it makes and the hands after it on
the box still to get their second card (each of them then counts one more pair card out),
less those later hands as they are, dealt on without it: exactly the difference the optimum's
own choice to re-split compares with playing the hand on, so the cost of re-splitting or not
is the root decision's kind. Where the rules let a split hand split no more, no split is
offered there (a split taken there, which the table refuses, would have no value).

A decision's **cost** is the best action's value less the taken action's, in wager units
(:class:`~fractions.Fraction`, from the engine's binary floating point exactly): zero for the
best play, never negative. A session's **skill theo** is the optimum's house edge x its wagers
plus the sum of its decisions' costs x their wagers; its **book theo** is the average bet x
rounds x the par sheet's edge (the shipped chart's, as commercial systems compute theo).

The analysis is one per set of rules (and shoe), kept for the process by the rules' hash
(:func:`values_for`); a decision's values are worked out when first asked (the hands after it
only, a fraction of a second) and kept (the analysis begins again past :data:`MEMO_LIMIT`
hands). The two edges of a variant are a walk of every hand (seconds to a minute, up to 1.5 GB
of memory): they are cached on disk beside the par sheets (:func:`edges_for`), and a
long-lived process walks in a child process (:func:`edges_apart`).
Nothing here runs at the table: the floor rates sessions from the rows the tables shipped.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement
from pathlib import Path

from controller.analysis.engine import Analysis, Ctx, Rows
from controller.analysis.parsheet import ENGINE_VERSION, cache_dir
from controller.analysis.shoe import ZERO, Shoe, comp_of, plus
from controller.floor.ratings import NO_RESCUE, Rating, SeenDecision, SessionPlay, cents_shown
from controller.floor.table_rules import TableRules, no_config, unanalysed
from controller.game.errors import ConfigError
from controller.game.hands import HandEnd, is_natural
from controller.game.rules import SplitMatch, Variant
from controller.game.settlement import Wager
from controller.play.strategy import strategy_for
from controller.round.model import BoxState, HandState, StakeState, end_of_hand, why_not_split
from controller.round.spec import Action
from controller.table.private import make_folders, write_private
from drivers.tbl21.cards import Card

THEO_VERSION = "1"
# the hand values one analysis keeps for the decisions' values before it begins again (about
# 150 MB; nz-pontoon's every hand would be 2.8 million, 1.5 GB): the values worked out are kept
MEMO_LIMIT = 300_000
# the actions a rating values: the player's choices on a hand, insurance and the rescue of a
# doubled hand (each taken or declined)
RATED_ACTIONS = frozenset(
    {
        Action.HIT,
        Action.STAND,
        Action.DOUBLE,
        Action.SPLIT,
        Action.SURRENDER,
        Action.INSURANCE,
        Action.RESCUE,
    }
)


@dataclass(frozen=True)
class Spot:
    """One decision: the dealer's first card where the player sees it (None: face down), the
    hand's cards in the order dealt, and for a split hand the number of hands on the box and
    which of them it is (the hands after it, played after it, have one card each: their
    number is what a re-split's value depends on)."""

    up: Card | None
    cards: tuple[Card, ...]
    split_hands: int = 1  # hands on the box when the hand is one of a split (1: no split)
    doubled: bool = False  # doubled before (a double that draws on; a rescue's doubled hand)
    hand: int = 1  # its place on the box (1: the first hand)

    @property
    def later_hands(self) -> int:
        """The hands after it on the box, yet to get their second card."""
        return max(0, self.split_hands - max(self.hand, 1))

    @property
    def from_split(self) -> bool:
        return self.split_hands > 1


def rules_key(rules: Variant, shoe: Shoe) -> str:
    """The hash a variant's values are kept by: its rules and its shoe."""
    payload = {
        "engine": ENGINE_VERSION,
        "theo": THEO_VERSION,
        "rules": rules.model_dump(mode="json"),
        "shoe": list(shoe.counts),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# A decision as the values depend on it: the dealer's card (None: unseen), the hand's
# composition, its aces among the first two (where the rules count them), whether it is a pair
# the rules split, the hands on the box (1: not split), the pair's value (0: not split), doubled
SpotKey = tuple[int | None, tuple[int, ...], int, bool, int, int, bool]
# what the engine gives for a key: each action's weighted value, and the chance of the dealer's
# natural where it was checked for (0.0 where not)
Raw = tuple[dict[str, float], float]
# a re-split as its value depends on it: the dealer's card, the pair's value, the hands after
# the split hand yet to get their second card, the hands on the box
AgainKey = tuple[int | None, int, int, int]
_PLAYER = "p"  # the one player of the boxes the rules' checks are asked on
PRECOMPUTED_CARDS = 4  # hands of up to this many cards are worked out with the edges (cached)


class DecisionValues:
    """Every legal action's exact value at a decision, for one variant and shoe."""

    def __init__(self, rules: Variant, shoe: Shoe | None = None) -> None:
        self.rules = rules
        self.shoe = shoe if shoe is not None else Shoe.of_variant(rules)
        self.analysis = Analysis(rules, self.shoe, 1000, None)
        self.key = rules_key(rules, self.shoe)
        self._known: dict[SpotKey, dict[Action, Fraction]] = {}
        self._raw: dict[SpotKey, Raw] = {}  # from the cache (:meth:`preload`)
        self._again: dict[AgainKey, Fraction] = {}  # re-splits' values (:meth:`split_again`)
        self.preloaded = False

    def _pair(self, cards: Sequence[Card]) -> bool:
        if len(cards) != 2:
            return False
        a, b = cards
        if self.rules.split.match is SplitMatch.RANK:
            return a.rank is b.rank
        return a.points == b.points

    def spot_key(self, spot: Spot) -> SpotKey:
        a = self.analysis
        up = spot.up.points if spot.up is not None and a.rules.dealer.first_card_face_up else None
        points = tuple(c.points for c in spot.cards)
        i0 = comp_of(points[:2])[0] if a.track_initial_aces else 0
        pair_value = points[0] if spot.from_split else 0
        return (
            up,
            comp_of(points),
            i0,
            self._pair(spot.cards),
            spot.split_hands,
            pair_value,
            spot.doubled,
        )

    def values(self, spot: Spot) -> dict[Action, Fraction]:
        """Each action the rules allow here and its value (wager units, the dealer holding no
        natural where it was checked for); empty where the hand is over (a natural...). A
        split hand that the rules let split again has the split's value too
        (:meth:`split_again`)."""
        got = self.values_at(self.spot_key(spot))
        if got and spot.from_split:
            again = self.split_again(spot)
            if again is not None:
                got = {**got, Action.SPLIT: again}
        return got

    def may_split_again(self, spot: Spot) -> bool:
        """The rules let this split hand be split again (the round's own check, on its cards
        and a box of ``split_hands`` hands: a pair by the rules' match, ``split.max_hands``
        not reached, aces where ``split.resplit_aces``), and it is not over."""
        if not spot.from_split or spot.doubled or len(spot.cards) != 2:
            return False
        hand = HandState(
            list(spot.cards),
            [StakeState(_PLAYER, 1)],
            from_split=True,
            split_aces=spot.cards[0].is_ace,
        )
        box = BoxState(1, [Wager(_PLAYER, 1)], [hand] * spot.split_hands)
        return (
            end_of_hand(self.rules, hand) is None and why_not_split(self.rules, box, hand) is None
        )

    def split_again(self, spot: Spot) -> Fraction | None:
        """The value of splitting this split hand again (wager units, the dealer holding no
        natural where it was checked for), as the engine values splits
        (:meth:`~.engine.Analysis.split_hands_value`): with ``n`` hands on the box and ``k``
        after it yet to get their second card, the ``k + 2`` hands then waiting with ``n + 1``
        on the box, less the ``k`` as they are with ``n`` (at a first decision, ``n`` = 1 and
        ``k`` = 0, the same difference is the engine's split value). None where the rules let
        it split no more (:meth:`may_split_again`)."""
        if not self.may_split_again(spot):
            return None
        up, comp, _i0, _pair, hands, pair_value, _doubled = self.spot_key(spot)
        later = min(spot.later_hands, hands - 1)
        key = (up, pair_value, later, hands)
        got = self._again.get(key)
        if got is None:
            a = self.analysis
            again = Fraction(a.split_hands_value(up, pair_value, later + 2, hands + 1))
            on = Fraction(a.split_hands_value(up, pair_value, later, hands))
            ctx = _ctx(up, hands, pair_value)
            natural = self._natural(up, a.rows(up, plus(ctx.base, comp)))
            got = self._again[key] = (again - on) / (1 - Fraction(natural))
            self._begin_again_if_full()
        return got

    def _natural(self, up: int | None, rows: Rows) -> float:
        """The chance of the dealer's natural where it was checked for (0.0 where not), from
        the shoe a hand is played from (its ``rows``)."""
        a = self.analysis
        return float(a.tables[up].natural_probability(rows.shoe)) if a._peeks[up] else 0.0

    def _begin_again_if_full(self) -> None:
        """Many hands met: the analysis begins again (the answers worked out are kept)."""
        if len(self.analysis._memo) > MEMO_LIMIT:
            self.analysis = Analysis(self.rules, self.shoe, 1000, None)

    def values_at(self, key: SpotKey) -> dict[Action, Fraction]:
        got = self._known.get(key)
        if got is not None:
            return got
        raw = self._raw.get(key)
        if raw is None:
            raw = self.raw(key)
        values, natural = raw
        no_natural = 1 - Fraction(natural)
        got = {Action(act): Fraction(v) / no_natural for act, v in values.items()}
        self._known[key] = got
        return got

    def raw(self, key: SpotKey, *, keep: bool = False) -> Raw:
        """The engine's values at ``key`` (worked out here; see :meth:`values`); ``keep``:
        never begin the analysis again (a walk of every hand is in it)."""
        a = self.analysis
        up, comp, i0, pair, split_hands, pair_value, doubled = key
        ctx = _ctx(up, split_hands, pair_value)
        rows = a.rows(up, plus(ctx.base, comp))
        facts = a.facts(ctx, comp, i0, doubled)
        values: dict[Action, float] = {}
        if facts.end is None:
            if sum(comp) == 2 and split_hands == 1 and not doubled:
                values, _can_split, _can_surrender = a.root_values(ctx, comp, i0, rows, pair)
            else:
                values = {
                    act: a.action_value(ctx, comp, i0, doubled, rows, act) for act in a.legal(facts)
                }
        natural = self._natural(up, rows)
        if not keep:
            self._begin_again_if_full()
        return {act.value: float(v) for act, v in values.items()}, natural

    def common_keys(self) -> list[SpotKey]:
        """The decisions worked out with the edges: every first decision and every hand of up
        to :data:`PRECOMPUTED_CARDS` cards (not split, not doubled; where the rules count the
        first two cards' aces, the first decisions only)."""
        a = self.analysis
        ups: list[int | None] = list(range(1, 11)) if a.rules.dealer.first_card_face_up else [None]
        most = 2 if a.track_initial_aces else PRECOMPUTED_CARDS
        out: list[SpotKey] = []
        counts = self.shoe.counts
        for up in ups:
            for n in range(2, most + 1):
                for cards in combinations_with_replacement(range(1, 11), n):
                    comp = comp_of(cards)
                    seen = plus(comp, comp_of([up]) if up is not None else ZERO)
                    if any(s > c for s, c in zip(seen, counts, strict=True)):
                        continue
                    if sum(cards) > 21:
                        continue
                    i0 = comp[0] if a.track_initial_aces else 0
                    pairs = [False]
                    if n == 2 and cards[0] == cards[1]:
                        pairs = [True, False] if cards[0] == 10 else [True]
                    out += [(up, comp, i0, pair, 1, 0, False) for pair in pairs]
        return out

    def preload(self, raw: dict[SpotKey, Raw]) -> None:
        """Values worked out before (the cache's), looked up before any is worked out here."""
        self._raw.update(raw)
        self.preloaded = True

    def rescue_values(self, spot: Spot) -> tuple[Fraction, Fraction] | None:
        """A doubled hand over (its card after the double) and offered the rescue: its value
        played on as it is and rescued (wager units, the dealer holding no natural where it was
        checked for), from the engine; None where the rules offer it no rescue."""
        if not spot.doubled:
            return None
        a = self.analysis
        up, comp, i0, _pair, split_hands, pair_value, _doubled = self.spot_key(spot)
        ctx = _ctx(up, split_hands, pair_value)
        facts = a.facts(ctx, comp, i0, True)
        if facts.end is None or facts.end is HandEnd.BUST or not facts.can_rescue:
            return None
        rows = a.rows(up, plus(ctx.base, comp))
        natural = a.tables[up].natural_probability(rows.shoe) if a._peeks[up] else 0.0
        no_natural = 1 - Fraction(natural)
        keep = Fraction(a.terminal_value(ctx, comp, i0, True, False, rows)) / no_natural
        rescue = Fraction(a.terminal_value(ctx, comp, i0, True, True, rows)) / no_natural
        return keep, rescue

    def ten_chance(self, spot: Spot) -> Fraction:
        """The chance that the dealer's next card (the hole card) is a ten-value, given the
        cards the player sees: the shoe as configured less the hand's cards and the up card."""
        counts = list(self.shoe.counts)
        for card in (*spot.cards, *([spot.up] if spot.up is not None else [])):
            counts[card.points - 1] -= 1
        return Fraction(counts[9], sum(counts))

    def insurance_value(self, spot: Spot) -> Fraction:
        """The expected net of insurance per unit insured: it pays ``insurance.pays`` where the
        dealer's hole card is a ten-value, and is lost where it is not."""
        p = self.ten_chance(spot)
        return p * self.rules.insurance.pays - (1 - p)

    def insurance_cost_cents(self, spot: Spot, wager_cents: int, insured_cents: int) -> Fraction:
        """What an insurance decision cost (cents, never negative): the better of declining
        (0) and insuring the most the wager may (``insurance.max_fraction`` of it, to the cent
        below), less the value of the ``insured_cents`` taken (0: declined)."""
        per_unit = self.insurance_value(spot)
        most = (self.rules.insurance.max_fraction * wager_cents).__floor__()
        return max(Fraction(0), per_unit * most) - per_unit * insured_cents

    def cost(self, spot: Spot, taken: Action) -> Fraction | None:
        """The best action's value less ``taken``'s (wager units); None where the analysis has
        no value for it (an action the rules did not allow there, such as a split hand split
        again where they let it split no more; a hand already over)."""
        values = self.values(spot)
        if taken not in values or not values:
            return None
        return max(values.values()) - values[taken]


def _ctx(up: int | None, split_hands: int, pair_value: int) -> Ctx:
    """The analysis' context of a hand: the dealer's card, and for a split hand the other
    cards of its pair."""
    if split_hands > 1:
        return Ctx(up, comp_of([pair_value] * (split_hands - 1)), True, pair_value == 1)
    return Ctx(up, ZERO)


_VALUES: dict[str, DecisionValues] = {}


def values_for(rules: Variant, shoe: Shoe | None = None) -> DecisionValues:
    """The decision values of a variant, one per rules' hash for the process."""
    shoe = shoe if shoe is not None else Shoe.of_variant(rules)
    key = rules_key(rules, shoe)
    got = _VALUES.get(key)
    if got is None:
        got = _VALUES[key] = DecisionValues(rules, shoe)
    return got


@dataclass(frozen=True)
class Edges:
    """A variant's house edges (per initial wager, +: the house wins): the optimum's (skill
    theo's base) and the shipped chart's (the par sheet's: book theo)."""

    optimal: Fraction
    chart: Fraction

    @property
    def chart_cost(self) -> Fraction:
        """What playing the chart costs against the optimum, per wager."""
        return self.chart - self.optimal


def _cache_file(rules: Variant, shoe: Shoe) -> tuple[Path, str]:
    key = rules_key(rules, shoe)
    return cache_dir() / f"theo-{rules.id}-{key[:16]}.json", key


def cached_edges(rules: Variant, shoe: Shoe | None = None) -> Edges | None:
    """The edges from the cache beside the par sheets (None: not worked out yet)."""
    where, _key = _cache_file(rules, shoe if shoe is not None else Shoe.of_variant(rules))
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
        return Edges(Fraction(data["optimal"]), Fraction(data["chart"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _flat(key: SpotKey) -> list[object]:
    up, comp, i0, pair, split_hands, pair_value, doubled = key
    return [up, list(comp), i0, pair, split_hands, pair_value, doubled]


def cached_values(rules: Variant, shoe: Shoe | None = None) -> dict[SpotKey, Raw]:
    """The common decisions' values the edges' walk left in the cache (empty: none)."""
    where, _key = _cache_file(rules, shoe if shoe is not None else Shoe.of_variant(rules))
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
        out: dict[SpotKey, Raw] = {}
        for up, comp, i0, pair, hands, pair_value, doubled, values, natural in data["values"]:
            key = (up, tuple(comp), i0, pair, hands, pair_value, doubled)
            out[key] = ({str(k): float(v) for k, v in values.items()}, float(natural))
        return out
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def edges_for(rules: Variant, shoe: Shoe | None = None, *, use_cache: bool = True) -> Edges:
    """The optimum's and the shipped chart's house edges, from the cache beside the par
    sheets where these rules were met before (a file of their own, 0600), else worked out
    (a walk of every hand, here: :func:`edges_apart` walks in a process of its own)."""
    shoe = shoe if shoe is not None else Shoe.of_variant(rules)
    where, key = _cache_file(rules, shoe)
    if use_cache:
        got = cached_edges(rules, shoe)
        if got is not None:
            return got
    walked = DecisionValues(rules, shoe)
    optimal = walked.analysis.house_edge()
    common = [(k, walked.raw(k, keep=True)) for k in walked.common_keys()]
    del walked  # (its walk's memory)
    try:
        chart = Analysis(rules, shoe, 1000, strategy_for(rules)).house_edge()
    except ConfigError:  # no shipped chart fits (a what-if): book theo at the optimum's edge
        chart = optimal
    edges = Edges(Fraction(optimal), Fraction(chart))
    make_folders(where.parent)
    body = {
        "optimal": str(edges.optimal),
        "chart": str(edges.chart),
        "rules_hash": key,
        "values": [[*_flat(k), values, natural] for k, (values, natural) in common],
    }
    write_private(where, json.dumps(body).encode(), "the theo edges' cache file")
    return edges


EDGES_CHILD_TIMEOUT_S = 600.0
_WALKS: set[subprocess.Popen[str]] = set()  # the children walking now


def stop_walks() -> None:
    """End every child :func:`edges_apart` started that is still walking (its work is lost;
    the next rating of its variant begins it again): a server that stops leaves none behind."""
    for child in list(_WALKS):
        child.kill()


def edges_apart(rules: Variant) -> Edges:
    """:func:`edges_for`, its walk in a child process (this module run with the rules on its
    stdin): a long-lived process (the floor server) asks this, so that the walk's memory (1.5 GB
    for nz-pontoon's optimum) goes with the child instead of staying with the server. The child
    writes the cache; this reads it. ValueError says why where the child could not."""
    got = cached_edges(rules)
    if got is not None:
        return got
    child = subprocess.Popen(  # this Python, this module, the rules as data
        [sys.executable, "-m", "controller.analysis.theo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _WALKS.add(child)
    try:
        _out, err = child.communicate(rules.model_dump_json(), timeout=EDGES_CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        _out, err = child.communicate()
    finally:
        _WALKS.discard(child)
    got = cached_edges(rules)
    if child.returncode != 0 or got is None:
        said = (err.strip().splitlines() or [f"it ended with status {child.returncode}"])[-1]
        raise ValueError(f"the edges of {rules.id} could not be worked out: {said}")
    return got


# --- a session's rating ---------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """A rated decision: where, what was taken, the hand's initial wager."""

    spot: Spot
    taken: Action
    wager_cents: int
    insured_cents: int = 0  # insurance: the amount taken (0: declined)
    declined: bool = False  # a rescue offered and not taken (the hand played on as it is)


@dataclass
class Theo:
    """A session's theo (cents, exact until shown)."""

    wagers_cents: int = 0
    rounds: int = 0
    decisions: int = 0
    unvalued: int = 0  # decisions the analysis has no value for (an action not allowed there)
    insurance: int = 0  # insurance decisions (taken or declined) among the decisions
    cost_cents: Fraction = Fraction(0)
    edge_cents: Fraction = Fraction(0)  # the optimum's edge x wagers
    book_cents: Fraction = Fraction(0)
    costly: list[tuple[Decision, Fraction]] = field(default_factory=list)

    @property
    def skill_cents(self) -> Fraction:
        return self.edge_cents + self.cost_cents

    @property
    def average_bet_cents(self) -> Fraction:
        return Fraction(self.wagers_cents, self.rounds) if self.rounds else Fraction(0)


def session_theo(
    decisions: Iterable[Decision],
    wagers_cents: int,
    rounds: int,
    values: DecisionValues,
    edges: Edges,
) -> Theo:
    """A session's skill theo (the optimum's edge x ``wagers_cents`` + each decision's cost x
    its wager) and book theo (average bet x rounds x the chart's edge)."""
    out = Theo(wagers_cents=wagers_cents, rounds=rounds)
    out.edge_cents = edges.optimal * wagers_cents
    out.book_cents = out.average_bet_cents * rounds * edges.chart
    for decision in decisions:
        if decision.taken not in RATED_ACTIONS:
            continue
        if decision.taken is Action.INSURANCE:
            if not _may_insure(values.rules, decision.spot):
                continue  # the rules offered this hand no insurance: no decision
            out.insurance += 1
            cents = values.insurance_cost_cents(
                decision.spot, decision.wager_cents, decision.insured_cents
            )
        elif decision.taken is Action.RESCUE:
            both = values.rescue_values(decision.spot)
            if both is None:
                out.unvalued += 1
                continue
            keep, rescue = both
            cents = (max(both) - (keep if decision.declined else rescue)) * decision.wager_cents
        else:
            cost = values.cost(decision.spot, decision.taken)
            if cost is None:
                out.unvalued += 1
                continue
            cents = cost * decision.wager_cents
        out.decisions += 1
        out.cost_cents += cents
        if cents > 0:
            out.costly.append((decision, cents))
    return out


def _may_insure(rules: Variant, spot: Spot) -> bool:
    """The rules offer this hand insurance: the dealer's first card is face up and one it is
    offered against, and the hand is not a natural where naturals may not insure."""
    if not rules.insurance.allowed or spot.up is None:
        return False
    if spot.up.rank not in rules.insurance.up_cards:
        return False
    return rules.insurance.natural_boxes_may_insure or not is_natural(rules, spot.cards, False)


def decision_of(seen: SeenDecision, face_up: bool = True) -> Decision | None:
    """A decision the rows show, as the analysis takes it (None: not a rated action, or a card
    the rows do not spell); ``face_up``: the player sees the dealer's first card."""
    declined = seen.action == NO_RESCUE
    try:
        taken = Action.RESCUE if declined else Action(seen.action)
        up = Card.parse(seen.up) if seen.up and face_up else None
        cards = tuple(Card.parse(c) for c in seen.cards)
    except ValueError:
        return None
    if taken not in RATED_ACTIONS or len(cards) < 2:
        return None
    spot = Spot(up, cards, seen.split_hands, seen.doubled, seen.hand)
    return Decision(spot, taken, seen.wager_cents, seen.insured_cents, declined)


WORST_SHOWN = 3


def _words(decision: Decision, cents: Fraction) -> str:
    s = decision.spot
    cards = " ".join(str(c) for c in s.cards)
    against = f" against {s.up}" if s.up is not None else ""
    doubled = " (doubled)" if s.doubled else ""
    if decision.taken is Action.INSURANCE and not decision.insured_cents:
        return f"no insurance on {cards}{against}: {cents_shown(cents)}"
    if decision.taken is Action.RESCUE and decision.declined:
        return f"no rescue on {cards}{against}: {cents_shown(cents)}"
    return f"{decision.taken.value} on {cards}{doubled}{against}: {cents_shown(cents)}"


def rate(
    sessions: Iterable[SessionPlay],
    edges_of: Callable[[Variant], Edges] = edges_for,
) -> list[Rating]:
    """Each session's rating: book theo, skill theo and what its decisions cost (cents, exact),
    by the rules its table journalled (:attr:`SessionPlay.rules`); a session whose rules are not
    known, or that the analysis cannot take, is listed unrated with the reason."""
    out: list[Rating] = []
    refused: dict[str, TableRules] = {}  # rules' key -> the analysis' refusal
    for play in sessions:
        found = play.rules if play.rules is not None else no_config(play.table_id)
        rules = found.rules
        if rules is None or found.key in refused:
            out.append(Rating(play, None, None, None, rules=refused.get(found.key, found)))
            continue
        face_up = rules.dealer.first_card_face_up
        seen = (decision_of(d, face_up) for d in play.decisions)
        decisions = [d for d in seen if d is not None]
        try:
            edges = edges_of(rules)
            values = values_for(rules)
            if not values.preloaded:  # the common decisions, worked out with the edges
                values.preload(cached_values(rules))
            theo = session_theo(decisions, play.wagers_cents, play.rounds, values, edges)
        except (ConfigError, ValueError) as exc:  # rules the analysis cannot take (it says why)
            refused[found.key] = unanalysed(found, str(exc))
            out.append(Rating(play, None, None, None, rules=refused[found.key]))
            continue
        worst = sorted(theo.costly, key=lambda dc: dc[1], reverse=True)[:WORST_SHOWN]
        out.append(
            Rating(
                play,
                theo.book_cents,
                theo.skill_cents,
                theo.cost_cents,
                theo.decisions,
                theo.unvalued,
                tuple(_words(d, c) for d, c in worst),
                found,
            )
        )
    return out


if __name__ == "__main__":  # edges_apart's child: the rules on stdin, the edges to the cache
    edges_for(Variant.model_validate_json(sys.stdin.read()))
