"""The ``croupier`` command: one sub-command per module of this package."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

from controller import __version__
from controller.cli import (
    analyze,
    audit,
    doctor,
    emulate,
    floor,
    history,
    passwd,
    rules,
    run,
    scenario,
    simulate,
)
from drivers import watch


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier", description="Dealer-side table controller for Blackjack and Pontoon."
    )
    parser.add_argument("--version", action="version", version=f"croupier {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _command_modules():
        register(commands)
    return parser


def _command_modules() -> list[Callable[[Subparsers], None]]:
    """Each command lives in its own module with ``register(subparsers)``.

    A registered sub-parser sets ``handler`` (a function of the parsed args returning the exit
    status) with ``set_defaults``.
    """
    return [
        rules.register,
        run.register,
        passwd.register,
        audit.register,
        history.register,
        doctor.register,
        scenario.register,
        watch.register,
        emulate.register,
        simulate.register,
        floor.register,
        analyze.register,
    ]


# Nothing croupier creates may be read or written by other users: the journal holds the hole
# card before its reveal, the logs the table's events, the lock the display's address. The files
# croupier opens itself are created 0600 (folders 0700) anyway; this covers the rest (SQLite's
# WAL and shm, a library's files, an export).
PRIVATE_UMASK = 0o077


def main(argv: Sequence[str] | None = None) -> int:
    previous = os.umask(PRIVATE_UMASK)
    try:
        return _main(argv)
    finally:
        os.umask(previous)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except BrokenPipeError:
        # The reader went away (``croupier history | head``): stop quietly, like other tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
