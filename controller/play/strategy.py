"""Basic strategy per variant (``config/strategies/*.toml``) and the player's decisions from it.

A strategy file names its variant and holds one table per kind of hand:

* ``[hard]``, ``[soft]``: one row per total, ``[pairs]``: one row per pair (``"AA"``, ``"22"``,
  ... ``"TT"`` for any two ten-value cards the variant lets split). Each row is a string of
  action codes separated by spaces, one per column.
* The columns are the dealer's up card ``2 3 4 5 6 7 8 9 T A`` (``columns = "dealer-up-card"``)
  where the dealer's first card is face up, or the number of cards in the player's hand
  ``2 3 4 5+`` (``columns = "player-cards"``) where both dealer cards are face down (uk-pontoon,
  pontoon-blackjack): the player sees no dealer card, and the five-card trick makes the number
  of cards what matters.
* With up-card columns, ``[hard-from-N-cards]`` / ``[soft-from-N-cards]`` (N >= 3) override
  single rows for hands of N or more cards (the largest N that applies wins, row by row).
* Row ``21`` of ``[hard]``/``[soft]`` (and their from-N overrides), optional and only where a
  21 plays on (``hands.twenty_one_ends_hand = false``; refused where a 21 ends the hand, as it
  then has no play): the published online Pontoon chart doubles a three- or four-card soft 21
  for the five-card trick (``pontoon-blackjack-online.toml``). A 21 without a row stands.
* ``[rescue]`` (only where the variant has the double-down rescue): one row per total after
  the double card, ``R`` rescue or ``S`` keep the doubled hand (it stands).
* ``insurance = "never"``.
* ``assumes`` (optional): variant settings the chart was made for, e.g.
  ``assumes = { "dealer.hits_soft_17" = true }``. Loading it against other rules is refused;
  :func:`strategy_for` picks, among the files for a variant, the most specific one whose
  assumptions hold (``pa-blackjack-h17.toml`` when a what-if sets the dealer hitting soft 17).

Action codes: ``H`` hit, ``S`` stand, ``Dh`` double else hit, ``Ds`` double else stand,
``P`` split, ``Ph`` split if double after split is allowed else hit, ``Rh``/``Rs``/``Rp``
surrender else hit/stand/split. A pair code of ``P``/``Ph``/``Rp`` that cannot split (the box
has its maximum of hands) falls back to the hard or soft row of the pair's total.

:func:`load_strategy` validates a file against its variant: an unknown key, a wrong code, a
missing row or column, an action the variant never allows in that cell (surrender against an up
card it is not offered against, standing below the stand minimum) is refused with the file,
the section, the row, the column and what is allowed.

:class:`StrategyPlayer` plays a whole table by the strategy as the ``auto`` hook of
:func:`controller.play.autoplay.play_rounds`.

:meth:`Strategy.decide` is the fast path (tables are precomputed at load): the caller says what
the round allows now (``can_double``, ``can_split``, ``can_surrender``) and gets one
:class:`~controller.round.spec.Action` that is legal. :meth:`Strategy.decide_hand` works those flags
out from the round's own ``why_not_*`` checks for a :class:`~controller.round.model.HandState`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from controller.game.errors import ConfigError
from controller.game.hands import hand_value
from controller.game.rule_enums import (
    VARIANT_IDS,
    VARIANTS_DIR,
    CardsAfterDouble,
    PlainSection,
    SplitMatch,
)
from controller.game.validation import shown
from controller.play.errors import StrategyError
from controller.round.model import (
    BoxState,
    HandState,
    surrender_offered,
    why_not_double,
    why_not_hit,
    why_not_rescue,
    why_not_split,
    why_not_stand,
    why_not_surrender,
)
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card, Rank

if TYPE_CHECKING:  # (the simulator's kernel imports this module without the controller, and
    # without autoplay: its import of the round's errors and the dealer's words is not needed)
    from controller.game.rules import Variant
    from controller.play.autoplay import Decision
    from controller.round.controller import RoundController

__all__ = [
    "STRATEGIES_DIR",
    "Code",
    "Strategy",
    "StrategyError",
    "StrategyPlayer",
    "load_strategy",
    "strategy_for",
]

STRATEGIES_DIR = VARIANTS_DIR.parent / "strategies"

UP_COLUMNS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
CARD_COLUMNS: Final = ("2", "3", "4", "5+")
COLUMN_KINDS: Final = {"dealer-up-card": UP_COLUMNS, "player-cards": CARD_COLUMNS}
HARD_ROWS: Final = tuple(str(t) for t in range(4, 21))  # the rows every chart must give
SOFT_ROWS: Final = tuple(str(t) for t in range(12, 21))  # soft 12 is A-A
# A 21 ends the hand by default (hands.twenty_one_ends_hand): there it has no play and no row.
# Where a 21 plays on, a chart may give row 21 (hard and soft, and their from-N overrides: the
# online Pontoon chart doubles a three- or four-card soft 21 for the five-card trick); without
# it a 21 stands.
TWENTY_ONE: Final = "21"


def total_rows(section: str, rules: Variant) -> tuple[str, ...]:
    """The rows of ``[hard]`` or ``[soft]`` a chart for ``rules`` may give: row 21 too where a
    21 plays on."""
    rows = HARD_ROWS if section == "hard" else SOFT_ROWS
    return rows if rules.hands.twenty_one_ends_hand else (*rows, TWENTY_ONE)


def has_twenty_one_row(strategy: Strategy) -> bool:
    """Whether the chart gives a play for a 21 (a row 21 in a hard or soft section)."""
    return any(
        TWENTY_ONE in rows for section, rows in strategy.tables.items() if section != "pairs"
    )


PAIR_ROWS: Final = ("AA", "22", "33", "44", "55", "66", "77", "88", "99", "TT")
RESCUE_ROWS: Final = tuple(str(t) for t in range(4, 21))
MAX_FROM_CARDS: Final = 7  # [hard-from-N-cards] for 3 <= N <= 7


class Code(IntEnum):
    H = 0
    S = 1
    DH = 2
    DS = 3
    P = 4
    PH = 5
    RH = 6
    RS = 7
    RP = 8


CODE_TEXT: Final = {
    "H": Code.H,
    "S": Code.S,
    "Dh": Code.DH,
    "Ds": Code.DS,
    "P": Code.P,
    "Ph": Code.PH,
    "Rh": Code.RH,
    "Rs": Code.RS,
    "Rp": Code.RP,
}
TOTAL_CODES: Final = ("H", "S", "Dh", "Ds", "Rh", "Rs")
MULTI_CARD_CODES: Final = ("H", "S", "Dh", "Ds")  # surrender is on the first two cards only
PAIR_CODES: Final = tuple(CODE_TEXT)
RESCUE_CODES: Final = ("R", "S")
SURRENDER_CODES: Final = frozenset({Code.RH, Code.RS, Code.RP})
STAND_FALLBACK: Final = frozenset({Code.S, Code.DS, Code.RS})  # codes that may end in a stand

# The column of a dealer card in up-card tables.
UP_INDEX: Final[dict[Rank, int]] = {
    Rank.TWO: 0,
    Rank.THREE: 1,
    Rank.FOUR: 2,
    Rank.FIVE: 3,
    Rank.SIX: 4,
    Rank.SEVEN: 5,
    Rank.EIGHT: 6,
    Rank.NINE: 7,
    Rank.TEN: 8,
    Rank.JACK: 8,
    Rank.QUEEN: 8,
    Rank.KING: 8,
    Rank.ACE: 9,
}
COLUMN_RANKS: Final[dict[str, tuple[Rank, ...]]] = {
    "2": (Rank.TWO,),
    "3": (Rank.THREE,),
    "4": (Rank.FOUR,),
    "5": (Rank.FIVE,),
    "6": (Rank.SIX,),
    "7": (Rank.SEVEN,),
    "8": (Rank.EIGHT,),
    "9": (Rank.NINE,),
    "T": (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING),
    "A": (Rank.ACE,),
}

# The codes as plain ints for the hot path (IntEnum comparisons are slower).
_H, _S, _DH, _DS, _P, _PH, _RH = (
    int(c) for c in (Code.H, Code.S, Code.DH, Code.DS, Code.P, Code.PH, Code.RH)
)

_POINTS: Final[dict[Rank, int]] = {r: r.points for r in Rank}

# Table layout: one flat list indexed by kind, total (or pair points), card count and column.
_HARD, _SOFT, _PAIR = 0, 1, 2
_TOTALS = 22
_NCARDS = MAX_FROM_CARDS + 1  # card counts 0..7, larger counts use 7
_NCOLS = 10


def _slot(kind: int, total: int, ncards: int, col: int) -> int:
    return ((kind * _TOTALS + total) * _NCARDS + ncards) * _NCOLS + col


@dataclass(frozen=True, slots=True)
class Strategy:
    """A validated basic strategy for one variant, with its lookup tables precomputed."""

    variant: str
    name: str
    sources: tuple[str, ...]
    columns: str  # "dealer-up-card" or "player-cards"
    path: str
    assumes: Mapping[str, object]  # variant settings the chart was made for ("dealer.hits_soft_17")
    # section -> row -> codes as written (for reports and tests)
    tables: Mapping[str, Mapping[str, tuple[str, ...]]]
    _table: tuple[int, ...]
    _rescue: tuple[bool, ...]  # [total * 10 + up column]

    @property
    def by_up_card(self) -> bool:
        return self.columns == "dealer-up-card"

    @property
    def decisions(self) -> tuple[object, ...]:
        """Everything the chart decides with (two charts equal here play every hand alike)."""
        return (self.columns, self._table, self._rescue)

    # --- lookups ----------------------------------------------------------------------------

    def cell(self, section: str, row: str, ncards: int, column: str) -> str:
        """The code as written that covers a hand: ``section`` is hard, soft or pairs, ``row``
        its total (or pair), ``column`` an up card (2..9, T, A) or, with card-count columns,
        anything (the card count picks the column)."""
        if section == "pairs":
            cells = self.tables["pairs"][row]
            return cells[UP_COLUMNS.index(column)] if self.by_up_card else cells[0]
        stands = ("S",) * (len(UP_COLUMNS) if self.by_up_card else len(CARD_COLUMNS))
        if not self.by_up_card:  # (a 21 without a row stands)
            return self.tables[section].get(row, stands)[min(ncards, 5) - 2]
        cells = self.tables[section].get(row, stands)
        for n in range(min(ncards, MAX_FROM_CARDS), 2, -1):
            override = self.tables.get(f"{section}-from-{n}-cards", {}).get(row)
            if override is not None:
                cells = override
                break
        return cells[UP_COLUMNS.index(column)]

    def _column(self, dealer_up: Card | Rank | None) -> int:
        if self.columns == "player-cards":
            return 0  # the tables were compiled per card count, every column alike
        if dealer_up is None:
            raise StrategyError(f"{self.variant}: this strategy needs the dealer's up card")
        rank = dealer_up.rank if isinstance(dealer_up, Card) else dealer_up
        return UP_INDEX[rank]

    # --- decisions --------------------------------------------------------------------------

    def decide(
        self,
        rules: Variant,
        cards: Sequence[Card],
        dealer_up: Card | Rank | None,
        *,
        can_double: bool,
        can_split: bool,
        can_surrender: bool = False,
        doubled: bool = False,
    ) -> Action:
        """The basic-strategy play for a hand in play: HIT, STAND, DOUBLE, SPLIT or SURRENDER.

        ``can_double``/``can_split``/``can_surrender``: the round allows that action now (the
        round's ``why_not_*`` checks; :meth:`decide_hand` works them out). Hit and stand
        legality follow from the hand and the rules. ``doubled``: the hand was doubled already
        (where the variant lets a doubled hand draw on).
        """
        n = len(cards)
        if n < 2:
            raise StrategyError("a hand needs two cards before a decision")
        points = _POINTS
        hard = 0
        aces = 0
        for c in cards:
            p = points[c.rank]
            hard += p
            if p == 1:
                aces += 1
        soft = aces > 0 and hard <= 11
        total = hard + 10 if soft else hard
        if total > 21:
            raise StrategyError(f"a bust hand ({total}) has no decision")
        if doubled and rules.double.cards_after is CardsAfterDouble.ONE:
            raise StrategyError("a doubled hand takes one card and ends: no decision")
        if total == 21 and rules.hands.twenty_one_ends_hand:
            return Action.STAND  # (the round ends the hand; a chart has no row 21 here)
        col = 0 if self.columns == "player-cards" else self._column(dealer_up)
        table = self._table
        code = -1
        if can_split and n == 2:
            a, b = cards[0].rank, cards[1].rank
            is_pair = a is b if rules.split.match is SplitMatch.RANK else points[a] == points[b]
            if is_pair:
                code = table[((_PAIR * _TOTALS + points[a]) * _NCARDS + 2) * _NCOLS + col]
                if code == _PH and not rules.double.after_split:
                    code = _H
        if code < 0:
            kind = _SOFT if soft else _HARD
            ncards = n if n < _NCARDS else MAX_FROM_CARDS
            code = table[((kind * _TOTALS + total) * _NCARDS + ncards) * _NCOLS + col]  # _slot()
        if code >= _RH:  # surrender codes
            if can_surrender:
                return Action.SURRENDER
            code = (_H, _S, _P)[code - _RH]  # Rp is read only when can_split
        if code == _H:
            return Action.HIT
        if code == _S:
            return Action.STAND
        if code >= _P:
            return Action.SPLIT
        # Dh / Ds
        if (
            can_double
            and soft
            and rules.double.initial_aces_count_one
            and aces == (cards[0].rank is Rank.ACE) + (cards[1].rank is Rank.ACE)
        ):
            # NZ 12.2: once doubled, an ace of the first two cards counts 1 - this soft hand
            # would become a hard one. Never worth it: play the fallback.
            can_double = False
        if can_double:
            return Action.DOUBLE
        return Action.HIT if code == _DH else Action.STAND

    def decide_hand(
        self,
        rules: Variant,
        box: BoxState,
        hand: HandState,
        dealer_up: Card | None,
        *,
        surrender_window: bool = False,
    ) -> Action:
        """:meth:`decide` for a hand of the round, with what is allowed taken from the round's
        ``why_not_*`` checks.

        ``surrender_window``: the round is offering surrender now (NZ's offer window, PA's
        surrender window). There, any answer but SURRENDER means "do not surrender": close the
        window and ask again when the hand's turn comes.
        """
        if hand.finished:
            raise StrategyError("that hand has finished: no decision")
        players = [s.player for s in hand.stakes]
        can_double = why_not_double(rules, box, hand, None, players) is None
        can_split = why_not_split(rules, box, hand) is None
        can_surrender = (
            surrender_window
            and rules.surrender.allowed
            and surrender_offered(rules, dealer_up)
            and why_not_surrender(rules, box) is None
        )
        action = self.decide(
            rules,
            hand.cards,
            dealer_up,
            can_double=can_double,
            can_split=can_split,
            can_surrender=can_surrender,
            doubled=hand.doubles > 0,
        )
        reason = {
            Action.HIT: lambda: why_not_hit(rules, hand),
            Action.STAND: lambda: why_not_stand(rules, hand),
        }.get(action, lambda: None)()
        if reason is not None:  # the file was validated against the rules: a bug
            raise StrategyError(
                f"{self.path}: {action.value} for {hand.cards} is refused: {reason}"
            )
        return action

    def rescue(self, rules: Variant, cards: Sequence[Card], dealer_up: Card | Rank) -> bool:
        """Take the double-down rescue for a doubled hand (the total after the double card)?"""
        if not rules.double.rescue or not self._rescue:
            return False
        fixed = sum(1 for c in cards[:2] if c.is_ace) if rules.double.initial_aces_count_one else 0
        value = hand_value(cards, fixed)
        if value.total >= 21:
            return False
        col = UP_INDEX[dealer_up.rank if isinstance(dealer_up, Card) else dealer_up]
        return self._rescue[value.total * _NCOLS + col]

    def rescue_hand(self, rules: Variant, hand: HandState, player: str, dealer_up: Card) -> bool:
        """:meth:`rescue` for a player's stake on a hand of the round (False where refused)."""
        if why_not_rescue(rules, hand, player) is not None:
            return False
        return self.rescue(rules, hand.cards, dealer_up)

    def insure(self) -> bool:
        """Basic strategy never takes insurance."""
        return False


class StrategyPlayer:
    """Every player at the table plays ``strategy``: the ``auto`` hook of
    :func:`controller.play.autoplay.play_rounds`. Returns the next decision the round is waiting
    for, or None to let the window close (no insurance, no more surrenders or rescues)."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def __call__(self, controller: RoundController) -> Decision | None:
        from controller.play.autoplay import Decision  # noqa: PLC0415 - (see above)

        rules = controller.rules
        state = controller.state
        up = controller.round.dealer.first
        if state in (State.OFFERS, State.SURRENDER):
            for number in controller.round.box_numbers():
                box = controller.round.boxes[number]
                if not box.hands or box.natural_paid or box.surrendered:
                    continue
                hand = box.hands[0]
                if hand.finished or why_not_surrender(rules, box) is not None:
                    continue
                action = self.strategy.decide_hand(rules, box, hand, up, surrender_window=True)
                if action is Action.SURRENDER:
                    return Decision(Action.SURRENDER, {"box": number})
            return None
        if controller.round.turn is None:
            return None
        number, index = controller.round.turn
        box = controller.round.boxes[number]
        hand = box.hands[index]
        if state is State.RESCUE:
            if up is None:
                return None
            for stake in hand.stakes:
                if self.strategy.rescue_hand(rules, hand, stake.player, up):
                    return Decision(Action.RESCUE, {"box": number, "player": stake.player})
            return None
        if state is State.PLAYING:
            seen = up if rules.dealer.first_card_face_up else None
            return Decision(self.strategy.decide_hand(rules, box, hand, seen), {"box": number})
        return None  # the insurance window: never


# ---------------------------------------------------------------------------------------------
# Loading and validation


def resolve_strategy_path(name_or_path: str | Path) -> Path:
    text = str(name_or_path)
    if "/" not in text and not text.endswith(".toml"):
        return STRATEGIES_DIR / f"{text}.toml"
    return Path(text)


def load_strategy(name_or_path: str | Path, rules: Variant | None = None) -> Strategy:
    """Load and validate a strategy by variant id or path.

    ``rules``: validate against these rules (a variant with overrides) instead of the file's own
    variant as shipped; its id must match the file's.
    """
    path = resolve_strategy_path(name_or_path)
    source = str(path)
    if not path.exists():
        raise ConfigError(
            source, [f"no such strategy file; known variants: {', '.join(VARIANT_IDS)}"]
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from None
    return strategy_from_mapping(data, source, rules)


def strategy_from_mapping(
    data: Mapping[str, Any], source: str, rules: Variant | None = None
) -> Strategy:
    problems: list[str] = []
    variant_id = data.get("variant")
    if not isinstance(variant_id, str):
        given = "variant: missing" if variant_id is None else f"variant = {shown(variant_id)}"
        raise ConfigError(source, [f"{given}; give one of {', '.join(VARIANT_IDS)}"])
    if rules is None:
        if variant_id not in VARIANT_IDS and not (VARIANTS_DIR / f"{variant_id}.toml").exists():
            raise ConfigError(
                source,
                [
                    f"variant = {shown(variant_id)}: no such variant; known: "
                    + ", ".join(VARIANT_IDS)
                ],
            )
        from controller.game.rules import load_variant  # noqa: PLC0415 - pydantic, where needed

        rules = load_variant(variant_id)
    elif rules.id != variant_id:
        raise ConfigError(
            source,
            [f"variant = {shown(variant_id)}, but the rules are {rules.id}'s: give {rules.id}"],
        )

    columns_kind = data.get("columns")
    if columns_kind not in COLUMN_KINDS:
        raise ConfigError(
            source,
            [
                f"columns = {shown(columns_kind)}: must be one of "
                + ", ".join(map(shown, COLUMN_KINDS))
            ],
        )
    wanted = "dealer-up-card" if rules.dealer.first_card_face_up else "player-cards"
    if columns_kind != wanted:
        why = "face up" if rules.dealer.first_card_face_up else "face down"
        raise ConfigError(
            source,
            [f"columns = {shown(columns_kind)}: {rules.id} deals the dealer's first card {why}, "
             f"so its strategy needs columns = {shown(wanted)}"],
        )  # fmt: skip
    column_names = COLUMN_KINDS[columns_kind]
    by_up = columns_kind == "dealer-up-card"

    from_sections = [f"{k}-from-{n}-cards" for k in ("hard", "soft") for n in range(3, 8)]
    allowed_top = [
        "variant", "name", "sources", "assumes", "columns", "insurance", "hard", "soft", "pairs",
    ]  # fmt: skip
    if rules.double.rescue:
        allowed_top.append("rescue")
    if by_up:
        allowed_top += from_sections
    for key in data:
        if key not in allowed_top:
            hint = ""
            if key == "rescue":
                hint = f" ({rules.id} has no double-down rescue)"
            elif key in from_sections:
                hint = " (card-count columns already cover the number of cards)"
            given = f"[{key}]" if isinstance(data[key], dict) else f"{key} = {shown(data[key])}"
            what = "section" if isinstance(data[key], dict) else "key"
            problems.append(
                f"{given}: unknown {what}{hint}; allowed here: {', '.join(allowed_top)}"
            )
    if data.get("insurance") != "never":
        given = (
            "insurance: missing"
            if "insurance" not in data
            else f"insurance = {shown(data['insurance'])}"
        )
        problems.append(f'{given}; basic strategy never insures: write insurance = "never"')
    name = data.get("name", "")
    if not isinstance(name, str):
        problems.append(f"name = {shown(name)}: must be text, in quotes")
        name = ""
    sources = data.get("sources")
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) for s in sources):
        given = "sources: missing" if sources is None else f"sources = {shown(sources)}"
        problems.append(
            f'{given}; give a list of the public sources the strategy follows, such as ["..."]'
        )
        sources = []

    assumes = _flatten(data.get("assumes", {}))
    for key, value in assumes.items():
        found, actual = _rule_value(rules, key)
        if not found:
            problems.append(f"assumes.{key}: no such variant setting (write section.key)")
        elif actual != value:
            problems.append(
                f"assumes.{key} = {value!r}, but the rules of {rules.id} have {actual!r}: this "
                "strategy is for other rules (see strategy_for)"
            )

    surrender_cols = _surrender_columns(rules, column_names, by_up)
    tables: dict[str, dict[str, tuple[str, ...]]] = {}

    def section(
        key: str,
        rows: tuple[str, ...],
        codes: tuple[str, ...],
        *,
        required: bool = True,
        min_cards: int = 2,
        columns: tuple[str, ...] = column_names,
    ) -> None:
        raw = data.get(key)
        if raw is None:
            if required:
                problems.append(f"[{key}]: required section is missing (rows {rows[0]}-{rows[-1]})")
            return
        if not isinstance(raw, dict):
            problems.append(
                f"{key} = {shown(raw)}: must be a table of rows, such as "
                f'[{key}] then {rows[0]} = "{" ".join(codes[:1] * len(columns))}"'
            )
            return
        out: dict[str, tuple[str, ...]] = {}
        optional = (TWENTY_ONE,) if key.startswith(("hard", "soft")) else ()
        for row, text in raw.items():
            where = f"[{key}] {row}"
            if row in optional and rules.hands.twenty_one_ends_hand:
                problems.append(
                    f"{where}: a 21 ends the hand in {rules.id} (hands.twenty_one_ends_hand = "
                    "true), so it has no play: remove the row (a row for 21 is for rules where "
                    "a 21 plays on)"
                )
                continue
            if row not in rows and row not in optional:
                problems.append(f"{where}: unknown row; allowed rows: {', '.join(rows + optional)}")
                continue
            if not isinstance(text, str):
                problems.append(
                    f"{where} = {shown(text)}: must be text of {len(columns)} codes "
                    f"({', '.join(codes)}) separated by spaces"
                )
                continue
            cells = tuple(text.split())
            if len(cells) != len(columns):
                problems.append(
                    f"{where} = {shown(text)}: {len(cells)} "
                    f"code{'' if len(cells) == 1 else 's'} for {len(columns)} columns "
                    f"({' '.join(columns)})"
                )
                continue
            for col, cell in zip(columns, cells, strict=True):
                problem = _cell_problem(
                    rules, key, row, col, cell, codes, surrender_cols, by_up, min_cards
                )
                if problem:
                    problems.append(f"{where}, column {col}: {problem}")
            out[row] = cells
        if required:
            missing = [r for r in rows if r not in raw]
            if missing:
                problems.append(f"[{key}]: missing row(s) {', '.join(missing)}")
        tables[key] = out

    two_card_codes = TOTAL_CODES if by_up else MULTI_CARD_CODES
    section("hard", HARD_ROWS, two_card_codes)
    section("soft", SOFT_ROWS, two_card_codes)
    if by_up:
        section("pairs", PAIR_ROWS, PAIR_CODES)
    else:  # a pair has two cards: one column
        section("pairs", PAIR_ROWS, ("H", "S", "Dh", "Ds", "P", "Ph"), columns=("2",))
    if by_up:
        for n in range(3, 8):
            section(
                f"hard-from-{n}-cards", HARD_ROWS, MULTI_CARD_CODES, required=False, min_cards=n
            )
            section(
                f"soft-from-{n}-cards", SOFT_ROWS, MULTI_CARD_CODES, required=False, min_cards=n
            )
    if rules.double.rescue:
        section("rescue", RESCUE_ROWS, RESCUE_CODES)
    if problems:
        raise ConfigError(source, problems)

    table, rescue = _compile(tables, by_up)
    return Strategy(
        variant=rules.id,
        name=name,
        sources=tuple(sources),
        columns=columns_kind,
        path=source,
        assumes=assumes,
        tables=tables,
        _table=table,
        _rescue=rescue,
    )


def _flatten(raw: object, prefix: str = "") -> dict[str, object]:
    """``{"dealer": {"hits_soft_17": True}}`` -> ``{"dealer.hits_soft_17": True}``."""
    if not isinstance(raw, dict):
        return {prefix.rstrip("."): raw} if prefix else {"": raw}
    out: dict[str, object] = {}
    for key, value in raw.items():
        out.update(_flatten(value, f"{prefix}{key}."))
    return out


def _rule_value(rules: Variant, dotted: str) -> tuple[bool, object]:
    current: object = rules
    for part in dotted.split("."):
        fields = (
            current.settings()
            if isinstance(current, PlainSection)
            else getattr(type(current), "model_fields", None)
        )
        if not fields or part not in fields:
            return False, None
        current = getattr(current, part)
    return True, current


def strategy_for(rules: Variant) -> Strategy:
    """The shipped strategy for these rules: among the files for ``rules.id``, the one whose
    ``assumes`` all hold, the most specific first (pa-blackjack with the dealer hitting soft
    17 gets the H17 chart)."""
    candidates: list[tuple[int, Path]] = []
    considered: list[str] = []
    for path in sorted(STRATEGIES_DIR.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        if data.get("variant") != rules.id:
            continue
        assumes = _flatten(data.get("assumes", {}))
        wrong = [k for k, v in assumes.items() if _rule_value(rules, k) != (True, v)]
        considered.append(f"{path.name} assumes {assumes}" + (f" (not {wrong})" if wrong else ""))
        if not wrong:
            candidates.append((len(assumes), path))
    if not candidates:
        raise ConfigError(
            str(STRATEGIES_DIR),
            [f"no strategy fits the rules of {rules.id}; considered: {'; '.join(considered)}"],
        )
    return load_strategy(max(candidates)[1], rules)


def _surrender_columns(rules: Variant, column_names: tuple[str, ...], by_up: bool) -> set[str]:
    if not rules.surrender.allowed or not by_up:
        return set()
    return {c for c in column_names if any(r in rules.surrender.up_cards for r in COLUMN_RANKS[c])}


def _cell_problem(
    rules: Variant,
    section: str,
    row: str,
    col: str,
    cell: str,
    codes: tuple[str, ...],
    surrender_cols: set[str],
    by_up: bool,
    min_cards: int,
) -> str | None:
    if cell not in codes:
        return f"{cell!r} is not a code allowed here; allowed: {', '.join(codes)}"
    if section == "rescue":
        return None
    code = CODE_TEXT[cell]
    if code in SURRENDER_CODES and col not in surrender_cols:
        if not rules.surrender.allowed:
            return f"{cell!r} surrenders, but {rules.id} has no surrender"
        return f"{cell!r} surrenders, but {rules.id} offers no surrender against {col}"
    if code in {Code.DH, Code.DS} and not rules.double.allowed:
        return f"{cell!r} doubles, but {rules.id} has no double down"
    minimum = rules.hands.stand_minimum
    if minimum and code in STAND_FALLBACK:
        ncards = 5 if (not by_up and col == "5+") else min_cards
        total = _row_total(section, row)
        if total < minimum and ncards < 5:
            return (
                f"{cell!r} may stand on {total}, but {rules.id} lets a hand stand only on "
                f"{minimum} or more or with five cards; use H or Dh"
            )
    return None


def _row_total(section: str, row: str) -> int:
    if section == "pairs":
        if row == "AA":
            return 12
        points = 10 if row == "TT" else int(row[0])
        return 2 * points
    return int(row)


def _compile(
    tables: Mapping[str, Mapping[str, tuple[str, ...]]], by_up: bool
) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    table = [int(Code.H)] * (3 * _TOTALS * _NCARDS * _NCOLS)
    for kind in (_HARD, _SOFT):  # a 21 without a row stands
        for ncards in range(_NCARDS):
            for col in range(_NCOLS):
                table[_slot(kind, 21, ncards, col)] = int(Code.S)
    for kind, name in ((_HARD, "hard"), (_SOFT, "soft")):
        rows = dict(tables[name])
        for n in range(3, MAX_FROM_CARDS + 1):  # a row 21 may come only from an override
            for row in tables.get(f"{name}-from-{n}-cards", {}):
                rows.setdefault(row, ("S",) * (_NCOLS if by_up else len(CARD_COLUMNS)))
        for row, cells in rows.items():
            total = int(row)
            for ncards in range(2, _NCARDS):
                if by_up:  # the largest from-N override that covers ncards wins
                    source = cells
                    for n in range(min(ncards, MAX_FROM_CARDS), 2, -1):
                        override = tables.get(f"{name}-from-{n}-cards", {}).get(row)
                        if override is not None:
                            source = override
                            break
                    codes = [CODE_TEXT[c] for c in source]
                else:  # card-count columns: every up-card slot holds the card count's code
                    codes = [CODE_TEXT[cells[min(ncards, 5) - 2]]] * _NCOLS
                for col, code in enumerate(codes):
                    table[_slot(kind, total, ncards, col)] = int(code)
    for row, cells in tables["pairs"].items():
        points = {"AA": 1, "TT": 10}.get(row) or int(row[0])
        codes = [CODE_TEXT[c] for c in cells] if by_up else [CODE_TEXT[cells[0]]] * _NCOLS
        for col, code in enumerate(codes):
            table[_slot(_PAIR, points, 2, col)] = int(code)
    rescue: list[bool] = []
    if "rescue" in tables:
        rescue = [False] * (_TOTALS * _NCOLS)
        for row, cells in tables["rescue"].items():
            for col, cell in enumerate(cells):
                rescue[int(row) * _NCOLS + col] = cell == "R"
    return tuple(table), tuple(rescue)
