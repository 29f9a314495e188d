"""The floor's errors: each says what went wrong and what to do."""

from __future__ import annotations

from controller.game.errors import CroupierError


class FloorError(CroupierError):
    """The floor cannot do what was asked (its database, a cluster, a file); the text says why."""


class ShipRefused(FloorError):
    """The floor refused this table's rows (another journal ships as the same table, a gap or a
    broken link); shipping waits until someone looks."""


class BadPeriod(FloorError, ValueError):
    """A period (``--since``, ``--until``, a report's days) that cannot be read; the text says
    what is allowed."""
