"""The display state of a table stopped for a supervisor (:mod:`controller.service.halt`).

No round, no device: ``halted`` says what was found in plain words (``title``, ``what``,
``todo``) and, for the supervisor, the journal row, what was expected there and what was found,
the journal's path, who is signed in, the choices and what voiding the round would do (or why
it is not offered). ``lit`` is empty: every key is dark.
"""

from __future__ import annotations

from typing import Any

from controller.display.words import say
from controller.game.words import when
from controller.service.halt import CHOICES, Choice, Halted
from controller.table.access import Role
from controller.table.config import LoadedTable

LABELS = {
    Choice.VERIFY: "CHECK THE JOURNAL AGAIN",
    Choice.VOID: "VOID THE ROUND",
    Choice.STOP: "STOP THE TABLE",
}


def _what(halted: Halted) -> str:
    problem = halted.problem
    row = "the journal" if problem.seq is None else f"row {problem.seq} of the journal"
    if problem.kind == "software_changed":
        return (
            "The software on this computer is not the software that was installed: "
            f"{problem.found}. Nothing is dealt until a technician installs the approved "
            "software again."
        )
    if problem.kind == "chain_broken":
        return (
            f"The table's record of play was changed after it was written: {row} is not what "
            "the table wrote. Nothing is played from a record that was changed by hand."
        )
    return (
        f"Playing back the table's record does not give what it says: {row} records one "
        "thing, playing the record back gives another. The open round cannot be trusted."
    )


def halted_state(halted: Halted, table: LoadedTable) -> dict[str, Any]:
    """The state ``/api/state`` and the page show while the table waits for a supervisor."""
    problem = halted.problem
    policy = halted.access.policy
    locked = halted.locked_until()
    if not policy.has_pin(Role.SUPERVISOR):
        todo = (
            "Do not deal. No supervisor PIN is set at this table: the supervisor stops the "
            "table with Ctrl-C in its terminal and keeps the journal file."
        )
    elif halted.signed_in is None:
        todo = "Do not deal. Call a supervisor: sign in with the supervisor PIN, then choose."
    else:
        who = halted.signed_in
        todo = f"{who[:1].upper()}{who[1:]} signed in: choose what to do."
    labels, texts = dict(LABELS), dict(CHOICES)
    if problem.kind == "software_changed":
        labels[Choice.VERIFY] = "CHECK THE FILES AGAIN"
        texts[Choice.VERIFY] = "hash the installed files again and show which still differ"
    return {
        "state": "halted",
        "halted": {
            "title": "Table stopped: call a supervisor",
            "what": _what(halted),
            "todo": todo,
            "problem": problem.as_json(),
            "row": problem.seq,
            "expected": problem.expected,
            "found": problem.found,
            "journal": problem.journal,
            "pin_set": policy.has_pin(Role.SUPERVISOR),
            "by_person": policy.by_person(Role.SUPERVISOR),
            "signed_in": halted.signed_in,
            "locked_until": None if locked is None else when(locked),
            "choices": [
                {"choice": c.value, "label": labels[c], "text": texts[c]} for c in halted.choices
            ],
            # what voiding the round would do, or why it is not offered
            "void": (
                halted.void.describe()
                if halted.void is not None
                else f"Not offered: {say(str(halted.no_void))}."
            ),
            "verified": halted.verified,
            "last": None
            if halted.last is None
            else {**halted.last, "reason": say(str(halted.last["reason"]))},
        },
        "table": {"id": table.config.table_id, "variant_name": table.rules.name},
        "lit": [],
        "wanted": [],
        "devices": [],
        "notices": [],
    }
