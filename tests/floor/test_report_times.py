"""The floor report's win plot names its times at the resolution of the period it covers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from controller.floor.report_page import time_format

START = datetime(2026, 12, 2, 0, 51, tzinfo=UTC)


def _over(span: timedelta) -> list[datetime]:
    return [START, START + span / 2, START + span]


def test_a_period_of_minutes_is_labelled_to_the_second_so_no_two_labels_read_alike() -> None:
    shown = time_format(_over(timedelta(minutes=2)))
    labels = {at.strftime(shown) for at in _over(timedelta(minutes=2))}
    assert shown == "%H:%M:%S"
    assert len(labels) == 3


def test_a_shift_is_labelled_by_the_minute_and_a_week_with_its_days() -> None:
    assert time_format(_over(timedelta(hours=8))) == "%H:%M"
    assert time_format(_over(timedelta(days=7))) == "%m-%d %H:%M"
    assert time_format([START]) == "%H:%M"
