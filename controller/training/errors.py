"""Errors of training. Each says what went wrong and what to do."""

from __future__ import annotations

from controller.game.errors import CroupierError


class TrainingError(CroupierError):
    """A drill, a course, a training journal or a training table that cannot be used."""


class NotATrainingTable(TrainingError):
    """Training was asked of a live table, or live dealing of a training table."""
