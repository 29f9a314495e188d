"""Driver of the hole-card reader (DEV ``P``): arm peek ``K``.

Events: :class:`~drivers.tbl21.events.PeekResult` (Y/N/U/E, never the rank),
:class:`~drivers.tbl21.events.CardSensed` and the common ones.
"""

from __future__ import annotations

from concurrent.futures import Future
from enum import StrEnum
from typing import ClassVar

from drivers.device import DeviceDriver
from drivers.errors import CommandError
from drivers.tbl21.cards import Card
from drivers.tbl21.events import DeviceType, Reply


class PeekUpCard(StrEnum):
    """What the dealer's up card is, which decides what the reader looks for."""

    ACE = "A"
    TEN_VALUE = "T"

    @classmethod
    def for_card(cls, card: Card) -> PeekUpCard:
        if card.is_ace:
            return cls.ACE
        if card.is_ten_value:
            return cls.TEN_VALUE
        raise CommandError(f"peek: only an ace or a ten-value up card is peeked, got {card}")


class PeekDriver(DeviceDriver):
    device_type: ClassVar[DeviceType] = DeviceType.PEEK

    def arm(self, up_card: PeekUpCard | Card | str) -> Future[Reply]:
        """``K``: arm the reader for an ace (``A``) or a ten-value (``T``) up card."""
        if isinstance(up_card, Card):
            up = PeekUpCard.for_card(up_card)
        else:
            try:
                up = PeekUpCard(up_card)
            except ValueError:
                raise CommandError(
                    f"peek: up card must be 'A' (ace) or 'T' (ten-value), got {up_card!r}"
                ) from None
        return self.send("K", up.value)
