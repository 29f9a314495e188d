"""TBL-21 framing: a pure encoder and decoder (protocol.md, "Frame").

::

    STX  LEN  VER  DEV  SEQ  TYPE  PAYLOAD...  CRC_lo  CRC_hi  ETX
    0x02 1B   0x01 1B   1B   1B    0..240 B    1B      1B      0x03

``decode`` never blocks and never raises on bad bytes: "not enough bytes yet" is a return value,
and every damaged frame or run of garbage is reported as a :class:`DecodeError` while decoding
resynchronises by dropping only the STX byte and searching again. The 50 ms stale-partial rule
needs time, so it lives in :class:`FrameDecoder`, which wraps ``decode`` with an injectable clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

STX = 0x02
ETX = 0x03
VERSION = 0x01
MIN_LEN = 4
MAX_PAYLOAD = 240
MAX_LEN = MIN_LEN + MAX_PAYLOAD
STALE_PARTIAL_S = 0.050
# the serial line (protocol.md): 8N1, no flow control, 115200 baud; 9600 and 19200 work too
DEFAULT_BAUD = 115200
BAUD_RATES = (9600, 19200, 115200)

DEVICE_CODES = frozenset("HSPB")


class DecodeErrorKind(StrEnum):
    GARBAGE = "garbage"  # bytes outside any frame
    BAD_LENGTH = "bad_length"  # LEN outside 4..244
    BAD_CRC = "bad_crc"
    BAD_ETX = "bad_etx"
    BAD_VERSION = "bad_version"
    BAD_HEADER = "bad_header"  # DEV or TYPE not a valid code
    BAD_PAYLOAD = "bad_payload"  # payload not printable ASCII
    STALE_PARTIAL = "stale_partial"  # a partial frame older than 50 ms


@dataclass(frozen=True, slots=True)
class DecodeError:
    kind: DecodeErrorKind
    detail: str
    data: bytes = b""


def crc16_kermit(data: bytes) -> int:
    """CRC-16/KERMIT: reflected poly 0x8408, init 0, no final xor (check 0x2189)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def _is_printable(payload: bytes) -> bool:
    return all(0x20 <= b <= 0x7E for b in payload)


@dataclass(frozen=True, slots=True)
class Frame:
    """One TBL-21 frame. ``dev`` is the sender (H, S, P, B); ``kind`` is the TYPE letter."""

    dev: str
    seq: int
    kind: str
    payload: str = ""
    version: int = VERSION

    def __post_init__(self) -> None:
        if self.dev not in DEVICE_CODES:
            raise ValueError(f"DEV must be one of H, S, P, B, got {self.dev!r}")
        if not 0 <= self.seq <= 255:
            raise ValueError(f"SEQ must be 0..255, got {self.seq}")
        if len(self.kind) != 1 or not self.kind.isascii() or not self.kind.isalpha():
            raise ValueError(f"TYPE must be one ASCII letter, got {self.kind!r}")
        raw = self.payload.encode("ascii", errors="replace")
        if len(raw) > MAX_PAYLOAD:
            raise ValueError(f"payload is {len(raw)} bytes, at most {MAX_PAYLOAD} allowed")
        if not self.payload.isascii() or not _is_printable(raw):
            raise ValueError(f"payload must be printable ASCII, got {self.payload!r}")
        if not 0 <= self.version <= 255:
            raise ValueError(f"VER must be one byte, got {self.version}")

    @property
    def fields(self) -> list[str]:
        """The payload split on ``;`` (an empty payload has no fields)."""
        return self.payload.split(";") if self.payload else []

    @property
    def is_event(self) -> bool:
        """A device message that must be acknowledged (everything but s, i, n)."""
        return self.dev != "H" and self.kind not in ("s", "i", "n")


def encode(frame: Frame) -> bytes:
    payload = frame.payload.encode("ascii")
    body = bytes([4 + len(payload), frame.version, ord(frame.dev), frame.seq, ord(frame.kind)])
    body += payload
    crc = crc16_kermit(body)
    return bytes([STX]) + body + bytes([crc & 0xFF, crc >> 8, ETX])


class DecodeResult(NamedTuple):
    """``(consumed, frames, errors)``: bytes to drop, frames in order, problems found."""

    consumed: int
    frames: list[Frame]
    errors: list[DecodeError]


def _check_frame(buf: bytes, start: int, length: int) -> Frame | DecodeError:
    """Validate the complete candidate frame at ``buf[start:]`` of the given LEN."""
    end = start + 1 + 1 + length + 3  # STX, LEN, body, CRC lo, CRC hi, ETX
    raw = bytes(buf[start:end])
    body = raw[1 : 2 + length]  # LEN..PAYLOAD
    crc = raw[2 + length] | (raw[3 + length] << 8)
    if raw[-1] != ETX:
        return DecodeError(DecodeErrorKind.BAD_ETX, f"byte 0x{raw[-1]:02X} where ETX was due", raw)
    expected = crc16_kermit(body)
    if crc != expected:
        return DecodeError(
            DecodeErrorKind.BAD_CRC, f"CRC 0x{crc:04X}, computed 0x{expected:04X}", raw
        )
    version, dev, seq, kind = body[1], chr(body[2]), body[3], chr(body[4])
    payload = body[5:]
    if version != VERSION:
        return DecodeError(DecodeErrorKind.BAD_VERSION, f"version {version}, expected 1", raw)
    if dev not in DEVICE_CODES or not (kind.isascii() and kind.isalpha()):
        return DecodeError(DecodeErrorKind.BAD_HEADER, f"DEV {dev!r} TYPE {kind!r}", raw)
    if not _is_printable(payload):
        return DecodeError(DecodeErrorKind.BAD_PAYLOAD, "payload is not printable ASCII", raw)
    return Frame(dev=dev, seq=seq, kind=kind, payload=payload.decode("ascii"), version=version)


