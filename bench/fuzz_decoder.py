"""Fuzz the TBL-21 frame decoder with at least a million inputs; print one JSON line.

Each input is random bytes, a valid frame with random damage, or a valid stream with garbage
and random splits. The decoder must never raise, never hang (each call is timed), never return a
frame that fails its CRC, and consume only what it was given.

    python bench/fuzz_decoder.py [--inputs N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

from drivers.tbl21.framing import Frame, FrameDecoder, crc16_kermit, decode, encode

KINDS = "cxelkhbyfopsinQIATEDLGKMWN"


def random_frame(rng: random.Random) -> Frame:
    payload = "".join(chr(rng.randint(0x20, 0x7E)) for _ in range(rng.randint(0, 40)))
    return Frame(rng.choice("HSPB"), rng.randint(0, 255), rng.choice(KINDS), payload)


def one_input(rng: random.Random) -> bytes:
    shape = rng.random()
    if shape < 0.4:
        return rng.randbytes(rng.randint(0, 120))
    if shape < 0.8:
        raw = bytearray(encode(random_frame(rng)))
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] = rng.randint(0, 255)
        return bytes(raw)
    parts = []
    for _ in range(rng.randint(1, 5)):
        parts.append(rng.randbytes(rng.randint(0, 8)))
        parts.append(encode(random_frame(rng)))
    return b"".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    frames_out = errors_out = 0
    slowest = 0.0
    started = time.perf_counter()
    clock = [0.0]
    stream = FrameDecoder(clock=lambda: clock[0])
    for n in range(args.inputs):
        data = one_input(rng)
        t0 = time.perf_counter()
        consumed, frames, errors = decode(data)
        if n % 10 == 0:  # the stream decoder too, with time passing
            clock[0] += rng.random() * 0.08
            more = stream.feed(data)
            frames += more.frames
        slowest = max(slowest, time.perf_counter() - t0)
        if not 0 <= consumed <= len(data):
            raise SystemExit(f"input {n}: consumed {consumed} of {len(data)} bytes")
        for frame in frames:
            raw = encode(frame)
            body = raw[1:-3]
            if crc16_kermit(body) != raw[-3] | raw[-2] << 8:
                raise SystemExit(f"input {n}: a frame that fails its CRC: {frame}")
        frames_out += len(frames)
        errors_out += len(errors)
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "bench": "fuzz_decoder",
                "inputs": args.inputs,
                "seed": args.seed,
                "crashes": 0,
                "frames_decoded": frames_out,
                "errors_reported": errors_out,
                "slowest_call_ms": round(slowest * 1000, 3),
                "inputs_per_s": round(args.inputs / elapsed),
                "seconds": round(elapsed, 1),
                "python": platform.python_version(),
                "machine": platform.machine(),
            }
        )
    )


if __name__ == "__main__":
    main()
