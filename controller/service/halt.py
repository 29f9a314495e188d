"""A table stopped for a supervisor at start: the journal disagrees, nothing deals.

When a start finds the journal's hash chain broken (:class:`ChainBroken`) or its replay not
giving what the journal recorded (:class:`RecoveryMismatch`), ``croupier run`` does not exit: it
keeps the journal's lock, opens no device, writes no row, and serves the dealer display in a
halted mode that shows the :class:`Problem` (which row, what was expected, what was found) and
the supervisor's choices (:class:`Halted`):

* ``verify``: check the whole hash chain again, read-only, and show what it found;
* ``void``: void the round the replay disagrees in, every open wager returned: the rows from the
  disagreeing input on are set aside (a ``set_aside`` row, :mod:`controller.journal.setaside`,
  which every later replay applies), and the table then starts (``resumed`` is set). Offered
  for a replay that disagrees, when :func:`~controller.journal.setaside.plan` finds the void
  true to what happened at the table; the screen says beforehand what it will return, or why
  it is not offered. Never for a broken chain: a journal edited by hand is not dealt on;
* ``stop``: end the process (``croupier run`` then exits with status 5).

A choice is a supervisor's decision: the supervisor signs in with the supervisor PIN on the
display first (a ``pin`` message). No panel is opened in this mode, so there is no key switch to
read: the PIN alone stands for the key at ``SUP``. Wrong PINs lock the role as at a running table
(``[access]``), counted in memory: nothing is journalled while the journal disagrees, but the
void itself, with the name of who chose it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import structlog

from controller.game.refusals import Why, WhyNot
from controller.game.rules import Variant
from controller.game.words import refusal_words
from controller.journal import setaside
from controller.journal.errors import (
    ChainBroken,
    JournalUnavailable,
    RecoveryMismatch,
    entry_words,
)
from controller.journal.store import Journal
from controller.service.service import CommandReply, Pin
from controller.table import identity
from controller.table.access import AccessControl, AccessPolicy, Role
from controller.table.identity import SoftwareChanged

log = structlog.get_logger("croupier.halt")


class Choice(StrEnum):
    VERIFY = "verify"
    VOID = "void"
    STOP = "stop"


CHOICES: dict[Choice, str] = {
    Choice.VERIFY: "check the whole journal's hash chain again and show what it finds",
    Choice.VOID: (
        "void the open round, every open wager returned; the journal's rows from the "
        "disagreement on are kept but not played back; then the table starts"
    ),
    Choice.STOP: "stop this program; keep the journal file for investigation",
}


@dataclass(frozen=True, slots=True)
class HaltChoice:
    """A supervisor's choice at a table stopped for a supervisor."""

    choice: Choice


@dataclass(frozen=True, slots=True)
class Problem:
    """What the start found: the kind, the journal, the row, what was expected and found."""

    kind: str  # "chain_broken", "replay_mismatch" or "software_changed"
    journal: str
    seq: int | None
    expected: str
    found: str
    message: str  # the whole message, as the terminal prints it

    @classmethod
    def of(cls, exc: ChainBroken | RecoveryMismatch | SoftwareChanged, journal: Path) -> Problem:
        if isinstance(exc, SoftwareChanged):
            return cls(
                "software_changed",
                str(journal),
                None,
                "the files exactly as the wheel installed them (the SHA-256 of each in its record)",
                exc.identity.changed_words(),
                str(exc),
            )
        if isinstance(exc, ChainBroken):
            return cls(
                "chain_broken",
                exc.path,
                exc.seq,
                "the row exactly as the table wrote it (its hash chained to the row before)",
                exc.reason,
                str(exc),
            )
        return cls(
            "replay_mismatch",
            str(journal),
            exc.seq,
            entry_words(exc.expected),
            entry_words(exc.replayed),
            str(exc),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "journal": self.journal,
            "seq": self.seq,
            "expected": self.expected,
            "found": self.found,
            "message": self.message,
        }


