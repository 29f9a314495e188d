"""The kernel plays exactly the rounds the round controller plays: output for output.

For every variant, 1 to 7 boxes and both shuffles, the same seeded chunk is played three times:
by the headless ``RoundController`` (``--engine controller``: every state change, ledger entry
and device command it emits), by the kernel in trace mode (what it says the controller would
emit, its entries made by the settlement functions) and by the kernel as the simulator runs it
(counting only). The outputs must be equal item for item, and the three tallies equal. 20,000
rounds per variant, most of them with one box (the simulator's usual table, and the cheapest
for the controller), every box count with both shuffles; the chunks run in a process pool on
the machine's cores (two at most).
``bench/kernel_differential.py`` runs the same comparison for as many rounds as asked.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from controller.game.rules import VARIANT_IDS
from controller.game.settlement import EntryKind, LedgerEntry
from controller.play import simulate
from controller.play.differential import Difference, compare_engines, first_difference
from controller.play.hand_graph import DECISIONS, HandGraph
from controller.play.simulate import SimConfig, run_chunk
from controller.round.controller import Output, StateChanged
from controller.round.spec import Action, State

# (boxes, rounds) for each shuffle: 20,000 rounds, 16,050 of them with one box, every other
# box count at least 250 rounds (1,750 hands at seven boxes); a quarter with a fresh shoe every
# round (which costs the controller's stream a shuffle a round). The controller costs about
# 1 ms a round with one box and 4 ms with seven: this plan keeps the four variants near 150 CPU
# seconds (about 215 when the boxes were spread more evenly), a CI budget of about 3 minutes.
PLAN = {
    "cut-card": ((1, 12800), (2, 500), (3, 400), (4, 350), (5, 300), (6, 300), (7, 300)),
    "each-round": ((1, 3250), (2, 400), (3, 350), (4, 300), (5, 250), (6, 250), (7, 250)),
}
ROUNDS_PER_VARIANT = sum(rounds for plan in PLAN.values() for _, rounds in plan)


def jobs(variant: str) -> list[tuple[SimConfig, int]]:
    out = []
    for m, shuffle in enumerate(simulate.SHUFFLES):
        for n, (boxes, rounds) in enumerate(PLAN[shuffle]):
            config = SimConfig(variant, rounds=rounds, boxes=boxes, shuffle=shuffle, seed=15)
            out.append((config, 10 * n + m))  # the chunk number: its own seeded stream
    return out


def run_job(job: tuple[SimConfig, int]) -> Difference | None:
    config, chunk = job
    return compare_engines(config, chunk)


@pytest.fixture(scope="module")
def differences() -> dict[str, list[tuple[SimConfig, Difference | None]]]:
    everything = [job for variant in VARIANT_IDS for job in jobs(variant)]
    with ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        found = list(pool.map(run_job, everything))
    out: dict[str, list[tuple[SimConfig, Difference | None]]] = {v: [] for v in VARIANT_IDS}
    for (config, _), difference in zip(everything, found, strict=True):
        out[config.variant].append((config, difference))
    return out


def test_the_plan_covers_20000_rounds_of_every_box_count_and_both_shuffles() -> None:
    assert ROUNDS_PER_VARIANT == 20_000
    assert set(PLAN) == set(simulate.SHUFFLES)
    assert all({boxes for boxes, _ in plan} == set(range(1, 8)) for plan in PLAN.values())


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_the_kernel_plays_every_round_as_the_controller_does(
    variant: str, differences: dict[str, list[tuple[SimConfig, Difference | None]]]
) -> None:
    results = differences[variant]
    assert len(results) == sum(len(plan) for plan in PLAN.values())
    found = [
        f"{c.boxes} {'box' if c.boxes == 1 else 'boxes'}, {c.shuffle}: {d}"
        for c, d in results
        if d is not None
    ]
    assert not found, "\n".join(found)


def test_a_wrong_decision_in_the_kernel_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a kernel that stands where basic strategy hits."""
    monkeypatch.setattr(simulate, "_GRAPHS", {})  # tables of its own, dropped afterwards
    real = HandGraph.decision
    hit, stand = DECISIONS.index(Action.HIT), DECISIONS.index(Action.STAND)

    def stands_instead_of_hitting(self: HandGraph, node: int, up: int, hands: int) -> int:
        decision = real(self, node, up, hands)
        if decision == hit:
            decision = self.decisions[self.decision_slot(node, up, hands)] = stand
        return decision

    monkeypatch.setattr(HandGraph, "decision", stands_instead_of_hitting)
    difference = compare_engines(SimConfig("pa-blackjack", rounds=300, seed=3), 0)
    assert difference is not None
    assert difference.what == "outputs"
    assert "hit" in " ".join(difference.controller)
    assert "stand" in " ".join(difference.kernel)


def test_the_first_difference_names_the_round_and_the_items() -> None:
    deal = StateChanged(State.BETTING, State.DEALING, Action.DEAL)
    ok = StateChanged(State.SETTLING, State.BETTING, Action.OK)
    hit = StateChanged(State.PLAYING, State.CARD_DUE, Action.HIT)
    stand = StateChanged(State.PLAYING, State.DEALER, Action.STAND)
    assert first_difference([deal, ok, deal, hit], [deal, ok, deal, hit]) is None
    difference = first_difference([deal, ok, deal, hit], [deal, ok, deal, stand])
    assert difference is not None
    assert (difference.index, difference.round) == (3, 2)
    assert "HIT" in difference.controller[-1]
    assert "STAND" in difference.kernel[-1]
    missing = first_difference([deal, ok], [deal])
    assert missing is not None
    assert missing.kernel == (
        "StateChanged(source=<State.BETTING: 'betting'>, "
        "dest=<State.DEALING: 'dealing'>, action=<Action.DEAL: 'deal'>)",
    )


def test_a_super_bonus_round_is_settled_alike(tmp_path: Path) -> None:
    """The rare path: a suited 7-7-7 against a dealer 7 (with splits off, so 7-7 is hit; the
    shipped NZ strategy splits 7-7 against a 7, and a split hand earns no Super Bonus)."""
    shoe = tmp_path / "super-bonus.txt"
    # burn, box 1, box 2, the dealer's first card, box 1, box 2, box 1 hits, the dealer
    shoe.write_text("2C 7S 9D 7H 7S KD 7S 5C 8C\n")
    config = SimConfig(
        "nz-pontoon",
        rounds=3,
        boxes=2,
        shoe_file=str(shoe),
        overrides={"split.allowed": False},
    )
    assert compare_engines(config, 0) is None
    outputs: list[Output] = []
    tally = run_chunk(dataclasses.replace(config, engine="kernel"), 0, 3, None, outputs)
    kinds = [o.kind for o in outputs if isinstance(o, LedgerEntry)]
    assert EntryKind.SUPER_BONUS in kinds
    assert EntryKind.TABLE_BONUS in kinds
    assert (tally.rounds, tally.super_bonuses, tally.shoe_exhausted) == (1, 1, True)


def test_a_21_that_plays_on_is_played_alike_from_the_online_chart() -> None:
    """pontoon-blackjack where a 21 plays on (issue 28): the simulator picks the published
    online chart, whose row 21 doubles a three- or four-card soft 21, and the kernel plays it
    round for round as the controller does."""
    overrides = {"hands.twenty_one_ends_hand": False, "double.max_total_after_two": 21}
    for boxes, rounds in ((1, 3000), (3, 400)):
        config = SimConfig(
            "pontoon-blackjack", rounds=rounds, boxes=boxes, seed=28, overrides=overrides
        )
        assert compare_engines(config, 0) is None
