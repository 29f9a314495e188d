"""Which of the lit keys the rules want pressed now, for the screen to light them apart.

The panel lights every key that may be pressed (``TableApp.lit``): in a player's turn that is
the hand's decisions and also every digit, box and wager key, CANCEL and CALL, more than twenty
keys, so "lit" no longer tells the dealer what to press. The screen lights only the keys the
rules want now and shows the others that may be pressed another way (``ready``): the decisions
of the step (the hand's HIT, STAND, DOUBLE, SPLIT; an offer's INSURE, SURRENDER, RESCUE; OK when
the step waits for it; DEAL with bets; SHUFFLE when the shoe is due), the PIN pad's digits and OK
while a role signs in, the signed-in supervisor's keys, and CALL while the table holds.
"""

from __future__ import annotations

from controller.round.spec import State
from controller.table.app import TableApp
from controller.table.keypad import DECISION_KEYS, DIGIT_KEYS
from drivers.tbl21.events import Button


def wanted_keys(app: TableApp) -> frozenset[Button]:
    """The lit keys the rules want pressed now (a subset of ``app.lit``)."""
    lit = app.lit
    if app.access.pin_pad_role() is not None:
        return lit & {Button.OK, *DIGIT_KEYS}
    c = app.controller
    if c.state is State.HOLD:
        role = app.access.key_role
        if role is not None and app.access.granted(role):  # the signed-in role's decisions
            return lit - {Button.CALL}
        return lit & {Button.CALL}
    wanted = {b for b in lit if b in DECISION_KEYS} - {Button.UNDO}
    if not (c.state is State.SHUFFLE or c.table.shuffle_due):
        wanted.discard(Button.SHUFFLE)  # a new shoe early is possible, not wanted
    return frozenset(wanted)
