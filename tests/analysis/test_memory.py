"""How the analysis keeps what it works out (issue 26's memory): in less room, never with other
bits. The dealer's per-shoe cache gives back the very vector it was given, keyed by one int per
shoe; the memo gives back the very floats; and an analysis is freed as soon as it is dropped
(a par sheet drops the optimum's million hands before it plays the generated chart)."""

from __future__ import annotations

import gc
import itertools
import random
import weakref

import numpy as np
import pytest

from controller.analysis import dealer
from controller.analysis.engine import Analysis, Ctx, Memo
from controller.analysis.shoe import ZERO, Shoe, comp_of
from controller.game.rules import VARIANT_IDS, load_variant
from controller.play.strategy import strategy_for


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_the_dealers_cache_gives_back_every_shoes_categories_bit_for_bit(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dealer's tables are the process's (controller.analysis.dealer._TABLES): an analysis
    # run before in this process may have cached a shoe reached by another order of cards,
    # whose last bits differ from this path's. Tables of this test's own, so that each cached
    # vector is the one this path worked out.
    monkeypatch.setattr(dealer, "_TABLES", {})
    rules = load_variant(variant)
    analysis = Analysis(rules, Shoe.of_variant(rules))
    rng = random.Random(26)
    for up, table in analysis.tables.items():
        for _ in range(20):
            removed = comp_of(rng.choice(range(1, 11)) for _ in range(rng.randint(2, 6)))
            rows = analysis.rows(up, removed)
            for checked in (False, True):
                first = rows.categories(checked).copy()  # worked out, then cached
                again = rows.categories(checked)  # from the cache
                assert again.tobytes() == first.tobytes()
                assert again.tobytes() == table.categories(rows.get(), checked).tobytes()


def test_each_shoe_has_its_own_key_and_a_shoe_less_a_card_it_did_not_hold_none() -> None:
    rules = load_variant("uk-pontoon", {"shoe.decks": 1, "shoe.cut_card_reserve": 10})
    analysis = Analysis(rules, Shoe.of_variant(rules))
    table = analysis.tables[10]
    full = analysis.remaining(10, ZERO)
    keys: dict[int, tuple[int, ...]] = {}
    for taken in itertools.product(range(3), repeat=4):  # some of the aces to fours
        shoe = tuple(n - t for n, t in zip(full, (*taken, 0, 0, 0, 0, 0, 0), strict=True))
        key = table.shoe_key(shoe)
        assert key is not None
        assert keys.setdefault(key, shoe) == shoe
    root = analysis.rows(10, ZERO)
    assert root.key == table.shoe_key(full)
    child = root.child(2)
    assert child.key == table.shoe_key(child.shoe)
    no_such = analysis.rows(10, comp_of([2] * (full[1] + 1)))  # one two more than the shoe holds
    assert no_such.key is None
    assert table.shoe_key(no_such.shoe) is None


def test_the_memo_gives_back_the_very_floats_and_what_was_done() -> None:
    memo = Memo()
    ctx = Ctx(7, ZERO)
    values = {
        comp_of((10, 6)): (-0.0, "stand"),
        comp_of((10, 6, 1)): (float.fromhex("0x1.921fb54442d18p-3"), "hit"),
        comp_of((10, 6, 9)): (-1.0, "bust"),
        comp_of((5, 6)): (float("-inf"), ""),
    }
    for comp, kept in values.items():
        memo[(ctx, comp, 0, False)] = kept
    for comp, (value, what) in values.items():
        got = memo.get((ctx, comp, 0, False))
        assert got is not None
        assert got[0].hex() == value.hex()
        assert got[1] == what
    assert memo.get((ctx, comp_of((10, 6)), 0, True)) is None
    assert len(memo) == len(values)
    assert dict(memo.items()) == {(ctx, c, 0, False): v for c, v in values.items()}


def test_an_analysis_is_freed_as_soon_as_it_is_dropped() -> None:
    """No reference cycle holds it (and its memo) until a full collection: split_value's
    recursion was one."""
    rules = load_variant("uk-pontoon")
    analysis = Analysis(rules, Shoe.of_variant(rules), 1000, strategy_for(rules))
    analysis.root(7, 8, 8)  # a pair: the split is valued
    assert analysis.resplits
    assert len(analysis._memo) > 0
    dropped = weakref.ref(analysis)
    gc.disable()
    try:
        del analysis
        assert dropped() is None
    finally:
        gc.enable()


def test_equal_nodes_are_one_tuple() -> None:
    rules = load_variant("pa-blackjack", {"shoe.decks": 1, "shoe.cut_card_reserve": 10})
    analysis = Analysis(rules, Shoe.of_variant(rules), 1000, None)
    assert np.isfinite(analysis.root(6, 10, 6)[0])
    seen: dict[tuple[int, object, int | None], object] = {}
    count = 0
    for nodes in analysis._memo._nodes.values():
        for node in nodes.values():
            facts, action, stand = node
            key = (id(facts), action, None if stand is None else id(stand))
            assert seen.setdefault(key, node) is node
            count += 1
    assert len(seen) < count
