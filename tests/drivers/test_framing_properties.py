"""Property tests of the TBL-21 framer: resynchronisation, CRC, round trips, stale partials."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.tbl21.framing import (
    MAX_PAYLOAD,
    STX,
    DecodeErrorKind,
    Frame,
    FrameDecoder,
    crc16_kermit,
    decode,
    encode,
)

PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F))

frames = st.builds(
    Frame,
    dev=st.sampled_from("HSPB"),
    seq=st.integers(0, 255),
    kind=st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    payload=st.text(alphabet=PRINTABLE, max_size=MAX_PAYLOAD),
)


def clean_garbage() -> st.SearchStrategy[bytes]:
    """Bytes that hold no valid frame of their own.

    Garbage may contain STX and plausible LEN bytes (that is the interesting part: false frame
    starts the decoder must drop). It must not contain a complete valid frame, or the stream
    really would hold an extra frame; ``decode`` itself is the exact test for that. A false
    start that runs into the next real frame would need a matching CRC, ETX and header by
    chance (about 1 in 2**32), which is not a case the stream can be blamed for.
    """
    return st.binary(max_size=40).filter(lambda g: not decode(g).frames)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[Frame], bytes]:
    originals = draw(st.lists(frames, max_size=8))
    data = bytearray(draw(clean_garbage()))
    for frame in originals:
        data += encode(frame) + draw(clean_garbage())
    return originals, bytes(data)


@settings(max_examples=300)
@given(streams(), st.lists(st.integers(min_value=0), max_size=20))
def test_a_stream_split_anywhere_with_garbage_decodes_to_exactly_its_frames(
    stream: tuple[list[Frame], bytes], cuts: list[int]
) -> None:
    originals, data = stream
    buffer = bytearray()
    decoded: list[Frame] = []
    for chunk in split(data, cuts):
        buffer += chunk
        consumed, got, _ = decode(buffer)
        assert consumed <= len(buffer)
        del buffer[:consumed]
        decoded += got
    while buffer:  # the end of the stream: what is left is a false start; drop its STX
        assert buffer[0] == STX
        del buffer[0]
        consumed, got, _ = decode(buffer)
        del buffer[:consumed]
        decoded += got
    assert decoded == originals


@settings(max_examples=200)
@given(
    streams(),
    st.lists(st.integers(min_value=0), max_size=20),
    st.lists(st.floats(min_value=0.0, max_value=0.049), min_size=1),
)
def test_the_stream_decoder_with_byte_gaps_under_50ms_loses_no_frame(
    stream: tuple[list[Frame], bytes], cuts: list[int], gaps: list[float]
) -> None:
    originals, data = stream
    now = [0.0]
    decoder = FrameDecoder(clock=lambda: now[0])
    decoded: list[Frame] = []
    for i, chunk in enumerate(split(data, cuts)):
        now[0] += gaps[i % len(gaps)]
        decoded += decoder.feed(chunk).frames
    while decoder.pending:
        now[0] += 0.051
        decoded += decoder.feed().frames
    assert decoded == originals


@settings(max_examples=500)
@given(st.binary(max_size=600))
def test_random_bytes_never_yield_a_frame_that_fails_its_crc(data: bytes) -> None:
    consumed, got, _ = decode(data)
    assert 0 <= consumed <= len(data)
    for frame in got:
        raw = encode(frame)
        assert raw in data
        assert crc16_kermit(raw[1:-3]) == raw[-3] | raw[-2] << 8


@st.composite
def stx_heavy_bytes(draw: st.DrawFn) -> bytes:
    """Random bytes rich in STX and in-range LEN values, with real frames mixed in."""
    parts = draw(
        st.lists(
            st.one_of(
                st.binary(max_size=30),
                st.just(bytes([STX])),
                st.integers(4, 30).map(lambda n: bytes([STX, n])),
                frames.map(encode),
                frames.map(lambda f: encode(f)[: len(encode(f)) // 2]),
            ),
            max_size=12,
        )
    )
    return b"".join(parts)


@settings(max_examples=300)
@given(stx_heavy_bytes())
def test_hostile_bytes_only_yield_frames_that_were_really_sent(data: bytes) -> None:
    _, got, _ = decode(data)
    for frame in got:
        assert encode(frame) in data


@given(frames)
def test_any_frame_round_trips_through_encode_and_decode(frame: Frame) -> None:
    raw = encode(frame)
    assert decode(raw) == (len(raw), [frame], [])


@given(frames, st.integers(min_value=1))
def test_a_frame_with_any_single_bit_flipped_yields_no_frame(frame: Frame, where: int) -> None:
    """CRC-16 catches every single-bit error; a flipped LEN, ETX or STX breaks the frame."""
    raw = bytearray(encode(frame))
    raw[where % len(raw)] ^= 0x01 << (where % 8)
    assert decode(bytes(raw)).frames == []


# --- the 50 ms stale-partial rule ----------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_partial_frame_silent_for_more_than_50ms_is_dropped_and_decoding_resyncs() -> None:
    clock = FakeClock()
    decoder = FrameDecoder(clock=clock)
    whole = encode(Frame("S", 1, "c", "AS;0001;0311;97"))
    assert decoder.feed(whole[:10]).frames == []
    clock.now += 0.051
    result = decoder.feed(encode(Frame("S", 2, "e", "0312")))
    assert [e.kind for e in result.errors][:1] == [DecodeErrorKind.STALE_PARTIAL]
    assert result.frames == [Frame("S", 2, "e", "0312")]
    assert decoder.pending == 0


def test_a_partial_frame_is_kept_at_exactly_50ms() -> None:
    clock = FakeClock()
    decoder = FrameDecoder(clock=clock)
    whole = encode(Frame("S", 1, "c", "AS;0001;0311;97"))
    decoder.feed(whole[:10])
    clock.now += 0.050
    assert decoder.feed(whole[10:]).frames == [Frame("S", 1, "c", "AS;0001;0311;97")]


def test_a_long_frame_arriving_at_9600_baud_is_not_cut_off() -> None:
    """At 9600 baud a byte takes ~1.04 ms: an ``i`` reply of 60 bytes takes ~62 ms."""
    clock = FakeClock()
    decoder = FrameDecoder(clock=clock)
    frame = Frame("S", 9, "i", "TBL21-SHOE-MK2;SN-000123456;1.10.3;0123456789ABCDEF;12345")
    got: list[Frame] = []
    for byte in encode(frame):
        clock.now += 10 / 9600
        got += decoder.feed(bytes([byte])).frames
    assert clock.now - 100.0 > 0.050
    assert got == [frame]


def test_an_idle_call_expires_a_stale_partial_without_new_bytes() -> None:
    clock = FakeClock()
    decoder = FrameDecoder(clock=clock)
    decoder.feed(bytes([STX, 20, 1, ord("S")]))
    clock.now += 0.060
    result = decoder.feed()
    assert [e.kind for e in result.errors] == [
        DecodeErrorKind.STALE_PARTIAL,
        DecodeErrorKind.GARBAGE,
    ]
    assert decoder.pending == 0
