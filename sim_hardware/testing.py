"""A scripted host for driving a device core with a fake clock (tests and scenarios).

::

    shoe = EmulatedShoe(cards="AS KH")
    host = FakeHost(shoe)
    host.boot()                      # first tick: the power-up event arrives (and is ACKed)
    reply = host.command("Q")        # -> Frame(kind="s", ...)
    shoe.draw()
    [card] = host.advance(0.01)      # -> the c event (ACKed unless auto_ack=False)

It is deliberately simple (it is not the driver): every frame the device sends is decoded and
kept in ``host.log``; events are acknowledged at once when ``auto_ack`` is on.
"""

from __future__ import annotations

from drivers.tbl21.framing import DecodeError, Frame, FrameDecoder, encode
from sim_hardware.device import DeviceCore


class FakeHost:
    """Talks TBL-21 to a device core, moving a fake clock by hand."""

    def __init__(self, device: DeviceCore, *, start: float = 100.0, auto_ack: bool = True) -> None:
        self.device = device
        self.now = start
        self.auto_ack = auto_ack
        self.log: list[Frame] = []
        self.errors: list[DecodeError] = []
        self.raw = bytearray()
        self._decoder = FrameDecoder(clock=lambda: self.now)
        self._seq = 0

    def boot(self) -> list[Frame]:
        """The device's first tick."""
        return self._take(self.device.tick(self.now))

    def advance(self, seconds: float, *, step: float = 0.01) -> list[Frame]:
        """Let ``seconds`` pass in ticks of ``step``; return every frame received meanwhile."""
        end = self.now + seconds
        frames = self._take(self.device.tick(self.now))
        while self.now < end:
            self.now = min(end, self.now + step)
            frames += self._take(self.device.tick(self.now))
        return frames

    def send(self, kind: str, payload: str = "", *, seq: int | None = None) -> list[Frame]:
        """Send a host frame (a fresh SEQ unless given); return the frames that came back."""
        if seq is None:
            seq = self._seq
            self._seq = (self._seq + 1) % 256
        return self.send_bytes(encode(Frame(dev="H", seq=seq, kind=kind, payload=payload)))

    def send_bytes(self, data: bytes) -> list[Frame]:
        return self._take(self.device.on_bytes(data, self.now))

    def command(self, kind: str, payload: str = "", *, seq: int | None = None) -> Frame:
        """Send a command and return its reply (``s``, ``i`` or ``n`` with the same SEQ)."""
        if seq is None:
            seq = self._seq
        frames = self.send(kind, payload, seq=seq)
        replies = [f for f in frames if f.kind in "sin" and f.seq == seq]
        if len(replies) != 1:
            raise AssertionError(f"{kind} {payload!r} (SEQ {seq}) got no single reply: {frames}")
        return replies[0]

    def ack(self, frame: Frame) -> list[Frame]:
        return self.send("A", seq=frame.seq)

    def events(self, kind: str | None = None) -> list[Frame]:
        """Every event received so far (of TYPE ``kind`` if given), resends included."""
        return [f for f in self.log if f.is_event and (kind is None or f.kind == kind)]

    def _take(self, data: bytes) -> list[Frame]:
        self.raw += data
        result = self._decoder.feed(data)
        self.errors += result.errors
        frames = list(result.frames)
        self.log += frames
        if self.auto_ack:
            for frame in list(frames):
                if frame.is_event:
                    frames += self._take(
                        self.device.on_bytes(encode(Frame("H", frame.seq, "A")), self.now)
                    )
        return frames
