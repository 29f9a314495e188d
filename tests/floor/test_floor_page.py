"""The floor page in Chromium, live from PostgreSQL: two tables dealing and shipping, a pit
supervisor signed in. Tables appear, a lockup shows as an alert within a second, a round shows
its cards, the report equals the tables' own journals, and a row changed in PostgreSQL is found
by ``croupier floor audit`` and raised on the page."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import psycopg
import pytest

from controller.cli.main import main
from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.floor.config import LoadedFloor, floor_from_mapping
from controller.floor.shipper import Shipper
from controller.floor.watch import FloorWatcher
from controller.floor.web import COOKIE, FloorServer
from controller.game.prompts import money
from controller.journal.store import Row
from controller.service.service import TableService
from controller.table.config import LoadedTable, hash_secret
from drivers.tbl21.faults import Severity
from tests.display.conftest import screenshot
from tests.floor.conftest import (
    FLOOR_PASSWORD_ENV,
    demo,
    drained,
    link,
    local_rows,
    rounds_done,
    table,
    table_id,
    wait_until,
)

PIT, PIT_PASSWORD = "pat", "pit-password-for-tests"
CARD_PUSHBACK = 0x12


@dataclass
class Floor:
    cluster: Cluster
    loaded: LoadedFloor
    server: FloorServer
    watcher: FloorWatcher
    started: datetime
    file: Path
    tmp: Path
    tables: dict[str, LoadedTable] = field(default_factory=dict)


@pytest.fixture(scope="module")
def floor(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    """The floor page's server and watcher, and two tables that dealt a few rounds each and
    shipped them (stopped again: a test's own live tables are its own)."""
    tmp = tmp_path_factory.mktemp("floor-page")
    secret_hash = hash_secret(PIT_PASSWORD)
    data: dict[str, Any] = {
        "database": {"dsn": cluster.dsn(FLOOR_LOGIN), "password_env": FLOOR_PASSWORD_ENV},
        "server": {"port": 0},
        "access": {"attempts_log": str(tmp / "attempts.jsonl"), "max_wrong": 3},
        "users": [{"name": PIT, "secret_hash": secret_hash}],
        "alerts": {"recheck_minutes": 0.02},
    }
    file = tmp / "floor.toml"
    file.write_text(
        f'[database]\ndsn = "{cluster.dsn(FLOOR_LOGIN)}"\npassword_env = "{FLOOR_PASSWORD_ENV}"\n'
        f'[[users]]\nname = "{PIT}"\nsecret_hash = "{secret_hash}"\n'
    )
    loaded = floor_from_mapping(data, "<test>", tmp)
    conninfo = loaded.config.database.conninfo()
    started = datetime.now(UTC)
    tables: dict[str, LoadedTable] = {}
    for n in (1, 2):
        tid = table_id(f"page{n}")
        tables[tid] = table(tmp, tid)
        with (
            TableService(tables[tid], actors=demo(seed=n)) as service,
            Shipper(tables[tid].journal_path, tid, link(cluster, tid)) as shipper,
        ):
            wait_until(partial(_dealt, service, 3), "three rounds")
            service.close()
            wait_until(partial(drained, shipper, tables[tid].journal_path), "drained")
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
        yield Floor(cluster, loaded, server, watcher, started, file, tmp, tables)


def _dealt(service: TableService, rounds: int) -> bool:
    return rounds_done(service) >= rounds


def _sockets() -> set[str]:
    found = set()
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{name}")
            if target.startswith("socket:"):
                found.add(f"{name}->{target}")
    return found


@contextlib.contextmanager
def browsing(browser: Any, width: int, height: int) -> Iterator[Any]:
    """A page at this size; closed with its connections to the server after."""
    before = _sockets()
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()
        # the server closes its side of the page's connections a moment later
        wait_until(lambda: _sockets() <= before, "the page's connections closed", timeout=5)


@contextlib.contextmanager
def signed_in(browser: Any, floor: Floor, width: int = 1024, height: int = 600) -> Iterator[Any]:
    """A page signed in at this size."""
    with browsing(browser, width, height) as page:
        page.goto(floor.server.url)
        page.fill("input[name=name]", PIT)
        page.fill("input[name=password]", PIT_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("#link.live")
        yield page


@pytest.fixture
def page(browser: Any, floor: Floor) -> Iterator[Any]:
    """A signed-in page at 1024x600."""
    with signed_in(browser, floor) as ready:
        yield ready


def test_live_tables_appear_a_lockup_alerts_within_a_second_and_the_pit_acknowledges_it(
    floor: Floor, page: Any, browser: Any
) -> None:
    with ExitStack() as stack:
        services: dict[str, TableService] = {}
        for n in (1, 2):
            tid = table_id(f"live{n}")
            loaded = table(floor.tmp, tid)
            services[tid] = stack.enter_context(
                TableService(loaded, actors=demo(pace_s=0.03, seed=n))
            )
            stack.enter_context(
                Shipper(loaded.journal_path, tid, link(floor.cluster, tid, poll_ms=20))
            )
        for tid in services:
            page.wait_for_selector(f'article.table[data-table="{tid}"] .state')
        assert f"signed in: {PIT}" in page.inner_text("#who")
        tid, service = next(iter(services.items()))
        wait_until(lambda: rounds_done(service) >= 1, "a round dealt")
        started = time.monotonic()
        shoe = service.emulated["shoe"]
        shoe.raise_fault(CARD_PUSHBACK, Severity.LOCKUP, "jam")
        page.wait_for_selector(
            f'#alert-list li[data-kind="lockup"][data-table="{tid}"]', timeout=1_000
        )
        assert time.monotonic() - started < 1.0
        card = page.get_attribute(f'article.table[data-table="{tid}"]', "class") or ""
        assert "alert" in card
        screenshot(page, "floor-lockup")
        _acknowledge(floor, page, browser, tid)


def _acknowledge(floor: Floor, page: Any, browser: Any, tid: str) -> None:
    """The pit acknowledges the lockup: by name, journalled on the floor, on every page."""
    raised = f'#alert-list li[data-kind="lockup"][data-table="{tid}"]'
    page.click(f"{raised} button.ack")
    page.wait_for_selector(f"{raised}.acked")
    assert f"acknowledged by {PIT} at " in page.inner_text(raised)
    page.wait_for_selector(f'article.table[data-table="{tid}"]:not(.alert)')
    with psycopg.connect(floor.cluster.conninfo("floor")) as db:
        acks = db.execute(
            "SELECT kind, acked_by, login FROM croupier.alert_acks WHERE table_id = %s", (tid,)
        ).fetchall()
    assert acks == [("lockup", PIT, FLOOR_LOGIN)]
    screenshot(page, "floor-lockup-acknowledged")
    with signed_in(browser, floor, 1280, 800) as other:
        other.wait_for_selector(f"{raised}.acked")
        assert f"acknowledged by {PIT}" in other.inner_text(raised)
        screenshot(other, "floor-lockup-acknowledged-1280")
    alert = next(
        a
        for a in page.evaluate("fetch('/api/floor').then(r => r.json())")["alerts"]
        if a["table_id"] == tid and a["kind"] == "lockup"
    )
    again = page.evaluate(
        """body => fetch('/api/alerts/ack', {method: 'POST', body: JSON.stringify(body),
            headers: {'Content-Type': 'application/json'}}).then(async r => [r.status,
            (await r.json()).error])""",
        {k: alert[k] for k in ("table_id", "kind", "text", "since")},
    )
    assert again == [409, f"{PIT} acknowledged it already at {alert['acked']['time']}"]
    cookie = next(c for c in page.context.cookies() if c["name"] == COOKIE)
    signed = {"Cookie": f"{COOKIE}={cookie['value']}"}
    body = {k: alert[k] for k in ("table_id", "kind", "text", "since")}
    url = f"{floor.server.url}api/alerts/ack"
    # only the floor page itself acknowledges: not another site's page, nor a request that
    # names no page (or a page without an origin)
    assert _post_json(url, body, {**signed, "Origin": "http://elsewhere.example"})[0] == 403
    for origin in ({}, {"Origin": "null"}):
        status, text = _post_json(url, body, {**signed, **origin})
        assert (status, json.loads(text)["error"]) == (
            403,
            "an acknowledgement comes from the floor page itself",
        )
    assert _post_json(f"{floor.server.url}api/alerts/ack", {}, {})[0] == 401


def _expected(rows: list[Row]) -> dict[str, int]:
    ended = {r.round_id for r in rows if r.kind == "round_end"}
    ledger = [r.payload for r in rows if r.kind == "ledger" and r.round_id in ended]
    return {
        "rounds": len(ended),
        "handle_cents": sum(p["stake_cents"] for p in ledger if p["kind"] != "return"),
        "house_win_cents": -sum(p["amount_cents"] for p in ledger),
        "net_by_round_end": sum(r.payload["net_cents"] for r in rows if r.kind == "round_end"),
    }


def test_the_report_equals_the_tables_own_journals(floor: Floor, page: Any) -> None:
    query = urlencode(
        {
            "from": (floor.started - timedelta(minutes=1)).isoformat(),
            "to": (datetime.now(UTC) + timedelta(minutes=1)).isoformat(),
        }
    )
    page.goto(f"{floor.server.url}report?{query}")
    figures = json.loads(page.evaluate(f"fetch('/report.json?{query}').then(r => r.text())"))
    by_table = {t["table_id"]: t for t in figures["tables"]}
    for tid, loaded in floor.tables.items():
        want = _expected(local_rows(loaded.journal_path))
        got = by_table[tid]
        assert want["rounds"] > 0
        assert (got["rounds"], got["handle_cents"], got["house_win_cents"]) == (
            want["rounds"],
            want["handle_cents"],
            want["house_win_cents"],
        )
        assert got["house_win_cents"] == -want["net_by_round_end"]
        cells = page.inner_text(f'#figures tr[data-table="{tid}"]').split("\t")
        assert cells[1:4] == [
            str(want["rounds"]),
            money(want["handle_cents"]),
            money(want["house_win_cents"]),
        ]
    for plot in ("win", "hold", "rate"):
        assert page.get_attribute(f"#plot-{plot}", "src").startswith("data:image/svg+xml")
    screenshot(page, "floor-report")


def test_a_round_shows_its_cards_on_a_click(floor: Floor, page: Any) -> None:
    tid = next(iter(floor.tables))
    rows = local_rows(floor.tables[tid].journal_path)
    number = next(r.round_id for r in rows if r.kind == "round_end")
    drawn = [
        r.payload["card"]
        for r in rows
        if r.round_id == number
        and r.kind == "device_event"
        and r.payload.get("type") == "CardDrawn"
    ]
    page.goto(floor.server.url)
    page.click(f'article.table[data-table="{tid}"]')
    page.click(f'#round-list li[data-round="{number}"]')
    page.wait_for_selector("#round-cards .card")
    shown = page.eval_on_selector_all(
        "#round-cards .card", "cards => cards.map(c => c.dataset.card)"
    )
    assert shown == drawn
    heads = page.eval_on_selector_all(
        "#round-view table.ledger th", "hs => hs.map(h => h.textContent)"
    )
    assert heads == ["box", "player", "result", "to the player"]
    lines = page.eval_on_selector_all(
        "#round-view table.ledger tr:not(:first-child)",
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))",
    )
    assert lines
    for line in lines:  # every column says something on every line
        assert len(line) == len(heads)
        assert all(cell.strip() for cell in line), line
        assert re.fullmatch(r"box \d( hand \d)?", line[0]), line
        assert re.fullmatch(r"[+-]?\$[\d,.]+( at \d+:\d+)?", line[3]), line
    head = page.inner_text("#round-head")
    assert re.fullmatch(rf"round {number} · \d\d:\d\d:\d\d-\d\d:\d\d:\d\d · .+", head), head
    bets = page.eval_on_selector_all(
        "#round-bets tr:not(:first-child)", "rows => rows.map(r => r.cells[0].textContent)"
    )
    assert bets
    times = page.eval_on_selector_all("#round-list li .time", "ts => ts.map(t => t.textContent)")
    assert times
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d", t) for t in times), times
    screenshot(page, "floor-round-cards")
    page.click("#close-detail")


