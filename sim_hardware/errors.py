"""Errors of the emulated devices. Each says what went wrong and what to do instead."""

from __future__ import annotations


class SimError(Exception):
    """Base of every error ``sim_hardware`` raises on purpose."""


class SimConfigError(SimError, ValueError):
    """An emulated device or a fault spec was set up with values it cannot use."""


class CardListError(SimConfigError):
    """A card list (explicit shoe order) holds something that is not a card.

    The message names the card, its 1-based position and, when read from a file, the file.
    """


class SimActionError(SimError):
    """A scripted action that the physical device could not do (e.g. draw from an empty shoe,
    press a button that is already down, insert a second hole card)."""


class ShoeEmptyError(SimActionError):
    """The dealer tried to draw a card from an empty shoe."""


class DeviceNameInUseError(SimError):
    """A device is already served under that ``sim://`` name."""
