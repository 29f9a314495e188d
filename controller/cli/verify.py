"""``croupier verify [--seed HEX] [--config FILE] [--json]``: is the installed software the one
the wheel installed?

Hashes every file of the installed package again and compares each with the wheel's record
(:mod:`controller.table.identity`); names every file that differs or is missing. ``--seed``
prints the lab's seeded check, an HMAC-SHA-256 of the installed files keyed by the seed (the
canonical byte string it covers: ``docs/lab.md``). ``--config`` adds the SHA-256 of the table
file, its variant file and the variant's strategy.

== =====================================================================================
0  every file matches its record
1  a file differs from its record or is missing (each is named)
2  a wrong command line, seed or table file
3  a source (editable) install: there is no record to check the files against
== =====================================================================================
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.game.errors import ConfigError
from controller.game.rules import resolve_variant_path
from controller.table import identity
from controller.table.config import load_table_config

EXIT_CHANGED = 1
EXIT_USAGE = 2
EXIT_UNRECORDED = 3
MIN_SEED_BYTES = 4
MAX_SEED_BYTES = 64


def seed_bytes(text: str) -> bytes:
    """The seed a lab keyed (hexadecimal), or ValueError saying what is wrong."""
    cleaned = text.strip()
    try:
        seed = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError(
            f"--seed {text!r}: must be hexadecimal digits (0-9, a-f), two per byte"
        ) from None
    if not MIN_SEED_BYTES <= len(seed) <= MAX_SEED_BYTES:
        raise ValueError(
            f"--seed: {len(seed)} bytes; a seed is {MIN_SEED_BYTES} to {MAX_SEED_BYTES} bytes "
            f"({2 * MIN_SEED_BYTES} to {2 * MAX_SEED_BYTES} hexadecimal digits)"
        )
    return seed


def run(args: argparse.Namespace) -> int:
    seed: bytes | None = None
    if args.seed is not None:
        try:
            seed = seed_bytes(args.seed)
        except ValueError as exc:
            print(f"croupier verify: {exc}", file=sys.stderr)
            return EXIT_USAGE
    rules: dict[str, str] = {}
    if args.config is not None:
        try:
            table = load_table_config(args.config)
        except ConfigError as exc:
            print(f"croupier verify: {exc}", file=sys.stderr)
            return EXIT_USAGE
        variant = resolve_variant_path(table.config.variant)
        rules = identity.rules_files(variant, table.rules.id, Path(table.source))
    found = identity.software()
    status = 0 if found.recorded else EXIT_UNRECORDED
    if found.changed:
        status = EXIT_CHANGED
    if args.json:
        report: dict[str, Any] = {**found.as_row(), "root": str(found.root), **rules}
        if seed is not None:
            report["hmac_sha256"] = identity.seeded(found, seed)
        print(json.dumps(report, indent=2))
        return status
    if seed is not None:
        # the HMAC alone on standard output, for a lab's script; the check on standard error
        print(identity.seeded(found, seed), flush=True)
    out = sys.stdout if seed is None else sys.stderr
    print(found.summary(), file=out)
    print(f"installed in {found.root}", file=out)
    for name, value in rules.items():
        print(f"{name.removesuffix('_sha256')} file SHA-256: {value or 'cannot be read'}", file=out)
    if found.changed:
        print(
            f"NOT AS INSTALLED - {len(found.changed)} of {len(found.files)} files differ from "
            "the wheel's record:",
            file=out,
        )
        for f in found.changed:
            shown = "missing or unreadable" if f.problem == "missing" else "changed"
            print(f"  {f.path}: {shown} (recorded {f.recorded}, found {f.sha256 or '-'})", file=out)
        print("a table refuses to deal on these files: install the approved wheel again", file=out)
    elif not found.recorded:
        print(
            "not verified: a source (editable) install has no record of its files to check "
            "them against; a table computer runs the wheel (pip install croupier-*.whl)",
            file=out,
        )
    else:
        print("every file matches the wheel's record", file=out)
    return status
