"""A screen that has lost its table says so: ``croupier run --demo`` in a process of its own,
its dealer page and pit page in Chromium, then the process killed (a crash, a power cut) or
stopped (hung, its sockets still open).

Before, the prompt bar kept its last instruction at full size and the device chips stayed green;
only a small "screen offline" chip changed.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.cli.test_run import croupier
from tests.display.conftest import VIEW_TOKEN, VIEW_TOKEN_HASH, screenshot
from tests.display.test_screen import CHECKS

CLIPPED = f"() => {CHECKS}.clipped()"

LOST = "This screen has lost the table: do not go on; call a supervisor"
# the server's heartbeat is 2 s; the page gives up after 2.5 of them
LOST_WITHIN_MS = 8_000


def _demo_table(folder: Path) -> Path:
    config = folder / "table.toml"
    config.write_text(
        f'table_id = "table-lost"\nvariant = "nz-pontoon"\n'
        f'[display]\nport = 0\nview_token_hash = "{VIEW_TOKEN_HASH}"\n'
    )
    os.chmod(config, 0o600)
    return config


def _live_prompt(page: Any) -> str:
    page.wait_for_function(
        "() => !document.body.classList.contains('table-lost')"
        " && document.querySelector('#prompt').textContent.length > 0"
        " && !document.querySelector('#prompt').textContent.startsWith('Connecting')"
    )
    text: str = page.locator("#prompt").inner_text()
    return text


def _grey(page: Any, selector: str) -> float:
    opacity: str = page.eval_on_selector(selector, "n => getComputedStyle(n).opacity")
    return float(opacity)


@contextmanager
def _demo_and_browser(
    browser: Any, folder: Path, pace: str = "0.3"
) -> Iterator[tuple[Any, str, Any]]:
    """``croupier run --demo`` in its own process and a 1024x600 browser context on it."""
    config = _demo_table(folder)
    with croupier("run", "--demo", "--pace", pace, "--config", str(config), cwd=folder) as (
        proc,
        lines,
    ):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        context = browser.new_context(viewport={"width": 1024, "height": 600})
        context.set_default_timeout(30_000)
        try:
            yield proc, url, context
        finally:
            context.close()


def test_a_killed_table_turns_its_dealer_and_pit_pages_red_and_grey(
    browser: Any, tmp_path: Path
) -> None:
    with _demo_and_browser(browser, tmp_path, pace="0.05") as (proc, url, context):
        dealer = context.new_page()
        dealer.goto(url)
        pit = context.new_page()
        pit.goto(f"{url}view?token={VIEW_TOKEN}")
        live = _live_prompt(dealer)
        assert LOST not in live
        pit.wait_for_function("() => document.querySelector('#link').textContent === 'live'")
        # the pit's last rounds fill their panel (one more would not fit)...
        pit.wait_for_function(
            """() => { const rows = document.getElementById("history-rows");
                if (rows.children.length < 2) return false;
                const extra = rows.lastElementChild.cloneNode(true);
                rows.appendChild(extra);
                const panel = document.getElementById("history");
                const full = panel.scrollHeight > panel.clientHeight;
                extra.remove();
                return full; }"""
        )
        assert pit.locator("#pit-lost").is_hidden()
        assert _grey(dealer, "#table-area") == 1.0

        proc.send_signal(signal.SIGKILL)
        proc.wait(30)

        dealer.wait_for_function(
            f"() => document.querySelector('#prompt').textContent === {LOST!r}",
            timeout=LOST_WITHIN_MS,
        )
        assert dealer.locator("#prompt-bar").get_attribute("class") == "lost"
        assert "not live" in dealer.locator("#prompt-detail").inner_text()
        # the round, the money and the devices are stale: greyed, and no key can be pressed
        for stale in ("#table-area", "#keys"):
            assert _grey(dealer, stale) < 0.5, stale
        assert dealer.locator("button.key:enabled").count() == 0
        assert dealer.locator("#link").inner_text() == "screen offline"
        screenshot(dealer, "lost-table-dealer-1024x600")

        pit.wait_for_function(
            "() => !document.querySelector('#pit-lost').hidden", timeout=LOST_WITHIN_MS
        )
        assert "lost the table" in pit.locator("#pit-lost").inner_text()
        assert _grey(pit, "#pit-now") < 0.5
        # ... and the warning, taking room at the top, leaves none of them cut at the bottom
        assert pit.evaluate(CLIPPED) == []
        screenshot(pit, "lost-table-pit-1024x600")


def test_a_hung_table_whose_socket_stays_open_is_lost_after_its_heartbeat_and_found_again(
    browser: Any, tmp_path: Path
) -> None:
    with _demo_and_browser(browser, tmp_path) as (proc, url, context):
        dealer = context.new_page()
        dealer.goto(url)
        _live_prompt(dealer)
        proc.send_signal(signal.SIGSTOP)  # hung: the kernel keeps its sockets open
        try:
            dealer.wait_for_function(
                f"() => document.querySelector('#prompt').textContent === {LOST!r}",
                timeout=LOST_WITHIN_MS,
            )
            assert _grey(dealer, "#table-area") < 0.5
        finally:
            proc.send_signal(signal.SIGCONT)
        # back: the page is live again without a reload
        assert LOST not in _live_prompt(dealer)
        assert _grey(dealer, "#table-area") == 1.0
