"""The reference cycles a piece of work leaves behind: the collector off while it runs (as the
par sheet and the floor's watcher pause it), then one collection that keeps what it finds."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Cycles:
    found: int = 0  # the objects the collection found unreachable (0: the work made no cycle)
    garbage: list[str] = field(default_factory=list)  # their types' names


@contextmanager
def cycles_made() -> Iterator[Cycles]:
    """Run the block with the collector off; after it, ``found`` and ``garbage`` say what one
    collection found (the collector on again after, whatever happened)."""
    made = Cycles()
    gc.collect()
    gc.disable()
    try:
        yield made
        gc.set_debug(gc.DEBUG_SAVEALL)
        made.found = gc.collect()
        made.garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
