"""``croupier run`` on a journal that disagrees with its replay or its hash chain stops for a
supervisor: the process stays up, opens no device, writes no row, and serves the display with
the problem and the supervisor's choices (the real command, as a separate process)."""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from controller.cli.run import EXIT_DISAGREES
from controller.journal.store import Journal
from tests.cli.test_run import CROUPIER, WAIT_S, Lines, _poll, _state
from tests.cli.test_run_start import JOURNAL, _rows, _start, journal, played
from tests.journal.test_tamper import tamper
from tests.live_pins import LIVE_TECHNICIAN_HASH, write_live_pepper
from tests.security.conftest import SUPERVISOR_HASH, SUPERVISOR_PIN

__all__ = ["journal", "played"]  # the fixtures, used by name

LAST_LEDGER = "SELECT MAX(seq) FROM journal WHERE kind = 'ledger'"


def _edit_last_ledger_row(path: Path) -> int:
    tamper(
        path,
        (
            "UPDATE journal SET payload = json_set(payload, '$.amount_cents', 99900) "
            f"WHERE seq = ({LAST_LEDGER})",
            (),
        ),
    )
    db = sqlite3.connect(path)
    try:
        return int(db.execute(LAST_LEDGER).fetchone()[0])
    finally:
        db.close()


def _table_file(
    where: Path, devices: dict[str, str] | None = None, variant: str = "nz-pontoon"
) -> Path:
    lines = ['table_id = "table-1"', f'variant = "{variant}"', "[display]", "port = 0"]
    if devices:
        lines.append("[devices]")
        lines += [f'{role} = "{url}"' for role, url in devices.items()]
    lines += ["[supervisor]", f'pin_hash = "{SUPERVISOR_HASH}"']
    lines += ["[technician]", f'pin_hash = "{LIVE_TECHNICIAN_HASH}"']
    pepper = write_live_pepper(where / "pepper" / "live.pepper")
    lines += ["[access]", f'pepper_path = "{pepper}"']
    path = where / "table.toml"
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)  # it holds the supervisor's PIN hash: croupier's alone, or it is refused
    return path


@contextmanager
def _halted_run(cwd: Path, config: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, str]]:
    """``croupier run --config CONFIG`` that stops for a supervisor: the process, its stdout
    lines, its display address. Its stderr goes to ``cwd/stderr.txt``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with (
        (cwd / "stderr.txt").open("w") as stderr,
        subprocess.Popen(
            [*CROUPIER, "run", "--config", str(config)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        ) as proc,
    ):
        assert proc.stdout is not None
        lines = Lines(proc.stdout)
        try:
            lines.wait_for("stopped for a supervisor")
            url = lines.wait_for("display: ").removeprefix("display: ")
            yield proc, lines, url
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(WAIT_S)
            lines.rest()


def _ask(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and return its answer (the states in between are skipped)."""
    ws.send(json.dumps({**message, "id": 7}))
    while True:
        answer = json.loads(ws.recv(WAIT_S))
        if answer.get("type") in ("result", "error") and answer.get("id") == 7:
            assert isinstance(answer, dict)
            return answer


def test_a_broken_chain_stops_for_a_supervisor_with_no_device_opened_and_stop_exits_5(
    journal: Path, tmp_path: Path
) -> None:
    seq = _edit_last_ledger_row(journal)
    rows = _rows(journal)
    # three real pseudo-terminals as the devices: an opened device would be sent an identify
    ptys = {role: os.openpty() for role in ("shoe", "peek", "panel")}
    config = _table_file(tmp_path, {r: os.ttyname(s) for r, (_, s) in ptys.items()})
    try:
        with _halted_run(tmp_path, config) as (proc, lines, url):
            state = _state(url)
            assert state["state"] == "halted"
            halted = state["halted"]
            assert halted["row"] == seq
            assert halted["found"].startswith("edited:")
            assert "as the table wrote it" in halted["expected"]
            assert halted["journal"] == str(journal.resolve())
            assert [c["choice"] for c in halted["choices"]] == ["verify", "stop"]
            assert state["lit"] == []
            assert proc.poll() is None  # still up, serving
            masters = [m for m, _ in ptys.values()]
            readable, _, _ = select.select(masters, [], [], 0.5)
            assert readable == [], "a device was opened: something was sent to its port"

            with connect(url.replace("http", "ws") + "ws", open_timeout=WAIT_S) as ws:
                refused = _ask(ws, {"type": "halted", "choice": "stop"})
                assert refused["accepted"] is False
                assert "supervisor PIN first" in refused["reason"]
                assert _ask(ws, {"type": "press", "key": "DEA"})["accepted"] is False
                wrong = _ask(ws, {"type": "pin", "pin": "1"})
                assert wrong["accepted"] is False
                assert _ask(ws, {"type": "pin", "pin": SUPERVISOR_PIN})["accepted"] is True
                verify = _ask(ws, {"type": "halted", "choice": "verify"})
                assert verify["accepted"] is True
                assert f"broken at row {seq}" in verify["reason"]
                assert f"broken at row {seq}" in _state(url)["halted"]["verified"]
                assert _rows(journal) == rows
                assert _ask(ws, {"type": "halted", "choice": "stop"})["accepted"] is True
            assert proc.wait(WAIT_S) == EXIT_DISAGREES
            assert lines.wait_for("stopped: the journal is left as it was found")
    finally:
        for master, slave in ptys.values():
            os.close(master)
            os.close(slave)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in stderr
    assert f"fails its hash chain at row {seq}: edited" in stderr
    assert "keep the file" in stderr
    assert "croupier audit verify" in stderr
    assert f"where: row {seq} of {journal.resolve()}" in stderr
    assert _rows(journal) == rows  # no row written, the sign-in and the choices included


