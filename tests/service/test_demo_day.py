"""A demo table (``croupier run --demo``, the shipped example) whose file requires the gaming day
opens it itself at start, journalled as the demo's, and deals at once; a restart replays the
open day and opens nothing again. The same file without the demo's opening deals nothing."""

from __future__ import annotations

import time
from pathlib import Path

from controller.journal.store import Journal
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import TableService
from controller.table.config import LoadedTable, load_table_config

WAIT_S = 20.0


def loaded(tmp_path: Path) -> LoadedTable:
    return load_table_config(
        None,  # the shipped example: [gaming_day] required = true
        {"journal.path": str(tmp_path / "j.sqlite3"), "display.port": 0},
    )


def day_rows(path: Path) -> list[dict[str, object]]:
    with Journal.open(path, readonly=True) as journal:
        return [r.payload for r in journal.iter_rows(kinds=["day"])]


def test_the_demo_opens_its_day_itself_and_deals_and_a_restart_opens_nothing_again(
    tmp_path: Path,
) -> None:
    table = loaded(tmp_path)
    assert table.config.gaming_day.required
    demo = [demo_dealer(DemoOptions(pace_s=0.0, boxes=(1, 2, 3), seed=5))]
    with TableService(table, actors=demo, demo_day=True) as service:
        deadline = time.monotonic() + WAIT_S
        while service.rounds_completed < 2:
            assert time.monotonic() < deadline, "the demo dealt no rounds"
            time.sleep(0.02)
    opened = day_rows(table.journal_path)
    assert [r["event"] for r in opened] == ["open"]
    with TableService(table, demo_day=True) as again:
        assert again.app is not None
        assert again.app.day.is_open
    assert day_rows(table.journal_path) == opened


def test_the_same_file_without_the_demos_opening_takes_no_bet(tmp_path: Path) -> None:
    table = loaded(tmp_path)
    with TableService(table) as service:
        assert service.app is not None
        assert not service.app.day.deals()
    assert day_rows(table.journal_path) == []
