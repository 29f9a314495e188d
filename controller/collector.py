"""Python's cycle collector paused around work that makes many objects and no reference cycles.

A par sheet (:mod:`controller.analysis.parsheet`) makes millions of objects that live to its end,
and the floor's watcher (:mod:`controller.floor.watch`) thousands a look that die at its end or
join the tables' views: the collector's passes over them found nothing and cost a sixth of a
par sheet's CPU time, and at 1,000 tables a full pass every two seconds stalled the floor page
(issue 26). Objects are still freed as their last reference goes; only the search for cycles
waits, and runs again after (the tests hold that neither makes cycles)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused, and enabled again after if it was enabled before."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
