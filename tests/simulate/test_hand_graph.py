"""The hand graph's abstractions hold: two hands that reach one node are one hand to the rules.

For every variant, hands of one and two cards (every pair of cards, with and without the flags
a split or a double gives) and random hands of three to eight cards are played into the graph
card by card; every rule function the kernel takes from the graph is then asked about the real
cards and compared with the graph's answer, which was worked out on the node's representative:
end of hand, the ``why_not_*`` checks, basic strategy's decision against every dealer card,
the dealer's drawing rule and rank, naturals, every value settlement and the tally read, and the
Super Bonus.
"""

from __future__ import annotations

import random

import pytest

from controller.game.hands import (
    HandEnd,
    dealer_must_draw,
    dealer_rank,
    is_natural,
    is_two_card_21,
)
from controller.game.rules import VARIANT_IDS, Variant, load_variant
from controller.game.settlement import Hand, Stake, Wager, is_super_bonus_hand
from controller.play import hand_graph
from controller.play.hand_graph import (
    CARDS,
    DECISIONS,
    END_BUST,
    END_NONE,
    END_ONE_AFTER_DOUBLE,
    END_OTHER,
    END_TWENTY_ONE,
    NO_UP,
    HandGraph,
    hand_facts,
)
from controller.play.strategy import strategy_for
from controller.play.tally import dealer_needs_cards, hand_counts, is_counted_natural
from controller.round.model import (
    BoxState,
    HandState,
    StakeState,
    end_of_hand,
    why_not_double,
    why_not_split,
)
from controller.round.spec import Action
from drivers.tbl21.cards import Card, DeckType, Rank, Suit, shoe_cards

RANKS = tuple(Rank)
ENDS: dict[HandEnd | None, int] = {None: END_NONE, HandEnd.BUST: END_BUST}
ENDS |= {HandEnd.TWENTY_ONE: END_TWENTY_ONE, HandEnd.NATURAL: END_TWENTY_ONE}
ENDS[HandEnd.ONE_AFTER_DOUBLE] = END_ONE_AFTER_DOUBLE


def graph_for(variant: str) -> tuple[Variant, HandGraph]:
    rules = load_variant(variant)
    return rules, HandGraph(rules, strategy_for(rules), 1000)


def deck_of(rules: Variant) -> list[Card]:
    return sorted(set(shoe_cards(rules.shoe.deck, 1)))


def hand_state(cards: list[Card], from_split: bool, split_aces: bool, doubles: int) -> HandState:
    return HandState(
        list(cards),
        [StakeState("p", 1000, 1000 * doubles)],
        from_split=from_split,
        split_aces=split_aces,
        doubles=doubles,
    )


