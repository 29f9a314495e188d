"""``croupier emulate --variant V``: the emulated shoe holds V's decks and says so in its
identity reply (issue 13 point 6), through the real command and a real pty."""

from __future__ import annotations

import subprocess
import sys
import time

import serial

from drivers.tbl21.cards import DeckType
from drivers.tbl21.framing import Frame, FrameDecoder, encode
from drivers.tbl21.payloads import parse_identity

CROUPIER = [sys.executable, "-m", "controller.cli"]


def identity_of(path: str) -> str:
    with serial.serial_for_url(path, exclusive=True, timeout=0.1) as port:
        decoder = FrameDecoder()
        deadline = time.monotonic() + 10
        port.write(encode(Frame("H", 1, "I")))
        while time.monotonic() < deadline:
            for frame in decoder.feed(port.read(256)).frames:
                if frame.is_event:
                    port.write(encode(Frame("H", frame.seq, "A")))
                elif frame.kind == "i":
                    return frame.payload
    raise AssertionError("the shoe did not answer I within 10 s")


def test_emulate_with_a_variant_loads_the_shoe_with_its_decks_and_says_so() -> None:
    proc = subprocess.Popen(
        [*CROUPIER, "emulate", "--variant", "nz-pontoon", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdin is not None
        name, path = proc.stdout.readline().split()
        assert name == "shoe"
        identity = parse_identity(Frame("S", 1, "i", identity_of(path)))
        assert identity.deck_type is DeckType.SPANISH_48
        proc.stdin.write("s\n")
        proc.stdin.flush()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert "288" in out  # 6 Spanish decks of 48 cards in the shoe


def test_emulate_refuses_a_deck_that_contradicts_the_variant() -> None:
    done = subprocess.run(
        [*CROUPIER, "emulate", "--variant", "nz-pontoon", "--variant-deck", "52"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--variant-deck 52 contradicts --variant nz-pontoon" in done.stderr
    assert done.stdout == ""


def test_emulate_names_an_unknown_variant() -> None:
    done = subprocess.run(
        [*CROUPIER, "emulate", "--variant", "blackjack"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "blackjack" in done.stderr
    assert "Traceback" not in done.stderr
