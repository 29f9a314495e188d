"""``croupier floor demo`` as a new user runs it: the report and audit command lines it prints
work as printed, with the database password in a file only its user may read, never on a
command line; Ctrl-C removes everything."""

from __future__ import annotations

import os
import queue
import shlex
import signal
import stat
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from controller.journal.whereabouts import record_path, remember
from controller.table.private import STATE_ENV

pytestmark = pytest.mark.pg  # the demo starts a PostgreSQL of its own

CROUPIER = Path(sys.executable).with_name("croupier")
WAIT_S = 90.0


class Demo:
    """The demo's process and the lines it printed so far."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def line(self, prefix: str) -> str:
        """The first printed line starting with ``prefix`` (waiting for it), without it."""
        deadline = time.monotonic() + WAIT_S
        while True:
            for line in self.lines:
                if line.startswith(prefix):
                    return line.removeprefix(prefix)
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the demo printed no {prefix!r} line: {self.lines}")
            try:
                got = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if got is None:
                pytest.fail(f"the demo ended before printing {prefix!r}: {self.lines}")
            self.lines.append(got)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            status = self.process.wait(timeout=WAIT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._reader.join(timeout=10)
            assert self.process.stdout is not None
            self.process.stdout.close()
        while not self._queue.empty():
            got = self._queue.get()
            if got is not None:
                self.lines.append(got)
        return status


@contextmanager
def demo(*args: str, state: Path) -> Iterator[Demo]:
    # nothing of the user's floor settings: the printed lines must work in a new terminal
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    env[STATE_ENV] = str(state)
    process = subprocess.Popen(
        [str(CROUPIER), "floor", "demo", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    running = Demo(process)
    try:
        yield running
    finally:
        running.stop()


def _pasted(line: str) -> subprocess.CompletedProcess[str]:
    """Run a printed command line as a user pasting it into a new terminal would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    return subprocess.run(  # the line the demo printed, split as a shell would
        shlex.split(line), capture_output=True, text=True, timeout=60, env=env, check=False
    )


def test_the_demo_s_report_and_audit_lines_work_as_printed_without_a_password_in_sight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a demo ran here before: its table demo-1's journal is gone with it (this demo's tables
    # are new tables, not the same ones moved)
    state = tmp_path / "state"
    monkeypatch.setenv(STATE_ENV, str(state))
    assert remember("demo-1", tmp_path / "croupier-floor-demo-before" / "journal-1.sqlite3") is None
    with demo("--tables", "2", "--pace", "0", state=state) as running:
        report = running.line("report: ")
        audit = running.line("audit: ")
        signed = running.line("floor page: ")
        floor_file = Path(running.line("floor file: ").split(" (", 1)[0])
        # a true line for what is there: the tables deal, none has shipped yet ("0 tables")
        assert running.line("2 demo tables dealing ")
        assert not [line for line in running.lines if line.startswith("floor: ")]
        folder = floor_file.parent
        settings = tomllib.loads(floor_file.read_text())["database"]
        secret = Path(settings["password_file"])
        password = secret.read_text().strip()
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert "password_env" not in settings
        for line in running.lines:
            assert password not in line
        assert shlex.split(report)[0] == str(CROUPIER)
        assert "--journal" in audit
        # a round or two shipped, then the lines as printed
        deadline = time.monotonic() + WAIT_S
        while True:
            done = _pasted(report)
            assert done.returncode == 0, done.stderr
            rows = [line.split() for line in done.stdout.splitlines()]
            shipped = {r[0]: int(r[1]) for r in rows if r and r[0] in ("demo-1", "demo-2")}
            if len(shipped) == 2 and min(shipped.values()) >= 1:
                break
            assert time.monotonic() < deadline, done.stdout
            time.sleep(1)
        checked = _pasted(audit)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.count("chain intact") == 2
        assert "0 findings" in checked.stdout
        assert "pit" in signed
    assert running.process.returncode == 0
    assert not folder.exists()
    assert not record_path("demo-2").exists()  # nothing of the demo left in the user's state
