"""Skill-adjusted theo (controller.analysis.theo) against brute force on a tiny shoe: every
action's value at a decision, worked out here card by card in exact fractions from the
blackjack rules alone (no engine), equals the analysis'; a session's skill theo equals, to the
cent, the brute-force optimum's edge x its wagers plus the brute-force costs of its decisions."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

import pytest

from controller.analysis.shoe import Shoe
from controller.analysis.theo import (
    Decision,
    DecisionValues,
    Edges,
    Spot,
    cached_edges,
    cached_values,
    edges_apart,
    edges_for,
    rate,
    session_theo,
    stop_walks,
)
from controller.game.rules import load_variant
from controller.round.spec import Action
from drivers.tbl21.cards import Card, parse_cards

# 2-9 in two suits: no aces and no tens, so no naturals and no dealer check (pa-blackjack
# peeks on an ace or a ten): every value below is the plain game's, simple to brute-force
CARDS = parse_cards(" ".join(f"{r}{s}" for r in "23456789" for s in "HS"))
COUNTS = tuple(sum(1 for c in CARDS if c.points == v) for v in range(1, 11))
RULES = load_variant(
    "pa-blackjack",
    {"split.allowed": False, "shoe.burn_cards": 0, "shoe.decks": 1, "shoe.cut_card_reserve": 1},
)
WAGER = 1000


def _take(shoe: tuple[int, ...], v: int) -> tuple[int, ...]:
    out = list(shoe)
    out[v - 1] -= 1
    return tuple(out)


def _draws(shoe: tuple[int, ...]) -> list[tuple[int, Fraction, tuple[int, ...]]]:
    total = sum(shoe)
    return [(v, Fraction(shoe[v - 1], total), _take(shoe, v)) for v in range(1, 11) if shoe[v - 1]]


@cache
def dealer(total: int, shoe: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
    """The dealer's final totals (22: bust) from ``total`` drawing from ``shoe``: stands on
    17 (no aces in this shoe, so no soft totals)."""
    if total > 21:
        return ((22, Fraction(1)),)
    if total >= 17:
        return ((total, Fraction(1)),)
    out: dict[int, Fraction] = {}
    for v, p, rest in _draws(shoe):
        for final, q in dealer(total + v, rest):
            out[final] = out.get(final, Fraction(0)) + p * q
    return tuple(sorted(out.items()))


def stand(total: int, up: int, shoe: tuple[int, ...]) -> Fraction:
    value = Fraction(0)
    for final, p in dealer(up, shoe):
        if final == 22 or total > final:
            value += p
        elif total < final:
            value -= p
    return value


@cache
def best(total: int, up: int, shoe: tuple[int, ...]) -> Fraction:
    """The optimum's value of a hand of ``total`` past its first decision (hit or stand)."""
    if total == 21:
        return stand(total, up, shoe)  # a 21 ends the hand
    return max(stand(total, up, shoe), hit(total, up, shoe))


def hit(total: int, up: int, shoe: tuple[int, ...]) -> Fraction:
    value = Fraction(0)
    for v, p, rest in _draws(shoe):
        value += p * (Fraction(-1) if total + v > 21 else best(total + v, up, rest))
    return value


def double(total: int, up: int, shoe: tuple[int, ...]) -> Fraction:
    value = Fraction(0)
    for v, p, rest in _draws(shoe):
        value += p * (Fraction(-2) if total + v > 21 else 2 * stand(total + v, up, rest))
    return value


def brute_values(up: int, hand: Sequence[int]) -> dict[Action, Fraction]:
    shoe = tuple(COUNTS)
    for v in (up, *hand):
        shoe = _take(shoe, v)
    total = sum(hand)
    out = {Action.STAND: stand(total, up, shoe), Action.HIT: hit(total, up, shoe)}
    if len(hand) == 2:
        out[Action.DOUBLE] = double(total, up, shoe)
        out[Action.SURRENDER] = Fraction(-1, 2)
    return out


