"""The rules of a game variant as validated data (``config/variants/*.toml``).

Every rule that differs between casinos or variants is a parameter here, never a constant in
code. :func:`load_variant` validates a file: an unknown key, a wrong type or an impossible
combination is refused with the file, the key, the value and what is allowed.

Amounts are integer cents (keys end in ``_cents``); odds are exact fractions written ``"3:2"``.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Collection, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from controller.game import shipped
from controller.game.errors import ConfigError
from controller.game.files import read_config_file
from controller.game.rule_enums import (
    BONUS_DESCRIPTIONS,
    BonusHand,
    CardsAfterDouble,
    DoubleAmount,
    NaturalPolicy,
    PlainSection,
    PlainVariant,
    Rounding,
    SecondCard,
    SplitMatch,
    SurrenderSettles,
    SurrenderTiming,
    Ties,
    format_odds,
    resolve_variant_path,
)
from controller.game.validation import config_error, text_matching
from drivers.tbl21.cards import DeckType, Rank

__all__ = [  # (the enums and resolve_variant_path live in rule_enums, without pydantic)
    "BONUS_DESCRIPTIONS",
    "CONFIG_DIR",
    "VARIANTS_DIR",
    "VARIANT_IDS",
    "BonusHand",
    "CardsAfterDouble",
    "DoubleAmount",
    "NaturalPolicy",
    "Rounding",
    "SecondCard",
    "SplitMatch",
    "SurrenderSettles",
    "SurrenderTiming",
    "Ties",
    "Variant",
    "apply_overrides",
    "format_odds",
    "load_variant",
    "parse_odds",
    "plain_rules",
    "resolve_variant_path",
    "variant_from_mapping",
]

# the shipped folder and variant ids (defined where the command line's help can read them)
CONFIG_DIR = shipped.CONFIG_DIR
VARIANTS_DIR = shipped.VARIANTS_DIR
VARIANT_IDS = shipped.VARIANT_IDS


def parse_odds(value: object) -> Fraction:
    """``"3:2"`` -> Fraction(3, 2). Both sides positive whole numbers."""
    if isinstance(value, Fraction):
        return value
    if not isinstance(value, str) or value.count(":") != 1:
        raise ValueError('must be odds written as text "A:B", such as "3:2"')
    left, right = value.split(":")
    if not (left.strip().isdigit() and right.strip().isdigit()):
        raise ValueError('odds need a whole number on each side of the ":", such as "3:2"')
    num, den = int(left), int(right)
    if num <= 0 or den <= 0:
        raise ValueError('odds need a number above 0 on each side, such as "3:2"')
    return Fraction(num, den)


Odds = Annotated[Fraction, PlainValidator(parse_odds), PlainSerializer(format_odds)]
Cents = Annotated[StrictInt, Field(ge=0)]
PositiveCents = Annotated[StrictInt, Field(gt=0)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A table's shoe takes 1-8 decks (the shoe device's own limit, drivers/shoe.py MAX_DECKS); the
# analysis (croupier analyze --set) takes up to ANALYSED_DECKS.
TABLE_DECKS = 8
ANALYSED_DECKS = 16


class ShoeRules(_Section):
    deck: DeckType
    decks: Annotated[StrictInt, Field(ge=1, le=TABLE_DECKS)]
    burn_cards: Annotated[StrictInt, Field(ge=0, le=10)] = 1
    cut_card_reserve: Annotated[StrictInt, Field(ge=0)] = Field(
        description="cards left behind the cut card"
    )

    @model_validator(mode="before")
    @classmethod
    def _reserve_per_deck(cls, data: Any) -> Any:
        """``cut_card_reserve_per_deck = 13``: the reserve is that many cards a deck, so it
        follows ``decks`` (``--set shoe.decks=1`` needs no reserve of its own). It becomes
        ``cut_card_reserve``; the two together are refused (one says it)."""
        if not isinstance(data, dict) or "cut_card_reserve_per_deck" not in data:
            return data
        out = dict(data)
        per_deck = out.pop("cut_card_reserve_per_deck")
        if "cut_card_reserve" in out:
            raise ValueError(
                "give shoe.cut_card_reserve or shoe.cut_card_reserve_per_deck, not both"
            )
        if isinstance(per_deck, bool) or not isinstance(per_deck, int) or per_deck < 0:
            raise ValueError(
                f"shoe.cut_card_reserve_per_deck = {per_deck}: must be a whole number of "
                "cards, 0 or more"
            )
        decks = out.get("decks")
        # (where decks is itself wrong, its own error says so: no second one for the reserve)
        whole = isinstance(decks, int) and not isinstance(decks, bool)
        out["cut_card_reserve"] = per_deck * decks if isinstance(decks, int) and whole else per_deck
        return out


class TableRules(_Section):
    boxes: Annotated[StrictInt, Field(ge=1, le=7)] = 7
    wagers_per_box: Annotated[StrictInt, Field(ge=1, le=3)] = 1
    min_increment_cents: PositiveCents = 100


class DealerRules(_Section):
    second_card: SecondCard
    first_card_face_up: StrictBool = True
    peek_up_cards: tuple[Rank, ...] = ()
    hits_soft_17: StrictBool
    stands_on_five_cards: StrictBool = False


class HandRules(_Section):
    ties: Ties
    natural_after_split: StrictBool = False
    five_card_trick: StrictBool = False
    dealer_five_card_trick: StrictBool = False
    stand_minimum: Annotated[StrictInt, Field(ge=0, le=21)] = 0
    max_cards: Annotated[StrictInt, Field(ge=0, le=12)] = 0  # 0: no limit
    # false: a 21 (not a natural) may still be hit or doubled, as in the published online
    # Pontoon (a soft 21 doubled for the five-card trick): the round's end_of_hand,
    # why_not_hit and why_not_double read it (a table refuses it with 21s paid at once)
    twenty_one_ends_hand: StrictBool = True


class BonusRow(_Section):
    hand: BonusHand
    odds: Odds


class PayoutRules(_Section):
    win: Odds = Fraction(1)
    natural: Odds
    five_card_trick: Odds | None = None
    natural_paid_at_once: StrictBool = False
    twenty_one_paid_at_once: StrictBool = False
    bonus: tuple[BonusRow, ...] = ()
    rounding: Rounding = Rounding.DOWN  # the seeds are silent; rules.md: down to the cent


class SuperBonusBand(_Section):
    min_cents: Cents
    max_cents: Cents | None = None  # None: no upper bound
    amount_cents: PositiveCents


class SuperBonusRules(_Section):
    enabled: StrictBool = False
    hand: Literal[BonusHand.SEVEN_SEVEN_SEVEN_SUITED] = BonusHand.SEVEN_SEVEN_SEVEN_SUITED
    dealer_first_rank: Rank = Rank.SEVEN
    bands: tuple[SuperBonusBand, ...] = ()
    other_wagers_cents: Cents = 0
    paid_on_doubled: StrictBool = False
    paid_on_split: StrictBool = False


class DoubleRules(_Section):
    allowed: StrictBool
    min_cards: Annotated[StrictInt, Field(ge=2, le=12)] = 2
    max_cards: Annotated[StrictInt, Field(ge=0, le=12)] = 2  # 0: no limit
    max_total_after_two: Annotated[StrictInt, Field(ge=0, le=21)] = 21
    amount: DoubleAmount = DoubleAmount.ORIGINAL
    times_per_hand: Annotated[StrictInt, Field(ge=1, le=3)] = 1
    # the totals a hand may be doubled on (its total as it counts: an ace as 11 where that does
    # not bust), such as [9, 10, 11]; empty: any total (the round's why_not_double checks it)
    on_totals: tuple[Annotated[StrictInt, Field(ge=4, le=21)], ...] = ()
    cards_after: CardsAfterDouble = CardsAfterDouble.ONE
    after_split: StrictBool = True
    on_split_aces: StrictBool = False
    initial_aces_count_one: StrictBool = False
    bonus_odds_on_doubled: StrictBool = True  # NZ 12.5: false, doubled hands paid 1:1 only
    rescue: StrictBool = False


class SplitRules(_Section):
    allowed: StrictBool
    match: SplitMatch = SplitMatch.VALUE
    max_hands: Annotated[StrictInt, Field(ge=2, le=4)] = 2
    resplit_aces: StrictBool = False
    split_aces_one_card: StrictBool = True


class SurrenderRules(_Section):
    allowed: StrictBool
    timing: SurrenderTiming = SurrenderTiming.LATE
    up_cards: tuple[Rank, ...] = ()
    dealer_natural_takes_all: StrictBool = True
    settles: SurrenderSettles = SurrenderSettles.NATURAL_KNOWN


class InsuranceRules(_Section):
    allowed: StrictBool
    up_cards: tuple[Rank, ...] = (Rank.ACE,)
    max_fraction: Odds = Fraction(1, 2)
    pays: Odds = Fraction(2)
    natural_boxes_may_insure: StrictBool = False


class DealerNaturalRules(_Section):
    against_doubles: NaturalPolicy = NaturalPolicy.ALL
    against_splits: NaturalPolicy = NaturalPolicy.ALL


class Variant(_Section):
    id: Annotated[
        str,
        text_matching(
            r"^[a-z0-9][a-z0-9-]*$",
            "lower-case letters, digits and '-', beginning with a letter or a digit",
        ),
    ]
    name: str
    sources: tuple[str, ...] = ()
    shoe: ShoeRules
    table: TableRules = TableRules()
    dealer: DealerRules
    hands: HandRules
    payouts: PayoutRules
    super_bonus: SuperBonusRules = SuperBonusRules()
    double: DoubleRules
    split: SplitRules
    surrender: SurrenderRules
    insurance: InsuranceRules
    dealer_natural: DealerNaturalRules = DealerNaturalRules()

    @model_validator(mode="after")
    def _combinations(self, info: ValidationInfo) -> Variant:
        problems = list(_impossible_combinations(self))
        if not (info.context or {}).get("analysis"):
            problems += table_refusals(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # Convenience views -------------------------------------------------------------------

    @property
    def has_hole_card(self) -> bool:
        return self.dealer.second_card is SecondCard.HOLE_CARD

    def bonus_odds(self, hand: BonusHand) -> Fraction | None:
        for row in self.payouts.bonus:
            if row.hand is hand:
                return row.odds
        return None

    def super_bonus_amount(self, wager_cents: int) -> int:
        """The flat Super Bonus for a wager, 0 where no band covers it."""
        for band in self.super_bonus.bands:
            if wager_cents >= band.min_cents and (
                band.max_cents is None or wager_cents <= band.max_cents
            ):
                return band.amount_cents
        return 0


class AnalysedShoeRules(ShoeRules):
    """The shoe as ``croupier analyze`` takes it: up to :data:`ANALYSED_DECKS` decks."""

    decks: Annotated[StrictInt, Field(ge=1, le=ANALYSED_DECKS)]


class AnalysedVariant(Variant):
    """A variant as ``croupier analyze`` takes it (:func:`variant_from_mapping` with
    ``analysis``): more decks than a table's shoe holds, and the rules of
    :func:`table_refusals`."""

    shoe: AnalysedShoeRules


def table_refusals(v: Variant) -> list[str]:
    """Rules the analysis models but a table cannot deal yet: refused for every use but
    ``croupier analyze`` (which validates with ``analysis=True``), each saying why."""
    out: list[str] = []
    if not v.hands.twenty_one_ends_hand and v.payouts.twenty_one_paid_at_once:
        out.append(
            "hands.twenty_one_ends_hand = false with payouts.twenty_one_paid_at_once = true: "
            "the table pays a 21 when it is made, so it cannot play on; croupier analyze --set "
            "hands.twenty_one_ends_hand=false analyses the rule for the best play"
        )
    return out


def _impossible_combinations(v: Variant) -> list[str]:
    out: list[str] = []
    if v.shoe.deck is DeckType.SPANISH_48:
        for where, ranks in (
            ("dealer.peek_up_cards", v.dealer.peek_up_cards),
            ("surrender.up_cards", v.surrender.up_cards),
            ("insurance.up_cards", v.insurance.up_cards),
        ):
            if Rank.TEN in ranks:
                out.append(f"{where} names 'T' but a Spanish 48-card deck has no tens")
    if v.shoe.cut_card_reserve >= v.shoe.decks * v.shoe.deck.size:
        out.append(
            f"shoe.cut_card_reserve = {v.shoe.cut_card_reserve} leaves no cards to play in a "
            f"shoe of {v.shoe.decks * v.shoe.deck.size}"
        )
    if v.dealer.second_card is SecondCard.AFTER_BOXES and v.dealer.peek_up_cards:
        out.append("dealer.peek_up_cards needs a hole card, but dealer.second_card = 'after-boxes'")
    if v.dealer.second_card is SecondCard.AFTER_BOXES and not v.dealer.first_card_face_up:
        out.append("dealer.first_card_face_up = false needs dealer.second_card = 'hole-card'")
    if v.hands.five_card_trick and v.payouts.five_card_trick is None:
        out.append("hands.five_card_trick = true needs payouts.five_card_trick odds")
    if v.hands.five_card_trick and 0 < v.hands.max_cards < 5:
        out.append(f"hands.max_cards = {v.hands.max_cards} makes a five-card trick impossible")
    if v.double.rescue and not v.double.allowed:
        out.append("double.rescue = true needs double.allowed = true")
    if v.double.max_cards and v.double.max_cards < v.double.min_cards:
        out.append(
            f"double.max_cards = {v.double.max_cards} is below double.min_cards = "
            f"{v.double.min_cards}"
        )
    if v.split.allowed and v.split.resplit_aces and v.split.split_aces_one_card:
        out.append(
            "split.resplit_aces = true cannot be dealt with split.split_aces_one_card = true: "
            "a split ace's hand ends at its second card, so an ace dealt to it is never split "
            "again (the table cannot deal resplitting one-card split aces yet); set "
            "split.resplit_aces = false, or split.split_aces_one_card = false for split aces "
            "that draw on and may be resplit"
        )
    if v.split.allowed and v.double.on_split_aces and v.split.split_aces_one_card:
        out.append(
            "double.on_split_aces = true cannot be dealt with split.split_aces_one_card = "
            "true: a split ace's hand ends at its second card, before any double (the table "
            "cannot deal doubling one-card split aces yet); set double.on_split_aces = false, "
            "or split.split_aces_one_card = false for split aces that draw on"
        )
    if v.surrender.allowed:
        checked = v.has_hole_card and v.dealer.peek_up_cards
        if v.surrender.timing is SurrenderTiming.EARLY and checked:
            out.append(
                "surrender.timing = 'early' cannot be dealt with a hole card the dealer checks: "
                "the table offers surrender after the check (late) whatever this says (the "
                "table cannot deal early surrender yet); set surrender.timing = 'late'"
            )
        if v.surrender.timing is SurrenderTiming.LATE and not v.has_hole_card:
            out.append(
                "surrender.timing = 'late' cannot be dealt with dealer.second_card = "
                "'after-boxes': surrender comes before the dealer's second card, which is early; "
                "set surrender.timing = 'early'"
            )
    if v.double.times_per_hand > 1 and v.double.cards_after is CardsAfterDouble.ONE:
        out.append(
            f"double.times_per_hand = {v.double.times_per_hand} cannot be dealt with "
            "double.cards_after = 'one': the one card after a double ends the hand, so it is "
            "never doubled again (the table cannot deal a redouble, as Spanish 21's, yet); "
            "set double.times_per_hand = 1, or double.cards_after = 'any'"
        )
    if v.surrender.allowed and not v.surrender.up_cards:
        out.append(
            "surrender.allowed = true needs surrender.up_cards (the dealer cards it is "
            "offered against)"
        )
    if v.insurance.allowed:
        if not v.insurance.up_cards:
            out.append("insurance.allowed = true needs insurance.up_cards")
        if v.has_hole_card:
            unchecked = [r.value for r in v.insurance.up_cards if r not in v.dealer.peek_up_cards]
            if unchecked:
                out.append(
                    f"insurance.up_cards {unchecked} are not in dealer.peek_up_cards: the "
                    "insurance could not be settled before the boxes play"
                )
    if v.super_bonus.enabled:
        if not v.super_bonus.bands:
            out.append("super_bonus.enabled = true needs super_bonus.bands")
        last_max: int | None = -1
        for i, band in enumerate(v.super_bonus.bands):
            if band.max_cents is not None and band.max_cents < band.min_cents:
                out.append(f"super_bonus.bands[{i}]: max_cents is below min_cents")
            if last_max is None or band.min_cents <= last_max:
                out.append(
                    f"super_bonus.bands[{i}] overlaps the band before it (keep them "
                    "in rising order without overlap)"
                )
            last_max = band.max_cents
    seen: set[BonusHand] = set()
    for row in v.payouts.bonus:
        if row.hand in seen:
            out.append(f"payouts.bonus lists {row.hand.value!r} twice")
        seen.add(row.hand)
    return out


# ---------------------------------------------------------------------------------------------
# Loading


def variant_from_mapping(
    data: Mapping[str, Any],
    source: str,
    overridden: Collection[str] = (),
    *,
    analysis: bool = False,
) -> Variant:
    """Validate ``data``; ``analysis``: for ``croupier analyze``, which also takes the rules a
    table cannot deal yet (:func:`table_refusals`)."""
    try:
        model = AnalysedVariant if analysis else Variant
        return model.model_validate(dict(data), context={"analysis": analysis})
    except ValidationError as exc:
        raise config_error(source, exc, Variant, overridden) from None


def _no_variant(text: str) -> str:
    """What is wrong when nothing is found for ``text``: a path (with ``/`` or ``.toml``) names
    no file, or a name is none of the variants' ids (nor a file in this folder)."""
    known = ", ".join(VARIANT_IDS)
    if "/" in text or text.endswith(".toml"):
        shipped = Path(text).stem
        hint = (
            f"; the shipped {shipped} is named by its id alone: {shipped}"
            if shipped in VARIANT_IDS
            else f"; a shipped variant is named by its id alone: {known}"
        )
        return f"no variant file at {os.path.abspath(text)}{hint}"
    close = difflib.get_close_matches(text, VARIANT_IDS, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"no variant has the id {text!r}{hint}, and there is no file {text!r} in "
        f"{Path.cwd()}; the variants: {known}; a variant file of your own: give its path"
    )


