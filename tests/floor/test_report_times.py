"""The floor report's house win plot names its times at the resolution of the period it covers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from controller.floor.report_page import time_axis

START = datetime(2026, 12, 2, 0, 51, tzinfo=UTC)


def _over(span: timedelta) -> list[datetime]:
    return [START, START + span / 2, START + span]


def _labels(span: timedelta) -> list[str]:
    ticks, shown = time_axis(_over(span))
    return [at.strftime(shown) for at in ticks]


def test_a_period_of_minutes_is_labelled_to_the_second_so_no_two_labels_read_alike() -> None:
    labels = _labels(timedelta(minutes=2))
    assert labels == ["00:51:00", "00:51:30", "00:52:00", "00:52:30", "00:53:00"]


def test_a_shift_is_labelled_by_the_minute_and_a_week_with_its_days() -> None:
    assert _labels(timedelta(hours=8)) == ["02:00", "04:00", "06:00", "08:00"]
    assert _labels(timedelta(days=7)) == ["Fri 04 Dec", "Sun 06 Dec", "Tue 08 Dec"]
    assert _labels(timedelta(0)) == ["00:51:00"]  # one round: its own time
