"""``croupier run``: the table with its display, as a separate process."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
import structlog
from websockets.sync.client import connect

from controller.cli.main import main
from controller.cli.run import _pit_view, round_line
from controller.journal.store import Journal
from controller.service.service import OWNER_SWITCH_INTERVAL_S
from controller.table.config import Display
from tests.live_pins import live_pin_sections

WAIT_S = 30.0
CROUPIER = [sys.executable, "-m", "controller.cli"]


class Lines:
    """The lines a child process prints, read on a thread (joined when the pipe closes)."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, prefix: str, timeout: float = WAIT_S) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        pytest.fail(f"no line starting {prefix!r}; the process printed: {self.seen}")

    def rest(self) -> list[str]:
        self._thread.join(WAIT_S)
        while True:
            line = self._queue.get_nowait() if not self._queue.empty() else None
            if line is None:
                return self.seen
            self.seen.append(line)


@contextmanager
def croupier(*args: str, cwd: Path) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    """``croupier ARGS`` in ``cwd`` (where its relative journal and log paths land)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        [*CROUPIER, *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        lines = Lines(proc.stdout)
        try:
            yield proc, lines
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=WAIT_S)
            lines.rest()


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}api/state", timeout=WAIT_S) as reply:
        data = json.loads(reply.read())
    assert isinstance(data, dict)
    return data


def _poll(url: str, check: Any, what: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = _state(url)
        if check(state):
            return state
        time.sleep(0.05)
    pytest.fail(f"the table did not reach {what}: {state.get('state')} {state.get('prompt')}")


def test_run_demo_plays_rounds_unattended_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    with croupier("run", "--demo", "--pace", "0.02", "--port", "0", cwd=tmp_path) as (
        proc,
        lines,
    ):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        assert url.startswith("http://127.0.0.1:")
        # the demo's pit page works as printed: a token of its own, new each start
        pit = lines.wait_for("pit view: ").split(" ")[2]
        assert pit.startswith(f"{url}view?token=")
        with urllib.request.urlopen(pit.replace("view?", "api/state?"), timeout=WAIT_S) as seen:
            assert json.loads(seen.read())["table"]["id"] == "table-1"
        for n in (1, 2, 3):
            assert lines.wait_for(f"round {n} over: dealer ")
        state = _state(url)
        assert state["rounds_completed"] >= 3
        assert state["demo"] is True
        assert [d["status"] for d in state["devices"]] == ["connected"] * 3
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT_S) == 0
        assert lines.wait_for("stopped cleanly") == (
            "stopped cleanly: display closed, devices released"
        )
    audit = (tmp_path / "var" / "log" / "audit.jsonl").read_text().splitlines()
    assert any('"table_id": "table-1"' in line and '"round_id": 3' in line for line in audit)
    assert _stop_reasons(tmp_path) == ["the table was stopped (SIGTERM)"]


def _stop_reasons(folder: Path) -> list[str]:
    """The reasons of the clean stops journalled in ``folder``'s default journal."""
    with Journal.open(folder / "var" / "journal.sqlite3", readonly=True) as journal:
        return [str(r.payload["reason"]) for r in journal.iter_rows(kinds=["stop"])]


def test_run_journals_that_it_stopped_after_the_rounds_it_was_asked_for(tmp_path: Path) -> None:
    with croupier(
        "run", "--demo", "--pace", "0.02", "--port", "0", "--rounds", "1", cwd=tmp_path
    ) as (
        proc,
        lines,
    ):
        assert lines.wait_for("round 1 over: dealer ")
        assert proc.wait(WAIT_S) == 0
    assert _stop_reasons(tmp_path) == ["the table was stopped (--rounds 1 done)"]


@pytest.fixture
def keep_logging() -> Iterator[None]:
    """``croupier run`` points structlog at this test's captured stderr: put it back."""
    saved = structlog.get_config()
    yield
    structlog.reset_defaults()
    structlog.configure(**saved)


