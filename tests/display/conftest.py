"""A running table with its display, and a real Chromium driven by Playwright.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``), never one Playwright downloads.
Screenshots go to ``artifacts/`` (gitignored) as test artifacts.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.display.web import DisplayServer
from controller.service.service import TableService
from controller.table.config import LoadedTable, table_from_mapping
from drivers.tbl21.cards import parse_cards
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from tests.live_pins import write_live_pepper

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_S = 10.0
VIEW_TOKEN = "pit-view-token-for-tests"
# hash_secret(VIEW_TOKEN) made once (scrypt is slow on purpose)
VIEW_TOKEN_HASH = (
    "scrypt$16384$8$1$AAECAwQFBgcICQoLDA0ODw==$fR7H4sqJInOWpd6c5IR9Y75NRWNMIRL5XQFIV2IyB38="
)


def table_config(variant: str = "nz-pontoon", **extra: Any) -> LoadedTable:
    folder = Path(tempfile.mkdtemp(prefix="croupier-test-"))
    data: dict[str, Any] = {
        "table_id": "t-test",
        "variant": variant,
        "boxes": [1, 2, 3],
        "display": {"port": 0},
        # every table of the tests keeps its own journal (a shared one would be recovered)
        "journal": {"path": str(folder / "j.sqlite3")},
        # the pepper of the tests' peppered PIN hashes (tests/live_pins.py)
        "access": {"pepper_path": str(write_live_pepper(folder / "live.pepper"))},
    }
    for key, value in extra.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    return table_from_mapping(data, "<test>", Path.cwd())


class Table:
    """The running table: the service, its display, and the dealer's hands on the devices."""

    def __init__(self, service: TableService, display: DisplayServer) -> None:
        self.service = service
        self.display = display

    @property
    def url(self) -> str:
        return self.display.url

    @property
    def shoe(self) -> EmulatedShoe:
        device = self.service.emulated["shoe"]
        assert isinstance(device, EmulatedShoe)
        return device

    @property
    def reader(self) -> EmulatedPeekReader:
        device = self.service.emulated["peek"]
        assert isinstance(device, EmulatedPeekReader)
        return device

    @property
    def panel(self) -> EmulatedPanel:
        device = self.service.emulated["panel"]
        assert isinstance(device, EmulatedPanel)
        return device

    def state(self) -> dict[str, Any]:
        return self.display.hub.state()

    def wait_for(self, check: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Poll the published state until ``check`` holds."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            state = self.state()
            if state and check(state):
                return state
            time.sleep(0.01)
        pytest.fail(f"the table did not reach: {what} (state {self.state().get('state')})")

    def draw(self) -> None:
        """Pull the next card; return once the table has taken it."""
        before = self.service.app.cards_handled if self.service.app else 0
        self.shoe.draw()
        deadline = time.monotonic() + WAIT_S
        while self.service.app is not None and self.service.app.cards_handled <= before:
            if time.monotonic() > deadline:
                pytest.fail("the card did not reach the table")
            time.sleep(0.005)

    def api_state_text(self, query: str = "") -> str:
        with urllib.request.urlopen(f"{self.url}api/state{query}", timeout=WAIT_S) as reply:
            return str(reply.read().decode())

    def api_state(self) -> dict[str, Any]:
        data = json.loads(self.api_state_text())
        assert isinstance(data, dict)
        return data


@contextmanager
def running_table(
    loaded: LoadedTable, cards: str | None = None, *, cut: int | None = None, **service_args: Any
) -> Iterator[Table]:
    """The table on ``cards`` (top first; the cut card after ``cut`` cards), with its display."""
    if cards is not None:
        listed = ",".join(str(c) for c in parse_cards(cards))
        shoe = f"sim://shoe?cards={listed}" + ("" if cut is None else f"&cut={cut}")
        devices = loaded.config.devices.model_copy(update={"shoe": shoe})
        config = loaded.config.model_copy(update={"devices": devices})
        loaded = LoadedTable(config, loaded.rules, loaded.source, loaded.base)
    service = TableService(loaded, **service_args)
    display = DisplayServer(service, loaded.config.display)
    try:
        service.start()
        display.start()
        assert display.wait_started(), "the display did not start"
        yield Table(service, display)
    finally:
        display.close()
        service.close()
    assert service.errors == []


DOCS = Path(__file__).resolve().parents[2] / "docs"
# CROUPIER_DOC_SCREENSHOTS=1 pytest tests/display: the README's screenshots are written anew
DOC_SCREENSHOTS = os.environ.get("CROUPIER_DOC_SCREENSHOTS") == "1"


def screenshot(page: Any, name: str, doc: str | None = None) -> None:
    """artifacts/NAME.png; with ``doc`` (and CROUPIER_DOC_SCREENSHOTS=1), docs/DOC.png too."""
    ARTIFACTS.mkdir(exist_ok=True)
    # Bytes, written here: Playwright writes a path through its event loop's thread pool,
    # whose threads would outlive the test.
    image = page.screenshot(full_page=True)
    (ARTIFACTS / f"{name}.png").write_bytes(image)
    if doc is not None and DOC_SCREENSHOTS:
        (DOCS / f"{doc}.png").write_bytes(image)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (the system browser, never a download). Not per
    session: Playwright keeps a thread while it runs, and later tests may need to fork."""
    if not CHROMIUM.exists():
        pytest.fail("browser tests need Debian's chromium: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_S * 1000)
    try:
        yield context.new_page()
    finally:
        context.close()


SIZES = ((1024, 600), (1280, 800))  # the dealer's screens: the smallest kiosk and the usual


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[list[Any]]:
    """One page of each of the SIZES, for the module (tables come and go under them)."""
    contexts = [
        browser.new_context(viewport={"width": w, "height": h}, bypass_csp=True) for w, h in SIZES
    ]
    try:
        out = []
        for context in contexts:
            context.set_default_timeout(WAIT_S * 1000)
            out.append(context.new_page())
        yield out
    finally:
        for context in contexts:
            context.close()