def test_a_row_changed_in_postgresql_is_found_by_audit_and_alerts_the_page(
    floor: Floor, page: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = list(floor.tables)[1]
    with psycopg.connect(floor.cluster.conninfo("admin")) as db:
        # someone with the server's own rights, past the triggers
        db.execute("SET session_replication_role = replica")
        db.execute(
            "UPDATE croupier.journal_rows SET payload = replace(payload, '\"ann\"', '\"eve\"') "
            "WHERE table_id = %s AND seq = (SELECT min(seq) FROM croupier.journal_rows "
            "WHERE table_id = %s AND kind = 'ledger' AND payload LIKE '%%\"ann\"%%')",
            (tid, tid),
        )
        seq = db.execute(
            "SELECT seq FROM croupier.journal_rows WHERE table_id = %s AND payload LIKE "
            "'%%\"eve\"%%'",
            (tid,),
        ).fetchone()
    assert seq is not None
    status = main(["floor", "audit", "--config", str(floor.file), "--table", tid])
    out = capsys.readouterr().out
    assert status == 1
    assert f"row {seq[0]:,}: edited" in out
    page.goto(floor.server.url)
    page.wait_for_selector(f'#alert-list li[data-kind="chain"][data-table="{tid}"]')
    assert f"row {seq[0]:,}" in page.inner_text(
        f'#alert-list li[data-kind="chain"][data-table="{tid}"]'
    )
    screenshot(page, "floor-chain-alert")


def _send(url: str, data: bytes, headers: dict[str, str]) -> tuple[int, str]:
    """POST ``data``: the status and the body, whatever the status."""
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode()


def _post(url: str, body: dict[str, str]) -> tuple[int, str]:
    return _send(url, urlencode(body).encode(), {})


def _post_json(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    return _send(url, json.dumps(body).encode(), {"Content-Type": "application/json", **headers})


def test_wrong_passwords_lock_the_name_and_every_attempt_is_recorded(floor: Floor) -> None:
    before = _sockets()
    url = f"{floor.server.url}login"
    for _ in range(3):
        status, text = _post(url, {"name": "mallory", "password": "guess-guess"})
        assert status == 403
        assert "wrong name or password" in text
    status, text = _post(url, {"name": "mallory", "password": "guess-guess"})
    assert status == 403
    assert "locked" in text
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{floor.server.url}api/floor", timeout=10)
    refused.value.close()
    assert refused.value.code == 401
    log = floor.loaded.path(floor.loaded.config.access.attempts_log).read_text().splitlines()
    results = [json.loads(line)["result"] for line in log if '"mallory"' in line]
    assert results == ["wrong", "wrong", "wrong_then_locked", "locked"]
    assert all(PIT_PASSWORD not in line and "guess-guess" not in line for line in log)
    wait_until(lambda: _sockets() <= before, "the server closed its connections", timeout=5)


def test_the_sign_in_form_is_styled_and_a_wrong_password_keeps_the_name(
    browser: Any, floor: Floor
) -> None:
    for width, height in ((1024, 600), (1280, 800)):
        with browsing(browser, width, height) as page:
            page.goto(f"{floor.server.url}login")
            button = page.eval_on_selector(
                "button[type=submit]",
                "b => [getComputedStyle(b).backgroundColor, b.getBoundingClientRect().width]",
            )
            field = page.eval_on_selector(
                "input[name=name]",
                "i => [parseFloat(getComputedStyle(i).fontSize), i.getBoundingClientRect().width]",
            )
            assert button[0] == "rgb(255, 209, 102)"  # the page's own colours, not the browser's
            assert field[0] >= 16
            assert button[1] == field[1]  # the form lines up
            page.fill("input[name=name]", PIT)
            page.fill("input[name=password]", "not-the-password")
            page.click("button[type=submit]")
            page.wait_for_selector("#problem")
            assert "wrong name or password" in page.inner_text("#problem")
            assert page.input_value("input[name=name]") == PIT  # kept
            assert page.input_value("input[name=password]") == ""
            assert page.evaluate("document.activeElement.name") == "password"
            screenshot(page, f"floor-sign-in-wrong-{width}")
            page.fill("input[name=password]", PIT_PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_selector("#link.live")


def test_a_table_s_live_round_shows_on_the_floor_and_its_list_follows_it_to_the_end(
    floor: Floor, page: Any
) -> None:
    tid = table_id("inplay")
    loaded = table(floor.tmp, tid)
    card = f'article.table[data-table="{tid}"]'
    with (
        TableService(loaded, actors=demo(pace_s=0.15, seed=4)),
        Shipper(loaded.journal_path, tid, link(floor.cluster, tid, poll_ms=20)),
    ):
        page.wait_for_selector(f"{card} .hands .mini", timeout=30_000)
        number = int(page.get_attribute(f"{card} .hands", "data-round") or 0)
        shown = page.eval_on_selector_all(
            f"{card} .hands .mini", "ms => ms.map(m => m.dataset.card)"
        )
        drawn = [
            r.payload["card"]
            for r in local_rows(loaded.journal_path)
            if r.round_id == number and r.payload.get("type") == "CardDrawn"
        ]
        assert shown
        assert Counter(shown) <= Counter(drawn)  # the cards of the round in play, so far
        # a player's turn as the dealer's screen says it: cards as cards, the keys' names
        said = page.wait_for_function(
            """card => { const p = document.querySelector(card + ' .prompt');
                return p && p.querySelector('.mini') && p.textContent.startsWith('Box ')
                    ? p.textContent : null; }""",
            arg=card,
            timeout=30_000,
        ).json_value()
        assert re.search(r" - (HIT|STAND)", said), said
        assert not re.search(r"\b[2-9TJQKA][CDHS]\b|hit|stand|\(", said), said
        page.click(card)
        in_play = page.wait_for_selector("#round-list li.in-play", timeout=30_000)
        assert in_play is not None
        playing = int(in_play.get_attribute("data-round") or 0)
        page.click(f'#round-list li[data-round="{playing}"]')
        page.wait_for_selector(f'#round-list li[data-round="{playing}"].chosen')
        screenshot(page, "floor-round-in-play")
        # the round ends: its line and its view follow, without opening the table again
        settled = f'#round-list li[data-round="{playing}"]:not(.in-play)'
        page.wait_for_selector(settled, timeout=60_000)
        assert re.search(r"players [+-]?\$|void", page.inner_text(settled))
        page.wait_for_function(
            "n => (document.querySelector('#round-head') || {}).textContent"
            "?.startsWith('round ' + n + ' ') && !document.querySelector('#round-view .prompt')",
            arg=playing,
            timeout=10_000,
        )
        screenshot(page, "floor-round-settled")
        page.click("#close-detail")


def test_the_tables_fill_the_page_and_nothing_on_a_card_is_cut(browser: Any, floor: Floor) -> None:
    for width, height in ((1280, 800), (1024, 600)):
        with signed_in(browser, floor, width, height) as page:
            page.wait_for_selector("article.table")
            page.wait_for_function(
                "document.querySelector('#tables').style.getPropertyValue('--h')"
            )
            measured = page.evaluate(
                """() => {
                const main = document.querySelector('#tables').getBoundingClientRect();
                const cards = [...document.querySelectorAll('article.table')];
                let covered = 0;
                for (const c of cards) {
                    const r = c.getBoundingClientRect();
                    const w = Math.min(r.right, main.right) - Math.max(r.left, main.left);
                    const h = Math.min(r.bottom, main.bottom) - Math.max(r.top, main.top);
                    if (w > 0 && h > 0) covered += w * h;
                }
                const cut = cards.filter(c => c.scrollHeight > c.clientHeight + 1
                    || c.scrollWidth > c.clientWidth + 1).map(c => c.dataset.table);
                const halves = [...document.querySelectorAll('article.table .recent li')]
                    .filter(li => li.getBoundingClientRect().bottom
                        > li.parentElement.getBoundingClientRect().bottom + 1).length;
                return {covered: covered / (main.width * main.height), cut, halves,
                        cards: cards.length};
            }"""
            )
            screenshot(page, f"floor-page-{width}")
            assert measured["cards"] >= 2
            assert measured["covered"] > 0.8, measured  # not a strip of cards on an empty page
            assert measured["cut"] == [], measured
            assert measured["halves"] == 0, measured
            screenshot(page, f"floor-page-{width}")


def test_a_table_gone_silent_says_so_on_its_card_not_its_last_state(
    floor: Floor, page: Any
) -> None:
    """A table whose shipper stopped reporting is no longer 'dealing' in green: its card says
    it is silent (in the hold's red) and greys what it last showed."""
    page.wait_for_selector("article.table")
    shown = page.evaluate(
        """async () => {
            const t = (await (await fetch('/api/floor')).json()).tables[0];
            t.state = 'dealing';
            t.alerts = [{table_id: t.table_id, kind: 'silent', acked: null, since: '',
                since_time: '12:00:00', text: "no word from this table's shipper for 45 s"}];
            const node = tableNode(t);
            node.id = 'silent-card';
            document.body.append(node);
            const hands = node.querySelector('.foot .line');
            return {state: node.querySelector('.state').textContent,
                    red: node.querySelector('.state').classList.contains('hold'),
                    prompt: node.querySelector('.prompt').textContent,
                    shipping: [...node.querySelectorAll('.devices span')].map(s => s.textContent),
                    faded: Number(getComputedStyle(hands).opacity) < 0.6};
        }"""
    )
    assert shown["state"] == "silent"
    assert shown["red"]
    assert shown["prompt"] == (
        "No word from this table's shipper for 45 s: what the card shows may be out of date"
    )
    assert "shipping: no word" in shown["shipping"]
    assert not any(s.startswith("shipping connected") for s in shown["shipping"])
    assert shown["faded"]


def test_a_table_stopped_cleanly_says_stopped_on_its_card_not_its_last_state(
    floor: Floor, page: Any
) -> None:
    """A table whose last row is its clean stop is 'stopped', with no red and no stale
    instruction: it is not silent, it was closed."""
    page.wait_for_selector("article.table")
    shown = page.evaluate(
        """async () => {
            const t = (await (await fetch('/api/floor')).json()).tables[0];
            t.state = 'settling';
            t.stopped = true;
            t.alerts = [];
            const node = tableNode(t);
            document.body.append(node);
            return {state: node.querySelector('.state').textContent,
                    red: node.querySelector('.state').classList.contains('hold'),
                    prompt: node.querySelector('.prompt').textContent,
                    shipping: [...node.querySelectorAll('.devices span')].map(s => s.textContent)};
        }"""
    )
    assert shown["state"] == "stopped"
    assert not shown["red"]
    assert shown["prompt"].startswith("Stopped: the table was closed cleanly")
    assert "shipping: stopped with the table" in shown["shipping"]


def test_a_press_on_a_dealing_table_opens_it_though_its_card_is_drawn_anew_before_the_release(
    floor: Floor, page: Any
) -> None:
    """A dealing table's card is drawn anew several times a second: a press that goes down on
    one drawing and up on the next still opens the table (a click on the card itself was lost:
    the button went down on a card that was no longer there)."""
    page.wait_for_selector("article.table")
    tid = page.get_attribute("article.table", "data-table")
    card = f'article.table[data-table="{tid}"]'
    # (the card is drawn anew as rows come: between two drawings it has no box; take one)
    box = None
    for _ in range(50):
        box = page.locator(card).bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(100)
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("id => render([tables.get(id)])", tid)  # as a new row of the table does
    page.mouse.up()
    page.wait_for_selector("#detail:not([hidden])", timeout=5_000)
    assert page.inner_text("#detail-title").startswith(f"table {tid}:")
    page.click("#close-detail")
