"""The rules' settings that are names (the enums), read without validating a variant file.

The kernel's modules (:mod:`controller.play.kernel` and the game functions it calls) need these
but not pydantic, which only :mod:`controller.game.rules` imports (it validates a variant file):
a ``croupier simulate`` run whose rules are kept (:mod:`controller.play.rules_cache`) imports no
pydantic (issue 26). :mod:`controller.game.rules` gives every name here as before.
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction
from pathlib import Path

from controller.game import shipped

VARIANTS_DIR = shipped.VARIANTS_DIR
VARIANT_IDS = shipped.VARIANT_IDS


def format_odds(odds: Fraction) -> str:
    return f"{odds.numerator}:{odds.denominator}"


class Ties(StrEnum):
    PUSH = "push"
    DEALER_WINS = "dealer-wins"


class SecondCard(StrEnum):
    """When the dealer's second card comes out."""

    AFTER_BOXES = "after-boxes"  # NZ: no hole card, drawn after every box has played
    HOLE_CARD = "hole-card"  # dealt face down at the deal


class DoubleAmount(StrEnum):
    UP_TO_ORIGINAL = "up-to-original"  # any amount from the table increment up to the wager
    ORIGINAL = "original"  # exactly the original wager


class CardsAfterDouble(StrEnum):
    ONE = "one"  # exactly one more card, then the hand ends
    ANY = "any"  # the player may keep drawing


class SplitMatch(StrEnum):
    VALUE = "value"  # equal point value (K-Q splits)
    RANK = "rank"  # same rank only


class SurrenderTiming(StrEnum):
    EARLY = "early"  # before the dealer's second card / any check for a natural
    LATE = "late"  # decided before any other decision; dealer natural takes the whole wager


class SurrenderSettles(StrEnum):
    """When a surrendered wager forfeits its half (a dealer natural voids it as soon as made)."""

    NATURAL_KNOWN = "natural-known"  # PA 633a.9: at once, or right after the reader's check
    DEALER_HAND_COMPLETE = "dealer-hand-complete"  # NZ 9.5: at the completion of the dealer's hand


class Rounding(StrEnum):
    """What happens to a fraction of a cent in a payout at odds or a surrender's returned half."""

    DOWN = "down"  # to the cent below: the house keeps the fraction
    HALF_UP = "half-up"  # to the nearest cent, half a cent up: the player gets it


class NaturalPolicy(StrEnum):
    """What a dealer natural takes from a doubled or split box."""

    ORIGINAL_ONLY = "original-only"  # the original wager; double and split stakes returned
    ALL = "all"  # every stake on the hand


class BonusHand(StrEnum):
    FIVE_CARD_21 = "five-card-21"
    SIX_CARD_21 = "six-card-21"
    SEVEN_PLUS_CARD_21 = "seven-plus-card-21"
    SIX_SEVEN_EIGHT_MIXED = "678-mixed"
    SIX_SEVEN_EIGHT_SUITED = "678-suited"
    SIX_SEVEN_EIGHT_SPADES = "678-spades"
    SEVEN_SEVEN_SEVEN_MIXED = "777-mixed"
    SEVEN_SEVEN_SEVEN_SUITED = "777-suited"
    SEVEN_SEVEN_SEVEN_SPADES = "777-spades"


BONUS_DESCRIPTIONS: dict[BonusHand, str] = {
    BonusHand.FIVE_CARD_21: "5 cards totalling 21",
    BonusHand.SIX_CARD_21: "6 cards totalling 21",
    BonusHand.SEVEN_PLUS_CARD_21: "7 or more cards totalling 21",
    BonusHand.SIX_SEVEN_EIGHT_MIXED: "6-7-8 mixed suits",
    BonusHand.SIX_SEVEN_EIGHT_SUITED: "6-7-8 same suit",
    BonusHand.SIX_SEVEN_EIGHT_SPADES: "6-7-8 all spades",
    BonusHand.SEVEN_SEVEN_SEVEN_MIXED: "7-7-7 mixed suits",
    BonusHand.SEVEN_SEVEN_SEVEN_SUITED: "7-7-7 same suit",
    BonusHand.SEVEN_SEVEN_SEVEN_SPADES: "7-7-7 all spades",
}


def resolve_variant_path(name_or_path: str | Path) -> Path:
    """A variant id (``nz-pontoon``) or a path to a variant file."""
    text = str(name_or_path)
    if text in VARIANT_IDS or (
        "/" not in text and not text.endswith(".toml") and (VARIANTS_DIR / f"{text}.toml").exists()
    ):
        return VARIANTS_DIR / f"{text}.toml"
    return Path(text)


class PlainSection:
    """A validated section's settings as plain attributes, read-only: what
    :func:`controller.game.rules.plain_rules` makes of a :class:`~controller.game.rules.Variant`
    (kept and read back without pydantic; the same attribute names and values)."""

    def __init__(self, settings: dict[str, object]) -> None:
        self.__dict__.update(settings)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"the rules are read-only: {name}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(tuple(vars(self).items()))

    def settings(self) -> tuple[str, ...]:
        """The settings' names (as the model's fields)."""
        return tuple(vars(self))


class PlainVariant(PlainSection):
    """A variant's validated rules, plain: the :class:`~controller.game.rules.Variant`'s views
    too (the same code)."""

    @property
    def has_hole_card(self) -> bool:
        return bool(self.dealer.second_card is SecondCard.HOLE_CARD)  # type: ignore[attr-defined]

    def bonus_odds(self, hand: BonusHand) -> Fraction | None:
        for row in self.payouts.bonus:  # type: ignore[attr-defined]
            if row.hand is hand:
                return row.odds  # type: ignore[no-any-return]
        return None

    def super_bonus_amount(self, wager_cents: int) -> int:
        """The flat Super Bonus for a wager, 0 where no band covers it."""
        for band in self.super_bonus.bands:  # type: ignore[attr-defined]
            if wager_cents >= band.min_cents and (
                band.max_cents is None or wager_cents <= band.max_cents
            ):
                return band.amount_cents  # type: ignore[no-any-return]
        return 0
