"""Errors of the wire contract: a card or a payload that TBL-21 does not allow."""

from __future__ import annotations


class WireError(ValueError):
    """Base of the errors of ``drivers.tbl21``: text that is not what the protocol allows."""


class CardNotationError(WireError):
    """A card written in anything other than the two-character notation."""


class PayloadError(WireError):
    """A frame's payload that does not parse: the message names the field that is wrong."""
