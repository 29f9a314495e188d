"""``croupier doctor``: is this table fit to deal? Every check says what to do when it fails.

Checks: the journal can be written and its hash chain is intact; the supervisor and technician
PINs are the table's own, peppered, with their pepper in place (what ``croupier run`` refuses a
live table for); each device answers, is the
right type and runs approved firmware (``devices.firmware_allow`` in the table file); the clock
is sane (not before the journal's last row by more than
:data:`~controller.journal.store.CLOCK_BACK_TOLERANCE`, compared at the journal's resolution of a
millisecond and read after that row, so a running table's latest row is no false alarm; not
before this software was written); there is disk
space for the journal; with a ``[floor]`` section, the floor's PostgreSQL answers, has the schema
this croupier needs, holds this journal's rows (not another's) and how far it is behind. Exit
status 0 when every check passes, 1 otherwise, 2 for a table file that cannot be used.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime

from controller.floor.check import floor_check
from controller.game.errors import ConfigError
from controller.journal.errors import JournalUnavailable
from controller.journal.logs import configure_logging
from controller.journal.store import (
    CLOCK_BACK_TOLERANCE,
    Journal,
    format_ts,
    parse_ts,
    utc_now,
)
from controller.service.devices import open_devices, shown_urls
from controller.table.config import LoadedTable, live_pin_problems, load_table_config
from controller.table.staff import NO_STAFF, STAFF_ROLES, StaffError, table_staff
from drivers.errors import DeviceError

MIN_FREE_BYTES = 200 * 1024 * 1024  # a day of rounds is a few MB; ask for a lot of room
SOFTWARE_DATE = datetime(2026, 11, 1, tzinfo=UTC)  # no sane clock reads earlier than this
IDENTIFY_S = 3.0

# What to do when the journal cannot be opened or written, by its cause
# (:class:`~controller.journal.errors.JournalUnavailable`; ``{path}``: the journal's).
JOURNAL_FIXES = {
    "disk_full": f"free at least {MIN_FREE_BYTES // 2**20} MiB on the journal's disk, then run "
    "croupier doctor again",
    "read_only": "give croupier's user write access to the journal file and its folder (or point "
    "[journal] path in the table file at a folder it may write), then run croupier doctor again",
    "locked": "close the other program that holds the journal (another croupier, an SQLite tool), "
    "then run croupier doctor again",
    "corrupt": "keep the file as it is for investigation and call a technician: `croupier audit "
    "verify --journal {path}` says what is wrong; no round can start on it",
    "cannot_open": "make the journal's folder, or point [journal] path in the table file at one "
    "croupier's user may write, then run croupier doctor again",
    "io_error": "the disk failed a read or a write: call a technician to check the disk before "
    "the table deals",
    "not_private": "make the journal croupier's alone as said above (its files 0600, its folder "
    "0700, owned by croupier's user), then run croupier doctor again",
    "wrong_table": "point [journal] path in the table file at this table's own journal: each "
    "table id keeps its own",
    "head": "give croupier's user write access to the journal's folder, where its head record "
    "(the journal's path with .head) is kept, then run croupier doctor again",
    "sealed": "open the journal with its table key, as croupier run does",
    "no_key": "put back the table key file (croupier's alone, 0600) from where it was kept; a "
    "sealed journal cannot be proven without it, and no round can start",
    "key": "put back this table's own key file (croupier's alone, 0600) where [journal] key_path "
    "or the journal's path with .key says",
    "in_use": "this table is running now: check the running table's display instead, or stop "
    "it before running croupier doctor",
    "bad_lock": "see what is in the lock file's place (croupier makes the lock itself), move it "
    "away, then run croupier doctor again",
    # any other failure of the journal, and a cause this list does not know
    "error": "keep the journal as it is and call a technician with the message above; no round "
    "can start until the journal opens",
}


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False  # passes, but someone should look

    def line(self) -> str:
        mark = "ok  " if self.ok and not self.warning else ("warn" if self.ok else "FAIL")
        text = f"[{mark}] {self.name}: {self.detail}"
        return text + (f"\n       what to do: {self.fix}" if self.fix and not self.ok else "")


def run(args: argparse.Namespace) -> int:
    configure_logging(console=True, level="WARNING")
    try:
        table = load_table_config(args.config)
    except ConfigError as exc:
        print(f"croupier doctor: {exc}", file=sys.stderr)
        return 2
    checks = diagnose(table)
    for check in checks:
        print(check.line())
    failed = [c for c in checks if not c.ok]
    print(
        f"\n{len(checks) - len(failed)} of {len(checks)} checks passed"
        + (": the table must not deal until the failures are fixed" if failed else "")
    )
    return 1 if failed else 0


def diagnose(table: LoadedTable, *, now: Callable[[], datetime] | None = None) -> list[Check]:
    clock = now or utc_now  # (looked up now: a test patches it)
    checks = journal_checks(table, clock)
    checks.append(credentials_check(table))
    checks += device_checks(table)
    checks.append(disk_check(table))
    if table.config.floor is not None:
        checks.append(floor_doctor(table))
    return checks


def floor_doctor(table: LoadedTable) -> Check:
    """The floor's PostgreSQL: reachable, the right schema, and the shipping backlog."""
    assert table.config.floor is not None
    found = floor_check(table.journal_path, table.config.table_id, table.config.floor)
    return Check("floor", found.ok, found.detail, found.fix, warning=found.warning)


