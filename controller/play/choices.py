"""The simulator's named choices, importable without the simulator (the command line lists them
in its help; :mod:`controller.play.simulate` takes them)."""

from __future__ import annotations

from typing import Literal

Shuffle = Literal["each-round", "cut-card"]
SHUFFLES: tuple[Shuffle, ...] = ("each-round", "cut-card")
# kernel: the integer-coded kernel (controller.play.kernel), held to the controller by the
# differential test; controller: every round through the RoundController, the audited path.
Engine = Literal["kernel", "controller"]
ENGINES: tuple[Engine, ...] = ("kernel", "controller")