def decode(buffer: bytes | bytearray) -> DecodeResult:
    """Decode every complete frame in ``buffer``.

    Returns how many bytes were consumed (the caller drops them), the frames in order, and the
    errors found. A trailing partial frame is not consumed: feed more bytes and call again.
    """
    buf = bytes(buffer)
    frames: list[Frame] = []
    errors: list[DecodeError] = []
    pos = 0
    garbage_start: int | None = None

    def flush_garbage(upto: int) -> None:
        nonlocal garbage_start
        if garbage_start is not None and upto > garbage_start:
            junk = buf[garbage_start:upto]
            errors.append(
                DecodeError(
                    DecodeErrorKind.GARBAGE,
                    f"{len(junk)} byte{'' if len(junk) == 1 else 's'} outside a frame",
                    junk,
                )
            )
        garbage_start = None

    n = len(buf)
    while pos < n:
        if buf[pos] != STX:
            if garbage_start is None:
                garbage_start = pos
            pos += 1
            continue
        if pos + 1 >= n:
            break  # STX without LEN yet
        length = buf[pos + 1]
        if not MIN_LEN <= length <= MAX_LEN:
            flush_garbage(pos)
            errors.append(
                DecodeError(
                    DecodeErrorKind.BAD_LENGTH,
                    f"LEN {length} outside {MIN_LEN}..{MAX_LEN}",
                    buf[pos : pos + 2],
                )
            )
            pos += 1  # drop only the STX and search again
            continue
        total = length + 5
        if pos + total > n:
            break  # partial frame: wait for more bytes
        checked = _check_frame(buf, pos, length)
        flush_garbage(pos)
        if isinstance(checked, DecodeError):
            errors.append(checked)
            pos += 1
            continue
        frames.append(checked)
        pos += total
    flush_garbage(pos)
    return DecodeResult(pos, frames, errors)


_STALE_EPSILON_S = 1e-6


class FrameDecoder:
    """A stream decoder: feed bytes, get frames. Applies the 50 ms stale-partial rule.

    A partial frame is stale when no byte of it has arrived for ``stale_after`` seconds (timed
    from its last byte, not its first: at 9600 baud a frame of more than 48 bytes takes longer
    than 50 ms to arrive). ``clock`` returns seconds (monotonic); tests pass a fake one.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        stale_after: float = STALE_PARTIAL_S,
    ) -> None:
        self._clock = clock
        self._stale_after = stale_after
        self._buffer = bytearray()
        self._partial_since: float | None = None

    @property
    def pending(self) -> int:
        """Bytes held back as a partial frame."""
        return len(self._buffer)

    @property
    def stale_at(self) -> float | None:
        """When the partial frame held back turns stale (on ``clock``), or None if none is.

        A feed at or after this moment drops it (the rule is "older than ``stale_after``", so
        the moment is a microsecond past the limit)."""
        since = self._partial_since
        if not self._buffer or since is None:
            return None
        return since + self._stale_after + _STALE_EPSILON_S

    def feed(self, data: bytes = b"") -> DecodeResult:
        """Add bytes (possibly none, to let the clock expire a stale partial) and decode."""
        now = self._clock()
        frames: list[Frame] = []
        errors: list[DecodeError] = []
        since = self._partial_since
        if self._buffer and since is not None and now - since > self._stale_after:
            # Drop only the STX of the stale partial, then resync over what is left.
            errors.append(
                DecodeError(
                    DecodeErrorKind.STALE_PARTIAL,
                    f"partial frame of {len(self._buffer)} "
                    f"byte{'' if len(self._buffer) == 1 else 's'} older than "
                    f"{self._stale_after * 1000:.0f} ms",
                    bytes(self._buffer),
                )
            )
            del self._buffer[0]
            self._partial_since = None
        self._buffer += data
        res = decode(self._buffer)
        del self._buffer[: res.consumed]
        if not self._buffer:
            self._partial_since = None
        elif data or self._partial_since is None:
            # The partial frame's newest byte arrived now: it is timed from its last byte, so a
            # long frame still arriving at 9600 baud (about 1 ms per byte, an ``i`` reply takes
            # ~60 ms) is not cut off, while a sender that stops mid-frame is dropped 50 ms later.
            self._partial_since = now
        return DecodeResult(res.consumed, frames + res.frames, errors + res.errors)
