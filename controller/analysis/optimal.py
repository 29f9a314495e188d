"""The optimal strategy as a strategy file (``config/strategies`` format).

The composition-dependent optimum (:class:`Analysis` with no strategy) chooses for every
composition of the player's hand. A strategy file can only say what to do by total, softness,
number of cards (the ``[*-from-N-cards]`` rows) and the dealer's card (or the player's number
of cards where both dealer cards are face down): the best total-dependent play of a cell is the
code whose value, summed over the compositions in the cell weighted by how often the optimum
reaches them, is highest. The file is then loaded (and so validated) by
:func:`controller.play.strategy.strategy_from_mapping`, and its own exact value is worked out
like any other strategy's.
"""

from __future__ import annotations

import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from controller.analysis.engine import Analysis, Ctx, Rows
from controller.analysis.outcomes import Outcomes
from controller.analysis.shoe import ZERO, Comp, Shoe, comp_of, representative
from controller.game.errors import ConfigError
from controller.game.hands import hand_value
from controller.game.rules import BonusHand, Variant
from controller.play.strategy import (
    CARD_COLUMNS,
    PAIR_ROWS,
    RESCUE_ROWS,
    UP_COLUMNS,
    UP_INDEX,
    Strategy,
    strategy_for,
    strategy_from_mapping,
    total_rows,
)
from controller.round.spec import Action

Cell = tuple[str, str, int, str]  # section, row, cards (2..7), column
PRIMITIVE = (Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER)
CODE_ACTIONS: dict[str, tuple[Action, Action | None]] = {
    "H": (Action.HIT, None),
    "S": (Action.STAND, None),
    "Dh": (Action.DOUBLE, Action.HIT),
    "Ds": (Action.DOUBLE, Action.STAND),
    "P": (Action.SPLIT, None),
    "Rh": (Action.SURRENDER, Action.HIT),
    "Rs": (Action.SURRENDER, Action.STAND),
    "Rp": (Action.SURRENDER, Action.SPLIT),
}


