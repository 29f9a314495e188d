"""croupier simulate against pure-Python peers on comparable work: one JSON line.

``python bench/peers.py [--reps R] [--rounds N] [--peer-rounds M] [--setup]``

The work: one box (one player), six decks, basic strategy, flat bets, as many rounds as each
program plays in about the same time; Blackjack, as the peers play it. The programs:

* ``croupier``: ``simulate()`` of pa-blackjack (6 decks, S17, DAS, late surrender, cut card at
  78 cards) with the default engine (the kernel), on this venv's Python (3.11 here);
* ``croupier-controller``: the same with ``--engine controller`` (fewer rounds);
* ``cardsharp`` 0.5.0: its own ``--simulate --single_cpu`` path (``blackjack.main()``: 6
  decks, penetration 0.75, S17, basic strategy, one player "Bob"), on Python 3.12 (it needs
  3.12 or newer);
* ``blackjacksim`` 1.0.0: ``BlackJackSim.play_games`` with its Hoyle strategy against its
  casino dealer (an infinite deck, no doubles, wins and losses only, no money), Python 3.12.

Each program runs in its own process; the runs are alternated (the order rotates every
repetition) so the machine's load falls on all of them alike. Each process measures its own CPU
time (``time.process_time``) around the simulation only, after its imports, so the figure is
rounds per CPU second of one core; the ratio of medians is what to compare. The house edges are
what each program reports: croupier's per initial unit with its standard error, cardsharp's
"House Edge" (net loss over all money bet, doubles and splits included) and its loss per
initial bet, BlackjackSim's net games lost per game (it pays no 3:2 and does not double).

``--whole-run N`` (issue 26) compares whole processes instead: ``croupier simulate pa-blackjack
--rounds N`` as a user runs it (``python -m controller.cli``, start, imports and tables
included) from this tree and from ``--before REV`` (default ``main``, checked out in a temporary
``git worktree``), against cardsharp's N rounds (its whole process, and its own figure around
the simulation only), alternated ``--reps`` times; CPU seconds of each child from
``getrusage(RUSAGE_CHILDREN)``, medians, and the ratios.

``--setup`` creates the peers' venv (Python 3.12 from pyenv, ``cardsharp==0.5.0`` and
``BlackjackSim==1.0.0`` from PyPI) in ``--venv`` (default ``~/.cache/croupier-bench/peers``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = Path.home() / ".cache" / "croupier-bench" / "peers"
PYTHON_312 = Path.home() / ".pyenv" / "versions" / "3.12.1" / "bin" / "python"
PEERS = ("cardsharp==0.5.0", "BlackjackSim==1.0.0")

CROUPIER = """
import json, sys
from controller.play.simulate import SimConfig, simulate, report
rounds, seed, engine = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
result = simulate(SimConfig("pa-blackjack", rounds=rounds, seed=seed, engine=engine))
data = report(result)
edge = data["house_edge"]["with_super_bonus"]
print(json.dumps({"rounds": data["rounds"], "cpu_seconds": result.cpu_seconds,
                  "house_edge": edge["edge"], "standard_error": edge["standard_error"],
                  "python": sys.version.split()[0]}))
"""

CARDSHARP = """
import contextlib, io, json, random, re, sys, time
import cardsharp.blackjack.blackjack as bj
rounds, seed = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)
sys.argv = ["cardsharp", "--simulate", "--single_cpu", "--num_games", str(rounds)]
out = io.StringIO()
cpu = time.process_time()
with contextlib.redirect_stdout(out):
    bj.main()
cpu = time.process_time() - cpu
text = out.getvalue()
def number(label):
    return float(re.search(label + r": \\$?(-?[\\d,.]+)", text).group(1).replace(",", ""))
net = number("Net Earnings")
print(json.dumps({"rounds": rounds, "cpu_seconds": cpu, "house_edge": number("House Edge") / 100,
                  "loss_per_initial_bet": -net / (rounds * 10), "python": sys.version.split()[0]}))
