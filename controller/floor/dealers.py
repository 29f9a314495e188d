"""Dealer performance: per dealer, the rounds they dealt and how (issue 24, point 4), folded from
the tables' journal rows; the same fold for the floor page (a shift so far, row by row) and for
``floor report`` (a period, from PostgreSQL). Definitions (``docs/floor.md``, "Dealer
performance and shoe receipts"):

- a round is the dealer's whom its ``round_start`` row names (``dealer``, ``dealer_name``; a
  round dealt with nobody signed in counts for ``-``); it belongs to the period its
  ``round_end`` falls in, as in the table report;
- a round's **steps** are the times between its ``state`` rows: each state the table entered is
  timed from its row to the next ``state`` row, and counts for the round whose row entered it
  (the betting before a round carries that round's number, the settling after it ends with
  the next round's first row). States fold into steps: ``betting``; ``dealing`` (dealing,
  peek, and the insurance, surrender and NZ offers windows); ``play`` (playing, card due,
  rescue); ``dealer`` (reveal, the dealer's draw); ``settlement`` (settling); ``hold`` (on hold:
  a lockup, a device lost, an unreadable card, ...); ``shoe`` (shuffle, burn);
- **dealing time**: the sum of the dealer's rounds' steps; **rounds per hour** = rounds /
  dealing time; **time per step**: a step's total over the rounds, seconds per round;
- **voids**, **overrides**: the ``supervisor`` rows of the dealer's rounds (a void is one);
- **misreads keyed**: cards the dealer keyed in for one the shoe could not read (accepted
  ``key_card`` inputs); **holds**: the times the table went on hold in the dealer's rounds;
- **house win while dealing**: what the players lost in the dealer's rounds (minus the sum of
  their ``round_end`` rows' ``net_cents``), integer cents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from controller.journal.store import Row, parse_ts

STEPS = ("betting", "dealing", "play", "dealer", "settlement", "hold", "shoe")
STEP_OF = {
    "betting": "betting",
    "dealing": "dealing",
    "peek": "dealing",
    "offers": "dealing",
    "insurance": "dealing",
    "surrender": "dealing",
    "playing": "play",
    "card_due": "play",
    "rescue": "play",
    "reveal": "dealer",
    "dealer": "dealer",
    "settling": "settlement",
    "hold": "hold",
    "shuffle": "shoe",
    "burn": "shoe",
}
NOBODY = "-"  # the dealer of a round dealt with nobody signed in

# The rows of the rounds whose round_end falls in the period, and of the round after each
# (whose first row ends its settlement): only the rows the figures read.
DEALER_ROWS = """
WITH ended AS (
    SELECT table_id, round_id FROM croupier.journal_rows
    WHERE kind = 'round_end' AND at >= %(start)s AND at < %(end)s AND round_id IS NOT NULL
), wanted AS (
    SELECT table_id, round_id FROM ended UNION SELECT table_id, round_id + 1 FROM ended
)
SELECT j.seq, j.ts, j.table_id, j.round_id, j.kind, j.payload, j.prev_hash, j.hash
FROM croupier.journal_rows j JOIN wanted w ON j.table_id = w.table_id AND j.round_id = w.round_id
WHERE j.at >= %(start)s::timestamptz - interval '2 days' AND j.at < %(end)s + interval '1 day'
  AND (j.kind IN ('round_start', 'round_end', 'supervisor')
       OR (j.kind = 'state' AND j.payload::jsonb ->> 'source' <> j.payload::jsonb ->> 'dest')
       OR (j.kind = 'input' AND j.payload::jsonb ->> 'action' = 'key_card'
           AND (j.payload::jsonb ->> 'accepted')::boolean))
ORDER BY j.table_id, j.seq
"""


@dataclass
class DealerFigures:
    """One dealer's figures (seconds are exact fractions of the rows' milliseconds)."""

    dealer: str
    name: str = ""
    rounds: int = 0
    tables: set[str] = field(default_factory=set)
    step_ms: dict[str, int] = field(default_factory=dict)
    voids: int = 0
    overrides: int = 0
    misreads_keyed: int = 0
    holds: int = 0
    house_win_cents: int = 0

    @property
    def dealing_ms(self) -> int:
        return sum(self.step_ms.values())

    @property
    def rounds_per_hour(self) -> str:
        """One place, rounded half up (``-`` with no dealing time)."""
        if self.dealing_ms <= 0:
            return "-"
        tenths = (
            Fraction(self.rounds * 3_600_000 * 10, self.dealing_ms) + Fraction(1, 2)
        ).__floor__()
        return f"{tenths // 10}.{tenths % 10}"

    def seconds_per_round(self, step: str) -> str:
        """A step's seconds per round, one place (``-`` with no rounds)."""
        if not self.rounds:
            return "-"
        tenths = (
            Fraction(self.step_ms.get(step, 0), self.rounds * 100) + Fraction(1, 2)
        ).__floor__()
        return f"{tenths // 10}.{tenths % 10}"

    def add(self, other: DealerFigures) -> None:
        self.name = self.name or other.name
        self.rounds += other.rounds
        self.tables |= other.tables
        for step, ms in other.step_ms.items():
            self.step_ms[step] = self.step_ms.get(step, 0) + ms
        self.voids += other.voids
        self.overrides += other.overrides
        self.misreads_keyed += other.misreads_keyed
        self.holds += other.holds
        self.house_win_cents += other.house_win_cents

    def as_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "name": self.name,
            "rounds": self.rounds,
            "tables": sorted(self.tables),
            "dealing_s": round(self.dealing_ms / 1000, 1),
            "rounds_per_hour": self.rounds_per_hour,
            "seconds_per_round": {s: self.seconds_per_round(s) for s in STEPS},
            "voids": self.voids,
            "overrides": self.overrides,
            "misreads_keyed": self.misreads_keyed,
            "holds": self.holds,
            "house_win_cents": self.house_win_cents,
        }


