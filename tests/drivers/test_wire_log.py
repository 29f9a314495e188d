"""The wire log shows the bytes of every frame but the cards: the shoe's card events and the
hole-card reader's answers have their card field and CRC masked, however the reads split them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal.logs import configure_logging
from drivers.transport import SerialTransport, WireMask, show_wire_cards
from tests.test_framing_vectors import VECTORS

CARD = VECTORS[0][0]  # the shoe's card event: A of spades, draw 42, 371 left, quality 97
CARD_MASKED = "02 13 01 53 07 63 ** ** 3b 30 30 34 32 3b 30 33 37 31 3b 39 37 ** ** 03"
PEEK = VECTORS[4][0]  # the hole-card reader's answer: no blackjack, quality 99
PEEK_MASKED = "02 08 01 50 11 6b ** 3b 39 39 ** ** 03"


@pytest.fixture(autouse=True)
def cards_masked() -> Iterator[None]:
    show_wire_cards(False)
    yield
    show_wire_cards(False)


def _shown(*reads: bytes) -> str:
    mask = WireMask()
    return " ".join(part for part in (mask.hex(r) for r in reads) if part)


def test_a_card_event_shows_its_header_draw_number_and_quality_but_not_its_card_or_crc() -> None:
    assert _shown(bytes.fromhex(CARD)) == CARD_MASKED


def test_a_peek_answer_hides_whether_the_dealer_has_blackjack() -> None:
    assert _shown(bytes.fromhex(PEEK)) == PEEK_MASKED


@pytest.mark.parametrize(("vector", "_frame"), [v for v in VECTORS if v[1].kind not in "ck"])
def test_every_other_protocol_vector_is_logged_as_it_is(vector: str, _frame: object) -> None:
    assert _shown(bytes.fromhex(vector)) == vector.lower()


def test_a_card_event_split_across_reads_anywhere_is_masked_the_same() -> None:
    raw = bytes.fromhex(CARD)
    for cut in range(len(raw) + 1):
        assert _shown(raw[:cut], raw[cut:]) == CARD_MASKED, cut
    assert _shown(*(raw[i : i + 1] for i in range(len(raw)))) == CARD_MASKED


def test_frames_back_to_back_after_garbage_are_each_masked() -> None:
    raw = bytes.fromhex("02 ff 7e") + bytes.fromhex(CARD) + bytes.fromhex(PEEK)
    raw += bytes.fromhex(VECTORS[1][0]) + bytes.fromhex(CARD)
    expected = f"02 ff 7e {CARD_MASKED} {PEEK_MASKED} {VECTORS[1][0].lower()} {CARD_MASKED}"
    assert _shown(raw) == expected
    assert _shown(raw[:30], raw[30:31], raw[31:47], raw[47:]) == expected


def test_the_documented_option_shows_the_cards() -> None:
    show_wire_cards(True)
    assert _shown(bytes.fromhex(CARD)) == CARD.lower()


def test_a_card_through_a_port_reaches_the_debug_log_masked(tmp_path: Path) -> None:
    debug = tmp_path / "debug.log"
    configure_logging(console=False, level="INFO", debug_path=debug)
    port = SerialTransport("loop://")
    port.open()
    try:
        port.write(bytes.fromhex(CARD))  # loop:// hears what it sends: tx, then rx
        received = b""
        while len(received) < len(bytes.fromhex(CARD)):
            received += port.read(0.5)
    finally:
        port.close()
    text = debug.read_text()
    assert text.count(f"hex='{CARD_MASKED}'") == 2, text
    assert CARD.lower() not in text
