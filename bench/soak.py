"""Soak run: many rounds of ``croupier run`` through real ptys with random low-rate faults.

The fault suite's harness (``tests/faults/``): the emulated shoe, hole-card reader and panel on
pseudo-terminals in this process, ``croupier run`` in a subprocess on them, a dealer playing
pa-blackjack rounds (two boxes, every round on a fresh copy of the same shoe order, so each
round's ledger is known from an undisturbed one). Faults, low-rate and random (seeded):

- all the time, on every device: dropped, delayed and duplicated ACKs and dropped and
  duplicated frames, each at ``--noise`` per frame or ACK;
- in one round in ``--fault-every`` (on average): one fault of the suite's catalog in one phase
  of the round, drawn at random among the combinations the suite passes (the known bugs it
  marks xfail are left out: they hang or double a round_end);
- a round that goes wrong anyway is counted, and a fresh ``croupier run`` carries on.

Prints one JSON line: rounds played, rounds per second, faults injected, lost events (the
journal's applied cards against the shoe's reads: must be 0), ledger mismatches (a round whose
net is neither the undisturbed one nor a void), rounds with more than one round_end, memory of
the ``croupier run`` process (RSS after the warm-up rounds and at the end), and the slowest
prompt (the longest a dealer's act waited for the table's answer; p50/p99 too).

    .venv/bin/python bench/soak.py --rounds 10000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim_hardware import DeviceCore
from sim_hardware.faults import (
    DelayAck,
    DropAck,
    DropFrame,
    DuplicateAck,
    DuplicateFrame,
)
from tests.faults.catalog import CASES, KNOWN, Outcome, hooks
from tests.faults.harness import (
    Dealer,
    HarnessError,
    Rig,
    applied_cards,
    read_journal,
)

WARMUP_ROUNDS = 100


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def add_noise(devices: list[DeviceCore], rate: float) -> None:
    for device in devices:
        device.clear_injections()
        if rate > 0:
            device.inject(
                DropAck(rate=rate),
                DelayAck(rate=rate, delay_s=0.3),
                DuplicateAck(rate=rate),
                DropFrame(rate=rate),
                DuplicateFrame(rate=rate),
            )


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--noise", type=float, default=0.002, help="per frame / ACK (0.002)")
    parser.add_argument("--fault-every", type=int, default=25, help="rounds per fault (25)")
    parser.add_argument("--warmup", type=int, default=WARMUP_ROUNDS, help="rounds before faults")
    parser.add_argument("--stop-at", type=float, default=None, help="stop after S seconds")
    parser.add_argument("--folder", default=None, help="keep the journals here")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    combos = [
        (name, phase)
        for name, case in CASES.items()
        for phase in case.phases
        if (name, phase) not in KNOWN
    ]
    folder = Path(args.folder or tempfile.mkdtemp(prefix="croupier-soak-"))
    started = time.monotonic()
    waits: list[float] = []
    played = 0
    faults: dict[str, int] = {}
    errors: list[str] = []
    reads: list[list[tuple[int, str]]] = []  # per croupier run: the cards the shoe read
    expected: list[dict[int, Outcome]] = []  # per croupier run: round -> its outcome
    journals: list[Path] = []
    rss: dict[str, int] = {}
    rss_samples: list[tuple[int, int]] = []  # (rounds played, RSS KiB) every 500 rounds
    base_net: dict[str, int] | None = None
    attempt = 0
    while played < args.rounds:
        attempt += 1
        rig = Rig(folder / f"run{attempt}")
        journals.append(rig.journal_path)
        reads.append([])
        expected.append({})
        assert rig.process is not None
        pid = rig.process.pid
        devices: list[DeviceCore] = [rig.shoe, rig.peek, rig.panel]
        try:
            dealer = Dealer(rig)
            while played < args.rounds:
                if args.stop_at is not None and time.monotonic() - started > args.stop_at:
                    args.rounds = played
                    break
                add_noise(devices, args.noise)
                on_phase, on_hold = hooks(rig, None, "")
                outcome = Outcome.SAME
                if played >= args.warmup and rng.randrange(args.fault_every) == 0:
                    name, phase = rng.choice(combos)
                    outcome = CASES[name].outcome
                    faults[name] = faults.get(name, 0) + 1
                    on_phase, on_hold = hooks(rig, CASES[name], phase)
                log = dealer.play_round(on_phase, on_hold)
                reads[-1].extend((n, c) for n, c in log.draws if c is not None)
                expected[-1][log.number] = outcome
                waits.extend(log.waits)
                played += 1
                if played == args.warmup:
                    rss["after_warmup_kib"] = rss_kib(pid)
                if played % 500 == 0:
                    rss_samples.append((played, rss_kib(pid)))
                    rate = played / (time.monotonic() - started)
                    print(f"# {played} rounds, {rate:.2f}/s", file=sys.stderr, flush=True)
            rss["end_kib"] = rss_kib(pid)
        except (HarnessError, AssertionError) as exc:
            errors.append(f"round {played + 1}: {str(exc)[:300]}")
            if len(errors) > 20:
                break
        finally:
            rig.close()

    # What the journals say.
    lost = 0
    mismatched = 0
    doubled_ends = 0
    for path, read, outcomes in zip(journals, reads, expected, strict=True):
        rows = read_journal(path)
        applied = applied_cards(rows)
        lost += abs(len(read) - len(applied)) + sum(
            1 for a, b in zip(read, applied, strict=False) if a != b
        )
        ends: dict[int, list[dict[str, int]]] = {}
        for row in rows:
            if row.kind == "round_end":
                ends.setdefault(int(row.payload["round"]), []).append(row.payload["net_by_player"])
        for number, outcome in outcomes.items():
            found = ends.get(number, [])
            if len(found) > 1:
                doubled_ends += 1
            if not found:
                mismatched += 1
                continue
            net = found[-1]
            if base_net is None and outcome is Outcome.SAME:
                base_net = net
            want = base_net if outcome is Outcome.SAME else dict.fromkeys(net, 0)
            if net != want:
                mismatched += 1
    elapsed = time.monotonic() - started
    result = {
        "bench": "soak",
        "rounds": played,
        "rounds_asked": args.rounds,
        "seconds": round(elapsed, 1),
        "rounds_per_s": round(played / elapsed, 2) if elapsed else 0.0,
        "croupier_runs": attempt,
        "noise_rate": args.noise,
        "faults_injected": sum(faults.values()),
        "faults": dict(sorted(faults.items())),
        "cards_read": sum(len(r) for r in reads),
        "lost_events": lost,
        "ledger_mismatches": mismatched,
        "rounds_with_two_round_ends": doubled_ends,
        "rss_after_warmup_kib": rss.get("after_warmup_kib", 0),
        "rss_end_kib": rss.get("end_kib", 0),
        "rss_growth_kib": rss.get("end_kib", 0) - rss.get("after_warmup_kib", 0),
        "rss_samples_kib": rss_samples,
        "slowest_prompt_ms": round(max(waits, default=0.0) * 1000, 1),
        "prompt_p50_ms": round(percentile(waits, 0.5) * 1000, 2),
        "prompt_p99_ms": round(percentile(waits, 0.99) * 1000, 1),
        "acts_timed": len(waits),
        "errors": errors,
        "journals": str(folder),
    }
    print(json.dumps(result), flush=True)
    return 0 if lost == 0 and mismatched == 0 and not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
