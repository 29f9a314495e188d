"""``croupier passwd``: a salted hash of a role's PIN, or a new read-only view token."""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys

from controller.game.errors import ConfigError
from controller.table.config import DEMO_PINS, LoadedTable, hash_secret, load_table_config
from controller.table.pepper import PIN_DIGITS, Pepper, PepperError


def new_pin(command: str, what: str) -> str | int:
    """A new PIN, from the terminal (twice) or one line on stdin; or the exit status when there
    is none (1: the two entries differ, 2: not a PIN; said on stderr, prefixed with
    ``command``)."""
    if sys.stdin.isatty():
        first = getpass.getpass(f"{what} ({PIN_DIGITS[0]}-{PIN_DIGITS[1]} digits): ")
        if getpass.getpass("again: ") != first:
            print(f"{command}: the two entries differ", file=sys.stderr)
            return 1
    else:
        first = sys.stdin.readline().rstrip("\n")
    low, high = PIN_DIGITS
    if not (first.isascii() and first.isdigit() and low <= len(first) <= high):
        print(
            f"{command}: a PIN is {low} to {high} of the digits 0-9 (the panel's digit keys)",
            file=sys.stderr,
        )
        return 2
    if first in DEMO_PINS.values():
        print(
            f"{command}: {first} is a demo PIN, printed by every demo and refused by a live "
            "table: choose another",
            file=sys.stderr,
        )
        return 2
    return first


def table_pepper(command: str, table: LoadedTable, whose: str, mark: str = "") -> Pepper | int:
    """The table's PIN pepper, made if it has none yet (said on stderr, ``mark`` before it:
    ``whose`` hashes are worthless without it); or the exit status 2, said, when it cannot be
    read or made."""
    try:
        pepper, made = Pepper.load_or_make(table.pepper_path, table.config.table_id)
    except PepperError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    if made:
        print(
            f"{mark}made the table's PIN pepper {pepper.path}: {whose} are worthless without "
            "it. Keep it there (croupier's alone), and back it up apart from the files that "
            "hold them",
            file=sys.stderr,
        )
    return pepper


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
    first = new_pin("croupier passwd", f"{role} PIN")
    if isinstance(first, int):
        return first
    pepper = table_pepper("croupier passwd", table, f"the PIN hashes of {table.source}", "# ")
    if isinstance(pepper, int):
        return pepper
    print(f"# under [{role}] in {table.source}", file=sys.stderr)
    print(f'pin_hash = "{hash_secret(first, pepper=pepper)}"')
    return 0
