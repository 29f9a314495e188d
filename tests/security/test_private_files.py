"""What ``croupier run`` leaves on disk is croupier's alone, the debug log never holds the hole
card while it is face down, and a table file with a secret that others may read is refused."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from controller.cli.main import main
from controller.table.config import DEFAULT_CONFIG, hash_secret
from drivers.tbl21.cards import Card, Suit
from tests.faults.harness import croupier_command

WAIT_S = 60.0
DEMO_ROUND = ("--demo", "--pace", "0", "--port", "0", "--rounds", "1")


def _modes(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` (itself excluded) with its permission bits."""
    return {
        str(path.relative_to(folder)): f"{stat.S_IMODE(path.lstat().st_mode):04o}"
        for path in sorted(folder.rglob("*"))
    }


def test_every_file_and_folder_croupier_run_creates_is_its_own_alone(tmp_path: Path) -> None:
    # (the shipped table file, which holds no secret, may be read by anyone: it runs)
    assert stat.S_IMODE(DEFAULT_CONFIG.stat().st_mode) & 0o044
    old = os.umask(0o022)  # the ordinary umask: croupier must not rely on the caller's
    try:
        done = subprocess.run(
            [*croupier_command(), "run", "--demo", "--pace", "0", "--port", "0", "--rounds", "1"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            check=False,
        )
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stderr
    modes = _modes(tmp_path)
    assert {"var", "var/log", "var/log/audit.jsonl", "var/log/debug.log"} <= set(modes)
    assert any(name.startswith("var/journal.sqlite3") for name in modes)
    wrong = {
        name: mode
        for name, mode in modes.items()
        if mode != ("0700" if (tmp_path / name).is_dir() else "0600")
    }
    assert wrong == {}


def test_logs_that_exist_readable_by_others_are_made_croupiers_alone(tmp_path: Path) -> None:
    logs = tmp_path / "var" / "log"
    logs.mkdir(parents=True)
    for name in ("audit.jsonl", "debug.log"):
        (logs / name).write_text("")
        (logs / name).chmod(0o644)  # as an older croupier left them
    done = subprocess.run(
        [*croupier_command(), "run", "--demo", "--pace", "0", "--port", "0", "--rounds", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert _modes(logs) == {"audit.jsonl": "0600", "debug.log": "0600"}


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}api/state", timeout=WAIT_S) as reply:
        data = json.loads(reply.read())
    assert isinstance(data, dict)
    return data


def _card_frame_start(card: Card) -> str:
    """How a shoe's card event for ``card`` starts its payload in the wire log's hex."""
    rank, suit = card.rank.value, card.suit.value
    return f"63 {ord(rank):02x} {ord(suit):02x} 3b"


def test_the_debug_log_does_not_hold_the_hole_card_while_it_is_face_down(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            [
                *croupier_command(),
                "run",
                "--demo",
                "--pace",
                "0.3",
                "--port",
                "0",
                "--rounds",
                "1",
                "--variant",
                "pa-blackjack",
            ],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + WAIT_S
            while not any(line.startswith("display: ") for line in out.read_text().splitlines()):
                assert proc.poll() is None, out.read_text()
                assert time.monotonic() < deadline, out.read_text()
                time.sleep(0.05)
            (url,) = [
                line.split(" ", 1)[1]
                for line in out.read_text().splitlines()
                if line.startswith("display: ")
            ]
            while (state := _state(url))["dealer"]["face_down"] == 0:
                assert time.monotonic() < deadline, state
                time.sleep(0.02)
            debug_log = tmp_path / "var" / "log" / "debug.log"
            face_down = debug_log.read_text()  # the round is open, the hole card face down
            assert _state(url)["dealer"]["face_down"] == 1
            assert proc.wait(WAIT_S) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    (over,) = [line for line in out.read_text().splitlines() if line.startswith("round 1 over")]
    hole = _said(over.split("dealer ", 1)[1].split()[1])  # PA: the dealer's second card
    cards = face_down.count("[croupier.wire] hex='02 13 01 53")
    assert cards >= 3, "the shoe's card events are not in the wire log"
    assert _card_frame_start(hole) not in face_down
    assert str(hole) not in face_down
    assert "63 ** ** 3b" in face_down  # the card events are there, their cards masked


@pytest.fixture
def keep_logging() -> Iterator[None]:
    """``croupier run`` points structlog at this test's captured stderr: put it back."""
    saved = structlog.get_config()
    yield
    structlog.reset_defaults()
    structlog.configure(**saved)


@pytest.mark.usefixtures("keep_logging")
def test_a_table_file_with_a_pin_hash_that_others_may_read_is_refused_with_the_chmod_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    table.write_text(f'[display]\nport = 0\n[supervisor]\npin_hash = "{hash_secret("73915084")}"\n')
    for mode in (0o644, 0o640, 0o620, 0o604):
        table.chmod(mode)
        assert main(["run", "--config", str(table)]) == 2
        err = capsys.readouterr().err
        assert f"croupier run: {table}: 1 problem:" in err
        assert (
            f"holds the supervisor's PIN hash and may be read or written by other users (mode "
            f"{mode:04o}): make it readable by croupier alone with `chmod 600 {table}`"
        ) in err
    assert not (tmp_path / "var").exists()  # refused before anything was written


@pytest.mark.usefixtures("keep_logging")
def test_a_view_token_hash_counts_as_a_secret_and_names_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    table.write_text(f'[display]\nview_token_hash = "{hash_secret("a-view-token")}"\n')
    table.chmod(0o644)
    assert main(["doctor", "--config", str(table)]) == 2
    assert "holds the pit's view token hash and may be read" in capsys.readouterr().err


@pytest.mark.usefixtures("keep_logging")
def test_a_table_file_any_user_may_write_is_refused_even_without_a_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    table.write_text("[display]\nport = 0\n")
    table.chmod(0o666)
    assert main(["run", "--config", str(table)]) == 2
    assert (
        "may be written by any user (mode 0666): anyone could change the table's settings or "
        f"add a PIN of their own; `chmod 600 {table}`"
    ) in capsys.readouterr().err


def test_a_table_file_with_a_pin_hash_of_croupiers_alone_runs(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text(f'[supervisor]\npin_hash = "{hash_secret("73915084")}"\n')
    table.chmod(0o600)
    done = subprocess.run(
        [*croupier_command(), "run", "--config", str(table), *DEMO_ROUND],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_wire_cards_option_shows_the_cards_in_the_debug_log_and_says_so_at_start(
    tmp_path: Path,
) -> None:
    table = tmp_path / "table.toml"
    table.write_text("[logs]\nwire_cards = true\n")
    done = subprocess.run(
        [*croupier_command(), "run", "--config", str(table), *DEMO_ROUND],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "warning: the debug log shows every card read, the hole card before it is turned over "
        "(logs.wire_cards = true in the table file): a bench, never a table"
    ) in done.stdout.splitlines()
    debug = (tmp_path / "var" / "log" / "debug.log").read_text()
    assert "63 ** **" not in debug
    (over,) = [line for line in done.stdout.splitlines() if line.startswith("round 1 over")]
    first_dealer_card = _said(over.split("dealer ", 1)[1].split()[0])
    assert _card_frame_start(first_dealer_card) in debug


def _said(word: str) -> Card:
    """A card as the terminal says it ('10♦', 'Q♣'): its rank and its suit's symbol."""
    symbols = {suit.symbol: suit.value for suit in Suit}
    rank = "T" if word[:-1] == "10" else word[:-1]
    return Card.parse(rank + symbols[word[-1]])
