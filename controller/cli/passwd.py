"""``croupier passwd``: a salted hash of a role's PIN, or a new read-only view token."""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys
from typing import TYPE_CHECKING, Any

from controller.game.errors import ConfigError
from controller.table.config import DEMO_PINS, PIN_DIGITS, hash_secret, load_table_config
from controller.table.pepper import Pepper, PepperError

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]


def register(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "passwd",
        help="make a salted hash of a supervisor or technician PIN, or a read-only view token",
        description="Print a salted scrypt hash for a table file: a role's PIN "
        f"({PIN_DIGITS[0]}-{PIN_DIGITS[1]} digits, read from the terminal or one line on stdin) "
        "for [supervisor] or [technician] pin_hash, keyed with the table's pepper (made the "
        "first time, kept apart from the table file: [access] pepper_path, by default in "
        "croupier's state folder), or with --token a new random view token (printed once) and "
        "its hash for display.view_token_hash.",
    )
    parser.add_argument(
        "--pin",
        choices=("supervisor", "technician"),
        default="supervisor",
        help="whose PIN (default supervisor)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="the table file the PIN is for (default: the shipped config/table.toml)",
    )
    parser.add_argument(
        "--token", action="store_true", help="make a new read-only view token and its hash"
    )
    parser.set_defaults(handler=passwd)


def passwd(args: argparse.Namespace) -> int:
    if args.token:
        token = secrets.token_urlsafe(24)
        print(f"view token (give it to the pit; it is not stored): {token}")
        print(f'view_token_hash = "{hash_secret(token)}"')
        return 0
    role = args.pin
    try:
        table = load_table_config(args.config)
    except ConfigError as exc:
        print(f"croupier passwd: {exc}", file=sys.stderr)
        return 2
    if sys.stdin.isatty():
        first = getpass.getpass(f"{role} PIN ({PIN_DIGITS[0]}-{PIN_DIGITS[1]} digits): ")
        if getpass.getpass("again: ") != first:
            print("croupier passwd: the two entries differ", file=sys.stderr)
            return 1
    else:
        first = sys.stdin.readline().rstrip("\n")
    low, high = PIN_DIGITS
    if not (first.isascii() and first.isdigit() and low <= len(first) <= high):
        print(
            f"croupier passwd: a PIN is {low} to {high} digits (the panel keys D0_-D9_ only)",
            file=sys.stderr,
        )
        return 2
    if first in DEMO_PINS.values():
        print(
            f"croupier passwd: {first} is a demo PIN, printed by every demo and refused by a live "
            "table: choose another",
            file=sys.stderr,
        )
        return 2
    try:
        pepper, made = Pepper.load_or_make(table.pepper_path, table.config.table_id)
    except PepperError as exc:
        print(f"croupier passwd: {exc}", file=sys.stderr)
        return 2
    if made:
        print(
            f"# made the table's PIN pepper {pepper.path}: the PIN hashes of "
            f"{table.source} are worthless without it. Keep it there (croupier's alone), and "
            "back it up apart from the table file",
            file=sys.stderr,
        )
    print(f"# under [{role}] in {table.source}", file=sys.stderr)
    print(f'pin_hash = "{hash_secret(first, pepper=pepper)}"')
    return 0
