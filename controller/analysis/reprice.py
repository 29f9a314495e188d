"""Re-pricing: the house edge of changed rules that play every hand the same.

Under a fixed strategy the expected value of a round is linear in what its finished hands are
paid: EV = sum over finished hands of P(hand) * (dealer's final distribution . payoff). Where
changed rules leave every hand the strategy reaches played the same (same shoe and dealer
tables, same answers from the rules and the strategy: :meth:`Analysis.plays_as`), the chances
and the dealer's distributions are the same too, and only the payoffs differ. :class:`Reach`
holds, per payoff class (what :meth:`Analysis.hand_payoff` is keyed by), the sum of
P(hand) * dealer distribution over the hands the forward pass (:class:`Outcomes`) finished,
so the changed game's EV is the shipped game's plus sum(weights . (new payoff - old payoff)):
exact, without walking the hands again. A doubled hand that ends may be rescued under one
rule set and not the other (no rescue, another chart's rescue rows): it is reached all the
same and paid as the changed rules and strategy decide (:meth:`Analysis.takes_rescue`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.analysis.dealer import NATURAL_INDEX
from controller.analysis.engine import Analysis, Ctx, Vec, payoff_features, same_payoff
from controller.analysis.shoe import Comp, representative


@dataclass
class _Class:
    """One payoff class: a representative hand of it and the dealer's distribution weighted by
    the chance of each finished hand in it, summed."""

    ctx: Ctx
    comp: Comp
    i0: int
    doubled: bool
    rescued: bool
    weights: Vec


@dataclass
class Reach:
    """What a policy's finished hands weigh, per payoff class (see the module)."""

    hands: dict[tuple[object, ...], _Class] = field(default_factory=dict)
    surrenders: dict[tuple[object, ...], _Class] = field(default_factory=dict)
    naturals: dict[tuple[object, ...], tuple[Ctx, Comp, list[float]]] = field(default_factory=dict)

    def hand(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, rescued: bool, mass: float, dist: Vec
    ) -> None:
        """A hand finished with chance ``mass`` and the dealer's distribution ``dist`` (W form:
        without the natural where the dealer checked for one)."""
        key = (ctx.up, ctx.from_split, ctx.split_aces, payoff_features(comp), i0, doubled, rescued)
        got = self.hands.get(key)
        if got is None:
            self.hands[key] = _Class(ctx, comp, i0, doubled, rescued, dist * mass)
        else:
            got.weights += dist * mass

    def surrender(self, ctx: Ctx, comp: Comp, i0: int, mass: float, dist: Vec) -> None:
        key = (ctx.up, comp, i0)
        got = self.surrenders.get(key)
        if got is None:
            self.surrenders[key] = _Class(ctx, comp, i0, False, False, dist * mass)
        else:
            got.weights += dist * mass

    def natural(self, ctx: Ctx, comp: Comp, mass: float) -> None:
        """The dealer's natural, checked for before play, with chance ``mass``."""
        key = (ctx.up, comp)
        got = self.naturals.get(key)
        if got is None:
            self.naturals[key] = (ctx, comp, [mass])
        else:
            got[2][0] += mass

    def delta(self, base: Analysis, changed: Analysis) -> float:
        """EV(changed) - EV(base) per initial wager, for ``changed.plays_as(base)``: the
        payoff classes whose payoff differs, each weighted by its reach."""
        out = 0.0
        for c in self.hands.values():
            before = base.hand_payoff(c.comp, c.i0, c.doubled, c.rescued, c.ctx)
            rescued = c.doubled and changed.takes_rescue(c.ctx, c.comp, c.i0)
            # (each class its own payoff: worked out, not kept, in the analysis thrown away)
            after = changed.fresh_payoff(c.comp, c.i0, c.doubled, rescued, c.ctx)
            if not same_payoff(before, after):
                out += float(c.weights @ (after - before))
        for c in self.surrenders.values():
            cards = representative(c.comp, c.i0)
            before = base.payoff(cards, False, False, c.ctx, surrendered=True)
            after = changed.payoff(cards, False, False, c.ctx, surrendered=True)
            if not same_payoff(before, after):
                out += float(c.weights @ (after - before))
        for ctx, comp, (mass,) in self.naturals.values():
            cards = representative(comp)
            was = float(base.payoff(cards, False, False, ctx)[NATURAL_INDEX])
            now = float(changed.payoff(cards, False, False, ctx)[NATURAL_INDEX])
            if was != now:
                out += mass * (now - was)
        return out
