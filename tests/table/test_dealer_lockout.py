"""Wrong dealer sign-ins lock dealer sign-in at the table, as wrong supervisor PINs lock the
supervisor's (issue 24, point 1): ``max_wrong_pins`` wrong in a row lock it for
``lockout_seconds``; meanwhile every attempt is refused, the right PIN too, unchecked; the lock
is rebuilt by a restart's replay of the journal, and lifts when its time is over."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from controller.journal.journaled import JournaledTable
from controller.journal.store import Journal
from tests.table.test_people import ACCESS, BO_PIN, CY_PIN, NZ

T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def start(path: Path, clock: Clock) -> tuple[Journal, JournaledTable]:
    access = dataclasses.replace(ACCESS, clock=clock, max_wrong_pins=3, lockout_seconds=120)
    journal = Journal.open(path, table_id="T1")
    return journal, JournaledTable.start(NZ, journal, access=access)


def test_three_wrong_dealer_pins_lock_sign_in_even_for_the_right_pin(tmp_path: Path) -> None:
    clock = Clock()
    journal, table = start(tmp_path / "j.sqlite3", clock)
    texts = [table.dealer_sign_in("2001", CY_PIN).text for _ in range(3)]
    assert texts == [
        "wrong staff number or dealer PIN: 2 more in a row lock dealer sign-in for 2 min",
        "wrong staff number or dealer PIN: 1 more in a row lock dealer sign-in for 2 min",
        "wrong staff number or dealer PIN (3 in a row): dealer sign-in is locked until "
        "08:02:00 UTC (2 min)",
    ]
    clock.now += 60
    right = table.dealer_sign_in("2001", BO_PIN)
    assert not right.accepted
    assert right.text == (
        "dealer sign-in is locked until 08:02:00 UTC (another 1 min) after wrong PINs in a row"
    )
    calls = [r.payload for r in journal.iter_rows(kinds=["call"])]
    assert calls[-1]["right"] is False  # the PIN was not even checked
    assert table.app.people.dealer() is None
    journal.close()

    # a restart replays the journal: still locked
    journal, again = start(tmp_path / "j.sqlite3", clock)
    assert again.app.people.dealer_locked(clock.now)
    assert not again.dealer_sign_in("2001", BO_PIN).accepted
    clock.now = T0 + 120  # the lockout is over
    assert again.dealer_sign_in("2001", BO_PIN).accepted
    assert again.app.people.dealer() == "Bo Chen (2001)"
    journal.close()


def test_a_right_sign_in_starts_the_count_of_wrong_ones_again(tmp_path: Path) -> None:
    clock = Clock()
    journal, table = start(tmp_path / "j.sqlite3", clock)
    for _ in range(2):
        assert not table.dealer_sign_in("2001", CY_PIN).accepted
    assert table.dealer_sign_in("2001", BO_PIN).accepted
    for _ in range(2):
        assert not table.dealer_sign_in("2002", BO_PIN).accepted
    assert not table.app.people.dealer_locked(clock.now)
    assert table.dealer_sign_in("2002", CY_PIN).accepted
    journal.close()
