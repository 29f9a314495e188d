"""Kill the table with SIGKILL at hundreds of points, restart it, and lose or repeat nothing.

A reference session (several NZ Pontoon rounds with splits, doubles, rescues, naturals paid at
once, a card out of turn burned by a supervisor) is played once through the journaled table;
its causes (device events and calls, in order) are what a restarted table is fed again. Then,
from fresh journals, forked children play the same causes and kill themselves with SIGKILL at
chosen journal writes -- before a write, inside its transaction (rows inserted, not committed),
or right after its commit -- each child starting by recovering from what the one before left.
After the last crash a child plays to the end. The journal must then hold exactly the
reference's ledger, in order: no wager settled twice, none lost, the hash chain intact.
"""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.game.rules import Variant, load_variant
from controller.journal.journaled import CAUSE_KINDS, JournaledTable
from controller.journal.store import Journal
from controller.play.autoplay import ScriptedBet, ScriptedRound, TableEvent, play_rounds
from controller.play.event_hands import EventHands
from controller.play.scenario_runner import output_cursor
from controller.play.strategy import StrategyPlayer, load_strategy
from sim_hardware import EmulatedShoe

WHERE = ("before", "inside", "after")
POINTS = 210  # distinct (write, where) crash points over all the chains
PER_CHAIN = 5


def reference_session(path: Path) -> tuple[Variant, list[tuple[str, dict[str, Any]]], int]:
    rules = load_variant("nz-pontoon")
    cards = EmulatedShoe(seed=11, decks=6, deck_type="48").cards_left
    table = JournaledTable.start(rules, Journal.open(path, table_id="T1"))
    hands = EventHands(table, iter(cards))
    bets = [ScriptedBet(1, "ann", 1000), ScriptedBet(1, "bob", 500), ScriptedBet(3, "cat", 2500),
            ScriptedBet(5, "dan", 1000)]  # fmt: skip
    irregular = [TableEvent("card_out_of_turn", {}), TableEvent("supervisor", {"decision": "burn"})]
    rounds = [ScriptedRound(bets, irregular if n == 2 else []) for n in range(6)]
    writes = _count_writes(table.journal)
    play_rounds(table.app.controller, hands, rounds, auto=StrategyPlayer(load_strategy(rules.id)),
                drain=output_cursor(table.app))  # fmt: skip
    table.journal.close()
    journal = Journal.open(path, table_id="T1")
    causes = [(r.kind, dict(r.payload)) for r in journal.iter_rows() if r.kind in CAUSE_KINDS]
    journal.close()
    return rules, causes, writes()


def _count_writes(journal: Journal) -> Callable[[], int]:
    count = 0
    original = journal.append_groups

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal count
        count += 1
        return original(*args, **kwargs)

    journal.append_groups = counting  # type: ignore[method-assign]
    return lambda: count


def ledger(path: Path) -> list[dict[str, Any]]:
    journal = Journal.open(path, table_id="T1")
    try:
        assert journal.verify().ok, journal.verify().describe()
        return [dict(r.payload) for r in journal.iter_rows(kinds=["ledger"])]
    finally:
        journal.close()


def run_child(
    rules: Variant,
    causes: list[tuple[str, dict[str, Any]]],
    path: Path,
    crash: tuple[int, str] | None,
) -> int:
    """Fork a child that recovers the table from ``path`` and plays the rest of ``causes``;
    with ``crash`` it kills itself at that journal write. Returns the child's wait status."""
    # A forked child has only the forking thread; another thread holding a lock at that moment
    # could deadlock it. Daemon threads that only wait on a process (asyncio's child watcher,
    # left by the browser tests' subprocesses) hold none.
    others = [t for t in threading.enumerate() if t is not threading.current_thread()
              and not (t.daemon and t.name.startswith("asyncio-waitpid"))]  # fmt: skip
    assert not others, f"fork needs a single-threaded test process: {others}"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            _child(rules, causes, path, crash)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


def _child(
    rules: Variant,
    causes: list[tuple[str, dict[str, Any]]],
    path: Path,
    crash: tuple[int, str] | None,
) -> None:  # pragma: no cover - runs in the child
    journal = Journal.open(path, table_id="T1")
    with _crash_at(journal, crash):
        table = JournaledTable.start(rules, journal)
        done = sum(1 for r in journal.iter_rows() if r.kind in CAUSE_KINDS)
        for kind, payload in causes[done:]:
            table.replay(kind, payload)
    journal.close()


@contextmanager
def _crash_at(journal: Journal, crash: tuple[int, str] | None) -> Iterator[None]:
    if crash is None:
        yield
        return
    target, where = crash
    count = 0
    append_groups = journal.append_groups
    insert = journal._insert_groups

    def dying_insert(*args: Any, **kwargs: Any) -> Any:
        rows = insert(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)  # rows inserted, the transaction not committed
        return rows

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal count
        count += 1
        if count == target:
            if where == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            if where == "inside":
                journal._insert_groups = dying_insert  # type: ignore[method-assign]
        result = append_groups(*args, **kwargs)
        if count == target and where == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    journal.append_groups = counting  # type: ignore[method-assign]
    yield


@pytest.fixture(scope="module")
def reference(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Variant, list[Any], int, list[Any]]:
    path = tmp_path_factory.mktemp("ref") / "journal.sqlite3"
    rules, causes, writes = reference_session(path)
    return rules, causes, writes, ledger(path)


def test_the_reference_session_is_long_enough_to_be_worth_crashing(reference: Any) -> None:
    _, _, writes, expected = reference
    assert writes >= POINTS // len(WHERE)
    assert len(expected) >= 20
    rounds = {e["box"] for e in expected}
    assert len(rounds) >= 2


def test_an_uninterrupted_child_reproduces_the_reference(reference: Any, tmp_path: Path) -> None:
    rules, causes, _, expected = reference
    path = tmp_path / "journal.sqlite3"
    assert os.WIFEXITED(status := run_child(rules, causes, path, None)), status
    assert os.WEXITSTATUS(status) == 0
    assert ledger(path) == expected


def test_killed_at_any_point_and_restarted_nothing_is_lost_or_repeated(
    reference: Any, tmp_path: Path
) -> None:
    rules, causes, writes, expected = reference
    rng = random.Random(2026)
    points = rng.sample([(k, w) for k in range(1, writes + 1) for w in WHERE], POINTS)
    killed = 0
    for chain_no in range(0, len(points), PER_CHAIN):
        path = tmp_path / f"chain{chain_no}.sqlite3"
        # The points are writes of the reference run; a child that starts by recovering counts
        # its own writes (recovery may add some), so the translation to its count is close,
        # not exact: the crash points of a chain stay distinct and in order either way.
        done_writes = 0
        for absolute, where in sorted(points[chain_no : chain_no + PER_CHAIN]):
            if absolute <= done_writes:
                continue
            status = run_child(rules, causes, path, (absolute - done_writes, where))
            assert os.WIFSIGNALED(status), f"no crash at write {absolute} ({where})"
            assert os.WTERMSIG(status) == signal.SIGKILL
            killed += 1
            done_writes = absolute if where != "before" and where != "inside" else absolute - 1
        status = run_child(rules, causes, path, None)
        assert os.WIFEXITED(status), status
        assert os.WEXITSTATUS(status) == 0, f"chain {chain_no}: the last child failed"
        assert ledger(path) == expected, f"chain {chain_no}: the ledger differs"
    assert killed >= 200
