"""Card-to-prompt latency over real ptys: one JSON line on stdout.

``python bench/latency.py [--cards N] [--pace S] [--variant V] [--seed S] [--integrity on|off]``

The emulated shoe, hole-card reader and panel each sit on a real pseudo-terminal
(:class:`~sim_hardware.PtyRunner`); the table is built by ``croupier run``'s wiring
(:class:`~controller.service.service.TableService`: a journal in a temporary folder, the
production drivers opening the ptys like USB serial adapters, the journaled table), whose owner
loop this script pumps; basic-strategy players play (their decisions are pressed on the emulated
panel). The dealer pulls a card every ``--pace`` seconds, and the initial deal of each round in
one burst (every card of it back to back, as a dealer sliding them out quickly).

Measured per card: from the moment the last byte of its ``c`` frame has been written to the pty
(the runner's ``os.write`` returned) to the moment the first prompt the card caused is shown
(committed to the journal, then handed on). Both clocks are this process's ``perf_counter``.
No display here: ``display_latency.py`` measures the whole way to the dealer display's
WebSocket message.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from controller.cli.scenario import quiet_logs
from controller.game.prompts import Prompt
from controller.game.rules import load_variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.scenario_runner import DeviceHands, output_cursor
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.round.spec import State
from controller.table.app import TableOutput
from drivers.tbl21.events import CardDrawn, DeviceEvent
from drivers.tbl21.framing import FrameDecoder
from sim_hardware import EmulatedShoe
from sim_hardware import pty_runner as pty_module

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import pty_table

WAIT_S = 10.0


class WriteClock:
    """Stands in for ``os`` inside the pty runner module: times each new shoe ``c`` frame's last
    byte as it leaves for the pty (a resend, same SEQ, keeps the first time; everything else
    goes to ``os`` untouched). ``display_latency.py`` uses it too."""

    def __init__(self) -> None:
        self.shoe_fd: int | None = None
        self.decoder = FrameDecoder()
        self.card_written: list[float] = []
        self._last_seq: int | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: bytes | bytearray) -> int:
        written = os.write(fd, data)
        now = time.perf_counter()
        if fd == self.shoe_fd and written:
            for frame in self.decoder.feed(bytes(data[:written])).frames:
                if frame.kind == "c" and frame.seq != self._last_seq:
                    self.card_written.append(now)
                if frame.kind.islower():
                    self._last_seq = frame.seq if frame.kind == "c" else None
        return written


class PacedHands(DeviceHands):
    """The dealer's hands at a pace, with the initial deal in one burst."""

    pace_s = 0.02

    def draw(self) -> None:
        controller = self.app.controller
        if controller.state is State.DEALING and len(controller.round.deal_plan) > 1:
            burst = len(controller.round.deal_plan)
            before = self.app.cards_handled
            for _ in range(burst):
                self.shoe.draw()
            self.pump(lambda: self.app.cards_handled >= before + burst, "the burst")
            return
        time.sleep(self.pace_s)
        super().draw()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=5000, help="cards to measure (at least)")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between paced cards")
    parser.add_argument("--variant", default="pa-blackjack")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boxes", type=int, default=3)
    parser.add_argument(
        "--journal-dir",
        help="folder for the journal (/dev/shm: no disk fsync in the figure; default: temp)",
    )
    parser.add_argument(
        "--integrity",
        choices=("on", "off"),
        default="on",
        help="the live integrity check (journal chain and rules files, [integrity]): on as "
        "a table runs, or off (to measure its cost: alternate the two)",
    )
    args = parser.parse_args()
    quiet_logs()  # as croupier run: no debug line per frame on the terminal
    rules = load_variant(args.variant)
    player = StrategyPlayer(strategy_for(rules))
    clock = WriteClock()
    prompted: list[tuple[int, float]] = []  # (card index, prompt shown)
    missing = 0
    cards_in_shoe = rules.shoe.decks * rules.shoe.deck.size
    shoe = EmulatedShoe(
        seed=args.seed,
        decks=rules.shoe.decks,
        deck_type=rules.shoe.deck,
        cut=cards_in_shoe - rules.shoe.cut_card_reserve,
    )
    vars(pty_module)["os"] = clock  # the runner module writes through the clock now
    started = time.perf_counter()
    cpu_started = time.process_time()
    checks: dict[str, Any] = {}
    try:
        with ExitStack() as stack:
            service, runners = pty_table(
                stack,
                rules,
                shoe,
                boxes=args.boxes,
                journal_dir=args.journal_dir,
                integrity=args.integrity == "on",
            )
            clock.shoe_fd = runners[0]._master  # the bench's one look inside the runner
            service.open()
            app = service.app
            assert app is not None
            journaled = service.journaled
            shown: list[float] = []
            show = journaled.show

            def timed_show(item: TableOutput) -> None:
                if isinstance(item, Prompt):
                    shown.append(time.perf_counter())
                if show is not None:
                    show(item)

            journaled.show = timed_show
            handle: Callable[[DeviceEvent], bool] = journaled.handle

            def timed_handle(event: DeviceEvent) -> bool:
                nonlocal missing
                before = len(shown)
                applied = handle(event)
                if isinstance(event, CardDrawn) and applied:
                    if len(shown) > before:
                        # matched at the end: the pty thread may note the write time after the
                        # table has already handled the card
                        prompted.append((app.cards_handled - 1, shown[before]))
                    else:
                        missing += 1
                return applied

            journaled.handle = timed_handle  # type: ignore[method-assign]
            hands = PacedHands(service, devices=[r.device for r in runners])
            hands.pace_s = args.pace
            hands.scripted = False
            hands.settle_events()
            bets = [ScriptedBet(b, f"p{b}", 1000) for b in range(1, args.boxes + 1)]
            while app.cards_handled < args.cards:
                play_rounds(
                    app.controller,
                    hands,
                    [ScriptedRound(bets, [])] * 10,
                    auto=player,
                    drain=output_cursor(app),
                )
            if service.integrity is not None:
                checker = service.integrity
                checks = {
                    "integrity_checks": checker.checks,
                    "integrity_rows_verified": checker.watch.checked,
                    "integrity_check_s": round(checker.seconds, 3),
                }
    finally:
        vars(pty_module)["os"] = os
    written = clock.card_written
    ms = [1000 * (at - written[index]) for index, at in prompted if index < len(written)]
    line = {
        "benchmark": "card_to_prompt_latency",
        "transport": "pty",
        "journal": f"sqlite, synchronous=FULL, in {args.journal_dir or tempfile.gettempdir()}",
        "variant": rules.id,
        "integrity": args.integrity,
        "cards": len(ms),
        "cards_without_prompt": missing,
        "pace_s": args.pace,
        "bursts": "initial deal",
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "max_ms": round(max(ms), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time() - cpu_started, 2),
        **checks,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
