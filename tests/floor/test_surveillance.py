"""The surveillance role and page (issue 24, point 3): a demo shift's rows shipped to a real
PostgreSQL, judged on the floor; the demo's card counter is flagged and the rated basic-strategy
players are not; only a surveillance user sees the page (a pit user is refused and gets no
link), and the page shows the flag's statistic and a plot of bet against count (Chromium,
1024x600)."""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from controller.analysis.engine import Analysis
from controller.analysis.parsheet import shipped_strategy
from controller.analysis.shoe import Shoe
from controller.cli.floor import RemainingEdge
from controller.floor.advantage import FLAG_STATISTIC, read_table, sessions
from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.config import floor_from_mapping
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher
from controller.floor.web import FloorServer
from controller.game.rules import Variant, load_variant
from controller.journal.store import Row
from controller.play.counter import DEMO_COUNTERS
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import ActorFactory, TableService
from controller.table.config import hash_secret
from drivers.tbl21.cards import Card, shoe_cards
from tests.display.conftest import screenshot
from tests.floor.conftest import (
    FLOOR_PASSWORD_ENV,
    drained,
    link,
    local_rows,
    rounds_done,
    table,
    table_id,
    wait_until,
)

PIT, WATCHER, PASSWORD = "pat", "sam", "surveillance-test-password"
ROUNDS = 80
BASIC = {1: ("ann", "4100000001"), 2: ("bob", "4100000002")}


class _Seated:
    """Seats the rated basic-strategy players (the demo's ann and bob) as the table starts."""

    name = "seated"

    def __init__(self, service: TableService) -> None:
        for box, (player, card) in BASIC.items():
            service.journaled.sit_down(box, card, player)

    def tick(self, now: float) -> None:
        return None


def _shift(tmp: Path, tid: str, variant: str, seed: int) -> Path:
    """A demo shift of ``ROUNDS`` rounds: the counter at box 3, basic players at 1 and 2."""
    loaded = table(tmp, tid, variant=variant)
    actors: list[ActorFactory] = [
        _Seated,
        demo_dealer(DemoOptions(pace_s=0.0, seed=seed, counters=DEMO_COUNTERS)),
    ]
    with TableService(loaded, actors=actors) as service:
        wait_until(lambda: rounds_done(service) >= ROUNDS, f"{ROUNDS} rounds", timeout=120)
    return loaded.journal_path


@pytest.mark.parametrize(("variant", "seed"), [("pa-blackjack", 3), ("pa-blackjack", 5)])
def test_the_demo_counter_is_flagged_and_the_basic_players_are_not(
    tmp_path: Path, variant: str, seed: int
) -> None:
    tid = table_id("shift")
    found = sessions(read_table(tid, local_rows(_shift(tmp_path, tid, variant, seed))))
    by_player = {e.player: e for e in found}
    assert set(by_player) == {"ann", "bob", DEMO_COUNTERS[0].player}
    counter = by_player[DEMO_COUNTERS[0].player]
    assert counter.flagged, counter.why
    assert counter.rounds >= ROUNDS
    assert not by_player["ann"].flagged, by_player["ann"].why
    assert not by_player["bob"].flagged, by_player["bob"].why


def _floor_file(cluster: Cluster, tmp: Path) -> Any:
    secret = hash_secret(PASSWORD)
    data: dict[str, Any] = {
        "database": {"dsn": cluster.dsn(FLOOR_LOGIN), "password_env": FLOOR_PASSWORD_ENV},
        "server": {"port": 0},
        "access": {"attempts_log": str(tmp / "attempts.jsonl")},
        "users": [
            {"name": PIT, "secret_hash": secret},
            {"name": WATCHER, "secret_hash": secret, "role": "surveillance"},
        ],
    }
    return floor_from_mapping(data, "<test>", tmp)


@dataclass
class Floor:
    server: FloorServer
    table_id: str
    cookies: dict[str, str]


