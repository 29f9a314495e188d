"""``croupier staff add|remove|list``: the table's dealers, supervisors and technicians, each
with their own staff number and PIN (:mod:`controller.table.staff`)."""

from __future__ import annotations

import argparse
import sys

from controller.cli.passwd import new_pin, table_pepper
from controller.game.errors import ConfigError
from controller.table.config import LoadedTable, hash_secret, load_table_config
from controller.table.staff import (
    STAFF_ID,
    Person,
    Staff,
    StaffError,
    check_name,
    save_staff,
    table_staff,
)

COMMAND = "croupier staff"


def _table(args: argparse.Namespace) -> tuple[LoadedTable, Staff] | int:
    try:
        table = load_table_config(args.config)
        return table, table_staff(table)
    except ConfigError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
    except StaffError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
    return 2


def _number(text: str) -> bool:
    if STAFF_ID.fullmatch(text):
        return True
    print(f"{COMMAND}: staff number {text[:20]!r}: 1 to 8 of the digits 0-9", file=sys.stderr)
    return False


def add(args: argparse.Namespace) -> int:
    if not _number(args.staff_id):
        return 2
    name = " ".join(args.name.split())
    problem = check_name(name)
    if problem is not None:
        print(f"{COMMAND}: --name: {problem}", file=sys.stderr)
        return 2
    found = _table(args)
    if isinstance(found, int):
        return found
    table, staff = found
    pin = new_pin(COMMAND, f"PIN of {name}")
    if isinstance(pin, int):
        return pin
    pepper = table_pepper(COMMAND, table, "the staff file's PIN hashes")
    if isinstance(pepper, int):
        return pepper
    before = staff.get(args.staff_id)
    person = Person(args.staff_id, args.role, name, hash_secret(pin, pepper=pepper))
    try:
        kept = Staff({**staff.people, person.id: person}, pepper)
        save_staff(table.staff_path, kept, table.config.table_id)
    except StaffError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return 2
    done = "added" if before is None else f"changed (was {before.described()})"
    print(f"{person.described()} {done} in {table.staff_path}")
    return 0


def remove(args: argparse.Namespace) -> int:
    if not _number(args.staff_id):
        return 2
    found = _table(args)
    if isinstance(found, int):
        return found
    table, staff = found
    person = staff.get(args.staff_id)
    if person is None:
        print(f"{COMMAND}: nobody has staff number {args.staff_id} at this table", file=sys.stderr)
        return 1
    left = {k: v for k, v in staff.people.items() if k != person.id}
    try:
        save_staff(table.staff_path, Staff(left, staff.pepper), table.config.table_id)
    except StaffError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return 2
    print(f"{person.described()} removed from {table.staff_path}")
    return 0


def listing(args: argparse.Namespace) -> int:
    found = _table(args)
    if isinstance(found, int):
        return found
    table, staff = found
    if not len(staff):
        print(
            f"nobody is on the staff of table {table.config.table_id} ({table.staff_path}): "
            "supervisors and technicians sign in with the table file's role PINs; add people "
            "with `croupier staff add NUMBER --role ROLE --name NAME`"
        )
        return 0
    print(f"staff of table {table.config.table_id} ({table.staff_path}):")
    for person in staff:
        print(f"  {person.id:>8}  {person.role:<10}  {person.name}")
    return 0
