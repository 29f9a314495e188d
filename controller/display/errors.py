"""Errors of the display: a message from a page that cannot be carried out."""

from __future__ import annotations


class BadMessage(ValueError):
    """A message that cannot be carried out; the text says why and what is allowed."""
