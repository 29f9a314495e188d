"""Driver of the card-reading shoe (DEV ``S``): new shoe ``L``, gate ``G``.

Events: :class:`~drivers.tbl21.events.CardDrawn`, :class:`~drivers.tbl21.events.CutCard`,
:class:`~drivers.tbl21.events.ShoeEmpty`, :class:`~drivers.tbl21.events.ShoeLoaded` and the
common ones.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import ClassVar

from drivers.device import DeviceDriver
from drivers.errors import CommandError
from drivers.tbl21.cards import DeckType
from drivers.tbl21.events import DeviceType, Reply

MAX_DECKS = 8


def new_shoe_payload(decks: int, deck_type: DeckType | str, cut_index: int) -> str:
    """``decks;deck_type;cut_index``; cut_index 0 means a physical cut card."""
    try:
        kind = DeckType(str(deck_type))
    except ValueError:
        raise CommandError(
            f"new shoe: deck type {deck_type!r} is not one of "
            f"{', '.join(t.value for t in DeckType)}"
        ) from None
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
        raise CommandError(f"new shoe: decks must be a whole number 1..{MAX_DECKS}, got {decks!r}")
    total = decks * kind.size
    if isinstance(cut_index, bool) or not isinstance(cut_index, int) or not 0 <= cut_index < total:
        raise CommandError(
            f"new shoe: cut_index must be 0 (physical cut card) or 1..{total - 1} for "
            f"{decks} deck{'' if decks == 1 else 's'} of {kind.size}, got {cut_index!r}"
        )
    return f"{decks};{kind.value};{cut_index}"


class ShoeDriver(DeviceDriver):
    device_type: ClassVar[DeviceType] = DeviceType.SHOE

    def new_shoe(self, decks: int, deck_type: DeckType | str, cut_index: int = 0) -> Future[Reply]:
        """``L``: a new shoe was loaded with ``decks`` decks of ``deck_type`` (52 or 48)."""
        return self.send("L", new_shoe_payload(decks, deck_type, cut_index))

    def set_gate(self, locked: bool) -> Future[Reply]:
        """``G``: lock or unlock the card removal limiter."""
        if not isinstance(locked, bool):
            raise CommandError(f"gate: locked must be True or False, got {locked!r}")
        return self.send("G", "L" if locked else "U")

    def lock_gate(self) -> Future[Reply]:
        return self.set_gate(True)

    def unlock_gate(self) -> Future[Reply]:
        return self.set_gate(False)
