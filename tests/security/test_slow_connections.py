"""Slow connections against ``croupier run`` (issue 21.10): the real process, its display on a
real loopback port, with a low descriptor limit (256, as a shell's ``ulimit -n`` may give; the
shipped unit sets ``LimitNOFILE``). Hundreds of connections that never finish their request do
not keep the dealer's page from loading, do not run the process out of descriptors, and are
closed once they are too slow; the dealer's open socket keeps answering throughout."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from websockets.sync.client import connect

from controller.webserver import MAX_CONNECTIONS, REQUEST_HEAD_S, connection_cap
from tests.cli.test_run import Lines

CROUPIER = [sys.executable, "-m", "controller.cli"]
DESCRIPTORS = 256
SLOW = 400  # more connections than the process has descriptors
WAIT_S = 10.0
TICKS = os.sysconf("SC_CLK_TCK")


def _low_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


@contextlib.contextmanager
def _table(cwd: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, int]]:
    with subprocess.Popen(
        [*CROUPIER, "run", "--port", "0"],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_low_limit,  # noqa: PLW1509 - only setrlimit, before exec
    ) as proc:
        assert proc.stdout is not None
        lines = Lines(proc.stdout)
        try:
            url = lines.wait_for("display: ", timeout=30).split(" ", 1)[1]
            yield proc, lines, int(url.rstrip("/").rsplit(":", 1)[1])
        finally:
            proc.kill()
            proc.communicate(timeout=WAIT_S)
            lines.rest()


def _cpu_s(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _page(port: int) -> tuple[int, float]:
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    try:
        conn.request("GET", "/")
        reply = conn.getresponse()
        reply.read()
        return reply.status, time.monotonic() - started
    finally:
        conn.close()


def _closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def test_hundreds_of_slow_connections_do_not_keep_the_dealer_page_from_loading(
    tmp_path: Path,
) -> None:
    with _table(tmp_path) as (proc, lines, port):
        head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
        with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT_S) as dealer:
            assert json.loads(dealer.recv(timeout=WAIT_S))["role"] == "dealer"
            slow: list[socket.socket] = []
            try:
                trickler = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
                slow.append(trickler)
                trickler.sendall(head)
                opened = time.monotonic()
                for _ in range(SLOW):  # a request head that never ends
                    with contextlib.suppress(OSError):
                        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
                        slow.append(sock)
                        with contextlib.suppress(OSError):
                            sock.sendall(head)
                cpu_before, since = _cpu_s(proc.pid), time.monotonic()
                # the dealer's page loads, and again, while they hang on
                for _ in range(3):
                    status, took = _page(port)
                    assert status == 200
                    assert took < 2.0, took
                # the dealer's open socket answers
                dealer.send(json.dumps({"type": "nothing", "id": 5}))
                while (answer := json.loads(dealer.recv(timeout=WAIT_S)))["type"] == "state":
                    pass
                assert answer["id"] == 5
                # a slow client's head trickling in (a byte a second) is closed in time
                while time.monotonic() - opened < REQUEST_HEAD_S + 3:
                    with contextlib.suppress(OSError):
                        trickler.send(b"X")
                    time.sleep(1.0)
                busy = (_cpu_s(proc.pid) - cpu_before) / (time.monotonic() - since)
                assert _closed_by_server(trickler)
                assert sum(_closed_by_server(s) for s in slow) >= SLOW - 64
                assert _page(port)[0] == 200
                assert busy < 0.5, f"the table used {busy:.0%} of a core: accept() in a loop?"
            finally:
                for sock in slow:
                    sock.close()
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
        assert fds < DESCRIPTORS // 2, fds
        assert proc.poll() is None, "the table stopped"
    printed = "\n".join(lines.seen)
    assert "out of system resource" not in printed
    assert printed.count("a slow connection was closed") <= 1  # logged once a minute at most


def test_the_shipped_unit_gives_the_table_descriptors_for_all_its_connections() -> None:
    unit = Path(__file__).resolve().parents[2] / "config" / "croupier@.service"
    limits = [
        line.split("=", 1)[1]
        for line in unit.read_text().splitlines()
        if line.startswith("LimitNOFILE=")
    ]
    assert len(limits) == 1
    assert connection_cap(int(limits[0])) == MAX_CONNECTIONS  # the most the display keeps open
