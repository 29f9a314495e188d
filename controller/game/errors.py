"""Errors of the game layer. Each says what went wrong and, where it can, what to do."""

from __future__ import annotations


class CroupierError(Exception):
    """Base of every error the controller raises on purpose."""

    # A bug (the code disagrees with itself), never a user's mistake: the command line lets it
    # out with its traceback, for the report, instead of saying it as a user's mistake.
    bug = False


class ConfigError(CroupierError):
    """A configuration file (variant, table, strategy) that cannot be used.

    ``problems`` holds one line per problem, each naming the file, the key, the value and what
    is allowed.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        count = f"{len(problems)} problem" + ("" if len(problems) == 1 else "s")
        super().__init__(f"{path}: {count}:\n{lines}")


class SettlementError(CroupierError):
    """Settlement was asked for something the rules do not allow (a bug or bad input)."""
