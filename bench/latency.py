"""Card-to-prompt latency over real ptys: one JSON line on stdout.

``python bench/latency.py [--cards N] [--pace S] [--variant V] [--seed S]``

The emulated shoe, hole-card reader and panel each sit on a real pseudo-terminal
(:class:`~sim_hardware.PtyRunner`); the production drivers open them like USB serial adapters;
the :class:`~controller.table.TableApp` feeds the round controller, and basic-strategy players
play (their decisions are pressed on the emulated panel). The dealer pulls a card every
``--pace`` seconds, and the initial deal of each round in one burst (every card of it
back to back, as a dealer sliding them out quickly).

Measured per card: from the moment the last byte of its ``c`` frame has been written to the pty
(the runner's ``os.write`` returned) to the moment the table published the first prompt the
card caused (``TableApp``'s output sink). Both clocks are this process's ``perf_counter``.
No journal is attached to the table here, and no display: ``display_latency.py`` measures the
whole way to the dealer display's WebSocket message, journal included.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from controller.cli.scenario import quiet_logs
from controller.game.prompts import Prompt
from controller.game.rules import load_variant
from controller.play.autoplay import ScriptedBet, ScriptedRound, play_rounds
from controller.play.scenario_runner import DeviceHands, DriverCommands, output_cursor
from controller.play.strategy import StrategyPlayer, strategy_for
from controller.round.spec import State
from controller.table.app import TableApp, TableOutput
from drivers.table import open_table
from drivers.tbl21.events import CardDrawn, DeviceEvent
from drivers.tbl21.framing import FrameDecoder
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, PtyRunner
from sim_hardware import pty_runner as pty_module

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
    args = parser.parse_args()
    quiet_logs()  # as croupier run: no debug line per frame on the terminal
    rules = load_variant(args.variant)
    player = StrategyPlayer(strategy_for(rules))
    clock = WriteClock()
    published: list[float] = []

    def sink(item: TableOutput) -> None:
        if isinstance(item, Prompt):
            published.append(time.perf_counter())

    prompted: list[tuple[int, float]] = []  # (card index, prompt published)
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
    try:
        with ExitStack() as stack:
            runners = [
                stack.enter_context(PtyRunner(device, name=name))
                for name, device in (
                    ("shoe", shoe),
                    ("peek", EmulatedPeekReader()),
                    ("panel", EmulatedPanel()),
                )
            ]
            clock.shoe_fd = runners[0]._master  # the bench's one look inside the runner
            devices = stack.enter_context(open_table(*(r.port for r in runners)))
            for driver in devices.drivers:
                driver.wait_identified(WAIT_S)
            app = TableApp(rules, DriverCommands(devices, rules), on_output=sink)
            handle: Callable[[DeviceEvent], None] = app.handle

            def timed_handle(event: DeviceEvent) -> None:
                nonlocal missing
                before = len(published)
                handle(event)
                if isinstance(event, CardDrawn):
                    if len(published) > before:
                        # matched at the end: the pty thread may note the write time after the
                        # table has already handled the card
                        prompted.append((app.cards_handled - 1, published[before]))
                    else:
                        missing += 1

            app.handle = timed_handle  # type: ignore[method-assign]
            hands = PacedHands(app, devices, shoe, runners[1].device, runners[2].device)  # type: ignore[arg-type]
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
    finally:
        vars(pty_module)["os"] = os
    written = clock.card_written
    ms = [1000 * (at - written[index]) for index, at in prompted if index < len(written)]
    line = {
        "benchmark": "card_to_prompt_latency",
        "transport": "pty",
        "variant": rules.id,
        "cards": len(ms),
        "cards_without_prompt": missing,
        "pace_s": args.pace,
        "bursts": "initial deal",
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "max_ms": round(max(ms), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "seconds": round(time.perf_counter() - started, 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