"""

BLACKJACKSIM = """
import json, logging, random, sys, time
from BlackjackSim.BlackJackSim import BlackJackSim
from BlackjackSim.PlayStrategy import CasinoDealerPlayStrategy, HoylePlayerPlayStrategy
rounds, seed = int(sys.argv[1]), int(sys.argv[2])
logging.disable(logging.CRITICAL)
random.seed(seed)
sim = BlackJackSim(player_strategy=HoylePlayerPlayStrategy(),
                   dealer_strategy=CasinoDealerPlayStrategy())
cpu = time.process_time()
stats = sim.play_games(rounds)
cpu = time.process_time() - cpu
print(json.dumps({"rounds": rounds, "cpu_seconds": cpu,
                  "house_edge": (stats.Dealer_Wins - stats.Player_Wins) / rounds,
                  "python": sys.version.split()[0]}))
"""


def setup(venv: Path) -> None:
    if not PYTHON_312.exists():
        raise SystemExit(f"no Python 3.12 at {PYTHON_312} (cardsharp 0.5.0 needs >= 3.12)")
    subprocess.run([str(PYTHON_312), "-m", "venv", str(venv)], check=True)  # noqa: S603
    pip = [str(venv / "bin" / "pip"), "install", "-q", *PEERS]
    subprocess.run(pip, check=True)  # noqa: S603 - pip, pinned packages


def run(python: Path, code: str, *args: object, cwd: Path = ROOT) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(  # noqa: S603 - a Python of ours and this script's code
        [str(python), "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{python} failed:\n{done.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def child_cpu_s(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """The CPU seconds (user + system) of one child process, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(  # noqa: S603 - a Python of ours and our arguments
        argv, capture_output=True, text=True, cwd=cwd, env=env, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def whole_runs(rounds: int, reps: int, before_rev: str, peers_python: Path) -> dict[str, Any]:
    """``croupier simulate`` from this tree and from ``before_rev`` against cardsharp, whole
    processes, alternated (see the module's docstring)."""
    git = ["git", "-C", str(ROOT)]
    rev = subprocess.run(  # noqa: S603 - git, our arguments
        [*git, "rev-parse", "--short", before_rev], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="croupier-peers-") as folder:
        before = Path(folder) / "before"
        subprocess.run(  # noqa: S603
            [*git, "worktree", "add", "--detach", str(before), rev], capture_output=True, check=True
        )
        try:
            argv = [sys.executable, "-m", "controller.cli", "simulate", "pa-blackjack"]
            argv += ["--rounds", str(rounds)]
            trees = {"croupier": ROOT, "croupier_before": before}
            cpu: dict[str, list[float]] = {name: [] for name in (*trees, "cardsharp")}
            cardsharp_sim: list[float] = []
            for tree in trees.values():  # compiles each tree's modules: not counted
                child_cpu_s(argv, {**os.environ, "PYTHONPATH": str(tree)}, Path(folder))
            for rep in range(reps):
                for name, tree in trees.items():
                    env = {**os.environ, "PYTHONPATH": str(tree)}
                    cpu[name].append(child_cpu_s(argv, env, Path(folder))[0])
                peer = [str(peers_python), "-c", CARDSHARP, str(rounds), str(2026 + rep)]
                spent, out = child_cpu_s(peer, dict(os.environ), Path(folder))
                cpu["cardsharp"].append(spent)
                cardsharp_sim.append(json.loads(out.strip().splitlines()[-1])["cpu_seconds"])
        finally:
            subprocess.run(  # noqa: S603
                [*git, "worktree", "remove", "--force", str(before)],
                capture_output=True,
                check=False,
            )
    med = {name: statistics.median(values) for name, values in cpu.items()}
    sim = statistics.median(cardsharp_sim)
    return {
        "benchmark": "peers_whole_run",
        "work": f"croupier simulate pa-blackjack --rounds {rounds}; cardsharp {rounds} rounds",
        "before": f"{rev} ({before_rev})",
        "cpu_s_median": {name: round(v, 3) for name, v in med.items()},
        "cpu_s_runs": {name: [round(x, 3) for x in v] for name, v in cpu.items()},
        "cardsharp_simulation_only_cpu_s_median": round(sim, 3),
        "ratio_cardsharp_whole_over_croupier": round(med["cardsharp"] / med["croupier"], 2),
        "ratio_cardsharp_simulation_over_croupier": round(sim / med["croupier"], 2),
        "ratio_cardsharp_simulation_over_croupier_before": round(sim / med["croupier_before"], 2),
        "croupier_after_over_before": round(med["croupier"] / med["croupier_before"], 3),
        "reps": reps,
        "load_average": os.getloadavg(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=400_000, help="croupier's rounds a run")
    parser.add_argument("--controller-rounds", type=int, default=10_000)
    parser.add_argument("--peer-rounds", type=int, default=40_000, help="each peer's rounds")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--setup", action="store_true", help="create the peers' venv first")
    parser.add_argument("--whole-run", type=int, metavar="N", help="whole processes, N rounds")
    parser.add_argument("--before", default="main", metavar="REV", help="with --whole-run")
    args = parser.parse_args()
    if args.setup or not (args.venv / "bin" / "python").exists():
        setup(args.venv)
    peers_python = args.venv / "bin" / "python"
    if args.whole_run:
        print(json.dumps(whole_runs(args.whole_run, args.reps, args.before, peers_python)))
        return 0
    here = Path(sys.executable)
    programs = {
        "croupier": (here, CROUPIER, args.rounds, "kernel"),
        "croupier-controller": (here, CROUPIER, args.controller_rounds, "controller"),
        "cardsharp": (peers_python, CARDSHARP, args.peer_rounds),
        "blackjacksim": (peers_python, BLACKJACKSIM, args.peer_rounds),
    }
    names = list(programs)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for rep in range(args.reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            python, code, rounds, *extra = programs[name]
            runs[name].append(run(python, code, rounds, 2026 + rep, *extra))
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        rates = [r["rounds"] / r["cpu_seconds"] for r in runs[name]]
        edges = [r["house_edge"] for r in runs[name]]
        row: dict[str, Any] = {
            "python": runs[name][0]["python"],
            "rounds_per_run": runs[name][0]["rounds"],
            "rounds_per_cpu_second_median": round(statistics.median(rates), 1),
            "rounds_per_cpu_second_runs": [round(x, 1) for x in rates],
            "house_edge_mean": round(statistics.fmean(edges), 5),
        }
        if "standard_error" in runs[name][0]:
            se = [r["standard_error"] for r in runs[name]]
            row["house_edge_standard_error"] = round(
                statistics.fmean(x * x for x in se) ** 0.5 / len(se) ** 0.5, 5
            )
        if "loss_per_initial_bet" in runs[name][0]:
            row["loss_per_initial_bet_mean"] = round(
                statistics.fmean(r["loss_per_initial_bet"] for r in runs[name]), 5
            )
        results[name] = row
    best_peer = max(
        ("cardsharp", "blackjacksim"), key=lambda n: results[n]["rounds_per_cpu_second_median"]
    )
    ours = results["croupier"]["rounds_per_cpu_second_median"]
    line = {
        "benchmark": "peers",
        "work": "one box, six decks, basic strategy, flat bets (croupier: pa-blackjack)",
        "programs": results,
        "ratio_to_cardsharp": round(ours / results["cardsharp"]["rounds_per_cpu_second_median"], 2),
        "ratio_to_blackjacksim": round(
            ours / results["blackjacksim"]["rounds_per_cpu_second_median"], 2
        ),
        "ratio_to_best_peer": round(ours / results[best_peer]["rounds_per_cpu_second_median"], 2),
        "best_peer": best_peer,
        "ratio_kernel_to_controller": round(
            ours / results["croupier-controller"]["rounds_per_cpu_second_median"], 1
        ),
        "reps": args.reps,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
