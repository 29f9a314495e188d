"""Errors of the display: the base of its package's errors, and a message from a page that
cannot be carried out."""

from __future__ import annotations

from controller.game.errors import CroupierError


class DisplayError(CroupierError):
    """Base of the display package's errors."""


class BadMessage(DisplayError, ValueError):
    """A message that cannot be carried out; the text says why and what is allowed."""