def brute_edge() -> Fraction:
    """The optimum's house edge: every deal (dealer's card, then the box's two) at its best."""
    ev = Fraction(0)
    for up, pu, s1 in _draws(tuple(COUNTS)):
        for a, pa, s2 in _draws(s1):
            for b, pb, _s3 in _draws(s2):
                ev += pu * pa * pb * max(brute_values(up, (a, b)).values())
    return -ev


def spot(up: str, hand: str) -> Spot:
    return Spot(Card.parse(up), tuple(parse_cards(hand)))


SPOTS = [
    ("7H", "9S 5H"),  # 14 against a 7
    ("5H", "8S 4H"),  # 12 against a 5
    ("6S", "3H 8S"),  # 11
    ("9H", "2S 3H 4S"),  # three cards: hit or stand only
    ("2H", "9S 8H"),  # 17
]


@pytest.fixture(scope="module")
def values() -> DecisionValues:
    return DecisionValues(RULES, Shoe.of_cards(CARDS))


@pytest.mark.parametrize(("up", "hand"), SPOTS)
def test_every_allowed_actions_value_equals_brute_force_for_the_shoe_less_the_cards_seen(
    values: DecisionValues, up: str, hand: str
) -> None:
    s = spot(up, hand)
    got = values.values(s)
    expected = brute_values(s.up.points, [c.points for c in s.cards])  # type: ignore[union-attr]
    assert set(got) == set(expected)
    for action, value in expected.items():
        assert float(got[action]) == pytest.approx(float(value), abs=1e-12), action


def test_the_cost_of_the_best_action_is_zero_and_of_another_its_shortfall(
    values: DecisionValues,
) -> None:
    s = spot("7H", "9S 5H")
    brute = brute_values(7, [9, 5])
    top = max(brute, key=lambda a: brute[a])
    assert values.cost(s, top) == 0
    for action in brute:
        cost = values.cost(s, action)
        assert cost is not None
        assert cost >= 0
        assert float(cost) == pytest.approx(float(brute[top] - brute[action]), abs=1e-12)


