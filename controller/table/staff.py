"""The table's staff: each dealer, supervisor and technician with a staff number and a PIN.

A table file's ``[supervisor] pin_hash`` is one PIN shared by every supervisor, so its journal
can say only that "the supervisor" voided a round. The staff file names each person instead: a
staff number (1 to 8 digits, keyed on the panel's digit keys or the display), their role, their
name and their PIN, kept as the table file keeps a role's PIN (a salted scrypt hash keyed with
the table's pepper, :mod:`controller.table.pepper`; never the PIN itself). It is made and
changed by ``croupier staff add|remove|list`` (:mod:`controller.cli.staff`), lives at
``[access] staff_path`` (by default ``staff/<table id>.staff`` in croupier's state folder, beside
the pepper) and is croupier's alone (0600; one others may read is refused).

One person a line, blank lines and ``#`` comments aside::

    # staff number, role, PIN hash, name
    1001 supervisor scrypt+pepper$0f3c...$16384$8$1$...$... Ana Ruiz

A role with at least one person in the file signs in person by person (staff number, then PIN);
the role's shared PIN in the table file is then no longer taken for it. A role with nobody in
the file signs in with the table file's role PIN as before, so a table without a staff file runs
as it always did. Dealers sign in at the table with their staff number and PIN; every round then
carries who dealt it (:mod:`controller.table.people`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from controller.table.config import (
    DEMO_PINS,
    LoadedTable,
    check_hash,
    hash_pepper_id,
    hash_secret,
    verify_secret,
)
from controller.table.errors import TableError
from controller.table.pepper import Pepper, PepperError
from controller.table.private import (
    PrivateFileError,
    check_private,
    make_folders,
    open_private,
    write_private,
)

STAFF_ROLES = ("dealer", "supervisor", "technician")
STAFF_ID = re.compile(r"[0-9]{1,8}")
MAX_NAME = 40
MAX_STAFF_BYTES = 1 << 20
WHAT = "the table's staff file"


class StaffError(TableError, ValueError):
    """The staff file cannot be used: ``problems`` say where (its line) and what to do."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        said = "; ".join(problems)
        super().__init__(said if str(path) in said else f"{path}: {said}")
        self.path = path
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Person:
    """One of the table's staff (never their PIN: its hash)."""

    id: str
    role: str  # one of STAFF_ROLES
    name: str
    pin_hash: str

    def line(self) -> str:
        return f"{self.id} {self.role} {self.pin_hash} {self.name}"

    def described(self) -> str:
        """How the journal and the screens name them: "Ana Ruiz (supervisor 1001)"."""
        return f"{self.name} ({self.role} {self.id})"


@dataclass(frozen=True)
class Staff:
    """The people of a staff file, by staff number (empty: the file has nobody, or none), and
    the pepper their PIN hashes were made with."""

    people: Mapping[str, Person]
    pepper: Pepper | None = None

    def __iter__(self) -> Iterator[Person]:
        return iter(sorted(self.people.values(), key=lambda p: (p.role, int(p.id))))

    def __len__(self) -> int:
        return len(self.people)

    def of(self, role: str) -> list[Person]:
        return [p for p in self if p.role == role]

    def get(self, staff_id: str) -> Person | None:
        return self.people.get(staff_id)

    def check(self, role: str, staff_id: str, pin: str) -> Person | None:
        """The person of ``role`` with this staff number and PIN (None: no such person, or a
        wrong PIN; which of the two is not said)."""
        person = self.people.get(staff_id)
        if person is None or person.role != role or not pin.isdigit() or len(pin) > 16:
            return None
        return person if verify_secret(pin, person.pin_hash, self.pepper) else None

    def text(self, table_id: str) -> str:
        lines = [
            f"# croupier staff of table {table_id}: staff number, role, PIN hash, name.",
            "# Made by `croupier staff`; keep it croupier's alone (0600). Never a PIN here.",
        ]
        lines += [p.line() for p in self]
        return "\n".join(lines) + "\n"


NO_STAFF = Staff({})


def check_name(name: str) -> str | None:
    """Why ``name`` is no staff member's name (None: it is one)."""
    if not name.strip():
        return "a name is needed (the name the journal and the pit read)"
    if len(name) > MAX_NAME:
        return f"{len(name)} characters is too long for a name (at most {MAX_NAME})"
    if not name.isprintable() or name != name.strip() or "  " in name:
        return "a name is letters, digits and single spaces, with nothing unprintable"
    return None


