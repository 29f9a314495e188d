"""The ``croupier`` command line: every command's parser, and where the command is carried out.

argparse needs a command's parser, not its implementation: this module imports nothing heavy,
and each command's module (``controller.cli.<command>``, with the libraries it needs: the rules'
validators, the journal, PostgreSQL's driver, the analysis engine...) is imported only when
that command runs (:class:`Deferred`). So ``croupier --help``, ``croupier COMMAND --help`` and a
mistake on the command line cost next to nothing, and each command's ``--help`` still shows all
its options.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.arguments import port
from controller.game.shipped import VARIANT_IDS
from controller.journal.whereabouts import DEFAULT_JOURNAL_PATH
from controller.play.choices import ENGINES, SHUFFLES
from controller.table.pepper import PIN_DIGITS
from sim_hardware import emulate_args

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

Handler = Callable[[argparse.Namespace], int]

# The systemd unit for a table computer, shipped with the package (controller/defaults is
# config/ in the source tree): ``run``'s help names the copy of this installation.
SERVICE_UNIT = (Path(__file__).resolve().parents[1] / "defaults" / "croupier@.service").resolve()
# The scenario file's format and what croupier adds to it, shipped with the package
# (controller/docs is docs/ in the source tree): ``scenario``'s help names this installation's.
FORMAT_DOCS = Path(__file__).resolve().parents[1] / "docs"
SCENARIO_FORMAT = (FORMAT_DOCS / "scenarios.md").resolve()
SCENARIO_EXTENSIONS = (FORMAT_DOCS / "scenario-extensions.md").resolve()
LAB_KIT = (FORMAT_DOCS / "lab.md").resolve()  # the lab's kit: ``lab``'s help names it
DEFAULT_LAST = 10  # rounds ``croupier history`` recalls


@dataclass(frozen=True, slots=True)
class Deferred:
    """A command's handler: ``function`` of ``controller.cli.<command>``, imported when the
    command runs."""

    command: str
    function: str = "run"

    def implementation(self) -> Handler:
        module = importlib.import_module(f"controller.cli.{self.command}")
        found: Handler = getattr(module, self.function)
        return found

    def __call__(self, args: argparse.Namespace) -> int:
        return self.implementation()(args)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def register_rules(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "rules",
        help="print the rules of a variant, or check a variant file",
        description="Print a readable summary of a variant's rules, or validate a variant file.",
    )
    parser.add_argument(
        "variant",
        nargs="?",
        default=None,
        help=f"a variant id ({', '.join(VARIANT_IDS)}) or a path to a variant file; "
        "without one, the shipped variants are listed",
    )
    parser.add_argument(
        "--check", metavar="FILE", help="validate FILE; exit status 1 on any problem"
    )
    parser.set_defaults(handler=Deferred("rules"))


def register_run(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "run",
        help="run the table: devices, round controller and the dealer display",
        description="Run a table: start its devices (emulated by default), the round "
        "controller and the dealer display; print the display's address; stop cleanly on "
        "Ctrl-C or SIGTERM.",
        # the path on a line of its own, never wrapped (an installed one is long)
        epilog=f"To run it as a service at a table (systemd), start from:\n  {SERVICE_UNIT}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="the table file (default: the shipped config/table.toml, every device emulated)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="emulated players and dealer play rounds by themselves (needs emulated devices)",
    )
    parser.add_argument(
        "--pace", type=float, default=0.8, help="demo: seconds between the dealer's acts (0.8)"
    )
    parser.add_argument(
        "--demo-counter",
        action="store_true",
        help="demo: a rated card counter sits at box 3 (bets 1-8 with the true count)",
    )
    parser.add_argument("--rounds", type=int, default=None, help="stop after this many rounds")
    parser.add_argument("--variant", default=None, help="deal this variant instead of the file's")
    parser.add_argument(
        "--port", type=port, default=None, help="display port instead of the file's (0: any)"
    )
    parser.add_argument("--seed", type=int, default=7, help="demo: shuffle and bet seed (7)")
    parser.add_argument(
        "--rated",
        action="store_true",
        help="demo: the demo dealer signs in and rated players sit at boxes 1 (basic strategy) "
        "and 2 (a poor player), for the floor's ratings",
    )
    parser.add_argument(
        "--new-journal",
        action="store_true",
        help="start a new journal on purpose where the table's last journal is elsewhere",
    )
    parser.set_defaults(handler=Deferred("run"))


def register_passwd(commands: Subparsers) -> None:
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
    parser.set_defaults(handler=Deferred("passwd", "passwd"))


def register_staff(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "staff",
        help="add, remove or list the table's dealers, supervisors and technicians",
        description="Each dealer, supervisor and technician signs in by their own staff number "
        "and PIN, so the journal names who dealt, overrode, voided or burned. The staff file "
        "([access] staff_path; by default staff/<table id>.staff in croupier's state folder) is "
        "croupier's alone (0600) and holds each PIN as a salted scrypt hash keyed with the "
        "table's pepper, never the PIN.",
    )
    parser.set_defaults(handler=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="staff_command", metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="add a person (or give them a new PIN)",
        description=f"Add a person with their staff number, role and name; their PIN "
        f"({PIN_DIGITS[0]}-{PIN_DIGITS[1]} digits) is read from the terminal, or one line on "
        "stdin. An existing staff number gets the new PIN, role and name.",
    )
    add.add_argument("staff_id", metavar="NUMBER", help="the staff number: 1 to 8 digits")
    add.add_argument("--role", choices=("dealer", "supervisor", "technician"), required=True)
    add.add_argument("--name", required=True, help="the name the journal and the pit read")
    remove = actions.add_parser("remove", help="remove a person", description="Remove a person.")
    remove.add_argument("staff_id", metavar="NUMBER", help="their staff number")
    listing = actions.add_parser(
        "list", help="list the staff (never a PIN)", description="List the staff file's people."
    )
    for each in (add, remove, listing):
        each.add_argument(
            "--config",
            metavar="FILE",
            default=None,
            help="the table file (default: the shipped config/table.toml)",
        )
    add.set_defaults(handler=Deferred("staff", "add"))
    remove.set_defaults(handler=Deferred("staff", "remove"))
    listing.set_defaults(handler=Deferred("staff", "listing"))


def register_audit(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "audit",
        help="verify the journal's hash chain, or export it as JSON lines",
        description="Check the journal for edited, deleted or reordered rows, or export it.",
    )
    parser.set_defaults(handler=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="audit_command", metavar="ACTION")

    verify = actions.add_parser(
        "verify",
        help="check the whole hash chain and name the first broken row",
        description="Exit 0 when the chain is intact, 1 naming the first broken row.",
    )
    _journal_option(verify)
    _key_option(verify)
    verify.add_argument(
        "--export",
        type=Path,
        metavar="FILE",
        help="check a floor export (croupier floor audit export) instead of a journal: every "
        "row's hash, the chain, the period, the trailer",
    )
    verify.set_defaults(handler=Deferred("audit", "run_verify"))

    seal = actions.add_parser(
        "seal",
        help="verify the chain under the table key and record the journal's head (a technician)",
        description=(
            "For a journal restored on purpose or a lost head record: verify every row under "
            "the table key, then record the last row as the journal's head."
        ),
    )
    _journal_option(seal)
    _key_option(seal)
    seal.set_defaults(handler=Deferred("audit", "run_seal"))

    export = actions.add_parser(
        "export",
        help="write journal rows from a date on as JSON lines",
        description="Write every column of every row from DATE on, one JSON object a line.",
    )
    export.add_argument(
        "--since",
        required=True,
        type=parse_since,
        metavar="DATE",
        help="YYYY-MM-DD (midnight UTC) or an ISO date-time such as 2026-11-29T13:00:00Z",
    )
    export.add_argument("--out", type=Path, metavar="FILE", help="write here instead of stdout")
    _journal_option(export)
    export.set_defaults(handler=Deferred("audit", "run_export"))


def register_history(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "history",
        help="recall past rounds from the journal, step by step",
        description="Recall rounds from the journal: cards, decisions, prompts, payouts and "
        "overrides, as recorded.",
    )
    parser.add_argument(
        "--journal",
        type=Path,
        default=DEFAULT_JOURNAL_PATH,
        metavar="PATH",
        help=f"the journal file (default {DEFAULT_JOURNAL_PATH})",
    )
    parser.add_argument(
        "--last",
        type=_positive,
        default=DEFAULT_LAST,
        metavar="N",
        help=f"the last N rounds (default {DEFAULT_LAST})",
    )
    parser.add_argument("--round", type=int, metavar="ID", help="only round ID")
    parser.add_argument("--json", action="store_true", help="a JSON list of rounds")
    parser.add_argument(
        "--all",
        action="store_true",
        help="also show the devices' heartbeats (status reports) and their notes",
    )
    parser.set_defaults(handler=Deferred("history"))


def register_doctor(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "doctor",
        help="check that the table is fit to deal (journal, PINs, devices, clock, disk)",
        description="Check that the table is fit to deal: the journal can be written and its "
        "hash chain is intact; the supervisor and technician PINs are the table's own, with "
        "their pepper; each device answers, is the right type and runs approved "
        "firmware; the clock is not behind the journal; there is disk space; with a [floor] "
        "section, the floor's PostgreSQL answers and how far shipping is behind. Every "
        "failed check says what to do. Exit status 0 when every check passes, 1 when "
        "one fails, 2 for a table file that cannot be used.",
    )
    parser.add_argument("--config", help="the table file (default config/table.toml)")
    parser.set_defaults(handler=Deferred("doctor"))


def register_verify(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "verify",
        help="check the installed software against the wheel's record; a lab's seeded hash",
        description="Hash every installed file of croupier again and compare each with the "
        "SHA-256 the wheel's record gives; every file that differs or is missing is named. "
        "Exit status 0 when every file matches, 1 when one does not, 2 for a wrong seed or "
        "table file, 3 for a source (editable) install, which has no record to check against.",
    )
    parser.add_argument(
        "--seed",
        metavar="HEX",
        help="a lab's seed (8 to 128 hexadecimal digits): print the HMAC-SHA-256 of the "
        "installed files keyed by it (the bytes it covers: docs/lab.md)",
    )
    parser.add_argument(
        "--config", help="a table file: also print its, its variant's and strategy's SHA-256"
    )
    parser.add_argument("--json", action="store_true", help="print the identity as JSON")
    parser.set_defaults(handler=Deferred("verify"))


def register_lab(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "lab",
        help="a test lab's scripted cases: play the scenario pack, write a report to file",
        description="A test lab's kit: the scenario pack shipped with croupier, played through\n"
        "the whole controller and checked against each case's expected result. What a lab\n"
        f"checks, what croupier does and the test that proves it:\n  {LAB_KIT}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="lab_command", metavar="ACTION", required=True)
    run_parser = actions.add_parser(
        "run",
        help="play every case and write lab-report.json and lab-report.html",
        description="Play every scenario of the pack, compare each player's net with the "
        "case's expected net, and write DIR/lab-report.json and DIR/lab-report.html with the "
        "software's identity. Exit status 0 when every case passed, 1 when one failed or an "
        "installed file is not as installed, 2 for a wrong folder or output.",
    )
    run_parser.add_argument(
        "--out", default="lab-report", help="the folder for the report (default lab-report)"
    )
    run_parser.add_argument(
        "--scenarios",
        metavar="DIR",
        help="another pack: a folder of scenario files and their expected.json (default: the "
        "pack shipped with this installation)",
    )
    run_parser.add_argument(
        "--jobs", type=int, default=4, help="cases played at once, each in a process (default 4)"
    )
    run_parser.set_defaults(handler=Deferred("lab"))


def register_scenario(commands: Subparsers) -> None:
    # the paths on lines of their own, never wrapped (an installed one is long)
    formats = f"The file's format:\n  {SCENARIO_FORMAT}\n  {SCENARIO_EXTENSIONS}"
    parser = commands.add_parser(
        "scenario",
        help="play scripted table sessions",
        description=f"Scripted table sessions.\n\n{formats}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    run_parser = actions.add_parser(
        "run",
        help="play a scenario file and report what happened",
        description="Play a scenario file through emulated devices, the drivers and the round\n"
        f"machine, and report what happened.\n\n{formats}\n\n"
        "Exit status 0 when it played to the end, 1 when it stopped on an error,\n"
        "2 for a file that is not a valid scenario.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run_parser.add_argument("file", help="the scenario file (YAML; its format: see above)")
    run_parser.add_argument("--json", action="store_true", help="print the JSON report")
    run_parser.set_defaults(handler=Deferred("scenario"))


TRAINING_KINDS = (
    "payout", "insurance_max", "surrender", "total", "next_prompt", "hold", "procedure",
)  # fmt: skip


def register_train(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "train",
        help="train or audition a dealer: timed drills on the table's own rules, scored",
        description="Ask a trainee a course's questions in the terminal: rounds dealt by the "
        "table's own round controller from seeded shoes, each answer timed and checked "
        "against what croupier worked out, croupier's answer shown after. Every attempt goes "
        "to the training journal (never a live table's). `croupier train report` reads it. "
        "Exit status 0 when the course was passed, 1 when it was not (or stopped), 2 for "
        "bad input.",
    )
    parser.add_argument("--variant", help=f"the game ({', '.join(VARIANT_IDS)}); its course")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--drill", choices=TRAINING_KINDS, help="one kind of question only")
    which.add_argument("--course", type=Path, metavar="FILE", help="a course file (TOML)")
    parser.add_argument("--count", type=_positive, default=10, help="questions of --drill")
    parser.add_argument("--trainee", default="trainee", metavar="ID", help="who is training")
    parser.add_argument("--seed", type=int, help="the shoes' seed (default: a new one)")
    parser.add_argument(
        "--display",
        action="store_true",
        help="ask on the dealer's screen (a browser on this computer) instead of the terminal",
    )
    parser.add_argument(
        "--port", type=port, default=0, help="the training page's port (default: any free one)"
    )
    _training_files(parser)
    parser.set_defaults(handler=Deferred("train"))
    actions = parser.add_subparsers(dest="train_command", metavar="ACTION")
    report = actions.add_parser(
        "report",
        help="a trainee's report, or every trainee's (--all)",
        description="A trainee's scores from the training journal: accuracy, time per "
        "answer, the weakest kinds of question, progress over sessions, pass or fail per "
        "course; --all: every trainee side by side (the instructor's view).",
    )
    whom = report.add_mutually_exclusive_group()
    whom.add_argument("--trainee", dest="report_trainee", metavar="ID", help="whose report")
    whom.add_argument("--all", action="store_true", help="every trainee in the journal")
    report.add_argument("--json", action="store_true", help="print the report as JSON")
    report.add_argument("--out", type=Path, metavar="DIR", help="write JSON and an HTML page")
    _training_files(report)
    report.set_defaults(handler=Deferred("train", "report"))


def _training_files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="a training table's file ([training])"
    )
    parser.add_argument(
        "--journal", type=Path, metavar="PATH", help="the training journal (a file of its own)"
    )


def register_emulate(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "emulate",
        help="run an emulated shoe, hole-card reader and button panel on pseudo-terminals",
        description=emulate_args.DESCRIPTION
        + " --variant V loads the shoe with V's decks (deck type and number of decks).",
    )
    emulate_args.add_arguments(parser)
    parser.add_argument(
        "--variant",
        metavar="V",
        help=f"load the shoe with this variant's decks ({', '.join(VARIANT_IDS)} or a variant "
        "file); --decks may still change the number of decks",
    )
    parser.set_defaults(handler=Deferred("emulate"), variant_deck=None, decks=None)


def register_simulate(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play many rounds by basic strategy and report the house edge and frequencies",
        description="Play rounds of a variant by the table's own rules and settlement, fed by "
        "the emulated shoe's card stream, every player on basic strategy.",
    )
    parser.add_argument("variant", help=f"a variant id ({', '.join(VARIANT_IDS)}) or file")
    parser.add_argument("--rounds", type=int, required=True, help="rounds to play")
    parser.add_argument("--boxes", type=int, default=1, help="boxes in play (default 1)")
    parser.add_argument(
        "--wager", default="10", help="each box's wager in currency units (default 10)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffles (default 1)")
    parser.add_argument(
        "--workers", type=int, default=1, help="processes to run chunks in (default 1)"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a variant setting, e.g. dealer.hits_soft_17=true (value as TOML; "
        "bare words are text); may be repeated",
    )
    parser.add_argument(
        "--shuffle",
        choices=SHUFFLES,
        default="cut-card",
        help="shuffle at the cut card like the table (default) or before every round",
    )
    parser.add_argument(
        "--shoe-file", metavar="FILE", help="replay this card order (AS KH 7C ...) exactly"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="kernel",
        help="kernel (default): the integer-coded kernel built from the rules; controller: "
        "every round through the table's RoundController (the same results, slower)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="build the kernel's tables anew (default: start from the ones the last run with "
        "the same rules, strategy and wager kept, under ~/.cache/croupier/simulate)",
    )
    parser.set_defaults(handler=Deferred("simulate"))


def register_floor(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "floor",
        help="the casino floor: every table's journal in PostgreSQL, the pit's page, reports",
        description="The casino floor: serve the pit's page, report a shift, audit the tables' "
        "chains, or try it all with a throwaway PostgreSQL (demo).",
    )
    sub = parser.add_subparsers(dest="floor_command", metavar="SUBCOMMAND")

    serve = sub.add_parser(
        "serve",
        help="serve the floor page (live from PostgreSQL)",
        description="Serve the floor page: every table's game, round, holds, devices and "
        "figures live from PostgreSQL, alerts, and a table's rounds on a click (docs/floor.md).",
    )
    serve.add_argument("--config", required=True, metavar="FILE", help="the floor file")
    serve.add_argument("--port", type=port, default=None, help="port instead of the file's")
    serve.set_defaults(handler=Deferred("floor", "serve_command"))

    report = sub.add_parser(
        "report",
        help="a shift's or a period's figures per table and floor",
        description="Report a shift's or a period's figures per table and for the floor: "
        "rounds, handle, house win, hold %, settlements by kind, voids and overrides with who made "
        "them; and each rated session's rating: rounds, average bet, time, book theo and the "
        "exact, skill-adjusted theo (docs/floor.md, Ratings and theo).",
    )
    report.add_argument("--config", required=True, metavar="FILE", help="the floor file")
    report.add_argument(
        "--shift", metavar="START", help="the shift starting then (2026-11-29T14:00)"
    )
    report.add_argument("--from", dest="start", metavar="TIME", help="period start (ISO time)")
    report.add_argument("--to", dest="end", metavar="TIME", help="period end (ISO time)")
    report.add_argument(
        "--format", choices=("text", "json", "csv", "html"), default="text", help="(text)"
    )
    report.add_argument("--out", metavar="FILE", help="write here instead of printing")
    report.add_argument(
        "--no-ratings",
        action="store_true",
        help="leave the rated sessions out (their theo analyses each variant once: up to a "
        "minute the first time, then cached)",
    )
    report.set_defaults(handler=Deferred("floor", "report_command"))

    audit = sub.add_parser(
        "audit",
        help="verify every table's chain in PostgreSQL",
        description="Verify every table's hash chain in PostgreSQL, or compare a table's local "
        "journal with the floor's copy; exit 1 on a finding.",
    )
    audit.add_argument(
        "action",
        nargs="?",
        choices=["export"],
        help="export: write one table's rows of a period (--table, --from, --to, --out) as "
        "JSON lines with their chain, for a regulator; croupier audit verify --export FILE "
        "checks it",
    )
    audit.add_argument("--config", required=True, metavar="FILE", help="the floor file")
    audit.add_argument("--table", action="append", default=[], help="only this table (repeat)")
    audit.add_argument(
        "--from",
        dest="start",
        type=parse_since,
        metavar="DATE",
        help="export: the period's first day (YYYY-MM-DD, UTC) or date-time",
    )
    audit.add_argument(
        "--to",
        dest="end",
        type=parse_since,
        metavar="DATE",
        help="export: the day after the period (rows before it), or a date-time",
    )
    audit.add_argument("--out", type=Path, metavar="FILE", help="export: the file to write")
    audit.add_argument(
        "--journal",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="also compare this local journal with the floor (repeat)",
    )
    audit.set_defaults(handler=Deferred("floor", "audit_command"))

    demo = sub.add_parser(
        "demo",
        help="try the floor: throwaway PostgreSQL and N demo tables",
        description="Try the floor on one machine: a throwaway PostgreSQL, N demo tables "
        "shipping to it and the floor page; Ctrl-C removes it all.",
    )
    demo.add_argument("--tables", type=int, default=4, help="how many demo tables (4)")
    demo.add_argument("--pace", type=float, default=0.4, help="demo dealers' pace in s (0.4)")
    demo.add_argument("--port", type=port, default=0, help="the floor page's port (any free)")
    demo.set_defaults(handler=Deferred("floor", "demo_command"))

    mig = sub.add_parser(
        "migrate",
        help="bring the floor's database to the newest schema",
        description="Bring the floor's PostgreSQL schema to the newest version (alembic "
        "migrations), as the database's owner.",
    )
    mig.add_argument("--dsn", required=True, help="the owner's connection string (no password)")
    mig.add_argument(
        "--password-env", metavar="NAME", help="the environment variable with its password"
    )
    mig.set_defaults(handler=Deferred("floor", "migrate_command"))

    prune = sub.add_parser(
        "prune",
        help="drop the months of rows older than the floor's retention (10 years by default)",
        description="Drop, as the database's owner, every month of rows older than the floor "
        "file's [retention] years (10 by default). Nothing else ever removes a row.",
    )
    prune.add_argument("--config", required=True, metavar="FILE", help="the floor file")
    prune.add_argument("--dsn", required=True, help="the owner's connection string (no password)")
    prune.add_argument(
        "--password-env", metavar="NAME", help="the environment variable with its password"
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="name the months that would go, drop nothing"
    )
    prune.set_defaults(handler=Deferred("floor", "prune_command"))

    tl = sub.add_parser(
        "table-login",
        help="make a table's own login to the floor",
        description="Make a table's own login to the floor's PostgreSQL, bound to its table id: "
        "it inserts that table's rows, reports its shipper and reads its head, and nothing of "
        "another table's. Run as the database's owner; prints the [floor] section for the "
        "table file. An existing login of croupier_table (a floor from before this) is bound "
        "as it is, with its password, unless --new-password.",
    )
    tl.add_argument("table_id", metavar="TABLE_ID", help="the table file's table_id")
    tl.add_argument("--dsn", required=True, help="the owner's connection string (no password)")
    tl.add_argument(
        "--password-env", metavar="NAME", help="the environment variable with its password"
    )
    tl.add_argument("--login", metavar="NAME", help="the login's name (table_TABLE_ID)")
    tl.add_argument(
        "--new-password",
        action="store_true",
        help="give an existing login a new generated password",
    )
    tl.add_argument(
        "--password-file",
        metavar="FILE",
        type=Path,
        help="write the login's password to this new file (mode 600) instead of printing it",
    )
    tl.set_defaults(handler=Deferred("floor", "table_login_command"))

    pw = sub.add_parser(
        "passwd",
        help="print a [[users]] entry for the floor file",
        description="Ask for a password and print a [[users]] entry (the name and a salted "
        "hash of the password) for the floor file.",
    )
    pw.add_argument("name", help="the name the person signs in with")
    pw.set_defaults(handler=Deferred("floor", "passwd_command"))

    parser.set_defaults(handler=lambda args: _usage(parser))


def register_analyze(commands: Subparsers) -> None:
    parser = commands.add_parser(
        "analyze",
        help="exact par sheet of a variant: house edge, frequencies, variance, strategy",
        description="Work out a variant's par sheet exactly, by combinatorial analysis of the "
        "shoe (no sampling): house edge, each rule's contribution, the probability of every "
        "outcome and bonus, variance, the strategy table and the dealer's final hands.",
    )
    parser.add_argument("variant", help=f"a variant id ({', '.join(VARIANT_IDS)}) or file")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a what-if: override a variant setting, e.g. dealer.hits_soft_17=true (value as "
        "TOML; bare words are text); may be repeated",
    )
    parser.add_argument(
        "--strategy",
        default="shipped",
        metavar="FILE|basic|optimal",
        help="the shipped basic strategy (default), a strategy file, 'basic' (the "
        "total-dependent basic strategy generated for the rules) or 'optimal' (the best "
        "play, written out as a strategy file)",
    )
    parser.add_argument(
        "--wager", default="10", help="the wager the Super Bonus is figured at (default 10)"
    )
    parser.add_argument("--json", action="store_true", help="print the par sheet as JSON")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="write the par sheet here: VARIANT.json, VARIANT.html, VARIANT.pdf (and with "
        "--strategy optimal or basic VARIANT-optimal.toml or VARIANT-basic.toml)",
    )
    parser.add_argument("--no-cache", action="store_true", help="recompute even if cached")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="leave out the per-rule contributions and the decks curve (much faster)",
    )
    parser.set_defaults(handler=Deferred("analyze"))


def _journal_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal",
        type=Path,
        default=DEFAULT_JOURNAL_PATH,
        metavar="PATH",
        help=f"the journal file (default {DEFAULT_JOURNAL_PATH})",
    )


def _key_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--key",
        type=Path,
        default=None,
        metavar="FILE",
        help="the table key (default: the journal's path with .key, when there is one)",
    )


def parse_since(text: str) -> datetime:
    """``YYYY-MM-DD`` -> that midnight UTC; an ISO date-time -> itself (UTC if no zone)."""
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date: write YYYY-MM-DD (2026-11-29) or an ISO date-time "
            "(2026-11-29T13:00:00Z)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of rounds of 1 or more")
    return value
