"""Kept for imports written before the merge: the one StrategyPlayer is in controller.strategy."""

from controller.strategy import StrategyPlayer

__all__ = ["StrategyPlayer"]
