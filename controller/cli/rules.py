"""``croupier rules``: print a variant's rules, or check a variant file.

The list of the shipped variants reads only their names: the rules' validators are loaded when a
variant is read, so that ``croupier rules`` answers at once.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from typing import TYPE_CHECKING

from controller.game.errors import ConfigError
from controller.game.shipped import VARIANT_IDS, VARIANTS_DIR

if TYPE_CHECKING:
    from controller.game.rules import Variant
    from drivers.tbl21.cards import Rank


def run(args: argparse.Namespace) -> int:
    target = args.check or args.variant
    if target is None:
        print(variant_list())
        return 0
    from controller.game.rules import load_variant  # noqa: PLC0415 - the validators, when needed

    try:
        variant = load_variant(target)
    except ConfigError as exc:
        print(f"croupier rules: {exc}", file=sys.stderr)
        return 1
    if args.check:
        print(f"{args.check}: valid variant {variant.id!r} ({variant.name})")
        return 0
    print(summary(variant))
    return 0


def variant_list() -> str:
    """The shipped variants, one a line, and how to see one's rules."""
    lines = ["Variants (croupier rules ID prints one's rules):"]
    for variant_id in VARIANT_IDS:
        with (VARIANTS_DIR / f"{variant_id}.toml").open("rb") as file:
            name = tomllib.load(file).get("name", "")
        lines.append(f"  {variant_id:<18} {name}")
    lines.append("A variant file of your own: croupier rules PATH, or croupier rules --check PATH.")
    return "\n".join(lines)


def _ranks(ranks: tuple[Rank, ...]) -> str:
    from drivers.tbl21.cards import Rank  # noqa: PLC0415 - with the rules (see the imports)

    if set(ranks) == set(Rank):
        return "any card"
    return ", ".join(r.value for r in ranks) if ranks else "none"


def _totals(totals: tuple[int, ...]) -> str:
    """'9, 10 or 11'."""
    words = [str(t) for t in totals]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def summary(v: Variant) -> str:
    """A readable summary of every rule of a variant, for dealers and supervisors."""
    from controller.game.prompts import money  # noqa: PLC0415 - with the rules
    from controller.game.rules import (  # noqa: PLC0415
        BONUS_DESCRIPTIONS,
        SurrenderSettles,
        format_odds,
    )

    d, h, p, dbl, spl, sur, ins = (
        v.dealer, v.hands, v.payouts, v.double, v.split, v.surrender, v.insurance
    )  # fmt: skip
    deck = "Spanish 48-card (no tens)" if v.shoe.deck.value == "48" else "standard 52-card"
    lines = [
        f"{v.name} [{v.id}]",
        "",
        f"Shoe:        {v.shoe.decks} x {deck} decks; burn {v.shoe.burn_cards}; "
        f"cut card {v.shoe.cut_card_reserve} cards from the end",
        f"Table:       {v.table.boxes} boxes, up to {v.table.wagers_per_box} "
        f"wager{'' if v.table.wagers_per_box == 1 else 's'} per box; "
        f"increment {money(v.table.min_increment_cents)}",
        "Dealer:      "
        + (
            "second card after every box has played (no hole card)"
            if not v.has_hole_card
            else "hole card face down"
            + ("" if d.first_card_face_up else ", first card face down too")
            + f"; checked with the card reader on {_ranks(d.peek_up_cards)}"
        ),
        f"             {'hits' if d.hits_soft_17 else 'stands on'} soft 17"
        + ("; stands on any five cards" if d.stands_on_five_cards else ""),
        f"Natural:     pays {format_odds(p.natural)}"
        + (" at once after the deal" if p.natural_paid_at_once else "")
        + ("" if h.natural_after_split else "; never on a split hand"),
        f"Ties:        {'stand-off (push)' if h.ties.value == 'push' else 'dealer wins'}",
        "Rounding:    "
        + (
            "a fraction of a cent goes to the house (rounded down)"
            if p.rounding.value == "down"
            else "to the nearest cent, a half cent to the player"
        ),
    ]
    if p.twenty_one_paid_at_once:
        lines.append("Player 21:   always wins, paid the moment it is made")
    if not h.twenty_one_ends_hand:
        lines.append("Player 21:   does not end the hand (not a natural): it may be hit or doubled")
    if h.five_card_trick and p.five_card_trick is not None:
        lines.append(f"5-card trick: pays {format_odds(p.five_card_trick)}, ranks below a natural")
    if h.stand_minimum:
        lines.append(f"Stand:       only on {h.stand_minimum} or more, or five cards")
    if h.max_cards:
        lines.append(f"Max cards:   {h.max_cards} (the hand stands automatically)")
    if p.bonus:
        lines.append("Bonus odds:  (best applicable row; not on a doubled hand)")
        for row in sorted(p.bonus, key=lambda r: r.odds):
            lines.append(f"             {BONUS_DESCRIPTIONS[row.hand]:<30} {format_odds(row.odds)}")
    if v.super_bonus.enabled:
        bands = "; ".join(
            f"{money(b.amount_cents)} for a wager of {money(b.min_cents)}"
            + (f"-{money(b.max_cents)}" if b.max_cents is not None else " or more")
            for b in v.super_bonus.bands
        )
        lines.append(
            f"Super Bonus: suited 7-7-7 against a dealer {v.super_bonus.dealer_first_rank.value}:"
            f" {bands}; every other wager {money(v.super_bonus.other_wagers_cents)}"
        )
    if dbl.allowed:
        cards = f"{dbl.min_cards}" + (f"-{dbl.max_cards}" if dbl.max_cards != dbl.min_cards else "")
        cards = f"on {cards} cards"
        if not dbl.max_cards:
            cards = f"on the first two cards or any later total below {dbl.max_total_after_two + 1}"
        lines.append(
            f"Double:      {cards}, "
            + ("up to the original wager" if dbl.amount.value == "up-to-original" else
               "for the original wager")
            + f", {'one card only' if dbl.cards_after.value == 'one' else 'may keep drawing'}"
            + ("; after a split" if dbl.after_split else "; not after a split")
            + ("; initial aces count 1 for the players who double" if dbl.initial_aces_count_one
               else "")
            + (f"; only on a total of {_totals(dbl.on_totals)}" if dbl.on_totals else "")
        )  # fmt: skip
        if dbl.rescue:
            lines.append("Rescue:      take back the double, forfeit the original wager")
    if spl.allowed:
        lines.append(
            f"Split:       pairs of equal {spl.match.value}, up to {spl.max_hands} hands; "
            + ("aces resplit" if spl.resplit_aces else "aces once")
            + ("; one card each on split aces" if spl.split_aces_one_card else "")
        )
    if sur.allowed:
        lines.append(
            f"Surrender:   {sur.timing.value}, against {_ranks(sur.up_cards)}; half the wager"
            + ("; a dealer natural takes it all" if sur.dealer_natural_takes_all else "")
            + (
                "; the half is forfeited at the completion of the dealer's hand"
                if sur.settles is SurrenderSettles.DEALER_HAND_COMPLETE
                else ""
            )
        )
    if ins.allowed:
        lines.append(
            f"Insurance:   against {_ranks(ins.up_cards)}, up to "
            f"{format_odds(ins.max_fraction).replace(':', '/')} of the wager, pays "
            f"{format_odds(ins.pays)}"
            + ("" if ins.natural_boxes_may_insure else "; not for a box with a natural")
        )
    if not v.has_hole_card:
        lines.append(
            f"Dealer natural: takes {v.dealer_natural.against_doubles.value.replace('-', ' ')} "
            "from doubled and split hands"
        )
    return "\n".join(lines)