@pytest.fixture(scope="module")
def floor(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    tmp = tmp_path_factory.mktemp("surveillance")
    tid = table_id("watch")
    journal = _shift(tmp, tid, "pa-blackjack", 3)
    with Shipper(journal, tid, link(cluster, tid)) as shipper:
        wait_until(partial(drained, shipper, journal), "shipped")
    loaded = _floor_file(cluster, tmp)
    conninfo = loaded.config.database.conninfo()
    with ExitStack() as stack:
        watcher = FloorWatcher(
            conninfo, loaded.config.shifts.shifts(), loaded.config.alerts.watch()
        )
        watcher.start()
        stack.callback(watcher.close)
        server = FloorServer(loaded, watcher.hub, conninfo)
        server.start()
        stack.callback(server.close)
        assert server.wait_started()
        made = Floor(server, tid, {})
        # signed in here, so the connections the sign-in opens are the fixture's own
        made.cookies = {name: _cookie(made, name) for name in (PIT, WATCHER)}
        _get(made, "api/surveillance", made.cookies[WATCHER])
        yield made


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _cookie(floor: Floor, name: str) -> str:
    opener = urllib.request.build_opener(_NoRedirect)
    body = f"name={name}&password={PASSWORD}".encode()
    with pytest.raises(urllib.error.HTTPError) as done:
        opener.open(urllib.request.Request(floor.server.url + "login", data=body))
    with done.value as reply:
        assert reply.code == 303
        return str(reply.headers["set-cookie"]).split(";", 1)[0]


def _sockets() -> set[str]:
    found = set()
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{name}")
            if target.startswith("socket:"):
                found.add(f"{name}->{target}")
    return found


def _get(floor: Floor, path: str, cookie: str) -> tuple[int, bytes]:
    before = _sockets()
    try:
        return _fetch(floor, path, cookie)
    finally:  # the server closes its side of the connection a moment later
        wait_until(lambda: _sockets() <= before, "the connection closed", timeout=5)


def _fetch(floor: Floor, path: str, cookie: str) -> tuple[int, bytes]:
    request = urllib.request.Request(floor.server.url + path, headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(request) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def test_a_pit_user_is_refused_the_surveillance_page_and_its_data(floor: Floor) -> None:
    cookie = floor.cookies[PIT]
    for path in ("surveillance", "api/surveillance"):
        status, body = _get(floor, path, cookie)
        assert status == 403
        assert b"surveillance role only" in body
    status, body = _get(floor, "api/me", cookie)
    assert json.loads(body) == {"name": PIT, "surveillance": False}


def test_nobody_signed_in_is_sent_to_sign_in(floor: Floor) -> None:
    assert _get(floor, "api/surveillance", "")[0] == 401


def test_the_surveillance_user_gets_the_flagged_counter_with_the_statistic(floor: Floor) -> None:
    status, body = _get(floor, "api/surveillance", floor.cookies[WATCHER])
    assert status == 200
    found = json.loads(body)
    assert found["statistic"] == FLAG_STATISTIC
    flagged = [s for s in found["sessions"] if s["flagged"]]
    assert [s["player"] for s in flagged] == [DEMO_COUNTERS[0].player]
    assert flagged[0]["table_id"] == floor.table_id
    assert flagged[0]["z"] >= found["threshold"]


def test_each_shoe_of_the_shift_shows_its_cut_committed_before_its_first_card(
    floor: Floor,
) -> None:
    status, body = _get(floor, "api/surveillance", floor.cookies[WATCHER])
    assert status == 200
    shoes = [s for s in json.loads(body)["shoes"] if s["table_id"] == floor.table_id]
    assert len(shoes) >= 2  # the shift dealt past a cut card: a new shoe on an order
    for shoe in shoes:
        assert "not judged" not in shoe["why"]  # read from the journal's start: every shoe
        assert shoe["committed_first"], shoe
        assert shoe["committed_seq"] < shoe["first_card_seq"]
        assert not shoe["flagged"], shoe["why"]
    out = [s for s in shoes if s["cut_at"] is not None]
    assert out
    assert all(s["cut_as_committed"] for s in out)
    status, page = _get(floor, "surveillance", floor.cookies[WATCHER])
    assert b"Shuffle points" in page
    # the flagged counter's session has its button for the remaining shoe's exact edge
    assert page.count(b"action='/surveillance/edge'") == 1
    assert page.count(b"committed first") >= len(shoes)


def test_the_page_in_chromium_shows_the_flag_and_the_plot_only_to_surveillance(
    floor: Floor, browser: Any
) -> None:
    before = _sockets()
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    try:
        page = context.new_page()
        for name in (PIT, WATCHER):
            page.goto(floor.server.url + "login")
            page.fill("input[name=name]", name)
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(floor.server.url)
            link = page.locator("#surveillance-link")
            if name == PIT:
                page.wait_for_timeout(300)
                assert link.is_hidden()
                page.click("text=sign out")
                page.wait_for_url("**/login")
                continue
            link.wait_for(state="visible")
            link.click()
            page.wait_for_url("**/surveillance")
        first = page.locator("section.flagged").first
        assert DEMO_COUNTERS[0].player in first.inner_text()
        assert FLAG_STATISTIC in page.locator("#definition").inner_text()
        assert first.locator("svg circle").count() >= ROUNDS
        screenshot(page, "floor-surveillance")
    finally:
        context.close()
        wait_until(lambda: _sockets() <= before, "the page's connections closed", timeout=5)


SMALL_ROUNDS = 10


def _out_before_each_round(rows: list[Row]) -> dict[int, list[str]]:
    """The cards out of the shoe (since its shuffle, burns too) before each round, read from
    the table's own journal here, apart from the floor's reading."""
    out: list[str] = []
    before: dict[int, list[str]] = {}
    for row in rows:
        data = row.payload.get("data") or {}
        if row.kind == "input" and row.payload.get("accepted"):
            if row.payload.get("action") == "shuffle":
                out = []
            elif row.payload.get("action") in ("card", "key_card") and "card" in data:
                out.append(data["card"])
        elif row.kind == "round_start" and row.round_id is not None:
            before[row.round_id] = list(out)
    return before


@dataclass
class SmallShoe:
    """A floor over a one-deck table's shift, the demo counter seated (its session ``key``)."""

    floor: Floor
    key: str
    journal: Path
    rules: Variant


@pytest.fixture(scope="module")
def small_shoe(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmallShoe]:
    """A one-deck shoe (a copy of pa-blackjack with decks = 1), the demo counter seated, its
    rows shipped and a floor serving them with the remaining shoe's edge worked out for it."""
    tmp_path = tmp_path_factory.mktemp("small-shoe")
    text = (
        Path(__file__).parents[2] / "controller/defaults/variants/pa-blackjack.toml"
    ).read_text()
    small = tmp_path / "pa-blackjack-1-deck.toml"
    small.write_text(text.replace("decks = 6", "decks = 1"))
    rules: Variant = load_variant(small)
    assert rules.shoe.decks == 1
    tid = table_id("edge")
    loaded = table(tmp_path, tid, variant=str(small))
    actors: list[ActorFactory] = [
        _Seated,
        demo_dealer(DemoOptions(pace_s=0.0, seed=3, counters=DEMO_COUNTERS)),
    ]
    with TableService(loaded, actors=actors) as service:
        wait_until(lambda: rounds_done(service) >= SMALL_ROUNDS, "rounds", timeout=120)
    journal = loaded.journal_path
    with Shipper(journal, tid, link(cluster, tid)) as shipper:
        wait_until(partial(drained, shipper, journal), "shipped")
    floor_file = _floor_file(cluster, tmp_path)
    conninfo = floor_file.config.database.conninfo()
    with ExitStack() as stack:
        watcher = FloorWatcher(
            conninfo, floor_file.config.shifts.shifts(), floor_file.config.alerts.watch()
        )
        watcher.start()
        stack.callback(watcher.close)
        # the floor's own RemainingEdge: the rules are those the table journalled (its shoe of
        # one deck), not the shipped pa-blackjack of the same id
        server = FloorServer(floor_file, watcher.hub, conninfo, edge_of=RemainingEdge())
        server.start()
        stack.callback(server.close)
        assert server.wait_started()
        made = Floor(server, tid, {})
        made.cookies = {name: _cookie(made, name) for name in (PIT, WATCHER)}
        found = json.loads(_get(made, "api/surveillance", made.cookies[WATCHER])[1])
        key = next(
            s["key"]
            for s in found["sessions"]
            if s["table_id"] == tid and s["player"] == DEMO_COUNTERS[0].player
        )
        # worked out here, so that its worker thread is the fixture's, not a test's
        _edges_done(made, key)
        yield SmallShoe(made, key, journal, rules)


def _edges_done(made: Floor, key: str) -> dict[str, Any]:
    """The session's edges, asked until they are worked out."""
    job: dict[str, Any] = {}

    def done() -> bool:
        nonlocal job
        job = json.loads(
            _fetch(made, f"api/surveillance/edge?session={key}", made.cookies[WATCHER])[1]
        )
        return bool(job["state"] != "working")

    wait_until(done, "the edges worked out", timeout=240)
    return job


def test_the_remaining_shoe_s_exact_edge_of_a_session_on_a_small_shoe(
    small_shoe: SmallShoe,
) -> None:
    """The surveillance user asks for the counter's session's edges: each round's is the
    analysis engine's on the cards the table's journal shows left before it, of the one-deck
    shoe its custom variant file deals (journalled in its config row: not the shipped
    pa-blackjack's six decks), and so are its cards left."""
    made, key, journal, rules = (
        small_shoe.floor,
        small_shoe.key,
        small_shoe.journal,
        small_shoe.rules,
    )
    status, body = _get(made, f"api/surveillance/edge?session={key}", made.cookies[PIT])
    assert status == 403
    status, body = _get(made, f"api/surveillance/edge?session={key}", made.cookies[WATCHER])
    assert status == 200
    assert json.loads(body)["state"] in ("working", "done")
    job = _edges_done(made, key)
    assert job["state"] == "done", job
    assert job["done"] == job["of"] >= SMALL_ROUNDS - 1
    before = _out_before_each_round(local_rows(journal))
    strategy = shipped_strategy(rules)[0]
    full = Counter(shoe_cards(rules.shoe.deck, 1))
    for got in job["rounds"]:
        left = full - Counter(Card.parse(c) for c in before[got["round"]])
        expected = Analysis(rules, Shoe.of_cards(left.elements()), 1000, strategy)
        assert got["house_edge"] == expected.house_edge(), got
        assert got["cards_left"] == 52 - len(before[got["round"]]), got
    status, page = _get(made, f"surveillance/edge?session={key}", made.cookies[WATCHER])
    assert status == 200
    assert page.count(b'<rect class="bet"') == job["of"]
    assert b'<polyline class="edge"' in page


def test_the_remaining_shoe_s_edge_page_in_chromium_plots_and_lists_every_round(
    small_shoe: SmallShoe, browser: Any
) -> None:
    """The surveillance user signs in in Chromium (1024x600) and opens the counter's session's
    edge page: once worked out, its plot has a bar for each round's bet and the edge's line,
    and its table a row for each round, as the API gives them."""
    made, key = small_shoe.floor, small_shoe.key
    job = _edges_done(made, key)
    assert job["state"] == "done", job
    before = _sockets()
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    try:
        page = context.new_page()
        page.goto(made.server.url + "login")
        page.fill("input[name=name]", WATCHER)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(made.server.url)
        page.goto(made.server.url + f"surveillance/edge?session={key}")
        state = page.locator("#edge-state")
        assert f"{job['of']} rounds of " in state.inner_text()
        assert page.locator("svg rect.bet").count() == job["of"]
        assert page.locator("svg polyline.edge").count() == 1
        assert page.locator("#edges tr").count() == job["of"] + 1  # and its header
        first = page.locator("#edges tr").nth(1).locator("td").first.inner_text()
        assert first == str(job["rounds"][0]["round"])
        box = page.locator("svg").first.bounding_box()
        assert box is not None
        assert box["width"] > 200  # drawn, not collapsed
        assert box["x"] + box["width"] <= 1024  # within the screen's width
        screenshot(page, "floor-surveillance-edge")
    finally:
        context.close()
        wait_until(lambda: _sockets() <= before, "the page's connections closed", timeout=5)
