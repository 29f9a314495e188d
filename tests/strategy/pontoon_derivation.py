"""A check of the pontoon charts: an infinite-deck calculation for uk-pontoon and
pontoon-blackjack (both dealer cards face down, so the play depends only on the player's total,
softness and number of cards).

The model: a standard deck drawn with replacement; the dealer has no pontoon (it was checked
first), draws to 17 and hits soft 17; in uk-pontoon the dealer also stops at five cards and that
five-card trick beats every player hand (the player's pontoon is not in play here). The player
must hit below 15 with fewer than five cards; five cards of 21 or less are a trick paying 2:1
(the hand stands); a 21 ends the hand; ties lose. One double per hand on 2-4 cards (total 20 or
less after the second card) for the original amount, after which the hand may draw on.
Pairs are not modelled. ``python -m tests.strategy.pontoon_derivation`` prints the tables.

``chart_rules=True`` plays the published chart's game instead: a 21 of fewer than five cards
does not end the hand and may be doubled (for the five-card trick).
"""

from __future__ import annotations

import sys
from functools import cache

CARD_P: dict[int, float] = {**dict.fromkeys(range(1, 10), 1 / 13), 10: 4 / 13}
TRICK = 99
BUST = 22
STAND_MINIMUM = 15


def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


@cache
def dealer_outcomes(uk: bool) -> dict[int, float]:
    """The dealer's final totals (17..21, BUST, TRICK) given no dealer pontoon."""
    out: dict[int, float] = {}

    def play(hard: int, ace: bool, ncards: int, p: float) -> None:
        t = _total(hard, ace)
        soft = ace and hard + 10 <= 21
        if ncards == 2 and t == 21:
            return  # a dealer pontoon ends the round before the player plays
        key = None
        if t > 21:
            key = BUST
        elif uk and ncards >= 5:
            key = TRICK
        elif ncards >= 2 and (t > 17 or (t == 17 and not soft)):
            key = t
        if key is not None:
            out[key] = out.get(key, 0.0) + p
            return
        for c, q in CARD_P.items():
            play(hard + c, ace or c == 1, ncards + 1, p * q)

    play(0, False, 0, 1.0)
    norm = sum(out.values())
    return {k: v / norm for k, v in out.items()}


@cache
def stand(total: int, uk: bool) -> float:
    ev = 0.0
    for k, p in dealer_outcomes(uk).items():
        ev += p if (k == BUST or (k != TRICK and k < total)) else -p
    return ev


def trick(uk: bool) -> float:
    dealer_trick = dealer_outcomes(uk).get(TRICK, 0.0)
    return 2 * (1 - dealer_trick) - dealer_trick


@cache
def value(
    hard: int, ace: bool, ncards: int, may_double: bool, uk: bool, chart_rules: bool = False
) -> float:
    t = _total(hard, ace)
    if t > 21:
        return -1.0
    if ncards >= 5:
        return trick(uk)
    if t == 21 and not chart_rules:
        return stand(21, uk)
    return max(values(hard, ace, ncards, may_double, uk, chart_rules).values())


@cache
def values(
    hard: int, ace: bool, ncards: int, may_double: bool, uk: bool, chart_rules: bool = False
) -> dict[str, float]:
    """EV per original unit of standing (S, where allowed), hitting (H) and doubling (D)."""
    t = _total(hard, ace)
    out: dict[str, float] = {}
    if t >= STAND_MINIMUM:
        out["S"] = stand(t, uk)
    out["H"] = sum(
        q * value(hard + c, ace or c == 1, ncards + 1, may_double, uk, chart_rules)
        for c, q in CARD_P.items()
    )
    if may_double and ncards <= 4 and (ncards == 2 or t <= 20 or chart_rules):
        out["D"] = 2 * sum(
            q * value(hard + c, ace or c == 1, ncards + 1, False, uk, chart_rules)
            for c, q in CARD_P.items()
        )
    return out


def code(hard: int, ace: bool, ncards: int, uk: bool) -> str:
    if ncards >= 5:
        return "S"
    evs = values(hard, ace, ncards, True, uk)
    best = max(evs, key=lambda k: evs[k])
    if best == "D":
        return "Dh" if evs["H"] >= evs.get("S", -9.0) else "Ds"
    return best


def exists(kind: str, total: int, ncards: int) -> bool:
    """Whether a hand of this kind, total and card count can be dealt."""
    if kind == "soft":
        return total >= ncards + 10  # the ace as 11 plus ncards - 1 cards of 1 or more
    return total >= 2 * ncards or total >= 12  # no ace, or aces that must count 1


def tables(uk: bool) -> dict[str, dict[str, list[str]]]:
    """Hard and soft rows for 2, 3, 4 and 5+ cards."""
    return {
        "hard": {str(t): [code(t, False, n, uk) for n in (2, 3, 4, 5)] for t in range(4, 21)},
        "soft": {str(t): [code(t - 10, True, n, uk) for n in (2, 3, 4, 5)] for t in range(12, 21)},
    }


def main() -> None:
    uk = sys.argv[1:] != ["pontoon-blackjack"]
    for name, rows in tables(uk).items():
        print(f"\n[{name}]  # cards: 2  3  4  5+")
        for row, cells in rows.items():
            print(f'{row:<2} = "{" ".join(f"{c:<2}" for c in cells).rstrip()}"')


if __name__ == "__main__":
    main()
