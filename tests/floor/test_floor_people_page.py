"""The people and the dealers on the floor page, in Chromium (issue 24, points 1, 4 and 5): each
table's card says who deals it and which rated players sit where; the dealers' figures this shift
are in their own table; a shoe that ended short of cards is an alert."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.config import floor_from_mapping
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher
from controller.floor.web import FloorServer
from controller.game.rules import load_variant
from controller.journal.store import Journal
from controller.table.config import hash_secret
from controller.table.people import DealerSignIn, SitDown
from tests.display.conftest import screenshot
from tests.floor.conftest import FLOOR_PASSWORD_ENV, drained, link, table_id, wait_until
from tests.floor.test_floor_page import browsing
from tests.journal.test_shoe_receipts import ShoeWalk

pytestmark = [pytest.mark.pg, pytest.mark.browser]

PIT, PIT_PASSWORD = "pat", "pit-password-for-tests"


@pytest.fixture(scope="module")
def floor_url(
    cluster: Cluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """A table Dana deals with Ann rated at box 1, whose shoe was changed a card short; shipped;
    the floor page's server and watcher. (the url, the table id)"""
    tmp: Path = tmp_path_factory.mktemp("people-page")
    tid = table_id("people")
    path = tmp / f"{tid}.sqlite3"
    with Journal.open(path, table_id=tid) as journal:
        walk = ShoeWalk(load_variant("pa-blackjack"), journal, seed=12)
        walk.table.apply(DealerSignIn("D7", "Dana", True, time.time()))
        walk.table.apply(SitDown(1, "4411", "ann", f"{tid}-s1", time.time()))
        walk.play(3)
        walk.load(missing=1)
        walk.play(1)
        walk.load()
    with Shipper(path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, path), "shipped")
    data: dict[str, Any] = {
        "database": {"dsn": cluster.dsn(FLOOR_LOGIN), "password_env": FLOOR_PASSWORD_ENV},
        "server": {"port": 0},
        "access": {"attempts_log": str(tmp / "attempts.jsonl"), "max_wrong": 3},
        "users": [{"name": PIT, "secret_hash": hash_secret(PIT_PASSWORD)}],
    }
    loaded = floor_from_mapping(data, "<test>", tmp)
    conninfo = loaded.config.database.conninfo()
    watcher = FloorWatcher(conninfo, loaded.config.shifts.shifts(), loaded.config.alerts.watch())
    watcher.start()
    server = FloorServer(loaded, watcher.hub, conninfo)
    server.start()
    try:
        assert server.wait_started()
        yield server.url, tid
    finally:
        server.close()
        watcher.close()


def test_the_page_shows_who_deals_who_is_rated_the_dealers_figures_and_a_short_shoe(
    browser: Any, floor_url: tuple[str, str]
) -> None:
    url, tid = floor_url
    with browsing(browser, 1280, 800) as page:
        page.goto(url)
        page.fill("input[name=name]", PIT)
        page.fill("input[name=password]", PIT_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("#link.live")
        card = page.locator(f'article.table[data-table="{tid}"]')
        card.wait_for()
        assert card.locator(".people .dealer").inner_text() == "dealer Dana (D7)"
        assert card.locator(".people .seated").inner_text() == "rated: box 1 ann"
        alert = page.locator("#alert-list li.shoe", has_text=tid)
        alert.wait_for()
        assert "a shoe ended 1 card short" in alert.inner_text()
        page.click("#dealers summary")
        row = page.locator('table.dealers tr[data-dealer="D7"]')
        row.wait_for()
        cells = row.locator("td").all_inner_texts()
        assert cells[0] == "Dana (D7)"
        assert tid in cells[1]
        assert int(cells[2]) >= 4  # the rounds Dana dealt this shift (on this floor, at least)
        assert cells[3] != "-"
        screenshot(page, "floor-people-dealers")
