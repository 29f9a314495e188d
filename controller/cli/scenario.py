"""``croupier scenario run FILE [--json]`` (docs/scenarios.md, docs/scenario-extensions.md).

Exit status: 0 when the scenario played to the end (refused actions included), 1 when it
stopped on an error, 2 for a file that is not a valid scenario.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.game.errors import ConfigError, CroupierError
from controller.game.prompts import money
from controller.journal.logs import configure_logging
from controller.play.errors import PlayError, ScenarioError
from controller.play.scenario_file import load_scenario
from controller.play.scenario_runner import run_scenario


def quiet_logs() -> None:
    """The report is the output: device chatter stays out of it (warnings still show)."""
    configure_logging(console=True, level="WARNING")


def run(args: argparse.Namespace) -> int:
    quiet_logs()
    try:
        scenario = load_scenario(args.file)
    except ScenarioError as exc:
        print(f"croupier scenario: {args.file} is not a valid scenario:\n{exc}", file=sys.stderr)
        return 2
    try:
        result = run_scenario(scenario)
    except ConfigError as exc:
        where = scenario.where("rules") if scenario.rules else scenario.where("variant")
        print(f"croupier scenario: {where}: the rules do not load:\n{exc}", file=sys.stderr)
        return 2
    except (PlayError, CroupierError) as exc:
        print(f"croupier scenario: {args.file}: stopped: {exc}", file=sys.stderr)
        return 1
    report = result.report
    if args.json:
        print(json.dumps(report.to_json_dict(), indent=2))
        return 0
    for rnd in report.rounds:
        dealer = " ".join(str(c) for c in rnd.dealer.cards)
        print(f"round {rnd.round}: dealer {dealer} ({rnd.dealer.total})")
        for box in rnd.boxes:
            for i, hand in enumerate(box.hands, 1):
                cards = " ".join(str(c) for c in hand.cards)
                print(f"  box {box.box} hand {i}: {cards} ({hand.total}) {hand.outcome}")
        for entry in rnd.ledger:
            print(f"  {entry.kind:<17} box {entry.box} {entry.player:<8} "
                  f"{money(entry.amount_cents):>10}  {entry.reason}")  # fmt: skip
    for rejection in report.rejected:
        print(f"refused in round {rejection.round}: {rejection.action.as_dict()}: "
              f"{rejection.reason}")  # fmt: skip
    totals = ", ".join(f"{p} {money(c)}" for p, c in report.net_cents.items())
    print(f"net: {totals}")
    return 0
