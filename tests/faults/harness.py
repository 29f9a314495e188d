"""The fault harness: ``croupier run`` in a subprocess, its devices emulated on real ptys in this
process, and a dealer who plays rounds through those devices and the display's WebSocket.

:class:`Rig` starts the emulated shoe, hole-card reader and panel on pseudo-terminals
(:class:`~sim_hardware.PtyRunner`), writes a table file whose ``[devices]`` are the ptys' stable
paths and whose journal and logs live in a temporary folder, and starts
``croupier run --config FILE --port 0`` (the display's address is read from its ``display:``
line). :class:`Dealer` plays: it places the bets over the WebSocket (as the display does) and
draws cards, slides the hole card into the reader and presses keys on the emulated devices
(as the dealer's hands do), one act at a time, each only after the published state shows the
effect of the last. Every round starts on a fresh copy of the same shoe order (``SHF``, then
the burn card), so an undisturbed round and a faulted one can be compared ledger for ledger.

What happened is read afterwards from the SQLite journal (:func:`read_journal`).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, PtyRunner
from tests.live_pins import LIVE_SUPERVISOR_PIN, live_pin_sections

WAIT_S = 10.0  # the longest any single effect may take (a stall, a reconnect, a 2 s hold)
START_S = 30.0

# Pennsylvania Blackjack, two boxes, ace up so the round goes through every phase:
# burn 2C; box 1 TH 8D (18, stands); box 2 5D 6S (11, hits 9C: 20); dealer AC, hole 5H (soft 16,
# no blackjack: insurance and surrender windows, the peek says N), draws 2S (soft 18, stands).
# Box 1 pushes, box 2 wins. The cards after 2S are spares (a pushed-back card, a void).
PA_CARDS = "2C TH 5D AC 8D 6S 5H 9C 2S KD QS JH 3C 4D 7C 8H 9D TS JC QD KH 4S 3H 7D"
PA_BETS: tuple[tuple[int, str, int], ...] = ((1, "ann", 1000), (2, "bob", 500))

# The phases of a round and the controller states that belong to each.
PHASES: dict[str, tuple[str, ...]] = {
    "dealing": ("dealing",),
    "offers": ("offers", "insurance", "surrender", "rescue"),
    "peek": ("peek",),
    "players": ("playing", "card_due"),
    "dealer": ("reveal", "dealer"),
    "settlement": ("settling",),
}
STATE_PHASE = {state: phase for phase, states in PHASES.items() for state in states}


class HarnessError(AssertionError):
    """The table did not do what the harness waited for (with what it did instead)."""


# --- the table under test ---------------------------------------------------------------------


SUPERVISOR_PIN = LIVE_SUPERVISOR_PIN  # its salted hash goes in the table file


def table_file(
    folder: Path,
    variant: str,
    ports: dict[str, str],
    boxes: list[int],
    firmware_allow: tuple[str, ...] = (),
) -> Path:
    path = folder / "table.toml"
    allow = ", ".join(f'"{h}"' for h in firmware_allow)
    path.write_text(
        f"""table_id = "fault-rig"
variant = "{variant}"
boxes = {boxes}

[limits]
min_cents = 500
max_cents = 50000
increment_cents = 100

[devices]
shoe = "{ports["shoe"]}"
peek = "{ports["peek"]}"
panel = "{ports["panel"]}"
firmware_allow = [{allow}]

[display]
host = "127.0.0.1"
port = 0

[journal]
path = "{folder / "journal.sqlite3"}"

