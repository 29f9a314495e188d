"""``croupier run``: a table with emulated devices, played by basic-strategy players.

Until the live table with its dealer display lands, ``croupier run`` deals a few rounds of the
chosen variant through the whole stack (emulated shoe, hole-card reader and panel in-process, the
production drivers, the round machine, settlement) and prints every prompt the dealer would see,
at a human pace when attached to a terminal.
"""

from __future__ import annotations

import argparse
import sys
import time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from controller.autoplay import PlayError, ScriptedBet, ScriptedRound, play_rounds
from controller.autoplayer import StrategyPlayer
from controller.errors import ConfigError, CroupierError
from controller.prompts import Prompt, PromptCode, money
from controller.rules import load_variant
from controller.rules_cli import summary
from controller.scenario_cli import quiet_logs
from controller.scenario_file import SeededShoe
from controller.scenario_runner import emulated_table, output_cursor
from controller.strategy import load_strategy
from controller.table import TableOutput

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

DEFAULT_VARIANT = "nz-pontoon"
PLAYERS = ("ann", "bob", "cat", "dan", "eve", "fay", "gus")


def register(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "run",
        help="deal rounds at a table with emulated devices and basic-strategy players",
        description="Deal rounds through emulated devices, the drivers and the round machine, "
        "printing what the dealer is told.",
    )
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help="variant id or file")
    parser.add_argument("--rounds", type=int, default=3, help="rounds to deal (default 3)")
    parser.add_argument("--boxes", type=int, default=3, help="boxes in play, 1-7 (default 3)")
    parser.add_argument("--wager", default="10", help="each box's wager in currency units")
    parser.add_argument("--seed", type=int, default=7, help="shuffle seed (default 7)")
    parser.add_argument(
        "--pace", type=float, default=None, help="seconds per prompt (default 0.4 on a terminal)"
    )
    parser.add_argument("--demo", action="store_true", help="the same (kept for the quick start)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    quiet_logs()
    try:
        rules = load_variant(args.variant)
        strategy = load_strategy(rules.id, rules)
    except ConfigError as exc:
        print(f"croupier run: {exc}", file=sys.stderr)
        return 2
    problem = _check(args, rules.table.boxes)
    if problem:
        print(f"croupier run: {problem}", file=sys.stderr)
        return 2
    wager = int(Decimal(args.wager) * 100)
    pace = args.pace if args.pace is not None else (0.4 if sys.stdout.isatty() else 0.0)
    print(summary(rules).splitlines()[0])
    print(f"{args.boxes} box(es) at {money(wager)}, {args.rounds} round(s), emulated devices\n")

    def show(item: TableOutput) -> None:
        if isinstance(item, Prompt) and item.code is not PromptCode.PLACE_BETS:
            print(f"  {item.code.value:<16} {item.text}", flush=True)
            if pace:
                time.sleep(pace)

    bets = [ScriptedBet(b, PLAYERS[b - 1], wager) for b in range(1, args.boxes + 1)]
    rounds = [ScriptedRound(bets, []) for _ in range(args.rounds)]
    try:
        with emulated_table(rules, SeededShoe(args.seed), on_output=show) as hands:
            records, _ = play_rounds(
                hands.app.controller,
                hands,
                rounds,
                auto=StrategyPlayer(strategy),
                drain=output_cursor(hands.app),
            )  # fmt: skip
    except (PlayError, CroupierError) as exc:
        print(f"croupier run: stopped: {exc}", file=sys.stderr)
        return 1
    net: dict[str, int] = {}
    for record in records:
        for entry in record.ledger:
            net[entry.player] = net.get(entry.player, 0) + entry.amount_cents
    print("\nnet for the players: " + ", ".join(f"{p} {money(c)}" for p, c in net.items()))
    return 0


def _check(args: argparse.Namespace, max_boxes: int) -> str | None:
    if not 1 <= args.boxes <= max_boxes:
        return f"--boxes must be 1-{max_boxes}, got {args.boxes}"
    if not 1 <= args.rounds <= 10_000:
        return f"--rounds must be 1-10000, got {args.rounds}"
    try:
        units = Decimal(args.wager)
    except InvalidOperation:
        return f"--wager must be an amount like 10 or 2.5, got {args.wager!r}"
    if units <= 0 or units != units.quantize(Decimal("0.01")):
        return f"--wager must be positive with at most 2 decimals, got {args.wager!r}"
    if args.pace is not None and not 0 <= args.pace <= 10:
        return f"--pace must be 0-10 seconds, got {args.pace}"
    return None
