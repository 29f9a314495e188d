"""The ``croupier`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

from controller import (
    __version__,
    audit_cli,
    doctor_cli,
    history_cli,
    rules_cli,
    run_cli,
    scenario_cli,
    simulate_cli,
    table_config,
)
from drivers import watch_cli
from sim_hardware import emulate_cli


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
        rules_cli.register,
        run_cli.register,
        table_config.register,
        audit_cli.register,
        history_cli.register,
        doctor_cli.register,
        scenario_cli.register,
        watch_cli.register,
        emulate_cli.register,
        simulate_cli.register,
    ]


def main(argv: Sequence[str] | None = None) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