class Generator:
    """The best code of each cell of the file format. From the optimum (``analysis`` without a
    strategy): each action's value is the optimum's after it. With ``pooled`` (the basic
    strategy, :func:`basic_strategy`), ``analysis`` plays a chart: each action's value is the
    chart's after it, the reach is the chart's, and a hard or soft total is one cell whatever
    its number of cards where no rule looks at the number (a cell nobody reaches keeps
    ``previous``'s code)."""

    def __init__(
        self,
        analysis: Analysis,
        *,
        pooled: bool = False,
        previous: dict[str, object] | None = None,
    ) -> None:
        self.a = analysis
        self.rules = analysis.rules
        self.by_up = analysis.rules.dealer.first_card_face_up
        self.pooled = pooled
        self.previous = previous or {}
        # cell -> action -> weighted value; cell -> weight
        self.values: defaultdict[Cell, defaultdict[str, float]] = defaultdict(
            lambda: defaultdict(float)
        )
        self.weights: defaultdict[Cell, float] = defaultdict(float)
        self.rescue: defaultdict[tuple[str, str], float] = defaultdict(float)  # R - S

    def column(self, ctx: Ctx, ncards: int) -> str:
        if self.by_up:
            assert ctx.up is not None
            return UP_COLUMNS[UP_INDEX[representative(comp_of([ctx.up]))[0].rank]]
        return CARD_COLUMNS[min(ncards, 5) - 2]

    def cell(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, pair: bool) -> Cell:
        cards = representative(comp, i0)
        n = len(cards)
        value = hand_value(cards)
        col = self.column(ctx, n)
        if pair:
            row = "AA" if comp[0] == 2 else ("TT" if comp[9] == 2 else str(cards[0].points) * 2)
            return ("pairs", row, 2, col)
        section = "soft" if value.soft else "hard"
        return (section, str(value.total), min(n, 7) if self.by_up and not self.pooled else 2, col)

    def visit(self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, mass: float, rows: Rows) -> None:
        a = self.a
        facts = a.facts(ctx, comp, i0, doubled)
        values = {act: a.action_value(ctx, comp, i0, doubled, rows, act) for act in a.legal(facts)}
        self._note(self.cell(ctx, comp, i0, doubled, pair=False), values, mass)

    def _note(self, cell: Cell, values: dict[Action, float], mass: float) -> None:
        self.weights[cell] += mass
        slot = self.values[cell]
        # each code's value at this state: its action if open, else its fallback
        for code, (first, fallback) in CODE_ACTIONS.items():
            v = values.get(first)
            if v is None and fallback is not None:
                v = values.get(fallback)
            if v is None:
                v = float("-inf")
            slot[code] += mass * v

    def visit_end(
        self, ctx: Ctx, comp: Comp, i0: int, doubled: bool, mass: float, rows: Rows
    ) -> None:
        a = self.a
        if not (self.rules.double.rescue and ctx.up is not None):
            return
        keep = a.terminal_value(ctx, comp, i0, doubled, False, rows)
        rescue = a.terminal_value(ctx, comp, i0, doubled, True, rows)
        fixed = comp[0] if self.rules.double.initial_aces_count_one else 0
        total = hand_value(representative(comp, i0), min(fixed, i0)).total
        if str(total) in RESCUE_ROWS:
            col = self.column(ctx, 2)
            self.rescue[(str(total), col)] += mass * (rescue - keep)

    def run(self) -> dict[str, object]:
        a = self.a
        a.expected_value()
        out = Outcomes(a, visit=self.visit)
        out.visit_end = self.visit_end
        for up, p1, p2, prob in a.initial_hands():
            comp = comp_of((p1, p2))
            i0 = comp[0] if a.track_initial_aces else 0
            ctx = Ctx(up, ZERO)
            facts = a.facts(ctx, comp, i0, False)
            if facts.end is None:
                rows = a.rows(up, comp)
                if a.strategy is None:
                    values, _split, _surr = a.root_values(ctx, comp, i0, rows, pair=p1 == p2)
                else:
                    values = self.root_values(ctx, comp, i0, rows, pair=p1 == p2)
                mass = prob  # the values are W form: they carry the no-natural weight
                self._note(self.cell(ctx, comp, i0, False, pair=p1 == p2), values, mass)
                if p1 == p2:  # the same hand as a total (when it may not split)
                    plain: dict[Action, float] = {
                        k: v for k, v in values.items() if k is not Action.SPLIT
                    }
                    self._note(self.cell(ctx, comp, i0, False, pair=False), plain, mass)
            out.box(up, p1, p2, prob)
        return self.table()

    def root_values(
        self, ctx: Ctx, comp: Comp, i0: int, rows: Rows, pair: bool
    ) -> dict[Action, float]:
        """Every first decision's value where the chart plays on after it."""
        a = self.a
        hand, facts, can_split, can_surrender = a._root_options(ctx, comp, i0, pair)
        values = {act: a.action_value(ctx, comp, i0, False, rows, act) for act in a.legal(facts)}
        if can_split:
            values[Action.SPLIT] = a.split_value(ctx.up, hand.cards[0].points)
        if can_surrender:
            payoff = a.payoff(hand.cards, False, False, ctx, surrendered=True)
            values[Action.SURRENDER] = float(a.dealer_of(ctx.up, rows) @ payoff)
        return values

    def _previous(self, section: str, row: str, col: str) -> str | None:
        """The code ``previous`` gave this cell (None: no previous chart)."""
        table = self.previous.get(section)
        if not isinstance(table, dict) or row not in table:
            return None
        codes = str(table[row]).split()
        columns = UP_COLUMNS if self.by_up else CARD_COLUMNS
        if len(codes) == 1:
            return codes[0]
        return codes[columns.index(col)] if col in columns else None

    # --- writing the file --------------------------------------------------------------------

    def best_code(self, cell: Cell, codes: Iterable[str]) -> str | None:
        if self.weights.get(cell, 0.0) <= 0:
            return None
        slot = self.values[cell]
        best = max(codes, key=lambda c: slot.get(c, float("-inf")))
        return best if slot.get(best, float("-inf")) > float("-inf") else None

    def table(self) -> dict[str, object]:
        rules = self.rules
        columns = UP_COLUMNS if self.by_up else CARD_COLUMNS
        minimum = rules.hands.stand_minimum
        data: dict[str, object] = {
            "variant": rules.id,
            "name": f"Optimal strategy for {rules.id} (generated by croupier analyze)",
            "sources": ["croupier analyze: exact analysis, best total-dependent play per cell"],
            "columns": "dealer-up-card" if self.by_up else "player-cards",
            "insurance": "never",
        }
        surrender_cols = {
            c
            for c in columns
            if self.by_up
            and rules.surrender.allowed
            and any(r.value == c or (c == "T" and r.points == 10) for r in rules.surrender.up_cards)
        }

        def codes_for(section: str, row: str, ncards: int, col: str) -> list[str]:
            total = (
                12
                if row == "AA"
                else (20 if row == "TT" else (2 * int(row[0]) if section == "pairs" else int(row)))
            )
            codes = ["H", "S", "Dh", "Ds"]
            if section == "pairs":
                codes.append("P")
            if ncards == 2 and col in surrender_cols and (section == "pairs" or self.by_up):
                codes += ["Rh", "Rs"] + (["Rp"] if section == "pairs" else [])
            if not rules.double.allowed:
                codes = [c for c in codes if c not in ("Dh", "Ds")]
            five = (not self.by_up and col == "5+") or ncards >= 5
            if minimum and total < minimum and not five:
                codes = [c for c in codes if c not in ("S", "Ds", "Rs")]
            return codes

        def default(section: str, row: str, ncards: int, col: str) -> str:
            total = (
                12
                if row == "AA"
                else (20 if row == "TT" else (2 * int(row[0]) if section == "pairs" else int(row)))
            )
            five = (not self.by_up and col == "5+") or ncards >= 5
            if five or (total >= 17 and (not minimum or total >= minimum)):
                return "S"
            return "H"

        def row_codes(section: str, row: str, ncards: int) -> list[str]:
            out = []
            for col in columns:
                cell: Cell = (section, row, ncards, col)
                code = self.best_code(cell, codes_for(section, row, ncards, col))
                if code is None:
                    code = self._previous(section, row, col)
                out.append(code or default(section, row, ncards, col))
            return out

        for section in ("hard", "soft"):
            rows = total_rows(section, rules)
            base: dict[str, str] = {}
            for row in rows:
                base[row] = "  ".join(row_codes(section, row, 2))
            data[section] = base
            if self.by_up and not self.pooled:
                previous = {row: base[row].split() for row in rows}
                for n in range(3, 8):
                    over: dict[str, str] = {}
                    for row in rows:
                        codes = []
                        for i, col in enumerate(columns):
                            cell: Cell = (section, row, n, col)
                            allowed = [
                                c
                                for c in codes_for(section, row, n, col)
                                if c in ("H", "S", "Dh", "Ds")
                            ]
                            code = self.best_code(cell, allowed)
                            if code is None:
                                code = previous[row][i]
                                if code not in allowed:
                                    code = default(section, row, n, col)
                            codes.append(code)
                        if codes != previous[row]:
                            over[row] = "  ".join(codes)
                            previous[row] = codes
                    if over:
                        data[f"{section}-from-{n}-cards"] = over
        pairs: dict[str, str] = {}
        for row in PAIR_ROWS:
            if self.by_up:
                pairs[row] = "  ".join(row_codes("pairs", row, 2))
            else:
                cell = ("pairs", row, 2, "2")
                code = self.best_code(cell, codes_for("pairs", row, 2, "2"))
                if code is None:
                    code = self._previous("pairs", row, "2")
                pairs[row] = code or default("pairs", row, 2, "2")
        data["pairs"] = pairs
        if rules.double.rescue:
            data["rescue"] = {
                row: " ".join(
                    "R" if self.rescue.get((row, col), 0.0) > 0 else "S" for col in UP_COLUMNS
                )
                for row in RESCUE_ROWS
            }
        return data


