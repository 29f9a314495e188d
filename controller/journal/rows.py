"""The table's outputs as journal rows, and the round marks among them.

:func:`entry_for` turns one controller or table output (or a device event) into its journal
row ``(kind, payload)`` (the row kinds of :mod:`controller.journal.store`, which only stores);
:class:`RoundMarks` adds the ``round_start`` and ``round_end`` rows where a batch of outputs
starts or ends a round, and keeps the rounds that closed (the next one opened): the one place
croupier works out whether a round started or ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.game.prompts import Prompt
from controller.game.settlement import LedgerEntry
from controller.game.words import prompt_json
from controller.journal.records import to_record
from controller.round.controller import (
    DeviceCommand,
    RoundEnded,
    RoundStarted,
    StateChanged,
    SupervisorAction,
)
from controller.round.model import RoundState
from controller.table.access import AccessEvent
from controller.table.app import DeviceNote, DeviceOrder, InputResult, TableApp, TableOutput
from controller.table.day import DayEvent
from controller.table.people import PeopleEvent
from controller.table.shoewatch import ShoeReceipt
from drivers.tbl21.events import DeviceEvent

JSONDict = dict[str, Any]
Entry = tuple[str, JSONDict]


def entry_for(item: object) -> Entry:
    """The ``(kind, payload)`` row of a controller or table output, or of a device event."""
    if isinstance(item, DeviceEvent):
        return "device_event", to_record(item)
    if isinstance(item, Prompt):
        return "prompt", prompt_json(item)
    if isinstance(item, PeopleEvent):
        record = to_record(item)
        del record["type"]
        return "people", record
    if isinstance(item, ShoeReceipt):
        record = to_record(item)
        del record["type"]
        return "shoe_receipt", record
    if isinstance(item, DayEvent):
        record = to_record(item)
        del record["type"]
        return "day", record
    if isinstance(item, LedgerEntry):
        record = to_record(item)
        del record["type"]
        return "ledger", record
    if isinstance(item, StateChanged):
        return "state", {
            "source": item.source.value,
            "dest": item.dest.value,
            "action": item.action.value,
        }
    if isinstance(item, SupervisorAction):
        return "supervisor", {"action": item.action.value, "by": item.by, "detail": item.detail}
    if isinstance(item, DeviceCommand):
        return "command", {
            "device": item.device,
            "command": item.command,
            "args": list(item.args),
        }
    if isinstance(item, DeviceOrder):
        return "device_command", {
            "device": item.device,
            "command": item.command,
            "args": list(item.args),
        }
    if isinstance(item, InputResult):
        return "input", {
            "action": None if item.action is None else item.action.value,
            "data": input_data(item.move),
            "accepted": item.accepted,
            "reason": item.reason,
            # the refusal's code beside its words (journal format 11; None when accepted)
            "why": None if item.why is None else item.why.code.value,
            "keys": list(item.keys),
            "by": item.by,
        }
    if isinstance(item, AccessEvent):
        record = to_record(item)
        del record["type"]
        return "access", record
    if isinstance(item, DeviceNote):
        return "note", {"device": item.device, "text": item.text}
    raise TypeError(f"no journal row kind for a {type(item).__name__}")


def input_data(move: object) -> JSONDict:
    """An input's data as an ``input`` row holds it: its fields that are set, but who (``by``,
    a field of its own in the row)."""
    if move is None:
        return {}
    record = to_record(move)
    return {k: v for k, v in record.items() if k not in ("type", "by") and v is not None}


class RoundMarks:
    """A table's round marks: the ``round_start`` and ``round_end`` rows, written from the
    round's own :class:`RoundStarted` and :class:`RoundEnded` (the round says once that it
    ended, even when a hold while settling resumes into settling again), and the rounds closed
    (settled, and the next one opened) for the summaries of the last rounds."""

    def __init__(self) -> None:
        self.ended: int | None = None  # the last round whose round_end was written
        self.round: RoundState | None = None  # the round open after the last batch
        self.closed: list[RoundState] = []  # rounds closed, not yet taken (:meth:`take_closed`)

    def entries(self, app: TableApp, outputs: Iterable[TableOutput]) -> list[Entry]:
        """The rows for a batch of table outputs, the round marks among them: the round's own
        :class:`RoundStarted` and :class:`RoundEnded`."""
        entries: list[Entry] = []
        for item in outputs:
            if isinstance(item, RoundStarted):
                start: JSONDict = {"round": item.number, "variant": item.variant}
                if app.people.dealer_id:  # who deals it (from format 9)
                    start |= {"dealer": app.people.dealer_id, "dealer_name": app.people.dealer_name}
                entries.append(("round_start", start))
            elif isinstance(item, RoundEnded):
                self.ended = item.number
                net = dict(item.net_by_player)
                end = {
                    "round": item.number,
                    "net_cents": sum(net.values()),  # to the players, all of them
                    "net_by_player": net,
                }
                entries.append(("round_end", end))
            else:
                entries.append(entry_for(item))
        self.follow(app)
        return entries

    def follow(self, app: TableApp) -> None:
        """Note the round the table has open now (the one before it closed, if it changed)."""
        now = app.controller.round
        if self.round is not None and now.number != self.round.number:
            self.closed.append(self.round)
        self.round = now

    def take_closed(self) -> list[RoundState]:
        """The rounds closed since the last call, oldest first."""
        closed, self.closed = self.closed, []
        return closed

    def saved(self) -> tuple[int | None, RoundState | None, int]:
        """What :meth:`restore` puts back."""
        return self.ended, self.round, len(self.closed)

    def restore(self, saved: tuple[int | None, RoundState | None, int]) -> None:
        """Back to :meth:`saved` (a cause the journal could not take is taken back)."""
        self.ended, self.round, closed = saved
        del self.closed[closed:]
