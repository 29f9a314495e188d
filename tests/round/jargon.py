"""What a dealer must never read: the round machine's identifiers.

A state or action name as code spells it (``card_due``, ``assign_card``, ``OFFERS``), a panel key
as the wire spells it (``OK_``, ``SHF``, ``B1_``), or an identifier used as a heading
(``resume: offers``, ``hold: ...``, ``at playing``). The panel's printed key names (HIT, STAND,
OK, SHUFFLE ...) and the key switch's positions are words the dealer reads on the table itself.
"""

from __future__ import annotations

import re

from controller.round.spec import Action, State
from drivers.tbl21.events import Button

PRINTED = {
    *("HIT", "STAND", "DOUBLE", "SPLIT", "SURRENDER", "INSURE", "RESCUE", "OK", "DEAL"),
    *("UNDO", "SHUFFLE", "CANCEL", "CALL", "BOX", "WAGER", "SUP", "TEC", "RUN"),
}
MEMBERS = [*State, *Action]
VALUES = {m.value for m in MEMBERS}
NAMES = {m.name for m in MEMBERS}
_WORD = re.compile(r"[A-Za-z0-9_]+")
_HEADING = re.compile(r"^\s*([a-z_]+):")
_AT = re.compile(r"\bat (" + "|".join(sorted(VALUES)) + r")\b")


def jargon(text: str) -> list[str]:
    """The identifiers in ``text`` (empty: a dealer can read it)."""
    found = []
    for word in _WORD.findall(text):
        if "_" in word.strip("_") and word in VALUES:
            found.append(word)  # card_due, assign_card ...
        elif word in NAMES and word not in PRINTED:
            found.append(word)  # OFFERS, CARD_DUE ...
    for button in Button:
        if button.value not in PRINTED and re.search(
            rf"(?<![A-Za-z0-9_]){re.escape(button.value)}(?![A-Za-z0-9_])", text
        ):
            found.append(button.value)  # OK_, SHF, DEA, B1_ ...
    heading = _HEADING.match(text)
    if heading and heading.group(1) in VALUES:
        found.append(heading.group(0))  # "resume:", "hold:", "insurance:"
    found += [m.group(0) for m in _AT.finditer(text)]
    return found
