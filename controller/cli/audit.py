"""``croupier audit``: check the journal's hash chain, export it for surveillance.

``croupier audit verify [--journal PATH]`` walks the whole chain. Exit status 0 when it is
intact; 1 with ``row N: <reason>`` naming the first broken row when a row was edited, deleted or
reordered (or the file cannot be read); 2 when there is no journal at PATH.

``croupier audit export --since DATE [--journal PATH] [--out FILE]`` writes the rows from DATE
on as JSON lines, one row per line with every column (``payload`` as an object whose canonical
JSON, see :func:`controller.journal.canonical_json`, is the text that was hashed). DATE is
``YYYY-MM-DD`` (midnight UTC) or an ISO date-time (``2026-11-29T13:00:00Z``; no zone means UTC).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from controller.journal.errors import JournalUnavailable
from controller.journal.store import DEFAULT_JOURNAL_PATH, Journal

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Any]

EXIT_OK = 0
EXIT_BROKEN = 1
EXIT_NO_JOURNAL = 2


def register(commands: Subparsers) -> None:
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
    verify.set_defaults(handler=run_verify)

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
    export.set_defaults(handler=run_export)


def _journal_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal",
        type=Path,
        default=DEFAULT_JOURNAL_PATH,
        metavar="PATH",
        help=f"the journal file (default {DEFAULT_JOURNAL_PATH})",
    )


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


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


def _open(path: Path) -> Journal | int:
    if not path.exists():
        print(f"croupier audit: there is no journal at {path}", file=sys.stderr)
        return EXIT_NO_JOURNAL
    try:
        return Journal.open(path, readonly=True)
    except JournalUnavailable as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return EXIT_BROKEN


def run_verify(args: argparse.Namespace) -> int:
    journal = _open(args.journal)
    if isinstance(journal, int):
        return journal
    try:
        with journal:
            result = journal.verify()
    except JournalUnavailable as exc:
        print(f"croupier audit verify: {exc}", file=sys.stderr)
        return EXIT_BROKEN
    if result.ok:
        print(f"{args.journal}: {result.describe()}")
        return EXIT_OK
    print(f"{args.journal}: journal BROKEN after {result.rows_checked} good rows")
    print(result.describe())
    return EXIT_BROKEN


def run_export(args: argparse.Namespace) -> int:
    journal = _open(args.journal)
    if isinstance(journal, int):
        return journal
    try:
        with journal:
            if args.out is None:
                count = export_rows(journal, args.since, sys.stdout)
            else:
                with args.out.open("w", encoding="utf-8") as out:
                    count = export_rows(journal, args.since, out)
    except JournalUnavailable as exc:
        print(f"croupier audit export: {exc}", file=sys.stderr)
        return EXIT_BROKEN
    except BrokenPipeError:
        # the reader stopped reading (``| head``): stop quietly, like other command-line tools,
        # and keep Python from complaining when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN
    except OSError as exc:
        print(f"croupier audit export: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return EXIT_BROKEN
    where = "stdout" if args.out is None else str(args.out)
    print(
        f"croupier audit export: {count} rows since {args.since.isoformat()} to {where}",
        file=sys.stderr,
    )
    return EXIT_OK


def export_rows(journal: Journal, since: datetime, out: TextIO) -> int:
    count = 0
    for row in journal.iter_rows(since=since):
        out.write(json.dumps(row.to_json_dict(), ensure_ascii=False) + "\n")
        count += 1
    return count
