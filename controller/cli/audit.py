"""``croupier audit``: check the journal's hash chain, export it for surveillance.

``croupier audit verify [--journal PATH] [--key FILE]`` walks the whole chain, and with the table
key (``FILE``, by default ``PATH.key`` when there is one) proves it: every sealed row's MAC, and
that the journal extends its head record (``PATH.head``; :mod:`controller.journal.seal`). Exit
status 0 when it is intact (saying whether the MACs were checked); 1 with ``row N: <reason>``
naming the first broken row when a row was edited, deleted, reordered, forged or the journal was
rolled back (or the file cannot be read); 2 when there is no journal at PATH, or no key at a
``--key`` FILE.

``croupier audit seal [--journal PATH] [--key FILE]`` verifies the whole chain under the key and
records the journal's last row as its head: for a technician who restored the journal on purpose
(an older copy is then the one to go on with) or lost the head record. It takes the journal's
lock (refused while the table runs), and prints what it replaced.

``croupier audit export --since DATE [--journal PATH] [--out FILE]`` writes the rows from DATE
on as JSON lines, one row per line with every column (``payload`` as an object whose canonical
JSON, see :func:`controller.journal.canonical_json`, is the text that was hashed). DATE is
``YYYY-MM-DD`` (midnight UTC) or an ISO date-time (``2026-11-29T13:00:00Z``; no zone means UTC).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from controller.journal.errors import JournalUnavailable
from controller.journal.lock import JournalLock
from controller.journal.seal import SealError, key_path_for
from controller.journal.store import Journal

EXIT_OK = 0
EXIT_BROKEN = 1
EXIT_NO_JOURNAL = 2


def _open(path: Path, *, key: Path | None = None) -> Journal | int:
    if not path.exists():
        print(f"croupier audit: there is no journal at {path}", file=sys.stderr)
        return EXIT_NO_JOURNAL
    try:
        return Journal.open(path, readonly=True, sealed=True, key_path=key)
    except JournalUnavailable as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return EXIT_BROKEN


def run_verify(args: argparse.Namespace) -> int:
    if args.export is not None:
        return _verify_export(args.export)
    if args.key is not None and not args.key.exists():
        print(f"croupier audit verify: there is no table key at {args.key}", file=sys.stderr)
        return EXIT_NO_JOURNAL
    journal = _open(args.journal, key=args.key)
    if isinstance(journal, int):
        return journal
    try:
        with journal:
            result = journal.verify()
            rolled_back = journal.head_problem() if result.ok else None
            keyed = journal.key is not None
    except JournalUnavailable as exc:
        print(f"croupier audit verify: {exc}", file=sys.stderr)
        return EXIT_BROKEN
    if rolled_back is not None:
        print(f"{args.journal}: journal BROKEN: its rows hold, but it is not the latest")
        where = "the journal" if rolled_back[0] is None else f"row {rolled_back[0]}"
        print(f"{where}: {rolled_back[1]}")
        return EXIT_BROKEN
    if result.ok:
        print(f"{args.journal}: {result.describe()}")
        if not keyed:
            print(
                f"{args.journal}: not proven: without the table key a chain hashed again after "
                "an edit holds too (give --key FILE)"
            )
        return EXIT_OK
    print(f"{args.journal}: journal BROKEN after {result.rows_checked} good rows")
    print(result.describe())
    return EXIT_BROKEN


def _verify_export(path: Path) -> int:
    """A floor export checked on its own (:mod:`controller.floor.export`)."""
    from controller.floor.export import verify_export  # noqa: PLC0415 (psycopg: only here)

    if not path.exists():
        print(f"croupier audit verify: there is no export at {path}", file=sys.stderr)
        return EXIT_NO_JOURNAL
    found = verify_export(path)
    print(found.describe())
    return EXIT_OK if found.ok else EXIT_BROKEN


def run_seal(args: argparse.Namespace) -> int:
    key = key_path_for(args.journal) if args.key is None else args.key
    if not args.journal.exists():
        print(f"croupier audit seal: there is no journal at {args.journal}", file=sys.stderr)
        return EXIT_NO_JOURNAL
    if not key.exists():
        print(
            f"croupier audit seal: there is no table key at {key}: a journal is sealed only "
            "with the key its rows were sealed with",
            file=sys.stderr,
        )
        return EXIT_NO_JOURNAL
    try:
        with contextlib.ExitStack() as stack:
            opened = stack.enter_context(Journal.open(args.journal, readonly=True))
            lock = JournalLock.acquire(args.journal, table_id=opened.table_id)
            stack.callback(lock.release)
            opened.close()
            journal = stack.enter_context(Journal.open(args.journal, sealed=True, key_path=key))
            result = journal.verify()
            if not result.ok:
                print(f"{args.journal}: journal BROKEN: nothing sealed", file=sys.stderr)
                print(result.describe(), file=sys.stderr)
                return EXIT_BROKEN
            replaced = journal.head_problem()
            text = "the head record was recorded by croupier audit seal" + (
                "" if replaced is None else f", replacing one that said: {replaced[1]}"
            )
            # (not a journal row: a row the table did not write would not replay)
            head = journal.record_head()
    except (JournalUnavailable, SealError) as exc:
        print(f"croupier audit seal: {exc}", file=sys.stderr)
        return EXIT_BROKEN
    assert head is not None
    print(f"{args.journal}: {result.describe()}")
    print(f"{args.journal}: head recorded at {head.describe()}; {text}")
    return EXIT_OK


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