@dataclass
class _Round:
    dealer: str = NOBODY
    name: str = ""
    end_ts: str | None = None
    net_cents: int = 0
    step_ms: dict[str, int] = field(default_factory=dict)
    voids: int = 0
    overrides: int = 0
    keyed: int = 0
    holds: int = 0


@dataclass
class _Entered:
    ms: int  # the row's time, milliseconds since the epoch
    dest: str
    round_id: int


class DealerTally:
    """The fold: :meth:`feed` each table's rows in seq order; :meth:`figures` per dealer.

    ``start`` / ``end``: the period a round's ``round_end`` must fall in (None: open)."""

    def __init__(self, start: datetime | None = None, end: datetime | None = None) -> None:
        self.start = start
        self.end = end
        self._last: dict[str, _Entered] = {}  # per table: the state it entered last
        self._open: dict[tuple[str, int], _Round] = {}  # rounds not yet closed
        self._done: dict[str, DealerFigures] = {}

    def feed(self, row: Row) -> None:
        if row.round_id is None:
            return
        key = (row.table_id, row.round_id)
        p = row.payload
        kind = row.kind
        if kind == "state":
            self._state(row, str(p.get("source", "")), str(p.get("dest", "")))
            return
        if kind not in ("round_start", "round_end", "supervisor", "input"):
            return
        tally = self._open.setdefault(key, _Round())
        if kind == "round_start":
            tally.dealer = str(p.get("dealer") or NOBODY)
            tally.name = str(p.get("dealer_name") or "")
        elif kind == "round_end":
            net = p.get("net_cents")
            tally.end_ts, tally.net_cents = row.ts, net if isinstance(net, int) else 0
        elif kind == "supervisor":
            tally.overrides += 1
            tally.voids += p.get("action") == "void"
        elif p.get("action") == "key_card" and p.get("accepted"):
            tally.keyed += 1

    def _state(self, row: Row, source: str, dest: str) -> None:
        if source == dest:
            return
        assert row.round_id is not None
        ms = int(parse_ts(row.ts).timestamp() * 1000)
        last = self._last.get(row.table_id)
        if last is not None:
            step = STEP_OF.get(last.dest, "play")
            tally = self._open.setdefault((row.table_id, last.round_id), _Round())
            tally.step_ms[step] = tally.step_ms.get(step, 0) + max(0, ms - last.ms)
            if last.round_id != row.round_id:  # the next round's first row ends this one
                self._close((row.table_id, last.round_id))
        tally = self._open.setdefault((row.table_id, row.round_id), _Round())
        tally.holds += dest == "hold"
        self._last[row.table_id] = _Entered(ms, dest, row.round_id)

    def _counts(self, tally: _Round) -> bool:
        if tally.end_ts is None:
            return False
        at = parse_ts(tally.end_ts)
        return (self.start is None or at >= self.start) and (self.end is None or at < self.end)

    def _close(self, key: tuple[str, int]) -> None:
        tally = self._open.pop(key)
        if self._counts(tally):
            self._add(self._done, key[0], tally)

    @staticmethod
    def _add(into: dict[str, DealerFigures], table_id: str, tally: _Round) -> None:
        figures = into.setdefault(tally.dealer, DealerFigures(tally.dealer))
        one = DealerFigures(
            tally.dealer,
            tally.name,
            1,
            {table_id},
            dict(tally.step_ms),
            tally.voids,
            tally.overrides,
            tally.keyed,
            tally.holds,
            -tally.net_cents,
        )
        figures.add(one)

    def figures(self) -> list[DealerFigures]:
        """Per dealer, by name then id: the rounds closed, and those ended but for the step
        they are still in."""
        out: dict[str, DealerFigures] = {}
        self.add_into(out)
        return ordered(out)

    def add_into(self, out: dict[str, DealerFigures]) -> None:
        """Add this tally's figures to ``out`` (per dealer)."""
        for dealer, done in self._done.items():
            mine = out.get(dealer)
            if mine is None:
                mine = out[dealer] = DealerFigures(dealer)
            mine.add(done)
        for (table_id, _), tally in self._open.items():
            if tally.end_ts is not None and self._counts(tally):
                self._add(out, table_id, tally)

    def new_period(self, start: datetime) -> None:
        """From ``start`` on (a new shift): the rounds before it no longer count."""
        self.start = start
        self._done.clear()


def ordered(figures: dict[str, DealerFigures]) -> list[DealerFigures]:
    return sorted(figures.values(), key=lambda f: (f.name or "~", f.dealer))


def merged(tallies: list[DealerTally]) -> list[DealerFigures]:
    """Several tables' figures per dealer, summed (the floor page's, every table's tally)."""
    out: dict[str, DealerFigures] = {}
    for tally in tallies:
        tally.add_into(out)
    return ordered(out)
