"""The emulator's command line, description and options, apart from the emulator: the
``croupier`` command line reads them for its help without loading the devices
(:mod:`sim_hardware.emulate` runs them)."""

from __future__ import annotations

import argparse
from pathlib import Path

DESCRIPTION = (
    "Start the three emulated TBL-21 devices on ptys, print their paths (one per line: name "
    "and path) and serve them until Ctrl-C or SIGTERM. Commands on stdin play the dealer "
    "(type 'help')."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant-deck",
        choices=("52", "48"),
        default="52",
        help="deck type of the shoe: 52 cards, or 48 (Spanish, no tens); default 52",
    )
    parser.add_argument(
        "--decks", type=int, default=6, help="number of decks in the shoe (1-8); default 6"
    )
    order = parser.add_mutually_exclusive_group()
    order.add_argument(
        "--seed", type=int, default=None, help="seed of the shuffle (reproducible shoes)"
    )
    order.add_argument(
        "--cards",
        type=Path,
        metavar="FILE",
        help="explicit card order, top first: 'AS KH 7C ...' (spaces, commas, new lines; "
        "'#' starts a comment)",
    )
    parser.add_argument("--cut", type=int, default=None, help="cards before the physical cut card")
    parser.add_argument(
        "--link-dir",
        type=Path,
        default=None,
        help="also make stable symlinks DIR/shoe, DIR/peek, DIR/panel that follow replugs",
    )
