"""The casino's shifts: when each starts, in the casino's time zone (``[shifts]`` of the floor
file). A shift runs from its start to the next one's."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo


@dataclass(frozen=True, slots=True)
class Shifts:
    starts: tuple[time, ...]  # sorted, at least one
    zone: ZoneInfo

    def current(self, now: datetime) -> tuple[datetime, datetime]:
        """The shift ``now`` falls in: (start, end), aware datetimes in the casino's zone."""
        local = now.astimezone(self.zone)
        candidates = [
            datetime.combine(local.date() + timedelta(days=d), t, self.zone)
            for d in (-1, 0, 1)
            for t in self.starts
        ]
        candidates.sort()
        for start, end in itertools.pairwise(candidates):
            if start <= local < end:
                return start, end
        raise AssertionError("a time falls in no shift")  # pragma: no cover - days overlap

    def starting_at(self, start: datetime) -> tuple[datetime, datetime]:
        """The shift that starts at ``start`` (naive: the casino's time); ValueError if no shift
        starts then."""
        local = start.replace(tzinfo=self.zone) if start.tzinfo is None else start
        local = local.astimezone(self.zone)
        if local.timetz().replace(tzinfo=None) not in self.starts:
            known = ", ".join(t.strftime("%H:%M") for t in self.starts)
            raise ValueError(f"no shift starts at {local:%H:%M}; shifts start at {known}")
        return local, self.current(local)[1]