@pytest.mark.usefixtures("keep_logging")
def test_run_refuses_a_bad_table_file_with_the_key_and_what_is_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[display]\nport = 'eighty'\n")
    assert main(["run", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err
    assert 'display.port = "eighty": must be a whole number from 0 to 65535' in err
    good = tmp_path / "ptys.toml"
    good.write_text("[devices]\nshoe = '/dev/pts/99'\n")
    assert main(["run", "--config", str(good), "--demo"]) == 2
    assert "--demo needs the emulated devices" in capsys.readouterr().err


def test_run_with_a_table_file_plays_the_ptys_of_croupier_emulate_in_another_process(
    tmp_path: Path,
) -> None:
    with croupier("emulate", "--seed", "3", "--variant-deck", "48", cwd=tmp_path) as (
        emulator,
        devices,
    ):
        ptys = dict(devices.wait_for(name).split(" ") for name in ("shoe", "peek", "panel"))
        config = tmp_path / "table.toml"
        config.write_text(
            'table_id = "pty-table"\nboxes = [1, 2]\n[display]\nport = 0\n[devices]\n'
            + "".join(f'{role} = "{path}"\n' for role, path in ptys.items())
            + live_pin_sections(tmp_path)
        )
        config.chmod(0o600)
        assert emulator.stdin is not None

        def dealer(command: str) -> None:
            assert emulator.stdin is not None
            emulator.stdin.write(command + "\n")
            emulator.stdin.flush()

        with croupier("run", "--config", str(config), cwd=tmp_path) as (run, lines):
            url = lines.wait_for("display: ").split(" ", 1)[1]
            state = _poll(
                url,
                lambda s: [d["status"] for d in s["devices"]] == ["connected"] * 3,
                "three connected devices",
            )
            assert state["table"]["id"] == "pty-table"
            assert state["prompt"]["text"] == "Burn 1 card from the new shoe."
            dealer("d")  # the burn card, pulled from the other process's shoe
            _poll(url, lambda s: s["state"] == "betting", "bets open")

            with connect(url.replace("http", "ws") + "ws", open_timeout=WAIT_S) as ws:
                ws.send('{"type": "bet", "box": 2, "player": "bob", "amount_cents": 2000}')
                _poll(url, lambda s: s["boxes"][1]["wagers"] != [], "the bet on box 2")
            dealer("p DEA")  # the dealer's panel, in the other process
            _poll(url, lambda s: s["state"] == "dealing", "the deal")
            dealer("d 3")
            state = _poll(url, lambda s: s["state"] != "dealing", "the end of the deal")
            assert len(state["boxes"][1]["hands"][0]["cards"]) == 2
            assert len(state["dealer"]["cards"]) == 1

            run.send_signal(signal.SIGTERM)
            assert run.wait(WAIT_S) == 0
            assert lines.wait_for("stopped cleanly")
        emulator.send_signal(signal.SIGTERM)
        assert emulator.wait(WAIT_S) == 0


def test_run_without_demo_takes_the_dealers_hands_on_stdin_and_quits_on_q(tmp_path: Path) -> None:
    with croupier("run", "--port", "0", cwd=tmp_path) as (run, lines):
        url = lines.wait_for("display: ").split(" ", 1)[1]
        assert lines.wait_for("the devices are emulated in this process")
        assert _state(url)["prompt"]["text"] == "Burn 1 card from the new shoe."
        assert run.stdin is not None
        run.stdin.write("d\n")  # the burn card out of the in-process emulated shoe
        run.stdin.flush()
        assert lines.wait_for("draw 1: ")
        _poll(url, lambda s: s["state"] == "betting", "bets open")
        run.stdin.write("q\n")
        run.stdin.flush()
        assert run.wait(WAIT_S) == 0
        assert lines.wait_for("stopped cleanly")
    assert _stop_reasons(tmp_path) == ["the table was stopped (q typed at the console)"]


def test_the_start_banner_says_whether_the_pit_view_is_on() -> None:
    off = Display(port=0)
    on = off.model_copy(update={"view_token_hash": "scrypt$16384$8$1$c2FsdA==$aGFzaA=="})
    assert _pit_view(off, "http://127.0.0.1:8021/").startswith("off (no view token")
    assert _pit_view(on, "http://127.0.0.1:8021/") == (
        "on at http://127.0.0.1:8021/view?token=... (the table's view token)"
    )


def test_a_table_process_takes_the_gil_back_within_a_millisecond(tmp_path: Path) -> None:
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        bad = tmp_path / "bad.toml"
        bad.write_text("boxes = 3\n")
        assert main(["run", "--config", str(bad)]) == 2
        assert sys.getswitchinterval() == OWNER_SWITCH_INTERVAL_S == 0.001
    finally:
        sys.setswitchinterval(before)


def test_a_finished_round_is_printed_in_words_whose_money_and_the_cards_as_read() -> None:
    summary = {
        "round": 4,
        "dealer": ["TD", "7S"],
        "dealer_total": "17",
        "net": [
            {"player": "ann", "cents": 1000, "text": "$10"},
            {"player": "bob", "cents": -550, "text": "-$5.50"},
            {"player": "cat", "cents": 0, "text": "$0"},
        ],
        "void": False,
    }
    assert round_line(summary) == (
        "round 4 over: dealer 10♦ 7♠ (17); ann won $10, bob lost $5.50, cat broke even"
    )
