"""Void the open round at a table stopped for a supervisor: set the disagreeing rows aside.

When a start's replay does not give what the journal recorded
(:class:`~controller.journal.errors.RecoveryMismatch`), the table stops for a supervisor
(:mod:`controller.service.halt`). One of the supervisor's choices is to void the round the
disagreement is in. That is a journal row, ``set_aside`` (:class:`SetAside`), which every later
replay applies: the rows from the cause the disagreement came from to the journal's end are
kept in the journal (the hash chain holds; ``history`` and ``audit`` show them) but are neither
applied nor compared, and the round they were in is void, every open wager returned (the
round's own void, as a supervisor's ``VOID`` at the table).

:func:`plan` works out what the row would be and what it would do, reading only, by replaying
the journal with it (:func:`~controller.journal.journaled.replay` ``then=``). It refuses, saying
why, when a void would not be the truth:

* the disagreement is not in the journal's last round (later rounds were dealt on it);
* money was paid or collected in the rows it would set aside (a ``ledger`` row there: the
  dealer paid it, and a void would leave that payment unrecorded);
* the shoe was changed in them (the new shoe's position would be guessed);
* the replay still disagrees without them.

:func:`write` then journals the row (the table's start replays it and writes the void's effects
as a recovered tail).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.prompts import money
from controller.game.rules import Variant
from controller.game.settlement import LedgerEntry
from controller.journal.causes import cause_row
from controller.journal.errors import JournalError, RecoveryMismatch
from controller.journal.journaled import CAUSE_KINDS, replay
from controller.journal.store import Journal, Row
from controller.round.spec import State
from controller.table.access import KEY_ONLY, AccessPolicy
from controller.table.app import SetAside
from drivers.tbl21.events import CardDrawn, ShoeLoaded


class CannotSetAside(JournalError):
    """The round cannot be voided from here; the message says why in the supervisor's words."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What :func:`write` would journal, and what the table would then do."""

    aside: SetAside
    rows: int  # rows set aside
    returned: tuple[LedgerEntry, ...]  # the wagers the void returns
    voided: bool  # whether a round was open (and is now void)
    state: State  # where the table is after it

    def describe(self) -> str:
        a = self.aside
        cards = "no card" if a.cards == 0 else f"{a.cards} card{'s' if a.cards != 1 else ''}"
        kept = (
            f"The journal's rows {a.first_seq} to {a.last_seq} ({self.rows} rows, {cards}) are "
            "set aside: they stay in the journal and are not played back."
        )
        if not self.voided:
            return f"Round {a.round} had not been dealt: no wager to return. {kept}"
        wagers = ", ".join(
            f"{money(e.stake_cents)} to box {e.box} ({e.player})" for e in self.returned
        )
        returned = f"return {wagers}" if wagers else "no open wager to return"
        return f"Round {a.round} is void: {returned}. {kept}"


def plan(
    rules: Variant,
    journal: Journal,
    seq: int,
    reason: str,
    by: str | None,
    *,
    access: AccessPolicy = KEY_ONLY,
    start: State = State.BURN,
) -> Plan:
    """The set-aside that voids the round of journal row ``seq`` (where the replay disagreed),
    checked by a replay with it; reads only. :class:`CannotSetAside` says why not."""
    cause: Row | None = None
    for row in journal.iter_rows(kinds=CAUSE_KINDS):
        if row.seq >= seq:
            break
        cause = row
    if cause is None:
        raise CannotSetAside(
            f"row {seq} follows no input of the table's: there is nothing to set aside"
        )
    last = journal.last_row()
    assert last is not None  # (the cause is a row)
    number = cause.round_id or 0
    cards, draw_no, rows = 0, None, 0
    for row in journal.iter_rows(after_seq=cause.seq - 1):
        rows += 1
        if row.kind == "ledger":
            raise CannotSetAside(
                f"money was paid or collected after the disagreement (row {row.seq}: box "
                f"{row.payload.get('box')} {row.payload.get('player')} "
                f"{row.payload.get('kind')}): a void would leave that payment unrecorded"
            )
        if row.kind in ("round_start", "round_end") and row.payload.get("round") != number:
            raise CannotSetAside(
                f"the disagreement is in round {number} and round "
                f"{row.payload.get('round')} was dealt after it (row {row.seq}): voiding the "
                "open round would not mend it"
            )
        if row.kind == "device_event":
            kind = row.payload.get("type")
            if kind == ShoeLoaded.__name__:
                raise CannotSetAside(
                    f"the shoe was changed after the disagreement (row {row.seq}): where the "
                    "new shoe stands could only be guessed"
                )
            if kind == CardDrawn.__name__:
                cards += 1
                draw_no = int(row.payload["draw_no"])
    aside = SetAside(cause.seq, last.seq, number, draw_no, cards, reason, by)
    try:
        prepared = replay(rules, journal, start=start, access=access, then=aside)
    except RecoveryMismatch as exc:
        raise CannotSetAside(
            f"without rows {cause.seq} to {last.seq} the replay still disagrees at row {exc.seq}"
        ) from None
    missing = prepared.replayed.missing if prepared.replayed is not None else []
    returned = tuple(m.item for m in missing if isinstance(m.item, LedgerEntry))
    controller = prepared.app.controller
    return Plan(aside, rows, returned, controller.voided(), controller.state)


def write(journal: Journal, chosen: Plan) -> None:
    """Journal the set-aside row (the next start's replay applies it)."""
    kind, payload = cause_row(chosen.aside)
    journal.append(kind, payload, round_id=chosen.aside.round)
