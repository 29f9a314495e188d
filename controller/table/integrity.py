"""Something changed behind a running table's back: a journal row, or a file that sets its rules.

The live integrity check (:mod:`controller.service.integrity`) finds it, with a thread and a
read-only journal connection of its own; the owner journals an :class:`IntegrityAlarm` as a
cause (a ``call`` row) and the table holds for a supervisor (a lockup whose cause is
:data:`~controller.game.holds.HoldCause.JOURNAL_CHANGED` or ``FILE_CHANGED``), so that a replay
holds where the live table held.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.holds import HoldCause

ALARM_CAUSES = frozenset({HoldCause.JOURNAL_CHANGED, HoldCause.FILE_CHANGED})


@dataclass(frozen=True, slots=True)
class IntegrityAlarm:
    """A journal row or a rules file found changed while the table ran."""

    cause: HoldCause  # JOURNAL_CHANGED or FILE_CHANGED
    about: str  # what changed, in words ("row 12 was edited", "the table file")
    detail: str = ""  # the technician's record (the check's own words, hashes)
