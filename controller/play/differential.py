"""The kernel held to the round controller: the same chunk through both, compared.

:func:`compare_engines` plays one seeded chunk of the simulator three times: by the headless
``RoundController`` (every output it emits: state changes, ledger entries, device commands),
by the kernel in trace mode (what it says the controller would emit) and by the kernel as the
simulator runs it (counting only); it returns the first difference, or None when the outputs
are equal item for item and the three tallies are equal.
``tests/simulate/test_kernel_differential.py`` and ``bench/kernel_differential.py`` use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from controller.game.prompts import Prompt
from controller.play.simulate import SimConfig, run_chunk
from controller.play.tally import Tally
from controller.round.controller import Output, RoundEnded, RoundStarted, StateChanged
from controller.round.spec import Action, State

__all__ = ["Difference", "compare_engines", "first_difference"]

CONTEXT = 4  # items shown either side of a difference


@dataclass(frozen=True, slots=True)
class Difference:
    """Where the kernel and the controller part: the item's index, the round it is in
    (1-based, counted by the settlement's OK) and the items around it."""

    index: int
    round: int
    controller: tuple[str, ...]
    kernel: tuple[str, ...]
    what: str = "outputs"

    def __str__(self) -> str:
        if self.what != "outputs":
            return self.what
        return (
            f"output {self.index} (round {self.round}) differs:\n"
            f"  controller: {' | '.join(self.controller)}\n"
            f"  kernel:     {' | '.join(self.kernel)}"
        )


def _round_of(items: Sequence[object], index: int) -> int:
    closed = sum(
        1
        for item in items[:index]
        if isinstance(item, StateChanged)
        and item.source is State.SETTLING
        and item.action is Action.OK
    )
    return closed + 1


def first_difference(controller: Sequence[object], kernel: Sequence[object]) -> Difference | None:
    """The first place two output lists differ (a missing item counts), or None."""
    for index in range(max(len(controller), len(kernel))):
        a = controller[index] if index < len(controller) else None
        b = kernel[index] if index < len(kernel) else None
        if a != b:
            lo, hi = max(0, index - CONTEXT), index + CONTEXT + 1
            return Difference(
                index,
                _round_of(controller, index),
                tuple(repr(x) for x in controller[lo:hi]),
                tuple(repr(x) for x in kernel[lo:hi]),
            )
    return None


def _tally_difference(expected: Tally, got: Tally, what: str) -> Difference | None:
    for f in dataclasses.fields(Tally):
        a, b = getattr(expected, f.name), getattr(got, f.name)
        if a != b:
            return Difference(-1, -1, (), (), f"{what}: tally.{f.name} {a!r} != {b!r}")
    return None


def _finished_rounds(items: Sequence[object]) -> list[object]:
    """The outputs up to the end of the last finished round (a recorded card order may end in
    the middle of one, which neither engine counts)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if (
            isinstance(item, StateChanged)
            and item.source is State.SETTLING
            and item.action is Action.OK
        ):
            return list(items[: index + 1])
    return []


def compare_engines(config: SimConfig, chunk: int) -> Difference | None:
    """Play chunk ``chunk`` of ``config`` (``config.rounds`` rounds) with both engines."""
    rounds = config.rounds
    controller: list[Output] = []
    expected = run_chunk(
        dataclasses.replace(config, engine="controller"), chunk, rounds, None, controller
    )
    traced: list[Output] = []
    kernel = dataclasses.replace(config, engine="kernel")
    got = run_chunk(kernel, chunk, rounds, None, traced)
    counted = run_chunk(kernel, chunk, rounds)
    # The prompts and the round's start and end marks are the controller's alone (the kernel
    # plays the moves, the money and the device commands, not what is said about them).
    said = (Prompt, RoundStarted, RoundEnded)
    shown: Sequence[object] = [item for item in controller if not isinstance(item, said)]
    kernel_items: Sequence[object] = traced
    if config.shoe_file is not None:
        shown, kernel_items = _finished_rounds(shown), _finished_rounds(traced)
    return (
        first_difference(shown, kernel_items)
        or _tally_difference(expected, got, "the kernel in trace mode")
        or _tally_difference(expected, counted, "the kernel counting")
    )
