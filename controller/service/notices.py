"""What the dealer must know outside the round: each notice stays until acknowledged.

A recovered round ("The table restarted: round 4 was rebuilt ... goes on where it stopped
(players' turns)"), a journal that cannot be written, a configuration changed since the last
start. The same text is never shown twice while it is open. While one is open the panel's
``CAL`` key blinks amber; the dealer acknowledges it on the display's banner, and the caller
journals that first (an acknowledgement the journal cannot take is refused: the notice stays).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class NoticeKind(StrEnum):
    RECOVERED = "recovered"  # the table was rebuilt from its journal
    JOURNAL = "journal"  # the journal cannot be written: nothing is applied
    CONFIG = "config"  # a configuration file changed since the last start
    CLOCK = "clock"  # the wall clock went back: journal times wait for it


WHAT_TO_DO = {
    NoticeKind.RECOVERED: "Check the table against the screen, then acknowledge.",
    NoticeKind.JOURNAL: "Nothing is recorded, so nothing is applied: call the supervisor and "
    "IT (free disk space, fix the journal file), then acknowledge.",
    NoticeKind.CONFIG: "Make sure the change was approved, then acknowledge.",
    NoticeKind.CLOCK: "The table plays on. Ask IT to check the computer's clock (NTP), "
    "then acknowledge.",
}


@dataclass(frozen=True, slots=True)
class Notice:
    id: int
    kind: NoticeKind
    text: str  # what happened

    @property
    def todo(self) -> str:
        """What to do about it, in the dealer's words."""
        return WHAT_TO_DO[self.kind]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "text": self.text, "todo": self.todo}


class Notices:
    """The open notices, oldest first."""

    def __init__(self) -> None:
        self._open: list[Notice] = []
        self._ids = itertools.count(1)

    def add(self, kind: NoticeKind, text: str) -> Notice | None:
        """Open a notice; None if the same text is open already."""
        if any(n.text == text for n in self._open):
            return None
        notice = Notice(next(self._ids), kind, text)
        self._open.append(notice)
        return notice

    def find(self, notice_id: int) -> Notice | None:
        """The open notice with that id, if any."""
        return next((n for n in self._open if n.id == notice_id), None)

    def acknowledge(self, notice_id: int) -> Notice | None:
        """Close a notice; None if no open notice has that id."""
        for notice in self._open:
            if notice.id == notice_id:
                self._open.remove(notice)
                return notice
        return None

    def open(self) -> list[Notice]:
        return list(self._open)

    def texts(self) -> list[str]:
        return [n.text for n in self._open]
