"""What the table tells the dealer when a people, access or gaming-day call is accepted, as
values: a code and its typed fields (issue 23).

The table layer (``controller.table.access``, ``controller.table.people``,
``controller.table.day``) makes a :class:`Told`; :func:`controller.game.words.call_words` is the
one place that says it (the ``text`` of the journal's ``access``, ``people`` and ``day`` rows,
the display's line). A refusal is a :class:`~controller.game.refusals.WhyNot` instead.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class Tell(StrEnum):
    """What became of an accepted call (the fields a code uses are named beside it)."""

    SIGNED_IN = "signed_in"  # role, name, staff_id, key: the key switch position it needs
    SIGNED_OUT = "signed_out"  # role, name, staff_id, reason: carried words (the SignOut row's)
    PINS_REQUIRED = "pins_required"
    PINS_NOT_REQUIRED = "pins_not_required"
    DEALER_IN = "dealer_in"  # name, staff_id
    DEALER_OUT = "dealer_out"  # name, staff_id
    DEALER_HANDED_OVER = "dealer_handed_over"  # name, staff_id; player: the next dealer's name
    SIT_DOWN = "sit_down"  # box, card, player
    WALK_AWAY = "walk_away"  # box, card, player
    BET_SESSION = "bet_session"  # box, player, session


class Told(NamedTuple):
    """An accepted call as values; :func:`controller.game.words.call_words` says it."""

    code: Tell
    role: str = ""  # a role's value ("supervisor")
    name: str = ""  # a person's name
    staff_id: str = ""
    key: str = ""  # a key switch position ("SUP")
    reason: str = ""  # why a role signed out (the journal's SignOut row keeps these words)
    box: int = 0
    card: str = ""  # a player card's number
    player: str = ""
    session: str = ""