def test_a_halted_table_stops_on_sigterm_with_status_5_and_writes_nothing(
    journal: Path, tmp_path: Path
) -> None:
    seq = _edit_last_ledger_row(journal)
    rows = _rows(journal)
    with _halted_run(tmp_path, _table_file(tmp_path)) as (proc, _lines, url):
        assert _state(url)["halted"]["row"] == seq
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT_S) == EXIT_DISAGREES
    assert _rows(journal) == rows


def test_a_replay_that_does_not_match_the_journal_shows_the_row_expected_and_found(
    journal: Path, tmp_path: Path
) -> None:
    # The same variant id, but a variant file that pays wins at 2:1: the chain holds, the
    # replay of the journal's rounds settles differently from what the journal recorded.
    shipped = Path(__file__).resolve().parents[2] / "config" / "variants" / "nz-pontoon.toml"
    forged = tmp_path / "forged.toml"
    forged.write_text(shipped.read_text().replace('win = "1:1"', 'win = "2:1"', 1))
    rows = _rows(journal)
    with _halted_run(tmp_path, _table_file(tmp_path, variant=str(forged))) as (proc, _, url):
        halted = _state(url)["halted"]
        assert halted["problem"]["kind"] == "replay_mismatch"
        assert isinstance(halted["row"], int)
        assert halted["expected"] != halted["found"]
        # in words for the supervisor: the kind of row and its fields, not a Python dict
        for said in (halted["expected"], halted["found"]):
            assert said.startswith(("a ", "an ", "the ", "nothing")), said
            assert "{'" not in said, said
            assert "': " not in said, said
        assert "Playing back the table's record does not give what it says" in halted["what"]
        with connect(url.replace("http", "ws") + "ws", open_timeout=WAIT_S) as ws:
            assert _ask(ws, {"type": "pin", "pin": SUPERVISOR_PIN})["accepted"] is True
            verify = _ask(ws, {"type": "halted", "choice": "verify"})
            assert "the hash chain holds" in verify["reason"]
            assert _ask(ws, {"type": "halted", "choice": "stop"})["accepted"] is True
        assert proc.wait(WAIT_S) == EXIT_DISAGREES
    stderr = (tmp_path / "stderr.txt").read_text()
    assert f"journal row {halted['row']} records" in stderr
    assert _rows(journal) == rows


def test_a_row_edited_before_the_verified_point_is_still_named_by_its_row(
    journal: Path, tmp_path: Path
) -> None:
    # one start verifies the chain up to its head and records the point
    first = _start(tmp_path, "--demo", "--pace", "0.01", "--rounds", "1")
    assert first.returncode == 0, first.stderr
    tamper(
        journal,
        (
            "UPDATE journal SET payload = json_set(payload, '$.amount_cents', 99900) "
            "WHERE seq = (SELECT MIN(seq) FROM journal WHERE kind = 'ledger')",
            (),
        ),
    )
    (seq,) = (
        sqlite3.connect(journal)
        .execute("SELECT MIN(seq) FROM journal WHERE kind = 'ledger'")
        .fetchone()
    )
    rows = _rows(journal)
    with _halted_run(tmp_path, _table_file(tmp_path)) as (proc, _, url):
        assert _state(url)["halted"]["row"] == seq
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT_S) == EXIT_DISAGREES
    assert f"fails its hash chain at row {seq}: edited" in (tmp_path / "stderr.txt").read_text()
    assert _rows(journal) == rows


