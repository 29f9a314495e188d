"""A mixin for the things the tree opens and must close: ``with thing:`` calls ``close()``."""

from __future__ import annotations

from typing import Self


class Closing:
    """Used as a context manager, the object is closed on the way out, error or not."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