class Halted:
    """The supervisor's side of a halted start: sign-in, the choices, their results.

    :meth:`submit` takes the display's commands (from any thread) and answers each in a
    ``Future``; they run one at a time on a worker thread (a verify of a long journal takes a
    while). ``on_change`` is called after every command; ``stopped`` is set by ``stop``."""

    def __init__(
        self,
        problem: Problem,
        journal: Path,
        policy: AccessPolicy,
        rules: Variant | None = None,
        *,
        key_path: Path | None = None,
    ) -> None:
        self.problem = problem
        self.journal = journal
        self.key_path = key_path  # the table key, when not beside the journal
        self.rules = rules
        self.access = AccessControl(policy)
        self.access.turn("SUP")  # no key switch is read: the supervisor's PIN decides
        self.stopped = threading.Event()
        self.resumed = threading.Event()  # the round was voided: the table may start
        self.void, self.no_void = self._plan()  # what a void would do, or why none
        self.verified: str | None = None  # what the last verify found
        self.last: dict[str, Any] | None = None  # the last answer, for the display
        self.on_change: Callable[[], None] = lambda: None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="halted")

    @property
    def choices(self) -> list[Choice]:
        """The choices offered now (a void only when it can be done)."""
        return [c for c in Choice if c is not Choice.VOID or self.void is not None]

    def _plan(self) -> tuple[setaside.Plan | None, str | None]:
        problem = self.problem
        if problem.kind == "software_changed":
            return None, "the software is not as installed: no round is voided on it"
        if problem.kind != "replay_mismatch" or self.rules is None or problem.seq is None:
            return None, (
                "the journal was changed by hand: no round is voided on a record that does not hold"
            )
        try:
            with Journal.open(self.journal, readonly=True) as journal:
                plan = setaside.plan(
                    self.rules,
                    journal,
                    problem.seq,
                    problem.message,
                    None,
                    access=self.access.policy,
                )
        except (setaside.CannotSetAside, JournalUnavailable) as exc:
            return None, str(exc)
        return plan, None

    @property
    def signed_in(self) -> str | None:
        signin = self.access.signin
        if signin.role is not None and signin.staff_id:  # a person of the staff file
            return f"{signin.name} ({signin.role.value} {signin.staff_id})"
        return None if signin.role is None else signin.name or signin.role.value

    def locked_until(self) -> float | None:
        return self.access.signin.locked_until(Role.SUPERVISOR, self.access.policy.clock())

    def submit(self, command: object) -> Future[CommandReply]:
        try:
            return self._worker.submit(self._answer, command)
        except RuntimeError:  # closed
            done: Future[CommandReply] = Future()
            done.set_result(_refused(WhyNot(Why.TABLE_SHUTTING_DOWN)))
            return done

    def close(self) -> None:
        self._worker.shutdown(wait=True, cancel_futures=True)

    def _answer(self, command: object) -> CommandReply:
        reply = self._command(command)
        self.last = {"accepted": reply.accepted, "reason": reply.reason}
        self.on_change()
        return reply

    def _command(self, command: object) -> CommandReply:
        if isinstance(command, Pin):
            if not self.access.policy.has_pin(Role.SUPERVISOR):
                return _refused(WhyNot(Why.NO_PIN_SET, role=Role.SUPERVISOR.value))
            attempt = self.access.check_pin(
                command.pin, source="display", staff_id=command.staff_id
            )
            events = self.access.apply(attempt)
            accepted = all(e.accepted for e in events) and bool(events)
            text = "; ".join(e.text for e in events)
            log.info("halted: supervisor sign-in", accepted=accepted, text=text)
            return CommandReply(accepted, text)
        if not isinstance(command, HaltChoice):
            return _refused(WhyNot(Why.HALTED_FOR_SUPERVISOR))
        if not self.access.policy.has_pin(Role.SUPERVISOR):
            return _refused(WhyNot(Why.HALTED_NO_PIN, role=Role.SUPERVISOR.value))
        if self.access.signin.role is not Role.SUPERVISOR:
            return _refused(WhyNot(Why.HALTED_SIGN_IN_FIRST))
        log.info("halted: supervisor's choice", choice=command.choice.value)
        if command.choice is Choice.STOP:
            self.stopped.set()
            return CommandReply(True, "stopping the table")
        if command.choice is Choice.VOID:
            return self._void()
        self.verified = self._verify()
        return CommandReply(True, self.verified)

    def _void(self) -> CommandReply:
        if self.void is None:
            return _refused(WhyNot(Why.NO_VOID_HERE, detail=self.no_void or ""))
        # The plan made at the start, with who decides: this process holds the journal's lock,
        # so nothing has been written to it since.
        plan = replace(self.void, aside=replace(self.void.aside, by=self.signed_in))
        try:
            with Journal.open(self.journal, sealed=True, key_path=self.key_path) as journal:
                setaside.write(journal, plan)
        except JournalUnavailable as exc:
            return _refused(WhyNot(Why.VOID_NOT_WRITTEN, detail=str(exc)))
        log.warning(
            "halted: the open round voided, rows set aside",
            by=self.signed_in,
            first_seq=plan.aside.first_seq,
            last_seq=plan.aside.last_seq,
            round=plan.aside.round,
        )
        self.void = plan
        self.resumed.set()
        return CommandReply(True, f"{plan.describe()} The table starts again.")

    def _verify(self) -> str:
        if self.problem.kind == "software_changed":
            found = identity.at_start()
            if found.changed:
                return f"still not as installed: {found.changed_words()}"
            return (
                f"the files match their record now ({found.summary()}): stop the table and "
                "start it again"
            )
        try:
            with Journal.open(
                self.journal, readonly=True, sealed=True, key_path=self.key_path
            ) as journal:
                result = journal.verify()
        except JournalUnavailable as exc:
            return f"the journal could not be read: {exc}"
        if result.ok:
            return (
                f"the hash chain holds: {result.rows_checked} rows verified. The journal was "
                "not changed by hand, but its replay still disagrees with it: keep the file "
                "and call the software's support"
            )
        where = "the journal" if result.first_bad_seq is None else f"row {result.first_bad_seq}"
        return f"the hash chain is broken at {where}: {result.reason}"


def _refused(why: WhyNot) -> CommandReply:
    """A command to the halted table refused for ``why``, said by the words module."""
    return CommandReply(False, refusal_words(why))
