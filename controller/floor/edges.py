"""The exact edge of the remaining shoe at each round of a session (issue 24, point 3), worked
out on demand for the surveillance page.

The floor does not import the analysis engine (a lower layer than ``controller.analysis``): the
command line gives the floor server an :data:`EdgeOf`, a function of the rules and the cards
out of the shoe before a round that returns the house edge of the game dealt from the cards that
remain (``controller.cli.floor.RemainingEdge``: the engine on the remaining cards, the
variant's shipped strategy, cached per rules and remaining composition). The rules are those
the table journalled (:mod:`.table_rules`: the round's :attr:`BoxRound.rules`), never a shipped
variant of the same id; a round whose table's rules are not known ends the work with the
reason. A session's rounds are worked out one after the other on a worker thread of their own,
never on the server's event loop; the page asks again until they are all done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import structlog

from controller.floor.advantage import BoxRound
from controller.floor.table_rules import no_config
from controller.game.rules import Variant

log = structlog.get_logger("croupier.floor")

# (the rules the table dealt by, the cards out of the shoe since its shuffle) -> the house edge
# of the remaining shoe, a fraction of the wager (ValueError: it cannot be worked out, with the
# reason)
EdgeOf = Callable[[Variant, tuple[str, ...]], float]


@dataclass(frozen=True, slots=True)
class RoundEdge:
    """One round of the session: its bet, the true count and the remaining shoe's edge."""

    round_id: int
    bet_cents: int
    true: float
    cards_left: int
    house_edge: float | None  # None: the shoe began before the rows read (cards out unknown)

    @property
    def player_edge(self) -> float | None:
        """The player's edge over the remaining shoe (what a counter bets into)."""
        return None if self.house_edge is None else -self.house_edge

    def as_json(self) -> dict[str, Any]:
        return {
            "round": self.round_id,
            "bet_cents": self.bet_cents,
            "true": self.true,
            "cards_left": self.cards_left,
            "house_edge": self.house_edge,
            "player_edge": self.player_edge,
        }


@dataclass
class EdgeJob:
    """The remaining shoe's edge at each round of one session, being worked out."""

    session: str
    variant: str
    rounds: Sequence[BoxRound]
    edges: list[RoundEdge] = field(default_factory=list)
    error: str | None = None
    finished: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "variant": self.variant,
            "state": "error" if self.error else "done" if self.finished else "working",
            "done": len(self.edges),
            "of": len(self.rounds),
            "error": self.error,
            "rounds": [e.as_json() for e in self.edges],
        }


def _rules_of(r: BoxRound) -> Variant:
    """The rules the round was dealt by (ValueError: they are not known, saying why)."""
    found = r.rules if r.rules is not None else no_config(r.table_id)
    if found.rules is None:
        raise ValueError(found.words())
    return found.rules


class EdgeJobs:
    """The sessions' edge jobs of one floor server: one worker thread, one job per session."""

    def __init__(self, edge_of: EdgeOf) -> None:
        self.edge_of = edge_of
        self._jobs: dict[str, EdgeJob] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-edges")

    def ask(self, session: str, variant: str, rounds: Sequence[BoxRound]) -> EdgeJob:
        """The session's job: the one under way or done for these rounds, else a new one."""
        with self._lock:
            job = self._jobs.get(session)
            if job is not None and (not job.finished or len(job.rounds) == len(rounds)):
                return job
            job = EdgeJob(session, variant, list(rounds))
            self._jobs[session] = job
        self._pool.submit(self._work, job)
        return job

    def _work(self, job: EdgeJob) -> None:
        try:
            for r in job.rounds:  # every round's rules known first, else none is worked out
                _rules_of(r)
            for r in job.rounds:
                edge = None if r.out is None else self.edge_of(_rules_of(r), r.out)
                job.edges.append(
                    RoundEdge(
                        r.round_id, r.bet_cents, round(float(r.count.true), 2), r.count.left, edge
                    )
                )
        except (ValueError, OSError) as exc:
            job.error = str(exc)
            log.warning("remaining shoe edge failed", session=job.session, error=job.error)
        finally:
            job.finished = True

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