def parse_staff(text: str, path: Path, pepper: Pepper | None) -> Staff:
    """The staff in ``text`` (a staff file's contents); every problem is refused at once, each
    with its line (:class:`StaffError`)."""
    problems: list[str] = []
    people: dict[str, Person] = {}
    lines: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(maxsplit=3)
        if len(parts) < 4:
            problems.append(
                f"line {number}: a person is four things on one line: staff number, role, "
                "PIN hash, name (use `croupier staff add`)"
            )
            continue
        staff_id, role, pin_hash, name = parts
        if not STAFF_ID.fullmatch(staff_id):
            problems.append(
                f"line {number}: staff number {staff_id[:20]!r} must be 1 to 8 of the digits 0-9"
            )
        if role not in STAFF_ROLES:
            problems.append(
                f"line {number}: role {role[:20]!r} is none of {', '.join(STAFF_ROLES)}"
            )
        named = hash_pepper_id(pin_hash)
        if named is None or not _hash_ok(pin_hash):
            problems.append(
                f"line {number}: the PIN hash is not one `croupier staff add` makes (a salted "
                "scrypt hash keyed with the table's pepper): add the person again"
            )
        elif pepper is None or named != pepper.id:
            problems.append(
                f"line {number}: the PIN hash was made with another pepper than the table's: "
                "add the person again with `croupier staff add` for this table"
            )
        problem = check_name(name)
        if problem is not None:
            problems.append(f"line {number}: {problem}")
        if staff_id in lines:
            problems.append(
                f"line {number}: staff number {staff_id} is on line {lines[staff_id]} already: "
                "one person per staff number"
            )
        else:
            lines[staff_id] = number
            people[staff_id] = Person(staff_id, role, name, pin_hash)
    if problems:
        raise StaffError(path, problems)
    return Staff(people, pepper)


def _hash_ok(text: str) -> bool:
    try:
        check_hash(text)
    except ValueError:
        return False
    return True


def load_staff(path: Path, pepper: Pepper | None) -> Staff:
    """The staff file at ``path`` (:data:`NO_STAFF` when there is none); one others may read or
    that is no plain file of croupier's, or any bad line, is refused (:class:`StaffError`)."""
    try:
        if not check_private(path, WHAT, tighten=False):
            return NO_STAFF
        fd = open_private(path, os.O_RDONLY, WHAT)
    except PrivateFileError as exc:
        raise StaffError(path, [exc.text]) from None
    except OSError as exc:
        raise StaffError(path, [f"cannot be read ({exc.strerror or exc})"]) from None
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_STAFF_BYTES + 1)
    if len(data) > MAX_STAFF_BYTES:
        raise StaffError(path, [f"too large for a staff file (at most {MAX_STAFF_BYTES:,} bytes)"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StaffError(path, [f"line {line}: not UTF-8 text"]) from None
    return parse_staff(text, path, pepper)


def save_staff(path: Path, staff: Staff, table_id: str) -> None:
    """Write the staff file at once (0600, in folders made 0700); :class:`StaffError`."""
    try:
        make_folders(path.parent)
        write_private(path, staff.text(table_id).encode("utf-8"), WHAT)
    except PrivateFileError as exc:
        raise StaffError(path, [exc.text]) from None
    except OSError as exc:
        raise StaffError(path, [f"cannot be written ({exc.strerror or exc})"]) from None


DEMO_DEALER_ID = "1"


def with_demo_dealer(staff: Staff) -> tuple[Staff, Person | None]:
    """``staff`` with the demo dealer (staff number 1, the demo dealer PIN) when it has no
    dealer and no staff number 1: for a demo, never a live table; and the dealer added."""
    if staff.of("dealer") or staff.get(DEMO_DEALER_ID) is not None:
        return staff, None
    demo = Person(DEMO_DEALER_ID, "dealer", "Demo Dealer", hash_secret(DEMO_PINS["dealer"]))
    return Staff({**staff.people, demo.id: demo}, staff.pepper), demo


def table_staff(table: LoadedTable) -> Staff:
    """The staff of a table file (its ``[access] staff_path``), checked against its pepper;
    :class:`StaffError` for a file that cannot be used, or a pepper that cannot."""
    path = table.staff_path
    if not path.exists() and not path.is_symlink():
        return NO_STAFF
    try:
        pepper = Pepper.load(table.pepper_path)
    except PepperError as exc:
        raise StaffError(path, [str(exc)]) from None
    return load_staff(path, pepper)
