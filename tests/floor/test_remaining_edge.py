"""The exact edge of the remaining shoe at each round of a session (issue 24, point 3): the
command line's :class:`RemainingEdge` (the analysis engine on the cards left of the rules the
table journalled, the shipped strategy, cached per rules and composition) and the floor's
:class:`EdgeJobs` (one worker thread, never the caller's; a round whose table's rules are not
known ends the work with the reason)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from fractions import Fraction

import pytest

from controller.analysis.engine import Analysis
from controller.analysis.parsheet import shipped_strategy
from controller.analysis.shoe import Shoe
from controller.cli.floor import RemainingEdge
from controller.floor.advantage import BoxRound, Count
from controller.floor.edges import EdgeJob, EdgeJobs
from controller.floor.table_rules import TableRules, Unrated
from controller.game.rules import Variant, load_variant
from drivers.tbl21.cards import Card, shoe_cards

ONE_DECK = {"shoe.decks": 1}


def _small(variant: str) -> Variant:
    return load_variant(variant, ONE_DECK)


def _dealt(n: int, seed: int = 4) -> list[str]:
    cards = [str(c) for c in shoe_cards(_small("pa-blackjack").shoe.deck, 1)]
    random.Random(seed).shuffle(cards)
    return cards[:n]


def test_the_edge_is_the_engine_s_on_the_cards_left_of_a_small_shoe() -> None:
    rules = _small("pa-blackjack")
    out = tuple(_dealt(20))
    left = Counter(shoe_cards(rules.shoe.deck, 1)) - Counter(Card.parse(c) for c in out)
    assert sum(left.values()) == 32
    expected = Analysis(
        rules, Shoe.of_cards(left.elements()), 1000, shipped_strategy(rules)[0]
    ).house_edge()
    edge = RemainingEdge()
    assert edge(rules, out) == expected
    full = Analysis(rules, Shoe.of_variant(rules), 1000, shipped_strategy(rules)[0]).house_edge()
    assert edge(rules, ()) == full  # nothing out: the par sheet's own game
    assert expected != full


def test_the_same_cards_left_in_another_order_are_taken_from_the_cache() -> None:
    edge = RemainingEdge()
    out = _dealt(12)
    first = edge(_small("pa-blackjack"), tuple(out))
    assert len(edge.cache) == 1
    assert edge(_small("pa-blackjack"), tuple(reversed(out))) == first
    assert len(edge.cache) == 1


def test_the_same_cards_left_of_other_rules_are_worked_out_with_those_rules() -> None:
    edge = RemainingEdge()
    out = tuple(_dealt(12))
    s17 = _small("pa-blackjack")
    h17 = load_variant("pa-blackjack", {**ONE_DECK, "dealer.hits_soft_17": True})
    assert edge(h17, out) != edge(s17, out)  # (a custom file of the shipped id: its own rules)
    assert len(edge.cache) == 2


def test_more_of_a_card_than_the_decks_hold_is_refused_in_words() -> None:
    edge = RemainingEdge()
    with pytest.raises(ValueError, match="more AS out of the shoe than 1 deck of pa-blackjack"):
        edge(_small("pa-blackjack"), ("AS", "AS"))


KNOWN = TableRules("t", 2, "pa-blackjack", _small("pa-blackjack"), key="k1")


def _round(number: int, out: tuple[str, ...], rules: TableRules | None = KNOWN) -> BoxRound:
    count = Count(0, Fraction(number), Fraction(number), len(out), 52 - len(out))
    return BoxRound("t", number, 1, "ann", 1000 * number, count, session="s1", out=out, rules=rules)


def _wait(job: EdgeJob) -> None:
    deadline = time.monotonic() + 10
    while not job.finished and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.finished


def test_a_session_s_edges_are_worked_out_on_a_worker_thread_round_by_round() -> None:
    threads: list[str] = []
    go = threading.Event()

    def edge_of(rules: Variant, out: tuple[str, ...]) -> float:
        go.wait(5)
        threads.append(threading.current_thread().name)
        return len(out) / 1000

    jobs = EdgeJobs(edge_of)
    try:
        rounds = [_round(n, tuple(_dealt(4 * n))) for n in range(1, 4)]
        job = jobs.ask("s1", "pa-blackjack", rounds)
        assert job.as_json()["state"] == "working"  # the caller is not kept waiting
        assert jobs.ask("s1", "pa-blackjack", rounds) is job  # asked again: the same job
        go.set()
        _wait(job)
        assert job.error is None
        assert [e.house_edge for e in job.edges] == [0.004, 0.008, 0.012]
        assert [e.bet_cents for e in job.edges] == [1000, 2000, 3000]
        assert job.edges[0].player_edge == -0.004
        assert threads
        assert all(name.startswith("floor-edges") for name in threads)
        assert job.as_json()["state"] == "done"
    finally:
        jobs.close()


def test_a_shoe_the_engine_cannot_work_out_ends_the_job_with_the_reason() -> None:
    jobs = EdgeJobs(RemainingEdge())
    try:
        job = jobs.ask("s1", "pa-blackjack", [_round(1, ("AS", "AS"))])
        _wait(job)
        assert job.as_json()["state"] == "error"
        assert "more AS out of the shoe" in str(job.error)
    finally:
        jobs.close()


def test_a_round_whose_tables_rules_are_not_known_ends_the_job_with_the_reason() -> None:
    asked: list[tuple[str, ...]] = []

    def edge_of(rules: Variant, out: tuple[str, ...]) -> float:
        asked.append(out)
        return 0.0

    unknown = TableRules("t", 7, "pa-blackjack", None, Unrated.NOT_JOURNALLED, journalled=False)
    jobs = EdgeJobs(edge_of)
    try:
        job = jobs.ask("s1", "pa-blackjack", [_round(1, ()), _round(2, ("AS",), unknown)])
        _wait(job)
        assert job.as_json()["state"] == "error"
        assert job.error == (
            "its rules are not in the journal (a custom variant file before journal format "
            "15): table t's config row 7 names pa-blackjack with a variant file that is not "
            "the shipped one"
        )
        assert asked == []  # nothing is worked out: the session is refused whole
    finally:
        jobs.close()