[logs]
audit = "{folder / "audit.jsonl"}"
debug = "{folder / "debug.log"}"
{live_pin_sections(folder)}"""
    )
    path.chmod(0o600)  # it holds the PIN hashes: croupier's alone, or it is refused
    return path


def croupier_command() -> list[str]:
    """``croupier`` of the interpreter running the tests (the package's console script)."""
    script = Path(sys.executable).with_name("croupier")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from controller.cli.main import main; raise SystemExit(main())"]


class Rig:
    """Emulated devices on ptys and ``croupier run`` on them. Use as a context manager."""

    def __init__(
        self,
        folder: Path,
        *,
        variant: str = "pa-blackjack",
        cards: str = PA_CARDS,
        boxes: tuple[int, ...] = (1, 2),
        firmware_allow: tuple[str, ...] = (),
        shoe_decks: int = 6,
    ) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.journal_path = folder / "journal.sqlite3"
        # ``shoe_decks``: what the shoe believes it holds (its own inventory check), whatever
        # the variant's decks
        self.shoe = EmulatedShoe(cards=cards, decks=shoe_decks, seed=1)
        self.peek = EmulatedPeekReader(seed=1)
        self.panel = EmulatedPanel(seed=1)
        self.runners: dict[str, PtyRunner] = {}
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []
        self.url = ""
        self.ws: ClientConnection | None = None
        self._ws_stack = contextlib.ExitStack()
        self.ws_error: BaseException | None = None
        self._states: list[dict[str, Any]] = []  # the last 50
        self._states_seen = 0  # all that arrived
        self._state_lock = threading.Condition()
        self._results: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None
        self._out_thread: threading.Thread | None = None
        self._ids = iter(range(1, 2**31))
        try:
            for role, device in (("shoe", self.shoe), ("peek", self.peek), ("panel", self.panel)):
                self.runners[role] = PtyRunner(device, name=f"fault-{role}")
            ports = {role: runner.port for role, runner in self.runners.items()}
            self.config = table_file(folder, variant, ports, list(boxes), firmware_allow)
            self._start()
        except BaseException:
            self.close()
            raise

    # --- life cycle --------------------------------------------------------------------------

    def _start(self) -> None:
        self.process = subprocess.Popen(
            [*croupier_command(), "run", "--config", str(self.config), "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=self.folder,
            # each rig is a table of its own (same table id, its own journal): its own state
            # folder, so that a rig is never taken for another's table moved elsewhere
            env={**os.environ, "CROUPIER_STATE_DIR": str(self.folder / "state")},
        )
        found = threading.Event()

        def pump() -> None:
            assert self.process is not None
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.output.append(line.rstrip("\n"))
                if line.startswith("display: "):
                    self.url = line.split(" ", 1)[1].strip()
                    found.set()
            found.set()

        self._out_thread = threading.Thread(target=pump, name="croupier-stdout", daemon=True)
        self._out_thread.start()
        if not found.wait(START_S) or not self.url:
            raise HarnessError(f"croupier run printed no display address: {self.output}")
        ws_url = self.url.replace("http://", "ws://") + "ws"
        self.ws = self._ws_stack.enter_context(
            connect(ws_url, open_timeout=START_S, max_size=2**22)
        )
        self._reader = threading.Thread(target=self._read_ws, name="rig-ws", daemon=True)
        self._reader.start()
        self.wait_for(
            lambda s: all(d["status"] == "connected" for d in s["devices"]),
            "every device identified",
            START_S,
        )

    def _read_ws(self) -> None:
        assert self.ws is not None
        try:
            for raw in self.ws:
                message = json.loads(raw)
                if message.get("type") == "state":
                    with self._state_lock:
                        self._states.append(message["state"])
                        self._states_seen += 1
                        del self._states[:-50]
                        self._state_lock.notify_all()
                elif message.get("type") in ("result", "error"):
                    self._results.put(message)
        except ConnectionClosed:
            pass
        except Exception as exc:  # kept for the waiting side to report
            self.ws_error = exc

    def stop(self) -> int:
        """Stop ``croupier run`` the way an operator does (SIGTERM); its exit status."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self._ws_stack.close()
            self.ws = None
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None
        code = 0
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                code = self.process.wait(5)
                self.output.append("(killed: croupier run did not stop within 20 s of SIGTERM)")
            if self._out_thread is not None:
                self._out_thread.join(5)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None
        return code

    def close(self) -> int:
        code = self.stop()
        for runner in reversed(list(self.runners.values())):
            runner.close()
        self.runners.clear()
        return code

    def quiesce(self, timeout: float = WAIT_S) -> None:
        """Wait until every device's events are all acknowledged (a round's end is then the
        end of its traffic: a resend or a late ACK is counted in the round it belongs to)."""
        deadline = time.monotonic() + timeout
        devices = (self.shoe, self.peek, self.panel)
        while any(d.queue_depth for d in devices):
            if time.monotonic() > deadline:
                depths = {type(d).__name__: d.queue_depth for d in devices}
                raise HarnessError(f"device events still unacknowledged: {depths}")
            time.sleep(0.01)

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the display -------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any]:
        with self._state_lock:
            return self._states[-1] if self._states else {}

    def state_count(self) -> int:
        """How many state messages arrived so far (a mark for :meth:`wait_for`'s ``since``)."""
        with self._state_lock:
            return self._states_seen

    def wait_for(
        self,
        check: Callable[[dict[str, Any]], bool],
        what: str,
        timeout: float = WAIT_S,
        *,
        since: int | None = None,
    ) -> dict[str, Any]:
        """The latest state once it passes ``check``; with ``since`` (a :meth:`state_count`),
        the first state from that mark on that passed, so that a short-lived state (a hold of
        half a second) is not missed when the next one arrived before this thread woke."""
        deadline = time.monotonic() + timeout
        with self._state_lock:
            while True:
                if since is not None:
                    kept_from = self._states_seen - len(self._states)
                    for seen in self._states[max(0, since - kept_from) :]:
                        if check(seen):
                            return seen
                    since = self._states_seen
                elif self._states and check(self._states[-1]):
                    return self._states[-1]
                left = deadline - time.monotonic()
                if left <= 0 or (self.process is not None and self.process.poll() is not None):
                    last = self._states[-1] if self._states else {}
                    raise HarnessError(
                        f"the table did not reach: {what} (socket error {self.ws_error!r}); "
                        f"state {last.get('state')}, holds "
                        f"{last.get('holds')}, prompt {last.get('prompt')}, last input "
                        f"{last.get('last_input')}; output {self.output[-5:]}"
                    )
                self._state_lock.wait(min(left, 0.2))

    def changed_since(self, version: int, timeout: float = WAIT_S) -> dict[str, Any]:
        return self.wait_for(lambda s: s["version"] > version, "a new state", timeout)

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one display message (docs: controller/display/messages.py); its answer."""
        assert self.ws is not None
        msg_id = next(self._ids)
        self.ws.send(json.dumps({**message, "id": msg_id}))
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                reply = self._results.get(timeout=0.5)
            except queue.Empty:
                continue
            if reply.get("id") == msg_id:
                return reply
        raise HarnessError(f"no answer to {message}")

    def bet(self, box: int, player: str, cents: int) -> dict[str, Any]:
        return self.send({"type": "bet", "box": box, "player": player, "amount_cents": cents})


# --- the supervisor ---------------------------------------------------------------------------


def supervisor_sign_in(panel: EmulatedPanel) -> None:
    """The supervisor signs in at the panel (docs/panel.md): the key switch at SUP, then the
    PIN's digits and OK_. Signed out again when the key leaves SUP."""
    panel.turn_key("SUP")
    for digit in SUPERVISOR_PIN:
        panel.tap(f"D{digit}_")
    panel.tap("OK_")


def supervisor_sign_out(panel: EmulatedPanel) -> None:
    panel.turn_key("RUN")


# --- the dealer ---------------------------------------------------------------------------------


def has_bets(state: dict[str, Any]) -> bool:
    return any(b["in_play"] for b in state["boxes"])


def _hands_total(state: dict[str, Any]) -> int:
    return sum(len(h["cards"]) for b in state["boxes"] for h in b["hands"])


def signature(state: dict[str, Any]) -> tuple[Any, ...]:
    """What a dealer's act changes (a new state version alone may be a device's health)."""
    last = state.get("last_input") or {}
    return (
        state["state"],
        state["round"],
        len(state["dealer"]["cards"]),
        state["dealer"]["face_down"],
        _hands_total(state),
        tuple(state["holds"]),
        tuple(last.get("keys") or ()),
        last.get("action"),
        last.get("accepted"),
        tuple(state["lit"]),
    )


def cards_out(state: dict[str, Any]) -> int:
    """Cards on the table: every hand's and the dealer's (face down included)."""
    dealer = state["dealer"]
    return _hands_total(state) + len(dealer["cards"]) + int(dealer["face_down"])


def _moved_on(before: dict[str, Any], now: dict[str, Any]) -> bool:
    """The round itself moved: its state, round, turn, cards or holds."""
    return bool(
        now["state"] != before["state"]
        or now["round"] != before["round"]
        or now["turn"] != before["turn"]
        or cards_out(now) != cards_out(before)
        or now["holds"] != before["holds"]
    )


def _answered(key: str) -> Callable[[dict[str, Any], dict[str, Any]], bool]:
    """The table answered a press of ``key`` (accepted or refused), or the round moved on
    (the display gets the latest state only, so the answer itself may be skipped over when
    another input follows at once: SHF, then the shoe's "loaded")."""
    return lambda before, now: bool(
        ((now.get("last_input") or {}).get("keys") or [])[-1:] == [key] or _moved_on(before, now)
    )


def _card_taken(before: dict[str, Any], now: dict[str, Any]) -> bool:
    """The table took the card drawn (one more card out), or holds for it, or (a burn card)
    moved on."""
    return bool(
        cards_out(now) != cards_out(before) or now["holding"] or now["state"] != before["state"]
    )


@dataclass
class RoundLog:
    """What the dealer did in one round."""

    number: int
    draws: list[tuple[int, str | None]] = field(default_factory=list)  # (draw_no, card read)
    phases: list[str] = field(default_factory=list)
    acts: int = 0
    waits: list[float] = field(default_factory=list)  # per act: until the table showed it

    @property
    def slowest_wait_s(self) -> float:
        return max(self.waits, default=0.0)


Hook = Callable[["Dealer", str], None]


class Dealer:
    """Plays rounds through the emulated devices and the display (one act at a time).

    ``on_phase(dealer, phase)`` is called once when the round enters each phase, before the
    dealer acts in it (a fault is injected there); ``on_hold(dealer, state)`` when the table
    holds and nobody but a person can clear it (the supervisor's reaction)."""

    def __init__(
        self,
        rig: Rig,
        *,
        bets: tuple[tuple[int, str, int], ...] = PA_BETS,
        stand_on: int = 17,
    ) -> None:
        self.rig = rig
        self.bets = bets
        self.stand_on = stand_on
        self.hole: str | None = None
        self.hole_in_reader = False
        self.fresh_shoe = False
        self.log: RoundLog | None = None
        self.last_physical = ""  # the card that really left the shoe last (a misread's too)
        self.hold_at_draw: int | None = None  # this draw makes the table hold (a card fault)
        self.on_phase_end: Callable[[], object] | None = None  # undo a phase-long injection

    # --- helpers for hooks -------------------------------------------------------------------

    def act_and_wait(
        self,
        act: Callable[[], None],
        effect: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None,
        timeout: float = WAIT_S,
    ) -> dict[str, Any]:
        """Do ``act``, then wait for a state that shows its ``effect(before, now)`` (by default
        any change of :func:`signature`). The state in hand may be a little behind the table's,
        and a late event of a fault may change it meanwhile, so an effect names what only this
        act can do (its key's input result, one more card) where it can."""
        before = self.rig.state
        sig = signature(before)
        started = time.monotonic()
        act()
        state = self.rig.wait_for(
            lambda s: signature(s) != sig and (effect is None or effect(before, s)),
            "the effect of an act",
            timeout,
        )
        if self.log is not None:
            self.log.acts += 1
            self.log.waits.append(time.monotonic() - started)
        return state

    def tap(self, key: str) -> dict[str, Any]:
        """Press and release ``key``; wait for the table's answer to that key."""
        return self.act_and_wait(lambda: self.rig.panel.tap(key), _answered(key))

    def draw(self) -> dict[str, Any]:
        drawn_no = 0

        def pull() -> None:
            nonlocal drawn_no
            drawn = self.rig.shoe.draw()
            drawn_no = drawn.draw_no
            if self.log is not None:
                self.log.draws.append(
                    (drawn.draw_no, None if drawn.card is None else str(drawn.card))
                )
            self.last_physical = str(drawn.physical)

        before = self.rig.state
        state = self.act_and_wait(pull, _card_taken)
        if state["dealer"]["face_down"] > before["dealer"]["face_down"]:
            self.hole = self.last_physical
        if self.hold_at_draw == drawn_no:
            # A card fault: the card (if read) and the fault come one after the other; no
            # further card may be drawn until the table has seen both.
            self.hold_at_draw = None
            state = self.rig.wait_for(lambda s: s["holding"], "the hold for a card fault")
        return state

    # --- a round ----------------------------------------------------------------------------

    def play_round(
        self,
        on_phase: Hook | None = None,
        on_hold: Callable[[Dealer, dict[str, Any]], None] | None = None,
    ) -> RoundLog:
        rig = self.rig
        start = rig.wait_for(lambda s: not s["holding"], "no hold at the start of a round")
        number = start["round"]
        log = self.log = RoundLog(number)
        seen: set[str] = set()
        self.hole, self.hole_in_reader = None, False
        while True:
            state = rig.state
            name = state["state"]
            if state["round"] != number and name == "betting" and not has_bets(state):
                if self.on_phase_end is not None:
                    self.on_phase_end()
                    self.on_phase_end = None
                rig.quiesce()
                break
            phase = STATE_PHASE.get(name)
            if phase is not None and state["round"] == number and phase not in seen:
                if self.on_phase_end is not None:
                    self.on_phase_end()
                    self.on_phase_end = None
                seen.add(phase)
                log.phases.append(phase)
                if on_phase is not None:
                    on_phase(self, phase)
                continue
            if self.hole_in_reader and name != "peek" and name != "hold":
                self._take_hole_out()  # (the table only notes it: nothing to wait for)
                continue
            if name == "hold":
                if on_hold is not None:
                    on_hold(self, state)
                else:
                    rig.changed_since(state["version"])
                continue
            self._act(state)
        self.log = None
        return log

    def _take_hole_out(self) -> None:
        self.rig.peek.remove_hole_card()
        self.hole_in_reader = False

    def _act(self, state: dict[str, Any]) -> None:
        name = state["state"]
        if name == "betting":
            if has_bets(state):
                self.tap("DEA")
            elif not self.fresh_shoe:
                # Every round on a fresh copy of the same shoe: the table moves on once the
                # shoe reports it loaded (only then may the burn card come out).
                self.tap("SHF")
                self.rig.wait_for(lambda s: s["state"] != "betting", "the new shoe loaded")
            else:
                for box, player, cents in self.bets:
                    reply = self.rig.bet(box, player, cents)
                    if not reply.get("accepted"):
                        raise HarnessError(f"bet refused: {reply}")
                self.rig.wait_for(has_bets, "the bets on the table")
        elif name == "shuffle":
            self.rig.changed_since(state["version"])
        elif name == "burn":
            self.draw()
            self.fresh_shoe = True
        elif name in ("dealing", "card_due", "dealer"):
            self.fresh_shoe = False
            self.draw()
        elif name == "peek":
            if self.hole_in_reader:
                self.rig.changed_since(state["version"])
            else:
                assert self.hole is not None, "no hole card was dealt"
                hole = self.hole
                self.hole_in_reader = True
                self.act_and_wait(
                    lambda: self.rig.peek.insert_hole_card(hole),
                    lambda before, now: now["state"] != "peek",
                )
        elif name in ("offers", "insurance", "surrender", "rescue", "reveal", "settling"):
            self.tap("OK_")
        elif name == "playing":
            turn = state["turn"]
            box = next(b for b in state["boxes"] if b["number"] == turn["box"])
            hand = box["hands"][turn["hand"] - 1]
            key = "HIT" if hand["total"] < self.stand_on and "HIT" in state["lit"] else "STD"
            self.tap(key)
        else:
            self.rig.changed_since(state["version"])


# --- the journal -------------------------------------------------------------------------------


@dataclass(frozen=True)
class JournalRow:
    seq: int
    round_id: int | None
    kind: str
    payload: dict[str, Any]


def read_journal(path: Path) -> list[JournalRow]:
    """Every row of a journal, read with SQLite itself (read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT seq, round_id, kind, payload FROM journal ORDER BY seq")
        return [JournalRow(s, r, k, json.loads(p)) for s, r, k, p in rows]


def events_of(rows: list[JournalRow], kind: str) -> Iterator[JournalRow]:
    for row in rows:
        if row.kind == "device_event" and row.payload.get("type") == kind:
            yield row


def round_end(rows: list[JournalRow], number: int) -> dict[str, Any]:
    ends = [r.payload for r in rows if r.kind == "round_end" and r.payload["round"] == number]
    if len(ends) != 1:
        raise HarnessError(f"round {number} has {len(ends)} round_end rows")
    return ends[0]


def applied_cards(rows: list[JournalRow]) -> list[tuple[int, str]]:
    """The cards the table took, in order, as (draw_no, card): each accepted card input with
    the shoe event it came from."""
    applied: list[tuple[int, str]] = []
    last: dict[str, Any] | None = None
    for row in rows:
        if row.kind == "device_event" and row.payload.get("type") == "CardDrawn":
            last = row.payload
        elif (
            row.kind == "input"
            and row.payload.get("action") == "card"
            and row.payload.get("accepted")
        ):
            assert last is not None, f"row {row.seq}: a card applied without a shoe event"
            applied.append((int(last["draw_no"]), str(last["card"])))
    return applied