def to_toml(data: dict[str, object], kind: str = "optimal") -> str:
    """The strategy as a TOML file in the shipped files' layout (``kind``: "optimal" or
    "basic", what it was generated as)."""
    header = (
        [
            "# Generated by `croupier analyze --strategy basic`: the total-dependent basic",
            "# strategy, the best play of each total given the rest of the chart, by exact",
            "# analysis (see docs/analysis.md).",
        ]
        if kind == "basic"
        else [
            "# Generated by `croupier analyze --strategy optimal`: the best total-dependent play",
            "# of each cell by exact analysis (see docs/analysis.md).",
        ]
    )
    lines = [
        *header,
        f'variant = "{data["variant"]}"',
        f'name = "{data["name"]}"',
        "sources = [" + ", ".join(f'"{s}"' for s in data["sources"]) + "]",  # type: ignore[attr-defined]
        f'columns = "{data["columns"]}"',
        'insurance = "never"',
    ]
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append("")
            lines.append(f"[{key}]")
            for row, codes in value.items():
                lines.append(f'{row} = "{codes}"')
    return "\n".join(lines) + "\n"


BASIC_ROUNDS = 8  # chart improvements at most (each is one exact analysis of a chart)
CARD_COUNT_BONUSES = {BonusHand.FIVE_CARD_21, BonusHand.SIX_CARD_21, BonusHand.SEVEN_PLUS_CARD_21}


