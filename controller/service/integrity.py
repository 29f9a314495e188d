"""Live integrity: while the table runs, its journal and its rules files are checked again.

A thread of its own (``table-integrity``) every ``[integrity] check_ms``: the journal's chain
from the last row verified on (:class:`~controller.journal.integrity.ChainWatch`, a read-only
connection: the table's writer never waits on it, and the table's own rows are rows of the
chain) and a slice of the older rows, going round the whole chain; and the files this start
journalled the SHA-256 of (the table file, the variant file, its strategy:
:func:`controller.table.identity.rules_files`). What it finds changed is handed to the owner as
an :class:`~controller.table.integrity.IntegrityAlarm`, which the owner journals as a cause and
the table holds on for a supervisor, once per change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from controller.game.holds import HoldCause
from controller.journal.integrity import ChainWatch
from controller.journal.seal import TableKey
from controller.journal.store import Journal
from controller.table import identity
from controller.table.config import Integrity
from controller.table.integrity import IntegrityAlarm

if TYPE_CHECKING:
    from controller.service.service import TableService

log = structlog.get_logger("croupier.integrity")

# The rules files in the dealer's and supervisor's words, by their config row's key.
FILE_WORDS = {
    "table_sha256": "the table file",
    "variant_sha256": "the game's rules file",
    "strategy_sha256": "the strategy file",
}


class IntegrityChecker:
    """Checks the journal and the rules files in a thread; ``alarm`` gets what changed."""

    def __init__(
        self,
        settings: Integrity,
        journal_path: Path,
        verified: tuple[int, str] | None,
        *,
        key: TableKey | None,
        files: Callable[[], dict[str, str]],
        recorded: dict[str, str],
        alarm: Callable[[IntegrityAlarm], None],
    ) -> None:
        self.settings = settings
        self.watch = ChainWatch(journal_path, verified, key=key, sweep_rows=settings.sweep_rows)
        self.files = files  # the rules files' SHA-256 now (by their config row's key)
        self.known = dict(recorded)  # the hashes the start journalled (then any reported)
        self.alarm = alarm
        self.checks = 0
        self.seconds = 0.0  # the checks' own time (wall clock)
        self.failed: str | None = None  # why the last check could not read the journal
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="table-integrity", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.watch.close()

    def _run(self) -> None:
        every = self.settings.check_ms / 1000
        while not self._stop.wait(every):
            self.check()

    def check(self) -> list[IntegrityAlarm]:
        """One check of the journal and the files; the alarms raised (also given to ``alarm``)."""
        began = time.perf_counter()
        alarms: list[IntegrityAlarm] = []
        try:
            problems = self.watch.check()
            self.failed = None
        except Exception as exc:  # a busy or unreadable file: said in the log, tried again
            if self.failed is None:
                log.warning("the journal could not be checked", error=str(exc))
            self.failed = str(exc)
            problems = []
        for problem in problems:
            log.warning("journal changed behind the table", seq=problem.seq, what=problem.reason)
            alarms.append(
                IntegrityAlarm(HoldCause.JOURNAL_CHANGED, problem.short(), problem.about())
            )
        alarms += self._files()
        self.checks += 1
        self.seconds += time.perf_counter() - began
        for alarm in alarms:
            self.alarm(alarm)
        return alarms

    def _files(self) -> list[IntegrityAlarm]:
        try:
            now = self.files()
        except OSError as exc:
            now = dict.fromkeys(self.known, f"unreadable: {exc.strerror or exc}")
        alarms = []
        for name, digest in now.items():
            before = self.known.get(name)
            if before is None or digest == before:
                continue
            self.known[name] = digest  # (reported once per change)
            words = FILE_WORDS.get(name, name)
            log.warning("rules file changed while the table runs", file=name, sha256=digest)
            alarms.append(
                IntegrityAlarm(
                    HoldCause.FILE_CHANGED,
                    f"{words} is not the one this start read",
                    f"{words} changed while the table runs (SHA-256 {before[:16]}... is now "
                    f"{digest[:16]}...)",
                )
            )
        return alarms


def checker(
    service: TableService,
    journal: Journal,
    verified: tuple[int, str] | None,
    alarm: Callable[[IntegrityAlarm], None],
) -> IntegrityChecker:
    """The checker of a table just opened: from the row its start verified, against the files
    its start's config row hashed."""
    row = service.config_row
    variant_path, variant_id = Path(row["variant_path"]), str(row["variant"])
    table_path = Path(service.table.source)
    return IntegrityChecker(
        service.config.integrity,
        journal.path,
        verified,
        key=journal.key,
        files=lambda: identity.rules_files(variant_path, variant_id, table_path),
        recorded={name: str(row.get(name, "")) for name in FILE_WORDS},
        alarm=alarm,
    )
