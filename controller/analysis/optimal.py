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

from collections import defaultdict
from collections.abc import Iterable

from controller.analysis.engine import Analysis, Ctx, Rows
from controller.analysis.outcomes import Outcomes
from controller.analysis.shoe import ZERO, Comp, comp_of, representative
from controller.game.hands import hand_value
from controller.play.strategy import (
    CARD_COLUMNS,
    HARD_ROWS,
    PAIR_ROWS,
    RESCUE_ROWS,
    SOFT_ROWS,
    UP_COLUMNS,
    UP_INDEX,
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
    def __init__(self, analysis: Analysis) -> None:
        if analysis.strategy is not None:
            raise ValueError("the generator works from the optimum (an Analysis without strategy)")
        self.a = analysis
        self.rules = analysis.rules
        self.by_up = analysis.rules.dealer.first_card_face_up
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
        return (section, str(value.total), min(n, 7) if self.by_up else 2, col)

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
                values, _split, _surr = a.root_values(ctx, comp, i0, rows, pair=p1 == p2)
                mass = prob  # the values are W form: they carry the no-natural weight
                self._note(self.cell(ctx, comp, i0, False, pair=p1 == p2), values, mass)
                if p1 == p2:  # the same hand as a total (when it may not split)
                    plain: dict[Action, float] = {
                        k: v for k, v in values.items() if k is not Action.SPLIT
                    }
                    self._note(self.cell(ctx, comp, i0, False, pair=False), plain, mass)
            out.box(up, p1, p2, prob)
        return self.table()

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
                out.append(code or default(section, row, ncards, col))
            return out

        for section, rows in (("hard", HARD_ROWS), ("soft", SOFT_ROWS)):
            base: dict[str, str] = {}
            for row in rows:
                base[row] = "  ".join(row_codes(section, row, 2))
            data[section] = base
            if self.by_up:
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


def to_toml(data: dict[str, object]) -> str:
    """The strategy as a TOML file in the shipped files' layout."""
    lines = [
        "# Generated by `croupier analyze --strategy optimal`: the best total-dependent play",
        "# of each cell by exact analysis (see docs/analysis.md).",
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