def check_hand(
    rules: Variant, graph: HandGraph, cards: list[Card], flags: tuple[bool, bool, int]
) -> None:
    """Everything the kernel reads of the node of ``cards``, against the functions."""
    from_split, split_aces, doubles = flags
    node = graph.node_of([], from_split, split_aces, doubles)
    node = graph.play(node, *(hand_graph.CODES[c] for c in cards))
    where = f"{' '.join(map(str, cards))} {flags} (node of {graph.cards[node]})"
    hand = hand_state(cards, from_split, split_aces, doubles)
    assert graph.size[node] == len(cards), where
    assert hand_facts(rules, cards, *flags) == hand_facts(rules, graph.cards[node], *flags), where
    assert graph.end[node] == ENDS.get(end_of_hand(rules, hand), END_OTHER), where
    assert graph.must_draw[node] == dealer_must_draw(rules, cards), where
    assert graph.needs[node] == dealer_needs_cards(rules, cards), where
    assert graph.natural[node] == is_natural(rules, cards, False), where
    assert graph.two_card_21[node] == is_two_card_21(cards), where
    ranked = graph._dealer_rank_cards[graph.dealer_rank_of(node)]
    assert dealer_rank(rules, ranked) == dealer_rank(rules, cards), where
    counted = graph.hand_tally(node)
    rows, trick = hand_counts(rules, cards, from_split)
    assert counted.bonus == tuple(r.value for r in rows), where
    assert counted.five_card_trick == trick, where
    assert counted.natural == is_counted_natural(rules, cards, doubles > 0), where
    frozen = Hand(tuple(cards), (Stake("p", 1000, 1000 * doubles),), *flags[:2], doubles > 0)
    for first in (Card(Rank.SEVEN, Suit.SPADES), Card(Rank.SEVEN, Suit.HEARTS), CARDS[0]):
        expected = is_super_bonus_hand(rules, frozen, first)
        assert graph.is_super_bonus(node, hand_graph.CODES[first]) == expected, where
    if graph.end[node] != END_NONE or len(cards) < 2:
        return
    strategy = graph.strategy
    for hands in range(1, rules.split.max_hands + 1):
        box = BoxState(
            1, [Wager("p", 1000)], [hand] + [hand_state([], False, False, 0)] * (hands - 1)
        )
        assert (why_not_split(rules, box, hand) is None) == (
            why_not_split(rules, box, graph.hand_state(node)) is None
        ), where
        assert (why_not_double(rules, box, hand, None, ["p"]) is None) == (
            why_not_double(rules, box, graph.hand_state(node), None, ["p"]) is None
        ), where
        ups = list(range(len(RANKS))) if rules.dealer.first_card_face_up else [NO_UP]
        for up in ups if hands == 1 else ups[::4]:
            seen = None if up == NO_UP else Card(RANKS[up], Suit.CLUBS)
            action = strategy.decide_hand(rules, box, hand, seen)
            assert DECISIONS[graph.decision(node, up, hands)] is action, f"{where} {up} {hands}"


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_every_hand_of_up_to_two_cards_is_its_node_to_the_rules(variant: str) -> None:
    rules, graph = graph_for(variant)
    deck = deck_of(rules)
    for a in deck:
        check_hand(rules, graph, [a], (False, False, 0))
        check_hand(rules, graph, [a], (True, a.is_ace, 0))
        for b in deck:
            check_hand(rules, graph, [a, b], (False, False, 0))
    rng = random.Random(5)
    for _ in range(300):  # split and doubled two-card hands
        a, b = rng.choice(deck), rng.choice(deck)
        check_hand(rules, graph, [a, b], (True, a.is_ace, 0))
        check_hand(rules, graph, [a, b], (False, False, 1))


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_random_hands_of_three_to_eight_cards_are_their_nodes_to_the_rules(variant: str) -> None:
    rules, graph = graph_for(variant)
    deck = deck_of(rules)
    sevens = [c for c in deck if c.rank in (Rank.SIX, Rank.SEVEN, Rank.EIGHT)]
    rng = random.Random(variant)
    for n in range(1500):
        size = 3 + n % 6
        pool = sevens if n % 5 == 0 else deck  # plenty of 6-7-8 and 7-7-7 hands
        cards = [rng.choice(pool) for _ in range(size)]
        flags = ((False, False, 0), (True, cards[0].is_ace, 0), (False, False, 1))[n % 3]
        check_hand(rules, graph, cards, flags)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_suits_are_kept_for_the_ranks_of_6_7_8_and_7_7_7_alone(variant: str) -> None:
    """What the suit analysis finds in the shipped variants: bonus_hands and is_suited_777
    read suits of three-card hands of 6-7-8 and 7-7-7 only."""
    _, graph = graph_for(variant)
    six, seven, eight = (RANKS.index(r) for r in (Rank.SIX, Rank.SEVEN, Rank.EIGHT))
    assert graph._suited_ranks == {six, seven, eight}
    assert graph._suited_triples == {(six, seven, eight), (seven, seven, seven)}
    graph.node_of([Card(Rank.TWO, Suit.SPADES), Card(Rank.NINE, Suit.HEARTS)])
    two_nines = {
        graph.node_of([Card(Rank.TWO, s1), Card(Rank.NINE, s2)]) for s1 in Suit for s2 in Suit
    }
    assert len(two_nines) == 1  # one node for the sixteen suit pairs of 2-9
    sixes = {graph.node_of([Card(Rank.SIX, s)]) for s in Suit}
    assert len(sixes) == 4  # a six keeps its suit: it may become 6-7-8 suited


def test_a_function_that_reads_suits_keeps_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis finds suit reads, it does not assume them: facts that read every card's
    suit make every rank keep its suit."""
    real = hand_graph.hand_facts

    def facts_with_suits(rules: Variant, cards: list[Card], *flags: object) -> tuple[object, ...]:
        return (*real(rules, cards, *flags), tuple(c.suit for c in cards))  # type: ignore[arg-type]

    monkeypatch.setattr(hand_graph, "hand_facts", facts_with_suits)
    _, graph = graph_for("uk-pontoon")
    assert graph._suited_ranks == set(range(len(RANKS)))
    assert len({graph.node_of([Card(Rank.TWO, s)]) for s in Suit}) == 4


def test_a_decision_is_worked_out_once_per_shape_and_dealer_card() -> None:
    rules, graph = graph_for("pa-blackjack")
    assert rules.shoe.deck is DeckType.STANDARD_52
    hands = [
        [Card(Rank.TEN, s1), Card(Rank.SIX, s2)] for s1 in (Suit.SPADES, Suit.HEARTS) for s2 in Suit
    ]
    nodes = {graph.node_of(h) for h in hands}
    assert len(nodes) == 4  # the six keeps its suit, the ten does not
    up = RANKS.index(Rank.TEN)
    answers = {DECISIONS[graph.decision(node, up, 1)] for node in nodes}
    assert answers == {Action.HIT}  # hard 16 against a ten: hit (surrender is a window's)
    assert graph.stats()["decisions"] == 1