def _killed_while_dealing(cwd: Path, config: Path) -> None:
    """``croupier run --demo`` killed (SIGKILL, as a power cut) while a round is being dealt:
    its journal holds an open round with wagers and cards, and no money moved yet."""
    with subprocess.Popen(
        [*CROUPIER, "run", "--config", str(config), "--demo", "--pace", "0.05"],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ) as proc:
        assert proc.stdout is not None
        lines = Lines(proc.stdout)
        try:
            url = lines.wait_for("display: ").removeprefix("display: ")
            _poll(
                url,
                lambda s: (
                    s.get("state") == "dealing"
                    and sum(len(h.get("cards", [])) for b in s.get("boxes", []) for h in b["hands"])
                    >= 2
                ),
                "a round being dealt",
            )
        finally:
            proc.kill()
            proc.wait(WAIT_S)
            lines.rest()


def test_a_supervisor_voids_the_open_round_on_the_halted_screen_and_the_table_deals_on(
    tmp_path: Path,
) -> None:
    config = _table_file(tmp_path)
    _killed_while_dealing(tmp_path, config)
    path = tmp_path / JOURNAL
    with Journal.open(path, table_id="table-1", sealed=True) as journal:
        wagers = {
            (r.payload["box"], r.payload["player"]): r.payload["amount_cents"]
            for r in journal.iter_rows(kinds=["call"])
            if r.payload.get("type") == "Bet"
            and r.round_id == max(x.round_id or 0 for x in journal.iter_rows(kinds=["call"]))
        }
        # a row this software did not write (a newer version's, say): the chain holds, the
        # replay disagrees in the open round
        forged = journal.append("note", {"device": "shoe", "text": "from another version"}).seq
    assert wagers
    with _halted_run(tmp_path, config) as (proc, lines, url):
        halted = _state(url)["halted"]
        assert halted["problem"]["kind"] == "replay_mismatch", halted
        assert halted["row"] == forged
        assert [c["choice"] for c in halted["choices"]] == ["verify", "void", "stop"]
        assert halted["void"].startswith("Round ")
        assert " is void: return " in halted["void"]
        assert f"to {forged} (" in halted["void"]
        rows = _rows(path)
        with connect(url.replace("http", "ws") + "ws", open_timeout=WAIT_S) as ws:
            refused = _ask(ws, {"type": "halted", "choice": "void"})
            assert refused["accepted"] is False
            assert "supervisor PIN first" in refused["reason"]
            assert _rows(path) == rows  # nothing written without a supervisor
            assert _ask(ws, {"type": "pin", "pin": SUPERVISOR_PIN})["accepted"] is True
            voided = _ask(ws, {"type": "halted", "choice": "void"})
            assert voided["accepted"] is True, voided
            assert "The table starts again" in voided["reason"]
            assert lines.wait_for("voided by supervisor at the display: Round ")
            assert lines.wait_for("display: ") == f"display: {url}"  # the same display
            settling = _poll(url, lambda s: s.get("state") == "settling", "the voided round")
            assert "void" in json.dumps(settling.get("prompt")).lower()
            assert _ask(ws, {"type": "press", "key": "OK_"})["accepted"] is True
            _poll(url, lambda s: s.get("state") == "betting", "the next round's bets")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT_S) == 0
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    with Journal.open(path, table_id="table-1", sealed=True) as journal:
        (aside,) = journal.iter_rows(kinds=["set_aside"])
        assert aside.payload["last_seq"] == forged
        assert aside.payload["by"] == "supervisor"
        returned = {
            (r.payload["box"], r.payload["player"]): r.payload["stake_cents"]
            for r in journal.iter_rows(kinds=["ledger"], after_seq=aside.seq)
        }
        assert returned == wagers  # every wager of the round went back, once
        assert journal.verify().ok
    recall = subprocess.run(
        [*CROUPIER, "history", "--journal", str(path), "--last", "5"],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    ).stdout
    assert f"SET ASIDE rows {aside.payload['first_seq']}-{forged} by supervisor" in recall
    # The rows set aside begin at the last input before the disagreement: a card when the
    # kill caught one in flight, else a heartbeat the recall leaves out (it was so under load at
    # stop 29, when this test wrongly expected a card always). Each card there is marked.
    assert recall.count("(set aside) card") == aside.payload["cards"]
