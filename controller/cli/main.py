"""The ``croupier`` command: one sub-command per module of this package, each imported only when
it runs (the parsers: :mod:`controller.cli.commands`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

from controller import __version__
from controller.cli import commands
from controller.game.errors import CroupierError
from drivers import watch
from drivers.errors import DeviceError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier", description="Dealer-side table controller for Blackjack and Pontoon."
    )
    parser.add_argument("--version", action="version", version=f"croupier {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _command_modules():
        register(subparsers)
    return parser


def _command_modules() -> list[Callable[[Subparsers], None]]:
    """Each command's parser: :mod:`controller.cli.commands` (``watch``: the drivers' own).

    A registered sub-parser sets ``handler`` (a function of the parsed args returning the exit
    status) with ``set_defaults``; the command's module is imported when the handler runs.
    """
    return [
        commands.register_rules,
        commands.register_run,
        commands.register_passwd,
        commands.register_staff,
        commands.register_audit,
        commands.register_history,
        commands.register_doctor,
        commands.register_verify,
        commands.register_scenario,
        commands.register_lab,
        watch.register,
        commands.register_emulate,
        commands.register_simulate,
        commands.register_floor,
        commands.register_analyze,
        commands.register_train,
    ]


# Nothing croupier creates may be read or written by other users: the journal holds the hole
# card before its reveal, the logs the table's events, the lock the display's address. The files
# croupier opens itself are created 0600 (folders 0700) anyway; this covers the rest (SQLite's
# WAL and shm, a library's files, an export).
PRIVATE_UMASK = 0o077


# croupier's rules are validated by pydantic alone: no plugin found among the installed packages'
# entry points runs inside it (and not looking for one spares every command that reads a
# variant a scan of every installed distribution, about 30 ms; a user's setting is kept).
NO_PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault(*NO_PYDANTIC_PLUGINS)
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
    except (CroupierError, DeviceError) as exc:
        # A mistake (a file, an argument, a device) a command did not say in its own words:
        # said in the error's, never as a traceback. A bug goes out with its traceback.
        if getattr(exc, "bug", False):
            raise
        print(f"croupier {args.command}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (``croupier history | head``): stop quietly, like other tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
