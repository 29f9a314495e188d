"""``croupier run``: start the table.

The live table (devices, round controller, dealer display) is not built yet; until it is, this
command says so and prints the rules of the table's variant, so the quick start shows what the
product knows today.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from controller.errors import ConfigError
from controller.rules import load_variant
from controller.rules_cli import summary

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

DEFAULT_VARIANT = "nz-pontoon"


def register(commands: Subparsers) -> None:
    parser = commands.add_parser("run", help="start the table controller")
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help="variant id or file")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        variant = load_variant(args.variant)
    except ConfigError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 1
    print("croupier: the live table (devices, round controller, display) is not available in")
    print("this version yet. The rules it will deal:\n")
    print(summary(variant))
    return 0
