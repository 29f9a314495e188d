"""``croupier simulate``: many rounds of a variant by the table's rules, with numbers.

``croupier simulate VARIANT --rounds N [--boxes K] [--wager X] [--seed S] [--workers W]
[--set key=value ...] [--shuffle each-round|cut-card] [--shoe-file FILE]
[--engine kernel|controller] [--json] [--no-cache]``

The report (text, or one JSON document with ``--json``) gives the house edge per initial unit
with its standard error, with and without the Super Bonus, the per-round variance, the
frequencies of naturals, bonus hands, surrender, insurance and rescue, the dealer's final totals
per up card, and rounds per second and per CPU second. Everything but the ``performance`` part
is the same for the same variant, options and seed, whatever the worker count and whichever the
engine: ``kernel`` (the default, :mod:`controller.play.kernel`, held to the controller output
for output by a differential test) or ``controller`` (every round through the table's
``RoundController``, about twenty times slower). A progress bar with the rate and the time
left is drawn on standard error when it is a terminal. The kernel's tables are kept between
runs (:mod:`controller.play.tables_cache`; ``--no-cache`` builds them anew): the results are
the same either way.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, TextIO

from controller.game.errors import ConfigError, CroupierError
from controller.game.prompts import money
from controller.play.errors import SimulationError
from controller.play.simulate import (
    DEALER_CATEGORIES,
    UP_CARDS,
    SimConfig,
    report,
    simulate,
)
from controller.play.tables_cache import cache_dir

if TYPE_CHECKING:
    from controller.game.rules import Variant

MAX_ROUNDS = 10_000_000_000


def parse_override(text: str) -> tuple[str, Any]:
    """``section.key=value`` with the value read as TOML (``true``, ``3``, ``"3:2"``,
    ``["A", "K"]``); a value that is not TOML is taken as text (``ties=dealer-wins``)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise SimulationError(
            f"--set needs KEY=VALUE such as dealer.hits_soft_17=true, got {text!r}"
        )
    if any(not part for part in key.split(".")):
        raise SimulationError(
            f"--set {key!r}: write the key as section.key, e.g. dealer.hits_soft_17"
        )
    raw = raw.strip()
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def wager_cents(text: str) -> int:
    try:
        units = Decimal(text)
    except InvalidOperation:
        raise SimulationError(f"--wager must be an amount like 10 or 2.5, got {text!r}") from None
    if not units.is_finite() or units <= 0 or units != units.quantize(Decimal("0.01")):
        raise SimulationError(f"--wager must be positive with at most 2 decimals, got {text!r}")
    return int(units * 100)


def config_from_args(args: argparse.Namespace) -> SimConfig:
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise SimulationError(f"--rounds must be 1-{MAX_ROUNDS}, got {args.rounds}")
    overrides: dict[str, Any] = {}
    for text in args.overrides:
        key, value = parse_override(text)
        overrides[key] = value
    return SimConfig(
        variant=args.variant,
        rounds=args.rounds,
        boxes=args.boxes,
        wager_cents=wager_cents(args.wager),
        seed=args.seed,
        workers=args.workers,
        overrides=overrides,
        shuffle=args.shuffle,
        shoe_file=args.shoe_file,
        engine=args.engine,
    )


def run(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args)
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
        tables = None if args.no_cache or config.engine != "kernel" else cache_dir()
        result = simulate(config, progress=bar, tables=tables)
        if bar is not None:
            bar.close()
    except ConfigError as exc:
        print(f"croupier simulate: {exc}", file=sys.stderr)
        return 2
    except SimulationError as exc:
        print(f"croupier simulate: {exc}", file=sys.stderr)
        return 2
    except CroupierError as exc:
        print(f"croupier simulate: stopped: {exc}", file=sys.stderr)
        return 1
    data = report(result)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(text_report(data, result.rules), end="")
    return 0


class ProgressBar:
    """``[#####.....]  48%  480,000/1,000,000 rounds  3,210/s  1m02s left`` on one line."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.started
        share = done / total if total else 1.0
        filled = int(self.WIDTH * share)
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {share:4.0%}  "
            f"{done:,}/{total:,} rounds  {rate:,.0f}/s  {_duration(left)} left "
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _pct(value: float) -> str:
    return f"{100 * value:.4f} %"


def text_report(d: dict[str, Any], rules: Variant) -> str:
    """The report for a reader: only the lines the variant has (no Super Bonus figures for a
    game without one, no surrender frequency where nobody may surrender)."""
    edge = d["house_edge"]
    var = d["variance_per_round"]
    freq = d["frequency"]
    perf = d["performance"]
    source = f"shoe file {d['shoe_file']}" if d["shoe_file"] else f"seed {d['seed']}"
    overrides = ", ".join(f"{k}={v!r}" for k, v in d["overrides"].items()) or "none"
    lines = [
        f"{d['variant']}: {d['rounds']:,} rounds, {d['boxes']} "
        f"{'box' if d['boxes'] == 1 else 'boxes'} at {money(d['wager_cents'])} a wager, "
        f"{d['shuffle']} shuffle, {source}",
        f"overrides: {overrides}",
        "",
        "house edge per initial unit (+ the house wins):",
    ]
    labels: tuple[tuple[str, str], ...] = (
        ("with_super_bonus", "with Super Bonus"),
        ("without_super_bonus", "without Super Bonus"),
    )
    if not rules.super_bonus.enabled:  # both figures are the same: one line, no Super Bonus
        labels = (("without_super_bonus", "house edge"),)
    for key, label in labels:
        e = edge[key]
        lines.append(
            f"  {label:<19}  {_pct(e['edge'])}  +/- {_pct(e['standard_error'])} (1 SE)"
            f"   variance per round {var[key]:.4f}"
        )
    offered = {
        "player_natural": True,
        "surrender": rules.surrender.allowed,
        "insurance": rules.insurance.allowed,
        "rescue": rules.double.allowed and rules.double.rescue,
        "super_bonus": rules.super_bonus.enabled,
    }
    lines += ["", "frequency per initial hand:"]
    for key in (k for k, on in offered.items() if on):
        lines.append(f"  {key.replace('_', ' '):<22} {_pct(freq[key])}")
    if freq["five_card_trick"]:
        lines.append(f"  {'five-card trick':<22} {_pct(freq['five_card_trick'])}")
    for key, value in freq["bonus_hands"].items():
        lines.append(f"  {key:<22} {_pct(value)}")
    lines += ["", "dealer's final hand (share of hands per first card):"]
    header = "  up     hands " + "".join(f"{c:>8}" for c in DEALER_CATEGORIES)
    lines.append(header)
    rows = [(up, d["dealer_final"]["by_up_card"][up]) for up in UP_CARDS]
    rows.append(("all", d["dealer_final"]["overall"]))
    for up, row in rows:
        cells = "".join(f"{100 * row[c]:7.2f}%" for c in DEALER_CATEGORIES)
        lines.append(f"  {up:<4} {row['hands']:>8} {cells}")
    lines += [
        "",
        f"{perf['rounds_per_second']:,.0f} rounds/s with {perf['workers']} "
        f"worker{'' if perf['workers'] == 1 else 's'} "
        f"({perf['seconds']:.1f} s), {perf['rounds_per_cpu_second']:,.0f} rounds per CPU "
        f"second, {perf['engine']} engine" + (f" ({perf['kernel']})" if perf.get("kernel") else ""),
    ]
    if d["shoe_exhausted"]:
        lines.append("the recorded card order ran out: the last, unfinished round was dropped")
    return "\n".join(lines) + "\n"
