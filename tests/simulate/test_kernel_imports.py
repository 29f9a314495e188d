"""A kernel run's start (issue 26): ``croupier simulate`` imports neither the round controller
nor autoplay (nor through it the round's errors, the dealer's words, the device events), which
only the controller engine uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
LEFT_OUT = (
    "controller.play.autoplay",
    "controller.play.sim_hands",
    "controller.round.controller",
    "controller.round.errors",
    "controller.game.words",
    "drivers.tbl21.events",
)
PROGRAM = """
import sys
from controller.cli.main import main
assert main(["simulate", "pa-blackjack", "--rounds", "300", "--no-cache", "--json"]) == 0
print("imported:", *[m for m in sys.argv[1:] if m in sys.modules])
"""


def test_a_kernel_run_imports_neither_autoplay_nor_the_controller(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *LEFT_OUT],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)},
        check=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "imported:"
    # the controller engine still finds its dealer
    from controller.play.sim_hands import SimHands  # noqa: PLC0415

    assert SimHands.__module__ == "controller.play.sim_hands"
