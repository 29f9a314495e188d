"""Every fault of protocol.md in every phase of a round where it can happen, against
``croupier run`` in a subprocess with its shoe, hole-card reader and panel emulated on real ptys.

One ``croupier run`` per fault plays one round per phase (the fault injected as the round
enters that phase), then one undisturbed round; one more ``croupier run`` plays the undisturbed
round the others are compared with. Each (fault, phase) test then checks that round in the
SQLite journal: the documented reaction (a supervisor's decision where one is needed), the
fault journalled when raised and when cleared, every card the shoe read applied once and no
other, and the round's ledger the undisturbed one's (or void, every wager returned).
Which combinations are left out, and why: ``tests/faults/catalog.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.faults.catalog import CASES, KNOWN, FaultCase, Outcome, hooks
from tests.faults.harness import (
    Dealer,
    JournalRow,
    Rig,
    RoundLog,
    applied_cards,
    read_journal,
    round_end,
)


@dataclass
class Run:
    """What the ``croupier run`` processes of one fault left behind."""

    rounds: dict[str, RoundLog] = field(default_factory=dict)  # phase (or "clean") -> round
    rows: dict[str, list[JournalRow]] = field(default_factory=dict)  # phase -> its journal
    exit_codes: list[int] = field(default_factory=list)
    output: list[str] = field(default_factory=list)
    # per phase: per device role, how much each of its stats grew in that round
    stats: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # phase -> what went wrong


def play(folder: Path, case: FaultCase | None) -> Run:
    """One round per phase of ``case`` (the fault injected as the round enters it), then an
    undisturbed round, in one ``croupier run``. A round that goes wrong is recorded, and a
    fresh ``croupier run`` (new devices, new journal) plays the rest."""
    run = Run()
    todo = [*(case.phases if case is not None else ()), "clean"]
    attempt = 0
    while todo:
        attempt += 1
        done: list[str] = []
        with Rig(folder / f"run{attempt}") as rig:
            dealer = Dealer(rig)
            devices = {"shoe": rig.shoe, "peek": rig.peek, "panel": rig.panel}
            for phase in todo:
                before = {r: dict(d.stats) for r, d in devices.items()}
                done.append(phase)
                try:
                    run.rounds[phase] = dealer.play_round(*hooks(rig, case, phase))
                except AssertionError as exc:
                    run.errors[phase] = str(exc)
                    break
                finally:
                    run.stats[phase] = {
                        r: {
                            k: v - before[r].get(k, 0)
                            for k, v in d.stats.items()
                            if v != before[r].get(k, 0)
                        }
                        for r, d in devices.items()
                    }
            run.exit_codes.append(rig.stop())
            run.output += rig.output
        rows = read_journal(rig.journal_path)
        for phase in done:
            run.rows[phase] = rows
        todo = todo[len(done) :]
    return run


_runs: dict[str, Run] = {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    def get(name: str) -> Run:
        if name not in _runs:
            case = CASES.get(name)
            _runs[name] = play(tmp_path_factory.mktemp(name), case)
        return _runs[name]

    return get


def rows_of_round(rows: list[JournalRow], number: int) -> list[JournalRow]:
    return [r for r in rows if r.round_id == number]


MATRIX = [
    pytest.param(
        name,
        phase,
        id=f"{name}-{phase}",
        marks=[pytest.mark.xfail(strict=True, reason=KNOWN[name, phase])]
        if (name, phase) in KNOWN
        else [],
    )
    for name, case in CASES.items()
    for phase in case.phases
]
EXPECTED_PHASES = ["dealing", "offers", "peek", "players", "dealer", "settlement"]


def test_an_undisturbed_round_goes_through_every_phase_and_stops_cleanly(runs: Any) -> None:
    base = runs("baseline")
    assert base.errors == {}
    assert base.exit_codes == [0], base.output
    clean = base.rounds["clean"]
    rows = rows_of_round(base.rows["clean"], clean.number)
    assert set(round_end(rows, clean.number)["net_by_player"]) == {"ann", "bob"}
    assert applied_cards(rows) == [(n, c) for n, c in clean.draws if c is not None]
    assert clean.phases == EXPECTED_PHASES


def baseline_net(runs: Any) -> dict[str, int]:
    base = runs("baseline")
    number = base.rounds["clean"].number
    net: dict[str, int] = round_end(base.rows["clean"], number)["net_by_player"]
    return net


@pytest.mark.parametrize(("fault", "phase"), MATRIX)
def test_fault_in_phase_is_journalled_and_the_round_ends_right(
    runs: Any, fault: str, phase: str
) -> None:
    case = CASES[fault]
    run = runs(fault)
    assert phase not in run.errors, run.errors[phase]
    assert all(code == 0 for code in run.exit_codes), run.output
    assert not any("caught errors" in line for line in run.output), run.output
    log = run.rounds[phase]
    journal = run.rows[phase]
    rows = rows_of_round(journal, log.number)
    assert phase in log.phases

    # the fault really happened, and is journalled when raised and when cleared
    if case.fired is not None:
        assert case.fired(run.stats[phase]), run.stats[phase]
    else:
        later = [r for r in journal if r.seq >= rows[0].seq]
        raised = next((r for r in later if case.raised(r)), None)
        assert raised is not None, f"{fault} not journalled as raised"
        assert raised.round_id == log.number
        assert any(case.cleared(r) for r in later if r.seq > raised.seq), (
            f"{fault} not journalled as cleared"
        )

    # the reaction: the supervisor's decision where one is needed, none otherwise
    decisions = [r.payload["action"] for r in rows if r.kind == "supervisor"]
    held = any(r.kind == "state" and r.payload["dest"] == "hold" for r in rows)
    if case.supervisor is not None:
        assert decisions == [case.supervisor]
    elif case.on_hold is not None:  # a lockup only in some phases (the lid while dealing)
        assert decisions == (["clear_lockup"] if held else [])
    else:
        assert decisions == []
    assert held is (case.reaction.startswith(("hold", "lockup")) or bool(decisions))

    # every card the shoe read was applied once, and no other card
    assert applied_cards(rows) == [(n, c) for n, c in log.draws if c is not None]

    # the ledger: the undisturbed round's, or void with every wager returned
    end = round_end(rows, log.number)
    if case.outcome is Outcome.SAME:
        assert end["net_by_player"] == baseline_net(runs)
    else:
        assert end["net_by_player"] == dict.fromkeys(baseline_net(runs), 0)
        returned = sorted(
            (r.payload["player"], r.payload["stake_cents"])
            for r in rows
            if r.kind == "ledger" and r.payload["kind"] == "return"
        )
        wagers = sorted(
            (r.payload["player"], r.payload["amount_cents"])
            for r in rows
            if r.kind == "call" and r.payload.get("type") == "Bet"
        )
        assert returned == wagers


@pytest.mark.parametrize("fault", list(CASES))
def test_after_each_fault_the_table_plays_an_undisturbed_round_to_the_same_ledger(
    runs: Any, fault: str
) -> None:
    run = runs(fault)
    assert "clean" not in run.errors, run.errors["clean"]
    clean = run.rounds["clean"]
    rows = rows_of_round(run.rows["clean"], clean.number)
    assert clean.phases == EXPECTED_PHASES
    assert applied_cards(rows) == [(n, c) for n, c in clean.draws if c is not None]
    assert round_end(rows, clean.number)["net_by_player"] == baseline_net(runs)


def test_a_pushed_back_card_is_not_applied_twice_when_the_supervisor_clears_the_lockup(
    runs: Any, tmp_path: Path
) -> None:
    case = dataclasses.replace(CASES["pushback"], phases=("players",))
    run = play(tmp_path, case)
    assert run.errors == {}
    log = run.rounds["players"]
    rows = rows_of_round(run.rows["players"], log.number)
    cards = [card for _, card in applied_cards(rows)]
    assert len(cards) == len(set(cards)), f"a card applied twice: {cards}"  # a distinct shoe
    assert round_end(rows, log.number)["net_by_player"] == baseline_net(runs)
