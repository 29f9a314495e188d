"""``croupier emulate``: three devices on ptys, a dealer on stdin, a clean stop on SIGTERM."""

from __future__ import annotations

import argparse
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from drivers.tbl21.framing import Frame, FrameDecoder, encode
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.emulate import Console, register, run

START = "import sys; from sim_hardware.emulate import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def emulator() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", START, "--decks", "1", "--seed", "3", "--cut", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def test_emulate_prints_three_device_paths_serves_them_and_stops_on_sigterm(
    emulator: subprocess.Popen[str],
) -> None:
    assert emulator.stdout is not None
    assert emulator.stdin is not None
    lines = [emulator.stdout.readline().split() for _ in range(3)]
    assert [name for name, _ in lines] == ["shoe", "peek", "panel"]
    paths = dict(lines)
    assert all(path.startswith("/dev/pts/") for path in paths.values())

    with serial.serial_for_url(paths["shoe"], exclusive=True, timeout=0.1) as port:
        emulator.stdin.write("d\n")
        emulator.stdin.flush()
        line = emulator.stdout.readline()
        while line.startswith("> "):  # news of what changed on the devices
            line = emulator.stdout.readline()
        assert line == f"draw 1: {EmulatedShoe(decks=1, seed=3).cards_left[0]}, 51 left\n"
        decoder = FrameDecoder()
        frames: list[Frame] = []
        deadline = time.monotonic() + 10
        port.write(encode(Frame("H", 1, "Q")))
        while not any(f.kind == "c" for f in frames) and time.monotonic() < deadline:
            arrived = decoder.feed(port.read(256)).frames
            for event in (f for f in arrived if f.is_event):
                port.write(encode(Frame("H", event.seq, "A")))  # the power-up is ahead of it
            frames += arrived
        assert [f.payload[:7] for f in frames if f.kind == "c"][:1] == [
            f"{EmulatedShoe(decks=1, seed=3).cards_left[0]};0001"
        ]

    made = {p: os.stat(p).st_ctime_ns for p in paths.values()}  # when each pty was made
    emulator.send_signal(signal.SIGTERM)
    assert emulator.wait(timeout=10) == 0
    # Each pty is gone: its path no longer exists, or (tests run side by side) another
    # program's new pty took its number since, made later than it.
    assert not any(_same_pty(p, made[p]) for p in paths.values())


def test_a_bad_card_file_stops_emulate_with_the_card_and_its_position(tmp_path: Path) -> None:
    cards = tmp_path / "cards.txt"
    cards.write_text("AS KH\nQQ\n")
    done = subprocess.run(
        [sys.executable, "-c", START, "--cards", str(cards)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "cards.txt: card 3 'QQ'" in done.stderr
    assert done.stdout == ""


def test_emulate_registers_as_a_croupier_command() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["emulate", "--variant-deck", "48", "--decks", "2", "--cut", "9"])
    assert (args.variant_deck, args.decks, args.cut, args.handler) == ("48", 2, 9, run)


def test_seed_and_cards_cannot_both_be_given() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    with pytest.raises(SystemExit):
        parser.parse_args(["emulate", "--seed", "1", "--cards", "x.txt"])


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    return Console(shoe, EmulatedPeekReader(), EmulatedPanel(), out=out), out


def test_the_dealer_console_draws_inserts_presses_and_turns_the_key() -> None:
    con, out = console()
    for line in ["d 2", "i kh", "p HIT", "k SUP", "s"]:
        assert con.handle(line)
    text = out.getvalue()
    assert "draw 1: AS, 2 left" in text
    assert "draw 2: KH, 1 left" in text
    assert con.peek.hole_card is not None
    assert str(con.peek.hole_card) == "KH"
    assert con.panel.key == "SUP"
    assert [f.kind for f in con.panel.queued_events] == ["p", "b", "b", "y"]


@pytest.mark.parametrize(
    ("typed", "code", "said"),
    [
        ("STAND", "STD", "STAND pressed"),
        ("stand", "STD", "STAND pressed"),
        ("STD", "STD", "STAND pressed"),
        ("OK", "OK_", "OK pressed"),
        ("OK_", "OK_", "OK pressed"),
        ("INSURE", "INS", "INSURE pressed"),
        ("INSURANCE", "INS", "INSURE pressed"),
        ("BOX3", "B3_", "BOX 3 pressed"),
        ("box-3", "B3_", "BOX 3 pressed"),
        ("WAGER2", "W2_", "WAGER 2 pressed"),
        ("7", "D7_", "7 pressed"),
        ("D7_", "D7_", "7 pressed"),
    ],
)
def test_the_console_takes_a_key_by_the_word_the_screen_shows_or_its_code(
    typed: str, code: str, said: str
) -> None:
    """``p OK`` and ``p STAND`` were refused ("unknown button 'OK'; buttons are DEA INS ...")
    although the screen and the README name the keys so."""
    con, out = console()
    assert con.handle(f"p {typed}")
    assert f"{said}\n" in out.getvalue()
    assert [f.payload.split(";")[0] for f in con.panel.queued_events if f.kind == "b"] == [
        code,
        code,
    ]


def test_the_console_help_lists_the_keys_by_their_words() -> None:
    con, out = console()
    assert con.handle("help")
    assert "HIT STAND DOUBLE SPLIT" in out.getvalue()
    assert "BOX1-BOX7" in out.getvalue()


def test_the_dealer_console_explains_a_bad_command_and_quits_on_q() -> None:
    con, out = console()
    assert con.handle("p NOPE")
    assert con.handle("d x")
    assert con.handle("unplug table")
    assert not con.handle("q")
    said = out.getvalue()
    assert "! unknown button 'NOPE'" in said
    assert "! usage: d [N]" in said
    assert "! no device 'table'" in said


def test_lines_that_arrive_together_on_stdin_are_all_carried_out() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim_hardware.emulate", "--seed", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write("d\nd\nd\nq\n")  # one write, and stdin stays open
        proc.stdin.flush()
        proc.wait(timeout=20)  # q was read: it stops without more input or EOF
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert [line for line in out.splitlines() if line.startswith("draw ")] == [
        "draw 1: 9C, 311 left",
        "draw 2: 7S, 310 left",
        "draw 3: 5H, 309 left",
    ]


def _same_pty(path: str, made_ns: int) -> bool:
    try:
        return os.stat(path).st_ctime_ns == made_ns
    except FileNotFoundError:
        return False