def journal_checks(table: LoadedTable, now: Callable[[], datetime]) -> list[Check]:
    """The journal's checks, then the clock's: read after the journal's last row (a running
    table writes rows meanwhile)."""
    path = table.journal_path
    checks: list[Check] = []
    last_ts: datetime | None = None
    try:
        journal = Journal.open(
            path, table_id=table.config.table_id, sealed=True, key_path=table.key_path
        )
    except JournalUnavailable as exc:
        return [Check("journal", False, str(exc), journal_fix(exc)), clock_check(now(), None)]
    with journal:
        try:
            journal.check_writable()
            checks.append(Check("journal writable", True, str(path)))
        except JournalUnavailable as exc:
            checks.append(Check("journal writable", False, str(exc), journal_fix(exc)))
        verified = journal.verify()
        rolled_back = journal.head_problem()
        if verified.ok and rolled_back is not None:
            checks.append(
                Check(
                    "journal head",
                    False,
                    rolled_back[1],
                    "keep the file for investigation and call a supervisor",
                )
            )
        if verified.ok:
            checks.append(Check("journal chain", True, f"{verified.rows_checked} rows intact"))
        else:
            checks.append(
                Check(
                    "journal chain",
                    False,
                    verified.describe(),
                    "keep the file for investigation and call a supervisor; "
                    "`croupier audit verify` names the first broken row",
                )
            )
        last = journal.last_row()
        last_ts = parse_ts(last.ts) if last is not None else None
    checks.append(clock_check(now(), last_ts))
    return checks


def journal_fix(exc: JournalUnavailable) -> str:
    """What to do about a journal that cannot be used, by its cause."""
    return JOURNAL_FIXES.get(exc.cause, JOURNAL_FIXES["error"]).format(path=exc.path)


def credentials_check(table: LoadedTable) -> Check:
    """The supervisor's and technician's PINs: what ``croupier run`` would refuse a live
    table for (none, the demo's, a hash without its pepper, a pepper missing or another's)."""
    if table.shipped:
        return Check(
            "credentials",
            True,
            "the shipped example: demo PINs, which a live table refuses",
            warning=True,
        )
    try:
        staff = table_staff(table)
        problems = live_pin_problems(table, {p.role for p in staff})
    except ConfigError as exc:
        problems, staff = list(exc.problems), NO_STAFF
    except StaffError as exc:
        problems, staff = [f"{exc.path}: {p}" for p in exc.problems], NO_STAFF
    if problems:
        return Check(
            "credentials",
            False,
            "; ".join(problems),
            "make the PINs (or put back their pepper) as said above, with `croupier passwd --pin "
            "ROLE --config FILE`, then run croupier doctor again; croupier run refuses to deal "
            "live until then",
        )
    if not len(staff):
        return Check(
            "credentials", True, "a supervisor PIN and a technician PIN of the table's own"
        )
    counts = ", ".join(
        f"{len(staff.of(role))} {role}{'' if len(staff.of(role)) == 1 else 's'}"
        for role in STAFF_ROLES
    )
    return Check("credentials", True, f"the table's own PINs; on the staff file {counts}")


def clock_check(now: datetime, last_row_at: datetime | None) -> Check:
    if now < SOFTWARE_DATE:
        return Check(
            "clock",
            False,
            f"the clock reads {now:%Y-%m-%d %H:%M}Z, before this software was written",
            "set the system clock (NTP) before dealing",
        )
    # the journal's resolution (milliseconds), with the tolerance the journal itself uses
    shown = format_ts(now)
    behind = last_row_at - parse_ts(shown) if last_row_at is not None else None
    if last_row_at is not None and behind is not None and behind > CLOCK_BACK_TOLERANCE:
        return Check(
            "clock",
            False,
            f"the clock reads {shown}, {behind.total_seconds():.3f} s before the journal's "
            f"last row ({format_ts(last_row_at)})",
            "set the system clock (NTP); journal times must not go backwards",
        )
    return Check("clock", True, shown)


def disk_check(table: LoadedTable) -> Check:
    folder = table.journal_path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    detail = f"{free / 2**30:.1f} GiB free at {folder}"
    if free < MIN_FREE_BYTES:
        return Check(
            "disk space",
            False,
            detail,
            f"free at least {MIN_FREE_BYTES // 2**20} MiB for the journal and logs",
        )
    return Check("disk space", True, detail)


def device_checks(table: LoadedTable) -> list[Check]:
    config = table.config
    allowed = {h.upper() for h in config.devices.firmware_allow}
    checks: list[Check] = []
    shown = shown_urls(config.devices.urls)
    with ExitStack() as stack:
        try:
            devices = open_devices(
                stack,
                config.devices.urls,
                table.rules,
                name="doctor",
                baudrate=config.devices.baudrate,
            ).drivers
        except DeviceError as exc:
            return [
                Check(
                    "devices",
                    False,
                    str(exc),
                    "check the cables and the port names in the table file's [devices]",
                )
            ]
        for role, driver in zip(("shoe", "peek", "panel"), devices.drivers, strict=True):
            where = shown[role]
            try:
                ident = driver.wait_identified(IDENTIFY_S)
            except DeviceError as exc:
                checks.append(
                    Check(
                        f"{role}",
                        False,
                        f"{where}: {exc}",
                        "check the device is powered, cabled and of the right type",
                    )
                )
                continue
            detail = (
                f"{where}: {ident.model} {ident.serial} fw {ident.fw_version} ({ident.fw_hash})"
            )
            if not allowed:
                checks.append(
                    Check(
                        role, True, detail + "; firmware not checked (no allow-list)", warning=True
                    )
                )
            elif ident.fw_hash.upper() in allowed:
                checks.append(Check(role, True, detail + "; firmware approved"))
            else:
                checks.append(
                    Check(
                        role,
                        False,
                        detail + "; firmware NOT on the allow-list",
                        "stop using this device; a technician installs approved "
                        "firmware or the allow-list is amended by the operator",
                    )
                )
    return checks