def counts_cards(rules: Variant) -> bool:
    """Whether a rule pays or limits the player's hand by its number of cards (a five-card
    trick, a card limit, a stand minimum lifted at five cards, an n-card 21 bonus): there the
    number of cards is part of the hand's total for a basic strategy, as published pontoon
    charts have it."""
    return bool(
        rules.hands.five_card_trick
        or rules.hands.max_cards
        or rules.hands.stand_minimum
        or any(row.hand in CARD_COUNT_BONUSES for row in rules.payouts.bonus)
    )


def start_chart(rules: Variant) -> dict[str, object]:
    """The chart the basic strategy starts from: stand on 17 or more (or where the rules want
    a stand minimum, on it), hit below; no double, split or surrender."""
    by_up = rules.dealer.first_card_face_up
    columns = UP_COLUMNS if by_up else CARD_COLUMNS
    stand_at = max(17, rules.hands.stand_minimum)

    def row(total: int) -> str:
        return "  ".join(
            "S" if total >= stand_at or (not by_up and col == "5+") else "H" for col in columns
        )

    pair_totals = {"AA": 12, "TT": 20} | {str(v) * 2: 2 * v for v in range(2, 10)}
    data: dict[str, object] = {
        "variant": rules.id,
        "name": f"Basic strategy for {rules.id} (generated by croupier analyze)",
        "sources": [
            "croupier analyze: exact analysis, the best play of each total given the rest "
            "of the chart"
        ],
        "columns": "dealer-up-card" if by_up else "player-cards",
        "insurance": "never",
        "hard": {r: row(int(r)) for r in total_rows("hard", rules)},
        "soft": {r: row(int(r)) for r in total_rows("soft", rules)},
        "pairs": {
            r: (row(pair_totals[r]) if by_up else row(pair_totals[r]).split()[0]) for r in PAIR_ROWS
        },
    }
    if rules.double.rescue:
        data["rescue"] = {r: " ".join("S" for _ in UP_COLUMNS) for r in RESCUE_ROWS}
    return data