def load_variant(
    name_or_path: str | Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    analysis: bool = False,
) -> Variant:
    """Load and validate a variant by id or path, optionally with ``section.key`` overrides
    (``analysis``: see :func:`variant_from_mapping`). An override of the cut card's reserve
    replaces the file's, whichever way either gives it (cards, or cards per deck)."""
    if not str(name_or_path).strip():
        raise ConfigError(
            "variant", [f"no variant named: give one of {', '.join(VARIANT_IDS)} or a file"]
        )
    path = resolve_variant_path(name_or_path)
    raw = read_config_file(path, "variant file", missing=_no_variant(str(name_or_path)))
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), [f"not valid TOML: {exc}"]) from None
    if overrides:
        shoe = data.get("shoe")
        if isinstance(shoe, dict):
            for given, other in (
                ("cut_card_reserve", "cut_card_reserve_per_deck"),
                ("cut_card_reserve_per_deck", "cut_card_reserve"),
            ):
                if f"shoe.{given}" in overrides:
                    data = {**data, "shoe": {k: v for k, v in shoe.items() if k != other}}
        data = apply_overrides(data, overrides, str(path))
    return variant_from_mapping(data, str(path), tuple(overrides or ()), analysis=analysis)


def apply_overrides(
    data: Mapping[str, Any], overrides: Mapping[str, Any], source: str
) -> dict[str, Any]:
    """Return a copy of ``data`` with ``{"section.key": value}`` (or ``"key"``) replaced."""
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    problems: list[str] = []
    for dotted, value in overrides.items():
        parts = dotted.split(".")
        target: dict[str, Any] = out
        for part in parts[:-1]:
            nxt = target.get(part)
            if nxt is None:
                nxt = {}
                target[part] = nxt
            if not isinstance(nxt, dict):
                problems.append(f"override {dotted!r}: {part!r} is not a section")
                break
            target = nxt
        else:
            target[parts[-1]] = value
    if problems:
        raise ConfigError(source, problems)
    return out


def plain_rules(variant: Variant) -> PlainVariant:
    """``variant`` as plain attributes (:class:`~controller.game.rule_enums.PlainVariant`):
    kept by ``croupier simulate`` and read back without importing pydantic (issue 26)."""

    def plain(value: object) -> object:
        if isinstance(value, BaseModel):
            return PlainSection(
                {name: plain(getattr(value, name)) for name in type(value).model_fields}
            )
        if isinstance(value, tuple):
            return tuple(plain(item) for item in value)
        return value

    settings = {name: plain(getattr(variant, name)) for name in Variant.model_fields}
    return PlainVariant(settings)
