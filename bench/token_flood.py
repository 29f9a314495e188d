"""The dealer's socket while wrong view tokens are flooded at the display (issue 21.9): one JSON
line.

``python bench/token_flood.py [--flooders 4 32] [--seconds S] [--same-source]``

Starts the real ``croupier run --port 0`` (the interpreter's own ``croupier``: run it with
another checkout's venv to measure that checkout) on a copy of ``config/table.toml`` with a
view token, in a fresh temporary directory. A WebSocket client (``websockets``, in this
process) opens ``/ws`` as the dealer's page and, every 20 ms, sends a message the table refuses
without changing anything (``{"type": "nothing"}``) and times the round trip to its error
answer, for ``--seconds`` with nobody else connected, then for as long with each number of
flooders of ``--flooders``: processes of their own, each sending ``GET /api/state?token=...``
with a new wrong token as fast as the answers come, each from its own loopback address
(127.0.0.2, 127.0.0.3, ...; ``--same-source``: all from 127.0.0.1). Per phase: the round trip's
p50, p99 and max in milliseconds, and how many wrong tokens the flooders had answered.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import multiprocessing
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = Path(sys.executable).with_name("croupier")
READY_PREFIX = "display: "
# the tests' view token's hash (tests/display/conftest.py): only wrong tokens are sent
TOKEN_HASH = (
    "scrypt$16384$8$1$AAECAwQFBgcICQoLDA0ODw==$fR7H4sqJInOWpd6c5IR9Y75NRWNMIRL5XQFIV2IyB38="  # noqa: S105
)
PACE_S = 0.02


def flooder(port: int, source: str, stop: Any, count: Any) -> None:
    for i in itertools.count():
        if stop.is_set():
            return
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
        try:
            conn.request("GET", f"/api/state?token=wrong-{os.getpid()}-{i}")
            conn.getresponse().read()
        except OSError:
            time.sleep(0.01)
        finally:
            conn.close()
        with count.get_lock():
            count.value += 1


def round_trips(ws: Any, seconds: float, ids: Any) -> list[float]:
    times: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        msg_id = next(ids)
        started = time.perf_counter()
        ws.send(json.dumps({"type": "nothing", "id": msg_id}))
        while True:
            answer = json.loads(ws.recv(timeout=60))
            if answer.get("type") == "error" and answer.get("id") == msg_id:
                break
        times.append(time.perf_counter() - started)
        time.sleep(PACE_S)
    return times


def figures(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 2),
        "max_ms": round(ms[-1], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flooders", type=int, nargs="+", default=[4, 32])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--same-source", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="croupier-flood-") as work:
        text = (ROOT / "config" / "table.toml").read_text()
        text, found = re.subn(
            r"^# view_token_hash = .*$", f'view_token_hash = "{TOKEN_HASH}"', text, flags=re.M
        )
        if found != 1:
            raise RuntimeError("config/table.toml: no '# view_token_hash' line to fill in")
        table = Path(work) / "table.toml"
        table.write_text(text)
        proc = subprocess.Popen(  # noqa: S603 - our own command
            [str(CROUPIER), "run", "--config", str(table), "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=work,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        phases: dict[str, Any] = {}
        try:
            assert proc.stdout is not None
            url = next(
                (
                    line[len(READY_PREFIX) :].strip()
                    for line in proc.stdout
                    if line.startswith(READY_PREFIX)
                ),
                "",
            )
            if not url:
                raise RuntimeError("croupier run printed no display line")
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            ids = itertools.count(1)
            with connect(url.replace("http://", "ws://") + "ws", open_timeout=30) as ws:
                ws.recv(timeout=30)  # hello
                round_trips(ws, 1.0, ids)  # warm up
                phases["quiet"] = figures(round_trips(ws, args.seconds, ids))
                for n in args.flooders:
                    stop = multiprocessing.Event()
                    count = multiprocessing.Value("l", 0)
                    sources = [
                        "127.0.0.1"
                        if args.same_source
                        else f"127.0.{1 + (i + 1) // 250}.{1 + (i + 1) % 250}"
                        for i in range(n)
                    ]
                    workers = [
                        multiprocessing.Process(target=flooder, args=(port, s, stop, count))
                        for s in sources
                    ]
                    for w in workers:
                        w.start()
                    time.sleep(0.5)
                    times = round_trips(ws, args.seconds, ids)
                    stop.set()
                    for w in workers:
                        w.join(30)
                    phases[f"flood_{n}"] = {**figures(times), "wrong_tokens_answered": count.value}
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    print(
        json.dumps(
            {
                "benchmark": "token_flood",
                "croupier": str(CROUPIER),
                "same_source": args.same_source,
                "seconds_per_phase": args.seconds,
                "dealer_round_trip": phases,
                "load_average": os.getloadavg()[0],
                "python": platform.python_version(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
