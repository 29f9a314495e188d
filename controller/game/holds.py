"""Why a table holds, as values: the kind of hold (what clears it) and its cause (what happened).

The round holds on them, the table and the access rules decide on them, and
:mod:`controller.game.words` says them; the words of a hold's ``detail`` (its technical record)
are never read back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drivers.tbl21.cards import Card


class HoldKind(StrEnum):
    DEVICE_LOST = "device_lost"
    UNEXPECTED_CARD = "unexpected_card"
    UNREADABLE_CARD = "unreadable_card"
    LOCKUP = "lockup"
    REDRAW = "redraw"  # a card the shoe pushed back must be drawn again (it is dealt already)


class HoldCause(StrEnum):
    """Why the table holds, as a value: what the screen, the access rules and the table decide
    on (never the words of a hold's ``detail``, which is the technician's record)."""

    LINK_LOST = "link_lost"  # a device stopped answering
    DEVICE_REFUSED = "device_refused"  # a device is not an approved one
    CARD_OUT_OF_TURN = "card_out_of_turn"  # a card came out when none was due
    FOREIGN_CARD = "foreign_card"  # a card the variant's shoe cannot hold
    OVER_COUNT = "over_count"  # one more of a card than the shoe's decks hold
    CARD_UNREADABLE = "card_unreadable"  # the shoe could not read a card
    REDRAW = "redraw"  # a card pushed back into the shoe is to be drawn again
    PEEK_MISMATCH = "peek_mismatch"  # the hole-card reader disagrees with the hole card
    WRONG_DECK = "wrong_deck"  # the shoe holds another game's decks
    DRAW_GAP = "draw_gap"  # cards left the shoe unseen
    DRAW_RESET = "draw_reset"  # the shoe's draw number went back
    SHOE_RELOADED = "shoe_reloaded"  # a new shoe in the middle of a round
    DEVICE_CHANGED = "device_changed"  # another unit or firmware in the middle of a round
    FIRMWARE_NOT_APPROVED = "firmware_not_approved"  # firmware not on the table's list
    DEVICE_FAULT = "device_fault"  # a device raised a lockup fault (``fault`` names it)
    JOURNAL_CHANGED = "journal_changed"  # a journal row changed behind the table's back
    FILE_CHANGED = "file_changed"  # a rules file (table, variant, strategy) changed while running
    DAY_NOT_OPEN = "day_not_open"  # a card came out before the gaming day was opened
    OTHER = "other"  # a lockup asked for with its words only (a script, a test)


# The cause of a hold asked for by its kind alone.
KIND_CAUSES = {
    HoldKind.DEVICE_LOST: HoldCause.LINK_LOST,
    HoldKind.UNEXPECTED_CARD: HoldCause.CARD_OUT_OF_TURN,
    HoldKind.UNREADABLE_CARD: HoldCause.CARD_UNREADABLE,
    HoldKind.LOCKUP: HoldCause.OTHER,
    HoldKind.REDRAW: HoldCause.REDRAW,
}
assert set(KIND_CAUSES) == set(HoldKind)


@dataclass
class HoldReason:
    kind: HoldKind
    detail: str  # the technical record (fault codes, units, draw numbers), for the technician
    card: Card | None = None  # the unexpected card, or the keyed-in card awaiting confirmation
    device: str | None = None
    kept_out: bool = False  # the card is never dealt (foreign, or over the shoe's count)
    cause: HoldCause = HoldCause.OTHER
    fault: str | None = None  # the device's fault name, for a DEVICE_FAULT
    about: str = ""  # what the hold names, in words: the shoe's decks, the unit (or "")
