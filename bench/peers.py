"""croupier simulate against pure-Python peers on comparable work: one JSON line.

``python bench/peers.py [--reps R] [--rounds N] [--peer-rounds M] [--setup]``

The work: one box (one player), six decks, basic strategy, flat bets, as many rounds as each
program plays in about the same time; Blackjack, as the peers play it. The programs:

* ``croupier``: ``simulate()`` of pa-blackjack (6 decks, S17, DAS, late surrender, cut card at
  78 cards) with the default engine (the kernel), on this venv's Python (3.11 here);
* ``croupier-steady``: the same, its tables built before the clock (20,000 rounds of another
  seed in the same process): the steady state;
* ``croupier-controller``: the same with ``--engine controller`` (fewer rounds);
* with ``--before REV``: ``croupier-before`` and ``croupier-steady-before``, the same from REV
  (checked out in a temporary ``git worktree``), in the same alternation;
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
included) from this tree (from the tables it keeps, and with ``--no-cache``; the cache in a
temporary folder, filled by a first run that is not counted) and from ``--before REV``
(default ``main``, checked out in a temporary ``git worktree``), against cardsharp's N rounds
(its whole process, and its own figure around the simulation only), alternated ``--reps``
times; CPU seconds of each child from ``getrusage(RUSAGE_CHILDREN)``, medians, and the ratios.

``--setup`` creates the peers' venv (Python 3.12 from pyenv, ``cardsharp==0.5.0`` and
``BlackjackSim==1.0.0`` from PyPI) in ``--venv`` (default ``~/.cache/croupier-bench/peers``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
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
if sys.argv[4:] == ["steady"]:  # the tables built before the clock (other seeds' rounds)
    simulate(SimConfig("pa-blackjack", rounds=20000, seed=seed + 10**6, engine=engine))
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


def run(python: Path, code: str, *args: object, tree: Path = ROOT) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cwd = tree
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


@contextlib.contextmanager
def checked_out(rev: str) -> Iterator[tuple[Path, str]]:
    """``rev`` checked out in a temporary ``git worktree`` (removed after): its path and the
    short commit."""
    git = ["git", "-C", str(ROOT)]
    short = subprocess.run(  # noqa: S603 - git, our arguments
        [*git, "rev-parse", "--short", rev], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="croupier-peers-") as folder:
        tree = Path(folder) / "before"
        subprocess.run(  # noqa: S603
            [*git, "worktree", "add", "--detach", str(tree), short], capture_output=True, check=True
        )
        try:
            yield tree, short
        finally:
            subprocess.run(  # noqa: S603
                [*git, "worktree", "remove", "--force", str(tree)],
                capture_output=True,
                check=False,
            )


def whole_runs(rounds: int, reps: int, before: Path, peers_python: Path) -> dict[str, Any]:
    """``croupier simulate`` from this tree (its kept tables, and ``--no-cache``) and from the
    tree ``before`` against cardsharp, whole processes, alternated (see the module's
    docstring)."""
    with tempfile.TemporaryDirectory(prefix="croupier-peers-run-") as folder:
        cache = {**os.environ, "XDG_CACHE_HOME": str(Path(folder) / "cache")}
        argv = [sys.executable, "-m", "controller.cli", "simulate", "pa-blackjack"]
        argv += ["--rounds", str(rounds)]
        programs = {
            "croupier": (argv, {**cache, "PYTHONPATH": str(ROOT)}),
            "croupier_no_cache": ([*argv, "--no-cache"], {**cache, "PYTHONPATH": str(ROOT)}),
            "croupier_before": (argv, {**cache, "PYTHONPATH": str(before)}),
        }
        cpu: dict[str, list[float]] = {name: [] for name in (*programs, "cardsharp")}
        cardsharp_sim: list[float] = []
        for command, env in programs.values():  # compiles the modules, keeps the tables
            child_cpu_s(command, env, Path(folder))
        for rep in range(reps):
            for name, (command, env) in programs.items():
                cpu[name].append(child_cpu_s(command, env, Path(folder))[0])
            peer = [str(peers_python), "-c", CARDSHARP, str(rounds), str(2026 + rep)]
            spent, out = child_cpu_s(peer, dict(os.environ), Path(folder))
            cpu["cardsharp"].append(spent)
            cardsharp_sim.append(json.loads(out.strip().splitlines()[-1])["cpu_seconds"])
    med = {name: statistics.median(values) for name, values in cpu.items()}
    sim = statistics.median(cardsharp_sim)
    ratios: dict[str, float] = {}
    for name in programs:
        ratios[f"cardsharp_whole_over_{name}"] = round(med["cardsharp"] / med[name], 2)
        ratios[f"cardsharp_simulation_over_{name}"] = round(sim / med[name], 2)
    return {
        "benchmark": "peers_whole_run",
        "work": f"croupier simulate pa-blackjack --rounds {rounds}; cardsharp {rounds} rounds",
        "cpu_s_median": {name: round(v, 3) for name, v in med.items()},
        "cpu_s_runs": {name: [round(x, 3) for x in v] for name, v in cpu.items()},
        "cardsharp_simulation_only_cpu_s_median": round(sim, 3),
        "ratios": ratios,
        "croupier_over_before": round(med["croupier"] / med["croupier_before"], 3),
        "croupier_no_cache_over_before": round(
            med["croupier_no_cache"] / med["croupier_before"], 3
        ),
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
    parser.add_argument(
        "--before", metavar="REV", help="also croupier from REV (--whole-run: main)"
    )
    args = parser.parse_args()
    if args.setup or not (args.venv / "bin" / "python").exists():
        setup(args.venv)
    peers_python = args.venv / "bin" / "python"
    if args.whole_run:
        with checked_out(args.before or "main") as (tree, short):
            line = whole_runs(args.whole_run, args.reps, tree, peers_python)
        print(json.dumps({**line, "before": f"{short} ({args.before or 'main'})"}))
        return 0
    with contextlib.ExitStack() as stack:
        before = stack.enter_context(checked_out(args.before)) if args.before else None
        print(json.dumps(compare(args, peers_python, before)))
    return 0


def compare(
    args: argparse.Namespace, peers_python: Path, before: tuple[Path, str] | None
) -> dict[str, Any]:
    """Rounds per CPU second of each program, alternated (see the module's docstring)."""
    here = Path(sys.executable)
    programs: dict[str, tuple[Any, ...]] = {
        "croupier": (here, CROUPIER, ROOT, args.rounds, "kernel"),
        "croupier-steady": (here, CROUPIER, ROOT, args.rounds, "kernel", "steady"),
        "croupier-controller": (here, CROUPIER, ROOT, args.controller_rounds, "controller"),
        "cardsharp": (peers_python, CARDSHARP, ROOT, args.peer_rounds),
        "blackjacksim": (peers_python, BLACKJACKSIM, ROOT, args.peer_rounds),
    }
    if before is not None:
        programs["croupier-before"] = (here, CROUPIER, before[0], args.rounds, "kernel")
        programs["croupier-steady-before"] = (
            here, CROUPIER, before[0], args.rounds, "kernel", "steady"
        )  # fmt: skip
    names = list(programs)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for rep in range(args.reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            python, code, tree, rounds, *extra = programs[name]
            runs[name].append(run(python, code, rounds, 2026 + rep, *extra, tree=tree))
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
    steady = results["croupier-steady"]["rounds_per_cpu_second_median"]
    line["steady_ratio_to_cardsharp"] = round(
        steady / results["cardsharp"]["rounds_per_cpu_second_median"], 2
    )
    if before is not None:
        line["before"] = before[1]
        for name in ("croupier", "croupier-steady"):
            line[f"{name}_over_before"] = round(
                results[name]["rounds_per_cpu_second_median"]
                / results[f"{name}-before"]["rounds_per_cpu_second_median"],
                3,
            )
    return line


if __name__ == "__main__":
    sys.exit(main())
