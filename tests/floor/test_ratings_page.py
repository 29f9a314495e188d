"""Ratings on the floor page in Chromium, from PostgreSQL: a pit user signed in opens the
ratings of the shift and sees the rated session's row (player card, box, dealer, times, rounds,
average bet, book theo, skill theo, decision cost); the report page shows the same table; a
floor server without a rater says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.analysis.theo import rate
from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.config import floor_from_mapping
from controller.floor.ratings import Rating, SessionPlay
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher
from controller.floor.web import FloorServer
from controller.table.config import hash_secret
from tests.display.conftest import screenshot
from tests.floor.conftest import FLOOR_PASSWORD_ENV, drained, link, table_id, wait_until
from tests.floor.rated import EDGES, PaTable, play_split_round
from tests.floor.test_floor_page import browsing

PIT, PIT_PASSWORD = "pat", "pit-password-for-ratings"


@dataclass
class RatedFloor:
    server: FloorServer
    table_id: str


def _cents(shown: str) -> int:
    whole, _, part = shown.removeprefix("$").partition(".")
    return int(whole.replace(",", "")) * 100 + int(part or 0)


def _rater(sessions: list[SessionPlay]) -> list[Rating]:
    return rate(sessions, lambda _rules: EDGES)


@pytest.fixture(scope="module")
def rated_floor(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RatedFloor]:
    tmp: Path = tmp_path_factory.mktemp("ratings-page")
    tid = table_id("ratedpage")
    path = tmp / "rated.sqlite3"
    t = PaTable(path, tid)
    play_split_round(t)
    t.journal.close()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "the rated table's rows shipped")
    data: dict[str, Any] = {
        "database": {"dsn": cluster.dsn(FLOOR_LOGIN), "password_env": FLOOR_PASSWORD_ENV},
        "server": {"port": 0},
        "access": {"attempts_log": str(tmp / "attempts.jsonl")},
        "users": [{"name": PIT, "secret_hash": hash_secret(PIT_PASSWORD)}],
    }
    loaded = floor_from_mapping(data, "<test>", tmp)
    conninfo = loaded.config.database.conninfo()
    with ExitStack() as stack:
        watcher = FloorWatcher(
            conninfo, loaded.config.shifts.shifts(), loaded.config.alerts.watch()
        )
        watcher.start()
        stack.callback(watcher.close)
        server = FloorServer(loaded, watcher.hub, conninfo, rater=_rater)
        server.start()
        stack.callback(server.close)
        assert server.wait_started()
        yield RatedFloor(server, tid)


def test_a_pit_user_opens_the_shifts_ratings_and_reads_the_rated_sessions_row(
    browser: Any, rated_floor: RatedFloor
) -> None:
    with browsing(browser, 1280, 720) as page:
        page.goto(rated_floor.server.url)
        page.fill("input[name=name]", PIT)
        page.fill("input[name=password]", PIT_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("#link.live")
        page.click("#ratings-link")
        row = page.wait_for_selector("#rating-table tbody tr")
        assert row is not None
        heads = page.eval_on_selector_all("#rating-table th", "hs => hs.map(h => h.textContent)")
        assert heads[:2] == ["player card", "name"]
        assert heads[-4:] == ["book theo", "skill theo", "decision cost", "rules"]
        rows = page.eval_on_selector_all(
            "#rating-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
        )
        mine = [r for r in rows if r[2] == rated_floor.table_id]
        assert len(mine) == 1
        cells = dict(zip(heads, mine[0], strict=True))
        assert (cells["player card"], cells["name"], cells["box"]) == ("40001234", "ann", "1")
        assert cells["dealer"] == "Bo Chen"
        assert cells["rounds"] == "1"
        assert cells["average bet"] == "$10"
        assert cells["book theo"] == "$0.03"
        # standing on 13 against a 7 costs $1.99 of the $10 hand, hitting the 11 (not doubling)
        # more: the skill theo is the edge's 3 cents above the decisions' cost
        cost = _cents(cells["decision cost"])
        assert cost > 199
        assert _cents(cells["skill theo"]) - cost in (3, 4)
        screenshot(page, "floor-ratings")
        page.click("#close-ratings")
        assert page.is_hidden("#ratings")
        page.goto(rated_floor.server.url + "report")
        report_cells = page.eval_on_selector_all(
            "#ratings tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
        )
        assert [r[:3] for r in report_cells if r[2] == rated_floor.table_id] == [
            ["40001234", "ann", rated_floor.table_id]
        ]
        got = json.loads(page.evaluate("fetch('/report.json').then(r => r.text())"))
        assert any(r["table_id"] == rated_floor.table_id for r in got["ratings"])
