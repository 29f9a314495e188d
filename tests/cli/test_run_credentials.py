"""``croupier run`` and the roles' PINs: a table that can hold can be released. The shipped
example and ``--demo`` start with demo PINs they print; a live table file without PINs of its
own (or with the demo's) is refused with the command to make them (the real command, as a
separate process)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from controller.cli.main import main
from controller.cli.run import EXIT_USAGE
from controller.table.config import DEMO_PINS, hash_secret
from tests.cli.test_run import CROUPIER, WAIT_S, _poll, croupier
from tests.live_pins import LIVE_PEPPER, write_live_pepper

DEMO_LINE = "demo supervisor PIN 246810, technician PIN 135791 - a demo's, refused by a live table"


def _ask(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps({**message, "id": 9}))
    while True:
        answer = json.loads(ws.recv(timeout=WAIT_S))
        if answer.get("id") == 9:
            assert isinstance(answer, dict)
            return answer


def test_a_stray_card_at_the_shipped_table_is_released_with_the_printed_demo_pin(
    tmp_path: Path,
) -> None:
    with croupier("run", "--port", "0", cwd=tmp_path) as (run, lines):
        assert lines.wait_for("demo supervisor PIN").startswith(DEMO_LINE)
        url = lines.wait_for("display: ").split(" ", 1)[1]
        assert run.stdin is not None

        def dealer(command: str) -> None:
            assert run.stdin is not None
            run.stdin.write(command + "\n")
            run.stdin.flush()

        dealer("d")  # the burn card
        _poll(url, lambda s: s["state"] == "betting", "bets open")
        with connect(url.replace("http", "ws") + "ws", open_timeout=WAIT_S) as ws:
            assert _ask(ws, {"type": "bet", "box": 2, "player": "bob", "amount_cents": 2000})[
                "accepted"
            ]
            dealer("p DEA")
            _poll(url, lambda s: s["state"] == "dealing", "the deal")
            dealer("d 3")
            _poll(url, lambda s: s["state"] not in ("dealing",), "the players' turns")
            dealer("d")  # a card nobody asked for
            held = _poll(url, lambda s: s["holding"], "the hold")
            assert held["holds"], held
            dealer("k SUP")
            _poll(url, lambda s: s["access"]["pin_pad"], "the PIN pad")
            signed = _ask(ws, {"type": "pin", "pin": DEMO_PINS["supervisor"]})
            assert signed["accepted"] is True, signed
            burnt = _ask(ws, {"type": "supervisor", "decision": "burn"})
            assert burnt["accepted"] is True, burnt
            _poll(url, lambda s: not s["holding"], "the table released")
        dealer("q")
        assert run.wait(WAIT_S) == 0


def _live_file(tmp_path: Path, extra: str = "") -> Path:
    config = tmp_path / "table.toml"
    config.write_text('table_id = "live-1"\n[display]\nport = 0\n' + extra)
    config.chmod(0o600)
    return config


def _start(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CROUPIER, "run", "--config", str(config), *args],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_live_table_file_without_pins_is_refused_with_the_commands_to_make_them(
    tmp_path: Path,
) -> None:
    config = _live_file(tmp_path)
    done = _start(config)
    assert done.returncode == EXIT_USAGE
    assert "Traceback" not in done.stderr
    assert "no supervisor and no technician PIN" in done.stderr
    assert (
        f"`croupier passwd --pin supervisor --config {config}` and "
        f"`croupier passwd --pin technician --config {config}`"
    ) in done.stderr
    assert "display: " not in done.stdout
    assert not (tmp_path / "var" / "journal.sqlite3").exists(), "a refused start writes nothing"


def test_a_live_table_file_with_the_demo_pins_is_refused(tmp_path: Path) -> None:
    config = _live_file(
        tmp_path,
        f'[supervisor]\npin_hash = "{hash_secret(DEMO_PINS["supervisor"], pepper=LIVE_PEPPER)}"\n'
        f'[technician]\npin_hash = "{hash_secret("80246135", pepper=LIVE_PEPPER)}"\n'
        f'[access]\npepper_path = "{write_live_pepper(tmp_path / "live.pepper")}"\n',
    )
    done = _start(config)
    assert done.returncode == EXIT_USAGE
    assert "[supervisor] pin_hash is the demo supervisor PIN" in done.stderr
    assert "technician PIN" not in done.stderr.split("demo supervisor PIN", 1)[1]


def test_the_same_file_with_demo_starts_and_prints_the_demo_pins(tmp_path: Path) -> None:
    done = _start(_live_file(tmp_path), "--demo", "--pace", "0", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    assert DEMO_LINE in done.stdout


def test_passwd_refuses_a_demo_pin(monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(DEMO_PINS["technician"] + "\n"))
    assert main(["passwd", "--pin", "technician"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert "is a demo PIN" in captured.err
    assert "pin_hash" not in captured.out
