"""What happens in a round under a policy: the distribution of the round's net, how hands end,
what they are paid at, the dealer's final hand.

A forward pass over the hands the policy actually plays (the decisions memoised by
:class:`~controller.analysis.engine.Analysis`): the chance of every state is carried from the
deal to the hand's end, and at the end the dealer's final categories are laid over it. Split
hands are taken as independent given the dealer's final category (the same approximation as
their values: :meth:`Analysis.split_value`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from controller.analysis.dealer import NATURAL_INDEX, NCATS
from controller.analysis.engine import (
    _WHAT,
    SUITED_ROWS,
    Analysis,
    Ctx,
    Rows,
    Up,
    _successors,
    payoff_features,
)
from controller.analysis.reprice import Reach
from controller.analysis.shoe import VALUES, ZERO, Comp, comp_of, plus, representative
from controller.game.hands import HandEnd, Tier, win_odds
from controller.game.rules import SplitMatch
from controller.game.settlement import Hand, Stake
from controller.game.words import hand_end_words
from controller.round.spec import Action
from drivers.tbl21.cards import Card, Suit

Dist = dict[float, float]  # net units -> probability
Visit = Callable[[Ctx, Comp, int, bool, float, Rows], None]
DECISIONS = frozenset(a.value for a in (Action.HIT, Action.STAND, Action.DOUBLE))
HIT, DOUBLE, STAND = Action.HIT.value, Action.DOUBLE.value, Action.STAND.value


@dataclass
class Tally:
    """Outcome probabilities of one round (per initial wager)."""

    net: defaultdict[float, float] = field(default_factory=lambda: defaultdict(float))
    events: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    wins_by: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add_net(self, dist: Dist, mass: float) -> None:
        for x, p in dist.items():
            self.net[round(x, 9)] += mass * p


def _convolve(a: Dist, b: Dist) -> Dist:
    out: defaultdict[float, float] = defaultdict(float)
    for x, p in a.items():
        for y, q in b.items():
            out[round(x + y, 9)] += p * q
    return dict(out)


@dataclass(frozen=True, eq=False)
class Payout:
    """One way a finished hand is paid (a suited bonus hand has one per suit pattern)."""

    share: float  # its chance among the hand's suit patterns
    net: tuple[float, ...]  # net units per dealer category (rounded as the tally keys them)
    win_mask: np.ndarray  # the dealer categories it wins against
    wins: bool
    why: str  # the paying rule, for wins_by


@dataclass(frozen=True, eq=False)
class Plan:
    """What a finished hand adds to the tally: events (name, share of the hand's chance)
    and its payout variants."""

    events: tuple[tuple[str, float], ...]
    variants: tuple[Payout, ...]


class Outcomes:
    """The forward pass for one :class:`Analysis` (run its expected_value first)."""

    def __init__(
        self, analysis: Analysis, visit: Visit | None = None, reach: Reach | None = None
    ) -> None:
        self.a = analysis
        self.reach = reach  # where given, every finished hand's weight for re-pricing
        self.rules = analysis.rules
        self.tally = Tally()
        self.visit = visit  # called at every decision the policy takes, with its chance
        self.visit_end: Visit | None = None  # called at every doubled hand's end
        # by what the hand's ranking and payout can depend on (as Analysis.hand_payoff)
        self._plans: dict[tuple[object, ...], Plan] = {}
        self._paid_by: dict[bytes, tuple[tuple[float, ...], np.ndarray, bool]] = {}
        # boxes to walk together (:meth:`_play`): per context, batches of starting hands
        self._pending: dict[
            tuple[Ctx, int], list[dict[tuple[Comp, bool], tuple[float, str | None]]]
        ] = {}

    # --- a hand --------------------------------------------------------------------------------

    def hand(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, mass: float, first: str | None = None
    ) -> np.ndarray:
        """Walk a hand forward from ``comp`` with chance ``mass``; returns, per dealer
        category, the hand's net distribution (category -> Dist) as an object array, and counts
        the hand's events into the tally."""
        return self._walk(ctx, i0, {(comp, doubled): (mass, first)})

    def _walk(
        self, ctx: Ctx, i0: int, starts: dict[tuple[Comp, bool], tuple[float, str | None]]
    ) -> np.ndarray:
        """:meth:`hand` from several starting hands at once (of as many cards each, played in
        one context), each with its chance and first action: their nets added up, the hands
        they come to walked once."""
        a = self.a
        acc: dict[int, list[Any]] = {}  # id(variant) -> [variant, chance per dealer category]
        frontier: dict[tuple[Comp, bool], list[object]] = {
            (comp, doubled): [mass, a.rows(ctx.up, plus(ctx.base, comp))]
            for (comp, doubled), (mass, _first) in starts.items()
        }
        firsts: dict[tuple[Comp, bool], str] | None = {
            key: first for key, (_mass, first) in starts.items() if first is not None
        }
        # the memo's hands of this context, not doubled and doubled
        groups = (a._memo.group(ctx, i0, False), a._memo.group(ctx, i0, True))
        while frontier:
            nxt: dict[tuple[Comp, bool], list[object]] = {}
            for (c, dbl), (m_, rows_) in frontier.items():
                m = cast(float, m_)
                rows = cast(Rows, rows_)
                first_action = None if firsts is None else firsts.get((c, dbl))
                if first_action is not None:
                    action = first_action
                else:
                    group = groups[dbl]
                    j = group.index.get(c)
                    if j is None:
                        action = a.decision(ctx, c, i0, dbl, rows)[1]
                    else:
                        action = _WHAT[group.codes[j]]
                    if self.visit is not None and action in DECISIONS:
                        self.visit(ctx, c, i0, dbl, m, rows)
                if action in (HIT, DOUBLE):
                    after = dbl or action == DOUBLE
                    if action == DOUBLE:
                        self.tally.events["double"] += m
                    shoe = rows.shoe
                    total = rows.total
                    nexts = _successors(c)
                    for i, n in enumerate(shoe):
                        if n:
                            q = m * n / total
                            nc = nexts[i]
                            slot = nxt.get((nc, after))
                            if slot is None:
                                nxt[(nc, after)] = [q, rows.child(i + 1)]
                            else:
                                slot[0] = cast(float, slot[0]) + q
                    continue
                end = HandEnd.STAND if action == STAND else cast(HandEnd, action)
                self._finish(ctx, c, i0, dbl, end, m, rows, acc)
            frontier = nxt
            firsts = None
        per_cat: list[defaultdict[float, float]] = [defaultdict(float) for _ in range(NCATS)]
        for variant, chances in acc.values():
            for i, x in enumerate(variant.net):
                p = chances[i]
                if p > 0:
                    per_cat[i][x] += p
        out = np.empty(NCATS, dtype=object)
        for i in range(NCATS):
            out[i] = dict(per_cat[i])
        return out

    def _finish(
        self,
        ctx: Ctx,
        comp: Comp,
        i0: int,
        doubled: bool,
        end: HandEnd,
        m: float,
        rows: Rows,
        acc: dict[int, list[Any]],
    ) -> None:
        """A hand ends with chance ``m``: its events into the tally, and its payoff (each
        variant's chance per dealer category) into ``acc`` (see :meth:`hand`)."""
        if doubled and self.visit_end is not None:
            self.visit_end(ctx, comp, i0, doubled, m, rows)
        a = self.a
        dist = a.dealer_of(ctx.up, rows)
        if rows.total <= a.tables[ctx.up]._max_drawn:  # (else the dealer always finishes)
            dist = self._settled_outright(ctx, comp, i0, doubled, end, rows, dist)
        if self.reach is not None:
            self.reach.hand(ctx, comp, i0, doubled, end is HandEnd.RESCUED, m, dist)
        key = (ctx.up, ctx.from_split, ctx.split_aces, payoff_features(comp), i0, doubled, end)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(ctx, comp, i0, doubled, end)
        ev = self.tally.events
        mm = m * float(dist.sum())
        for name, factor in plan.events:
            ev[name] += mm * factor
        wins = self.tally.wins_by
        for variant in plan.variants:
            weight = m * variant.share
            slot = acc.get(id(variant))
            if slot is None:
                acc[id(variant)] = [variant, dist * weight]
            else:
                slot[1] += dist * weight
            if variant.wins:
                wins[variant.why] += weight * float(dist[variant.win_mask].sum())

    def _settled_outright(
        self,
        ctx: Ctx,
        comp: Comp,
        i0: int,
        doubled: bool,
        end: HandEnd,
        rows: Rows,
        dist: np.ndarray,
    ) -> np.ndarray:
        """The dealer's distribution to lay under a hand settled whatever the dealer holds (a
        bust): the round takes it at once and deals the dealer nothing for it, so its chance
        is whole even where the shoe could not finish the dealer's hand (a tiny shoe; the
        engine values it so: :meth:`Analysis.terminal_value`). Any other hand: ``dist``."""
        a = self.a
        if a.outright(comp, i0, doubled, end is HandEnd.RESCUED, ctx, rows) is None:
            return dist  # (every real shoe: the dealer always finishes)
        peeks = a._peeks[ctx.up]
        whole = 1.0 - a.tables[ctx.up].natural_probability(rows.shoe) if peeks else 1.0
        got = float(dist.sum())
        if abs(got - whole) <= 1e-12:
            return dist
        if got > 0:
            return dist * (whole / got)
        out = np.zeros_like(dist)
        out[a._reached[ctx.up][0]] = whole  # (any category: the net is the same)
        return out

    def _plan(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, end: HandEnd) -> Plan:
        """What a finished hand adds to the tally, whatever its chance and the dealer's
        distribution: worked out once per hand (the rules' own ranking and payouts)."""
        a = self.a
        rescued = end is HandEnd.RESCUED
        payoff = a.hand_payoff(comp, i0, doubled, rescued, ctx)
        events: list[tuple[str, float]] = [(f"hand ends: {hand_end_words(end, self.rules)}", 1.0)]
        if doubled:
            events.append(("doubled hand", 1.0))
        cards = representative(comp, i0)
        if rescued:
            events.append(("rescue", 1.0))
        n = len(cards)
        rank_hand = Hand(tuple(cards), (Stake("p", 100),), ctx.from_split, ctx.split_aces, doubled)
        rank = rank_hand.rank(self.rules)
        if rank.tier is Tier.FIVE_CARD_TRICK:
            events.append(("five-card trick", 1.0))
        if rank.tier is not Tier.BUST and rank.total == 21 and n >= 3:
            events.append((f"{n if n < 7 else '7+'}-card 21", 1.0))
        reason = win_odds(self.rules, cards, rank, doubled_stake=doubled).reason
        values = tuple(sorted(c.points for c in cards))
        suited_rules = bool(self.rules.payouts.bonus) or self.rules.super_bonus.enabled
        if suited_rules and values in ((6, 7, 8), (7, 7, 7)) and rank.total == 21:
            pattern = self.a.shoe.suit_pattern(tuple(c.rank for c in cards))
            name = "6-7-8" if values == (6, 7, 8) else "7-7-7"
            for kind, p in pattern.items():
                events.append((f"{name} {kind}", p))
            if (
                self.rules.super_bonus.enabled
                and values == (7, 7, 7)
                and ctx.up == 7
                and not doubled
                and (self.rules.super_bonus.paid_on_split or not ctx.from_split)
            ):
                events.append(("super bonus", pattern["suited"] + pattern["spades"]))
        # a suited bonus hand: each suit pattern with its own payout (not their mixture)
        variants: list[tuple[float, np.ndarray, str]] = [(1.0, payoff, reason)]
        if suited_rules and values in SUITED_ROWS and rank.total == 21:
            ranks = SUITED_ROWS[values]
            pattern = a.shoe.suit_pattern(ranks)
            variants = []
            for kind, suit_cards in (
                ("mixed", cards),
                ("suited", [Card(r, Suit.HEARTS) for r in ranks]),
                ("spades", [Card(r, Suit.SPADES) for r in ranks]),
            ):
                why = win_odds(self.rules, suit_cards, rank, doubled_stake=doubled).reason
                vec = a.payoff(list(suit_cards), doubled, rescued, ctx)
                variants.append((pattern[kind], vec, why))
        natural = rank.tier is Tier.NATURAL
        return Plan(
            tuple(events),
            tuple(
                Payout(share, *self._paid(vec), "natural" if natural else why)
                for share, vec, why in variants
            ),
        )

    def _paid(self, vec: np.ndarray) -> tuple[tuple[float, ...], np.ndarray, bool]:
        """A payoff's nets (rounded as the tally keys them), the categories it wins against and
        whether it wins any: worked out once per payoff (a few hundred for some 17,000
        plans)."""
        key = vec.tobytes()
        got = self._paid_by.get(key)
        if got is None:
            wins = vec > 0
            net = tuple(round(x, 9) for x in vec.tolist())  # (tolist: float(x) of each)
            got = self._paid_by[key] = (net, np.asarray(wins), bool(wins.any()))
        return got

    # --- the round ---------------------------------------------------------------------------

    def run(self) -> Tally:
        a = self.a
        for up, p1, p2, prob in a.initial_hands():
            self.box(up, p1, p2, prob)
        self.flush()
        return self.tally

    def _play(self, ctx: Ctx, comp: Comp, i0: int, mass: float, first: str | None) -> None:
        """A box played as one hand (not split, not surrendered): walked now where the walk is
        watched (:attr:`visit`), else kept to be walked with the other boxes of its context
        (:meth:`flush`: the round's net is a sum over boxes, so their hands may be walked
        together, and (a, b) and (b, a) are one hand)."""
        if self.visit is not None or self.visit_end is not None:
            self._add_box(self._walk(ctx, i0, {(comp, False): (mass, first)}))
            return
        batches = self._pending.setdefault((ctx, i0), [])
        for batch in batches:
            got = batch.get((comp, False))
            if got is None:
                batch[(comp, False)] = (mass, first)
                return
            if got[1] == first:
                batch[(comp, False)] = (got[0] + mass, first)
                return
        batches.append({(comp, False): (mass, first)})

    def flush(self) -> None:
        """Walk the boxes :meth:`_play` kept."""
        for (ctx, i0), batches in self._pending.items():
            for batch in batches:
                self._add_box(self._walk(ctx, i0, batch))
        self._pending.clear()

    def box(self, up: Up, p1: int, p2: int, prob: float) -> None:
        a = self.a
        ev = self.tally.events
        comp = comp_of((p1, p2))
        i0 = comp[0] if a.track_initial_aces else 0
        ctx = Ctx(up, ZERO)
        # the dealer's natural, where checked before play
        if a._peeks[up]:
            full = a.dealer_of(up, a.rows(up, comp), with_natural=True)
            pn = float(full[NATURAL_INDEX])
            if pn > 0:
                payoff = a.payoff(representative(comp), False, False, ctx)[NATURAL_INDEX]
                self.tally.net[round(float(payoff), 9)] += prob * pn
                ev["dealer natural (checked)"] += prob * pn
                if self.reach is not None:
                    self.reach.natural(ctx, comp, prob * pn)
        facts = a.facts(ctx, comp, i0, False)
        if facts.end is HandEnd.NATURAL:
            ev["player natural"] += prob
        pairs = [(1.0, p1 == p2)]
        if p1 == p2 == 10 and self.rules.split.match is SplitMatch.RANK:
            same = a.shoe.same_rank_tens()
            pairs = [(same, True), (1 - same, False)]
        for share, pair in pairs:
            m = prob * share
            if facts.end is not None:
                self._play(ctx, comp, i0, m, None)
                continue
            rows = a.rows(up, comp)
            action = Action(a._root(ctx, comp, i0, rows, pair)[1])
            if action is Action.SURRENDER:
                ev["surrender"] += m
                dist = a.dealer_of(up, a.rows(up, comp))
                payoff = a.payoff(representative(comp), False, False, ctx, surrendered=True)
                if self.reach is not None:
                    self.reach.surrender(ctx, comp, i0, m, dist)
                for i in range(NCATS):
                    if dist[i] > 0:
                        self.tally.net[round(float(payoff[i]), 9)] += m * dist[i]
            elif action is Action.SPLIT:
                ev["split"] += m
                self._split_box(up, p1, m)
            else:
                self._play(ctx, comp, i0, m, action.value)

    def _add_box(self, per_cat: np.ndarray) -> None:
        for i in range(NCATS):
            for x, p in per_cat[i].items():
                self.tally.net[x] += p

    def _split_box(self, up: Up, pair: int, mass: float) -> None:
        """A split box: hands drawn as the split value assumes; the box's net is the sum of
        its hands' nets, hands independent given the dealer's final category."""
        a = self.a
        rules = self.rules
        # the chance of ending with n hands, and the hands' second cards, as in split_value
        weights: defaultdict[tuple[int, int], float] = defaultdict(float)
        counts: defaultdict[int, float] = defaultdict(float)
        resplit_ok = pair != 1 or rules.split.resplit_aces
        layer: defaultdict[tuple[int, int], float] = defaultdict(float)
        layer[(2, 2)] = 1.0
        while layer:  # (hands waiting for a second card, hands formed) -> chance
            nxt: defaultdict[tuple[int, int], float] = defaultdict(float)
            for (pending, hands), p in layer.items():
                if pending == 0:
                    counts[hands] += p
                    continue
                shoe = a.remaining(up, comp_of([pair] * hands))
                total = sum(shoe)
                for c in VALUES:
                    if not shoe[c - 1]:
                        continue
                    q = p * shoe[c - 1] / total
                    if (
                        c == pair
                        and resplit_ok
                        and hands < rules.split.max_hands
                        and a.resplits.get((up, pair, pending, hands), False)
                    ):
                        nxt[(pending + 1, hands + 1)] += q
                        continue
                    weights[(hands, c)] += q
                    nxt[(pending - 1, hands)] += q
            layer = nxt
        hand_dists: list[tuple[float, np.ndarray]] = []
        for (hands, c), q in weights.items():
            ctx = Ctx(up, comp_of([pair] * (hands - 1)), True, pair == 1)
            comp = comp_of((pair, c))
            i0 = comp[0] if a.track_initial_aces else 0
            hand_dists.append((q, self.hand(ctx, comp, i0, False, mass * q)))
        n_hands = sum(n * p for n, p in counts.items())
        # one generic split hand per category: the hands' mixture (each weighted by its share)
        weight = sum(q for q, _ in hand_dists)
        mix: list[defaultdict[float, float]] = [defaultdict(float) for _ in range(NCATS)]
        for _q, per in hand_dists:
            for i in range(NCATS):
                for x, p in per[i].items():
                    mix[i][x] += p / (mass * weight)
        for i in range(NCATS):
            total_p = sum(mix[i].values())
            if total_p <= 0:
                continue
            one = {x: p / total_p for x, p in mix[i].items()}
            for n, pn in counts.items():
                box = one
                for _ in range(n - 1):
                    box = _convolve(box, one)
                for x, p in box.items():
                    self.tally.net[x] += mass * pn * total_p * p
        self.tally.events["split hands"] += mass * n_hands
