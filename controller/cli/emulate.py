"""``croupier emulate``: :mod:`sim_hardware.emulate` with ``--variant``, which loads the shoe
with that variant's decks (a Spanish 48-card game needs a 48-card shoe: a table refuses to deal
from another, and holds on a card its game's shoe cannot hold)."""

from __future__ import annotations

import argparse
import sys

from controller.game.errors import ConfigError
from controller.game.rules import load_variant
from sim_hardware import emulate

DEFAULT_DECK, DEFAULT_DECKS = "52", 6


def run(args: argparse.Namespace) -> int:
    deck, decks = args.variant_deck, args.decks
    if args.variant is not None:
        try:
            shoe = load_variant(args.variant).shoe
        except ConfigError as exc:
            print(f"croupier emulate: {exc}", file=sys.stderr)
            return 2
        if deck is not None and deck != shoe.deck.value:
            print(
                f"croupier emulate: --variant-deck {deck} contradicts --variant {args.variant}, "
                f"whose shoe holds {shoe.deck.value}-card decks; leave --variant-deck out",
                file=sys.stderr,
            )
            return 2
        deck, decks = shoe.deck.value, shoe.decks if decks is None else decks
    args.variant_deck = DEFAULT_DECK if deck is None else deck
    args.decks = DEFAULT_DECKS if decks is None else decks
    return emulate.run(args)