START = "stand on 17, hit below"
SHIPPED = "the shipped chart"


class Basic(NamedTuple):
    """A generated basic strategy: the chart, its validated strategy, its house edge, the
    rounds of improvement it took and the chart it was improved from (:func:`basic_starts`)."""

    data: dict[str, object]
    strategy: Strategy
    edge: float
    rounds: int
    start: str


def shipped_chart(rules: Variant) -> dict[str, object] | None:
    """The shipped chart that fits ``rules`` as a mapping (None: none validates)."""
    try:
        strategy = strategy_for(rules)
    except ConfigError:
        return None
    return dict(tomllib.loads(Path(strategy.path).read_text(encoding="utf-8")))


def basic_starts(
    rules: Variant, shoe: Shoe, wager_cents: int
) -> list[tuple[str, dict[str, object]]]:
    """The charts the basic strategy is improved from, each named: "stand on 17, hit below"
    (:func:`start_chart`), the shipped chart that fits the rules (if one does) and the
    composition-dependent optimum's play per cell (its majority over the hands of the cell,
    weighted by how often the optimum reaches them). Improving a chart cell by cell stops at
    a chart no single cell improves, which need not be the best (the online Pontoon rules:
    from "stand on 17" it stops 0.88 point short); the three starts lie in different places."""
    blank = start_chart(rules)
    starts: list[tuple[str, dict[str, object]]] = [(START, blank)]
    shipped = shipped_chart(rules)
    if shipped is not None:
        starts.append((SHIPPED, shipped))
    optimum = Analysis(rules, shoe, wager_cents, None)
    majority = Generator(optimum, pooled=not counts_cards(rules), previous=blank).run()
    starts.append(("the composition-dependent optimum's play per cell", majority))
    for _name, data in starts:
        data["name"], data["sources"] = blank["name"], blank["sources"]
    return starts


def improve(
    rules: Variant, shoe: Shoe, wager_cents: int, data: dict[str, object], start: str
) -> Basic:
    """Improve ``data`` cell by cell: each round plays the chart exactly, and every cell takes
    the code whose value, with the chart played after it and summed over the hands the chart
    reaches in the cell, is highest; until the chart no longer changes, comes back to a chart
    met before, or :data:`BASIC_ROUNDS` rounds. The best chart met is kept, but a shipped start
    only once a round has rewritten it or left it as it is (it may keep rows a basic strategy
    has not)."""
    best: Basic | None = None
    seen: list[dict[str, object]] = []
    for rounds in range(1, BASIC_ROUNDS + 1):
        strategy = strategy_from_mapping(data, "generated basic strategy", rules)
        analysis = Analysis(rules, shoe, wager_cents, strategy)
        generator = Generator(analysis, pooled=not counts_cards(rules), previous=data)
        improved = generator.run()
        improved["name"], improved["sources"] = data["name"], data["sources"]
        edge = analysis.house_edge()
        generated = rounds > 1 or start != SHIPPED or improved == data
        if generated and (best is None or edge < best.edge):
            best = Basic(data, strategy, edge, rounds, start)
        if improved == data or improved in seen:
            break
        seen.append(data)
        data = improved
    assert best is not None  # BASIC_ROUNDS > 1
    return best


def basic_strategy(rules: Variant, shoe: Shoe, wager_cents: int) -> Basic:
    """The total-dependent basic strategy for ``rules``: one play per total (hard, soft or a
    pair) and dealer's card, whatever the cards that make the total (and their number, where
    no rule looks at it: :func:`counts_cards`). Each start of :func:`basic_starts` is
    improved cell by cell (:func:`improve`) and the best chart of all is kept (the first
    start's where two are worth the same)."""
    best: Basic | None = None
    for start, data in basic_starts(rules, shoe, wager_cents):
        found = improve(rules, shoe, wager_cents, data, start)
        if best is None or found.edge < best.edge:
            best = found
    assert best is not None
    return best
