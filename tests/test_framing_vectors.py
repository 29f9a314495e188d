"""Every test vector of protocol.md decodes to its documented fields and re-encodes exactly."""

import pytest

from drivers.tbl21.framing import Frame, crc16_kermit, decode, encode

VECTORS = [
    (
        "02 13 01 53 07 63 41 53 3B 30 30 34 32 3B 30 33 37 31 3B 39 37 1B F4 03",
        Frame("S", 0x07, "c", "AS;0042;0371;97"),
    ),
    ("02 04 01 48 07 41 9A EF 03", Frame("H", 0x07, "A")),
    ("02 04 01 48 2A 51 50 6C 03", Frame("H", 0x2A, "Q")),
    (
        "02 20 01 53 2A 73 52 45 41 44 59 3B 30 30 32 33 3B 30 30 3B 30 30 3B 30 30 34 32 3B "
        "30 33 37 31 3B 55 69 20 03",
        Frame("S", 0x2A, "s", "READY;0023;00;00;0042;0371;U"),
    ),
    ("02 08 01 50 11 6B 4E 3B 39 39 7B F6 03", Frame("P", 0x11, "k", "N;99")),
    (
        "02 0E 01 42 05 62 49 4E 53 3B 50 3B 30 30 30 30 83 58 03",
        Frame("B", 0x05, "b", "INS;P;0000"),
    ),
    ("02 0B 01 48 31 4C 49 4E 53 3B 42 3B 47 78 75 03", Frame("H", 0x31, "L", "INS;B;G")),
    (
        "02 1A 01 53 08 66 31 30 3B 57 3B 52 3B 43 41 52 44 5F 55 4E 52 45 41 44 41 42 4C 45 "
        "C8 41 03",
        Frame("S", 0x08, "f", "10;W;R;CARD_UNREADABLE"),
    ),
]


def test_crc16_kermit_check_value() -> None:
    assert crc16_kermit(b"123456789") == 0x2189


@pytest.mark.parametrize(("hex_frame", "expected"), VECTORS)
def test_vector_decodes_to_documented_fields(hex_frame: str, expected: Frame) -> None:
    raw = bytes.fromhex(hex_frame)
    consumed, frames, errors = decode(raw)
    assert (consumed, frames, errors) == (len(raw), [expected], [])


@pytest.mark.parametrize(("hex_frame", "expected"), VECTORS)
def test_vector_re_encodes_to_the_same_bytes(hex_frame: str, expected: Frame) -> None:
    assert encode(expected) == bytes.fromhex(hex_frame)