def test_a_sessions_skill_theo_equals_to_the_cent_the_brute_force_sum(
    values: DecisionValues, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    edges = edges_for(RULES, Shoe.of_cards(CARDS))
    edge = brute_edge()
    assert float(edges.optimal) == pytest.approx(float(edge), abs=1e-12)
    # a poor player's session: stands on 12-16 against a 7+, never doubles, surrenders an 11
    plays = [
        (("7H", "9S 5H"), Action.STAND, 2500),
        (("9H", "8S 4H"), Action.STAND, 1000),
        (("6S", "3H 8S"), Action.HIT, 1000),
        (("5H", "4S 7H"), Action.SURRENDER, 500),
        (("2H", "9S 8H"), Action.STAND, 1500),
        (("9H", "2S 3H 4S"), Action.HIT, 1500),
    ]
    decisions = [Decision(spot(*where), taken, wager) for where, taken, wager in plays]
    wagers = sum(w for _where, _t, w in plays)
    theo = session_theo(decisions, wagers, len(plays), values, edges)
    brute_cost = Fraction(0)
    for (up, hand), taken, wager in plays:
        b = brute_values(Card.parse(up).points, [c.points for c in parse_cards(hand)])
        brute_cost += (max(b.values()) - b[taken]) * wager
    brute_theo = edge * wagers + brute_cost
    assert brute_cost > 100  # the poor plays cost more than a dollar: the check is not idle
    assert round(theo.skill_cents) == round(brute_theo)
    assert abs(theo.skill_cents - brute_theo) < Fraction(1, 10**6)
    assert theo.decisions == len(plays)
    assert theo.unvalued == 0
    # the book theo: average bet x rounds x the chart's edge
    assert theo.book_cents == Fraction(wagers, len(plays)) * len(plays) * edges.chart


def test_edges_are_cached_beside_the_par_sheets_in_a_private_file(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path  # noqa: PLC0415

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = edges_for(RULES, Shoe.of_cards(CARDS))
    files = list(Path(str(tmp_path)).glob("croupier/analysis/theo-pa-blackjack-*.json"))
    assert len(files) == 1
    assert files[0].stat().st_mode & 0o777 == 0o600
    assert edges_for(RULES, Shoe.of_cards(CARDS)) == first
    assert isinstance(first, Edges)
    assert first.chart_cost >= 0


def test_a_session_whose_tables_rules_are_not_known_is_listed_unrated_with_the_reason() -> None:
    from controller.floor.ratings import SessionPlay  # noqa: PLC0415

    play = SessionPlay(
        "T1-1", "T1", "40001234", "ann", 1, "2026-12-04T18:00:00.000Z", variant="pa-blackjack"
    )
    play.rounds, play.wagers_cents = 2, 2000
    (rating,) = rate([play])  # (no config row of its table was read: no rules)
    assert (rating.book_cents, rating.skill_cents, rating.cost_cents) == (None, None, None)
    cells = rating.shown()
    assert (cells["book_theo"], cells["skill_theo"], cells["average_bet"]) == ("-", "-", "$10")
    assert cells["rules"] == (
        "unrated: the floor holds no config row of table T1 before this play: the rules it "
        "dealt by are not known"
    )
    assert rating.as_json()["unrated"] == cells["rules"].removeprefix("unrated: ")


def test_a_session_whose_rules_the_analysis_refuses_is_unrated_with_the_analysis_words() -> None:
    from controller.floor.ratings import SessionPlay  # noqa: PLC0415
    from controller.floor.table_rules import TableRules, rules_sha256  # noqa: PLC0415

    found = TableRules("T1", 3, RULES.id, RULES, key=rules_sha256(RULES))
    plays = [
        SessionPlay(f"T1-{n}", "T1", "4000", "ann", 1, "2026-12-04T18:00:00.000Z", rules=found)
        for n in (1, 2)
    ]
    asked: list[str] = []

    def refused(rules: object) -> Edges:
        asked.append("edges")
        raise ValueError("the edges of pa-blackjack could not be worked out: it was stopped")

    first, second = rate(plays, refused)
    assert asked == ["edges"]  # the same rules are not asked of the analysis twice
    for rating in (first, second):
        assert rating.skill_cents is None
        assert rating.unrated == (
            "the analysis cannot take table T1's rules: the edges of pa-blackjack could not be "
            "worked out: it was stopped"
        )


def test_past_its_memo_limit_the_values_analysis_begins_again_and_answers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import controller.analysis.theo as theo  # noqa: PLC0415

    whole = DecisionValues(RULES, Shoe.of_cards(CARDS))
    monkeypatch.setattr(theo, "MEMO_LIMIT", 10)
    capped = DecisionValues(RULES, Shoe.of_cards(CARDS))
    first = capped.analysis
    for up, hand in SPOTS:
        assert capped.values(spot(up, hand)) == whole.values(spot(up, hand))
    assert capped.analysis is not first
    assert len(capped.analysis._memo) <= 10 or capped.analysis is not first


def test_a_long_lived_process_walks_the_edges_in_a_child_and_they_are_cached(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = load_variant("uk-pontoon")  # a walk of every hand in about a second
    assert cached_edges(rules) is None
    apart = edges_apart(rules)
    assert cached_edges(rules) == apart  # the child wrote the cache
    assert edges_for(rules, use_cache=False) == apart


def test_a_stopping_server_ends_a_walk_under_way_and_the_rating_says_why(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    import controller.analysis.theo as theo  # noqa: PLC0415

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = load_variant("nz-pontoon")  # a walk of most of a minute
    said: list[str] = []

    def walk() -> None:
        try:
            edges_apart(rules)
        except ValueError as exc:
            said.append(str(exc))

    walker = threading.Thread(target=walk)
    walker.start()
    deadline = time.monotonic() + 10
    while not theo._WALKS and time.monotonic() < deadline:
        time.sleep(0.01)
    (child,) = list(theo._WALKS)
    stop_walks()
    walker.join(10)
    assert not walker.is_alive()
    assert child.returncode is not None
    assert not theo._WALKS
    assert said == [
        f"the edges of nz-pontoon could not be worked out: it ended with status {child.returncode}"
    ]
    assert cached_edges(rules) is None


def test_the_common_decisions_values_cached_with_the_edges_equal_those_worked_out_at_once(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shoe = Shoe.of_cards(CARDS)
    edges_for(RULES, shoe)
    cached = cached_values(RULES, shoe)
    fresh = DecisionValues(RULES, shoe)
    assert set(cached) == set(fresh.common_keys())
    assert len(cached) > 100  # every first decision and hand of three and four cards
    preloaded = DecisionValues(RULES, shoe)
    preloaded.preload(cached)
    for key in cached:
        assert preloaded.values_at(key) == fresh.values_at(key), key
    s = spot("7H", "9S 5H")
    assert preloaded.values(s) == fresh.values(s)
    assert preloaded.spot_key(s) in cached


# insurance: a ten-rich little shoe (insurance worth taking) and pa-blackjack's six decks (not)
INSURE_CARDS = parse_cards("AH AS 5H 6S TH TS TD TC KH KS QH")
INSURE_RULES = load_variant("pa-blackjack", {"shoe.decks": 1})


def hand_insurance_value(cards: Sequence[Card], seen: Sequence[Card], pays: Fraction) -> Fraction:
    """Insurance's expected net per unit insured, counted by hand: the hole card is one of the
    cards not seen, a ten-value with the chance of the tens among them."""
    left = list(cards)
    for card in seen:
        left.remove(card)
    tens = sum(1 for c in left if c.points == 10)
    p = Fraction(tens, len(left))
    return p * pays - (1 - p)


def test_insurance_is_rated_exactly_against_the_better_of_taking_the_most_and_declining() -> None:
    rich = DecisionValues(INSURE_RULES, Shoe.of_cards(INSURE_CARDS))
    s = spot("AH", "5H 6S")
    per_unit = hand_insurance_value(INSURE_CARDS, parse_cards("AH 5H 6S"), Fraction(2))
    assert per_unit == Fraction(13, 8)  # 7 tens among the 8 cards unseen: take it
    assert rich.insurance_value(s) == per_unit
    # the most a $10 wager may insure is $5: declining it costs 500 x 13/8 cents
    assert rich.insurance_cost_cents(s, 1000, 0) == 500 * per_unit
    assert rich.insurance_cost_cents(s, 1000, 500) == 0
    assert rich.insurance_cost_cents(s, 1000, 200) == 300 * per_unit
    # six decks: insurance is a poor bet on 9-7 against an ace; the cost of $5 of it, exactly
    six = load_variant("pa-blackjack")
    shoe = Shoe.of_variant(six)
    plain = DecisionValues(six, shoe)
    assert plain.insurance_value(spot("AC", "9C 7C")) == Fraction(96 * 3 - 309, 309)
    assert plain.insurance_cost_cents(spot("AC", "9C 7C"), 1000, 500) == Fraction(500 * 21, 309)
    assert plain.insurance_cost_cents(spot("AC", "9C 7C"), 1000, 0) == 0


def test_a_sessions_insurance_decisions_are_summed_and_a_hand_not_offered_it_is_no_decision() -> (
    None
):
    rules = load_variant(
        "pa-blackjack", {"shoe.decks": 1, "insurance.natural_boxes_may_insure": False}
    )
    rich = DecisionValues(rules, Shoe.of_cards(INSURE_CARDS))
    declined = Decision(spot("AH", "5H 6S"), Action.INSURANCE, 1000)
    part = Decision(spot("AH", "5H 6S"), Action.INSURANCE, 1000, insured_cents=200)
    natural = Decision(spot("AH", "AS TH"), Action.INSURANCE, 1000)  # not offered: a natural
    against_ten = Decision(spot("TH", "5H 6S"), Action.INSURANCE, 1000)  # not offered
    theo = session_theo(
        [declined, part, natural, against_ten], 4000, 4, rich, Edges(Fraction(0), Fraction(0))
    )
    per_unit = hand_insurance_value(INSURE_CARDS, parse_cards("AH 5H 6S"), Fraction(2))
    assert theo.cost_cents == 500 * per_unit + 300 * per_unit
    assert (theo.decisions, theo.insurance, theo.unvalued) == (2, 2, 0)


# the rescue (nz-pontoon 12.8: the double returned, the original wager forfeited) on shoes whose
# unseen cards are all sevens: the dealer's ten draws a seven and stands on 17, whatever comes
NZ = load_variant("nz-pontoon")


def hand_rescue_values(total: int) -> tuple[Fraction, Fraction]:
    """A doubled hand of ``total`` against the dealer's certain 17, counted by hand: kept, it
    wins or loses both wagers (a push: nothing); rescued, it loses the original wager."""
    dealer = 17
    keep = Fraction(2) if total > dealer else Fraction(-2) if total < dealer else Fraction(0)
    return keep, Fraction(-1)


@pytest.mark.parametrize(
    ("cards", "hand", "total"), [("2H 3H 7D", "2H 3H 7D", 12), ("9H 2H 8D", "9H 2H 8D", 19)]
)
def test_a_rescue_taken_or_declined_costs_its_shortfall_against_the_hand_computation(
    cards: str, hand: str, total: int
) -> None:
    values = DecisionValues(NZ, Shoe.of_cards(parse_cards(f"{cards} TH 7S 7C 7H")))
    s = Spot(Card.parse("TH"), tuple(parse_cards(hand)), doubled=True)
    got = values.rescue_values(s)
    assert got is not None
    keep, rescue = hand_rescue_values(total)
    assert float(got[0]) == pytest.approx(float(keep), abs=1e-12)
    assert float(got[1]) == pytest.approx(float(rescue), abs=1e-12)
    taken = Decision(s, Action.RESCUE, 1000)
    declined = Decision(s, Action.RESCUE, 1000, declined=True)
    best = max(keep, rescue)
    for decision, value in ((taken, rescue), (declined, keep)):
        theo = session_theo([decision], 1000, 1, values, Edges(Fraction(0), Fraction(0)))
        assert round(theo.cost_cents) == (best - value) * 1000
        assert (theo.decisions, theo.unvalued) == (1, 0)
    # a hand not doubled is offered no rescue: no value, counted unvalued
    plain = Spot(Card.parse("TH"), tuple(parse_cards(hand)[:2]))
    assert values.rescue_values(plain) is None


# --- re-splits: the tiny shoe with four eights, pa-blackjack's splits (to four hands, doubles
# after a split), brute-forced in the engine's split model (appendix 9's approximation): every
# split hand is played from the shoe less the dealer's card and the pair cards split so far
# (not the other cards drawn to the box); a re-split makes one more hand, and every hand dealt
# after it counts one more pair card out
SPLIT_CARDS = [*CARDS, *parse_cards("8D 8C")]
SPLIT_COUNTS = tuple(sum(1 for c in SPLIT_CARDS if c.points == v) for v in range(1, 11))
SPLIT_RULES = load_variant(
    "pa-blackjack", {"shoe.burn_cards": 0, "shoe.decks": 1, "shoe.cut_card_reserve": 1}
)
MAX_HANDS = SPLIT_RULES.split.max_hands  # 4
NO_RESPLIT_RULES = load_variant(
    "pa-blackjack",
    {
        "shoe.burn_cards": 0,
        "shoe.decks": 1,
        "shoe.cut_card_reserve": 1,
        "split.max_hands": 2,
    },
)


def _less(counts: tuple[int, ...], *values: int) -> tuple[int, ...]:
    for v in values:
        counts = _take(counts, v)
    return counts


def split_hand_values(up: int, pair: int, second: int, hands: int) -> dict[Action, Fraction]:
    """A split hand's stand, hit and double (doubles after a split are allowed), ``hands`` on
    the box: from the shoe less the dealer's card, the ``hands`` pair cards and its second."""
    shoe = _less(SPLIT_COUNTS, up, *[pair] * hands, second)
    total = pair + second
    return {
        Action.STAND: stand(total, up, shoe),
        Action.HIT: hit(total, up, shoe),
        Action.DOUBLE: double(total, up, shoe),
    }


@cache
def split_hands(up: int, pair: int, pending: int, hands: int) -> Fraction:
    """``pending`` split hands still to get their second card, ``hands`` on the box, at their
    best (all together, wager units): each hand's second card from the shoe less the dealer's
    card and the ``hands`` pair cards; a pair card dealt to it may be split again (up to
    MAX_HANDS), making one more hand, where that beats playing it on."""
    if pending == 0:
        return Fraction(0)
    rest = split_hands(up, pair, pending - 1, hands)
    value = Fraction(0)
    for c, p, _rest in _draws(_less(SPLIT_COUNTS, up, *[pair] * hands)):
        on = max(split_hand_values(up, pair, c, hands).values()) + rest
        if c == pair and hands < MAX_HANDS:
            value += p * max(split_hands(up, pair, pending + 1, hands + 1), on)
        else:
            value += p * on
    return value


def brute_split_spot(up: int, pair: int, hands: int, hand: int) -> dict[Action, Fraction]:
    """A split hand of two ``pair`` cards, ``hand`` of the box's ``hands``: played on, or
    split again (where the box may take one more hand): the hands then waiting less the later
    hands (those after it, yet to get their second card) as they are."""
    out = split_hand_values(up, pair, pair, hands)
    later = hands - hand
    if hands < MAX_HANDS:
        again = split_hands(up, pair, later + 2, hands + 1) - split_hands(up, pair, later, hands)
        out[Action.SPLIT] = again
    return out


def brute_first_values(up: int, a: int, b: int) -> dict[Action, Fraction]:
    """A box's first decision (late surrender offered; a pair split as the model splits it:
    two hands, then as they come)."""
    shoe = _less(SPLIT_COUNTS, up, a, b)
    out = {
        Action.STAND: stand(a + b, up, shoe),
        Action.HIT: hit(a + b, up, shoe),
        Action.DOUBLE: double(a + b, up, shoe),
        Action.SURRENDER: Fraction(-1, 2),
    }
    if a == b:
        out[Action.SPLIT] = split_hands(up, a, 2, 2)
    return out


def brute_split_edge() -> Fraction:
    """The optimum's house edge with splits: every deal at its best."""
    ev = Fraction(0)
    for up, pu, s1 in _draws(SPLIT_COUNTS):
        for a, pa, s2 in _draws(s1):
            for b, pb, _s3 in _draws(s2):
                ev += pu * pa * pb * max(brute_first_values(up, a, b).values())
    return -ev


@pytest.fixture(scope="module")
def split_values() -> DecisionValues:
    return DecisionValues(SPLIT_RULES, Shoe.of_cards(SPLIT_CARDS))


def split_spot(up: str, hand: str, hands: int, place: int) -> Spot:
    return Spot(Card.parse(up), tuple(parse_cards(hand)), hands, hand=place)


# (dealer's card, the split hand's cards, hands on the box, its place among them)
RESPLIT_SPOTS = [
    ("7H", "8H 8S", 2, 1),  # the first of two: the second is yet to get its second card
    ("7H", "8S 8D", 2, 2),  # the last of two
    ("5H", "8H 8D", 2, 1),
    ("7S", "8H 8C", 3, 1),  # three hands, two after it
    ("7S", "8D 8C", 3, 2),
    ("9H", "8S 8C", 3, 3),
    ("2S", "8H 8D", 3, 2),
]


@pytest.mark.parametrize(("up", "hand", "hands", "place"), RESPLIT_SPOTS)
def test_a_resplits_value_and_the_hands_others_equal_the_split_models_brute_force(
    split_values: DecisionValues, up: str, hand: str, hands: int, place: int
) -> None:
    s = split_spot(up, hand, hands, place)
    got = split_values.values(s)
    expected = brute_split_spot(s.up.points, 8, hands, place)  # type: ignore[union-attr]
    assert set(got) == set(expected) == {Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT}
    for action, value in expected.items():
        assert float(got[action]) == pytest.approx(float(value), abs=1e-12), action
    assert split_values.cost(s, Action.SPLIT) is not None


def test_at_the_first_decision_the_split_value_is_the_same_models_two_hands(
    split_values: DecisionValues,
) -> None:
    got = split_values.values(spot("7H", "8H 8S"))
    for action, value in brute_first_values(7, 8, 8).items():
        assert float(got[action]) == pytest.approx(float(value), abs=1e-12), action
    # and a split hand's re-split with no hand after it, two on the box, is that split from
    # the shoe with one more eight out: the models' own step
    again = split_values.values(split_spot("7H", "8H 8S", 2, 2))[Action.SPLIT]
    assert float(again) == pytest.approx(float(split_hands(7, 8, 2, 3)), abs=1e-12)


def test_a_box_at_its_most_hands_or_rules_without_resplits_offer_no_split_at_a_split_hand(
    split_values: DecisionValues,
) -> None:
    three = DecisionValues(
        load_variant(
            "pa-blackjack",
            {
                "shoe.burn_cards": 0,
                "shoe.decks": 1,
                "shoe.cut_card_reserve": 1,
                "split.max_hands": 3,
            },
        ),
        Shoe.of_cards(SPLIT_CARDS),
    )
    assert Action.SPLIT in three.values(split_spot("7H", "8H 8S", 2, 1))
    full = split_spot("7H", "8H 8S", 3, 1)  # three hands: the most
    assert set(three.values(full)) == {Action.STAND, Action.HIT, Action.DOUBLE}
    assert three.cost(full, Action.SPLIT) is None
    once = DecisionValues(NO_RESPLIT_RULES, Shoe.of_cards(SPLIT_CARDS))
    s = split_spot("7H", "8H 8S", 2, 1)
    values = once.values(s)
    assert set(values) == {Action.STAND, Action.HIT, Action.DOUBLE}
    assert once.cost(s, Action.SPLIT) is None
    # a split there is one the table refuses: were the rows to show it, it is unvalued
    stood = Decision(s, Action.STAND, 1000)
    split = Decision(s, Action.SPLIT, 1000)
    theo = session_theo([stood, split], 1000, 1, once, Edges(Fraction(0), Fraction(0)))
    assert (theo.decisions, theo.unvalued) == (1, 1)
    brute = split_hand_values(7, 8, 8, 2)
    assert float(theo.cost_cents) == pytest.approx(
        float((max(brute.values()) - brute[Action.STAND]) * 1000), abs=1e-9
    )


def test_a_session_with_resplits_is_valued_whole_and_its_skill_theo_is_the_brute_force_sum(
    split_values: DecisionValues, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    edges = edges_for(SPLIT_RULES, Shoe.of_cards(SPLIT_CARDS))
    edge = brute_split_edge()
    assert float(edges.optimal) == pytest.approx(float(edge), abs=1e-12)
    # 8-8 against a 7 split, an eight dealt to the first hand split again, another to the
    # second of three played on; against a 2 and a 9, the other way round
    plays = [
        (("7H", "8H 8S", 1, 1), Action.SPLIT, 2000),
        (("7H", "8H 8D", 2, 1), Action.SPLIT, 2000),
        (("7H", "8D 8C", 3, 2), Action.STAND, 2000),
        (("2S", "8H 8D", 2, 2), Action.SPLIT, 1000),
        (("2S", "8D 8C", 3, 3), Action.HIT, 1000),
        (("9H", "8S 8C", 2, 1), Action.STAND, 500),
    ]
    decisions = [Decision(split_spot(*where), taken, wager) for where, taken, wager in plays]
    wagers = 2000 + 1000 + 500  # three rounds' initial bets
    theo = session_theo(decisions, wagers, 3, split_values, edges)
    brute_cost = Fraction(0)
    resplit_costs = Fraction(0)
    for (up, _eights, hands, place), taken, wager in plays:
        up_value = Card.parse(up).points
        if hands == 1:
            b = brute_first_values(up_value, 8, 8)
        else:
            b = brute_split_spot(up_value, 8, hands, place)
            resplit_costs += (max(b.values()) - b[taken]) * wager
        brute_cost += (max(b.values()) - b[taken]) * wager
    brute_theo = edge * wagers + brute_cost
    assert resplit_costs > 0  # the split hands' choices cost something: the check is not idle
    assert theo.unvalued == 0
    assert theo.decisions == len(plays)
    assert round(theo.skill_cents) == round(brute_theo)
    assert abs(theo.skill_cents - brute_theo) < Fraction(1, 10**6)
