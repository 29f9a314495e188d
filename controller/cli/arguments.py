"""Argument types the commands share: a bad value is refused by argparse as the flag's own
mistake ("argument --port: 99999 is not a port ..."), never blamed on a file."""

from __future__ import annotations

import argparse

MAX_PORT = 65535


def port(text: str) -> int:
    """A TCP port for ``--port``: 0 (any free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port: give a number from 1 to {MAX_PORT}, or 0 for any free one"
        ) from None
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(
            f"{value} is not a port: give a number from 1 to {MAX_PORT}, or 0 for any free one"
        )
    return value
