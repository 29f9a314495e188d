"""How the nz-pontoon strategy was derived: an infinite-deck calculation for the NZ rules.

No published chart covers New Zealand's rules exactly (no hole card with player 21 paid at
once, original bets only on a dealer pontoon, aces of the first two cards counting 1 once
doubled, rescue as forfeiting the original wager), so ``config/strategies/nz-pontoon.toml`` was
computed here and compared with the published Spanish 21 chart. ``python -m
tests.strategy.nz_derivation`` prints the tables in the file's format; the test beside this
module checks that the shipped file still says what the calculation says.

The model: a Spanish 48-card deck drawn with replacement (ranks A-9 1/12 each, ten-value 1/4),
dealer draws to 17 and hits soft 17, no hole card (the dealer's pontoon is possible after every
player decision). A player bust loses at once; a player 21 wins at once at 1:1, 3:2 with five
cards, 2:1 with six, 3:1 with seven or more (undoubled), 1:1 on the doubled stake. A dealer
pontoon takes the original wager only, doubled or not. A stand compares totals, ties push.
Double: any number of cards, total 20 or less, one card, the first two cards' aces then count 1;
after it, rescue (lose the original wager, keep the double) when that is better. Surrender (two
cards, dealer A/K/Q/J): half the wager, the whole of it if the dealer makes pontoon.
Splits are approximated: no resplits, aces take one card, split 21s pay 1:1, and the dealer's
pontoon is taken out before the split hands are valued. The 6-7-8 / 7-7-7 bonuses are left out.
"""

from __future__ import annotations

from functools import cache

CARD_P: dict[int, float] = {**dict.fromkeys(range(1, 10), 1 / 12), 10: 3 / 12}
UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # the columns 2..9, T, A
SURRENDER_UPS = frozenset({1, 10})  # A, K/Q/J
NATURAL = 0  # key of the dealer-pontoon outcome
BUST = 22
PAIRS = (("AA", 1), *((f"{p}{p}", p) for p in range(2, 10)), ("TT", 10))


def _total(hard: int, usable_ace: bool) -> int:
    return hard + 10 if usable_ace and hard + 10 <= 21 else hard


@cache
def dealer_outcomes(up: int) -> dict[int, float]:
    """Final dealer totals (17..21, BUST, NATURAL) with their probabilities."""
    out: dict[int, float] = {}

    def play(hard: int, ace: bool, ncards: int, p: float) -> None:
        t = _total(hard, ace)
        soft = ace and hard + 10 <= 21
        if ncards == 2 and t == 21:
            out[NATURAL] = out.get(NATURAL, 0.0) + p
        elif t > 21:
            out[BUST] = out.get(BUST, 0.0) + p
        elif t > 17 or (t == 17 and not soft):
            out[t] = out.get(t, 0.0) + p
        else:
            for c, q in CARD_P.items():
                play(hard + c, ace or c == 1, ncards + 1, p * q)

    play(up, up == 1, 1, 1.0)
    return out


def natural_p(up: int) -> float:
    return dealer_outcomes(up).get(NATURAL, 0.0)


@cache
def stand_given_no_natural(total: int, up: int) -> float:
    """E[result per unit of a standing total | the dealer has no pontoon]."""
    ev = 0.0
    for k, p in dealer_outcomes(up).items():
        if k == NATURAL:
            continue
        ev += p if (k == BUST or k < total) else (-p if k > total else 0.0)
    return ev / (1 - natural_p(up))


def stand(total: int, up: int, stake: int = 1) -> float:
    pn = natural_p(up)
    return -pn + (1 - pn) * stake * stand_given_no_natural(total, up)


def twenty_one_pays(ncards: int) -> float:
    if ncards >= 7:
        return 3.0
    return {5: 1.5, 6: 2.0}.get(ncards, 1.0)


def rescues(total: int, up: int) -> bool:
    """Rescue a doubled hand standing on ``total``: forfeit 1 beats the doubled stand."""
    return stand_given_no_natural(total, up) < -0.5


def double(hard: int, later_ace: bool, up: int) -> float:
    ev = 0.0
    for c, q in CARD_P.items():
        t = _total(hard + c, later_ace or c == 1)  # the first two cards' aces count 1
        if t > 21:
            ev -= 2 * q
        elif t == 21:
            ev += 2 * q
        else:
            ev += q * max(stand(t, up, 2), -1.0)
    return ev


@cache
def values(hard: int, first_ace: bool, later_ace: bool, ncards: int, up: int) -> dict[str, float]:
    """EV of standing (S), hitting then playing on (H) and doubling (D) a live hand."""
    t = _total(hard, first_ace or later_ace)
    hit = 0.0
    for c, q in CARD_P.items():
        nh, nla = hard + c, later_ace or c == 1
        nt = _total(nh, first_ace or nla)
        if nt > 21:
            hit -= q
        elif nt == 21:
            hit += q * twenty_one_pays(ncards + 1)
        else:
            hit += q * max(values(nh, first_ace, nla, ncards + 1, up).values())
    return {"S": stand(t, up), "H": hit, "D": double(hard, later_ace, up)}


def surrender(up: int) -> float:
    pn = natural_p(up)
    return -0.5 * (1 - pn) - pn


def code_of(evs: dict[str, float], surrender_ev: float | None = None) -> str:
    """The chart code: the best play, with its fallback where it may be unavailable."""
    best = max(evs, key=lambda k: evs[k])
    rest = "h" if evs["H"] >= evs["S"] else "s"
    if surrender_ev is not None and surrender_ev > evs[best]:
        return "Rp" if best == "P" else f"R{rest}"
    if best == "D":
        return f"D{rest}"
    return best


def hard_cells(total: int, ncards: int) -> list[str]:
    return [
        code_of(
            values(total, False, False, ncards, up),
            surrender(up) if ncards == 2 and up in SURRENDER_UPS else None,
        )
        for up in UPS
    ]


def soft_cells(total: int, ncards: int) -> list[str]:
    """Two cards: the ace is one of them; more: the ace was drawn later (may double soft)."""
    if ncards == 2:
        return [
            code_of(
                values(total - 10, True, False, 2, up),
                surrender(up) if up in SURRENDER_UPS else None,
            )
            for up in UPS
        ]
    return [code_of(values(total - 10, False, True, ncards, up)) for up in UPS]


def split_hand(card: int, up: int) -> float:
    """One hand of a split pair, given no dealer pontoon (no resplit)."""
    pn = natural_p(up)
    ev = 0.0
    for c, q in CARD_P.items():
        hard, ace = card + c, card == 1 or c == 1
        t = _total(hard, ace)
        if card == 1:  # split aces: one card each, no double
            ev += q * (1.0 if t == 21 else stand_given_no_natural(t, up))
        elif t == 21:
            ev += q  # a 21 of a split hand is no pontoon: 1:1
        else:
            best = max(values(hard, ace, False, 2, up).values())
            ev += q * (best + pn) / (1 - pn)  # take the dealer's pontoon out again
    return ev


def pair_cells(card: int) -> list[str]:
    cells = []
    for up in UPS:
        evs = dict(values(2 * card, card == 1, False, 2, up))
        pn = natural_p(up)
        split = -pn + (1 - pn) * 2 * split_hand(card, up)
        sur = surrender(up) if up in SURRENDER_UPS else None
        if split >= max(evs.values()):
            cells.append("Rp" if sur is not None and sur > split else "P")
        else:
            cells.append(code_of(evs, sur))
    return cells


def tables() -> dict[str, dict[str, list[str]]]:
    """The sections of the strategy file, as the calculation gives them."""
    out: dict[str, dict[str, list[str]]] = {
        "hard": {str(t): hard_cells(t, 2) for t in range(4, 21)},
        "soft": {str(t): soft_cells(t, 2) for t in range(12, 21)},
    }
    for kind, rows, cells in (
        ("hard", range(4, 21), hard_cells),
        ("soft", range(12, 21), soft_cells),
    ):
        for n in range(3, 8):
            changed = {str(t): cells(t, n) for t in rows if cells(t, n) != cells(t, n - 1)}
            if changed:
                out[f"{kind}-from-{n}-cards"] = changed
    out["pairs"] = {name: pair_cells(card) for name, card in PAIRS}
    out["rescue"] = {str(t): ["R" if rescues(t, up) else "S" for up in UPS] for t in range(4, 21)}
    return out


def main() -> None:
    for name, rows in tables().items():
        print(f"\n[{name}]  # up: 2  3  4  5  6  7  8  9  T  A")
        for row, cells in rows.items():
            codes = " ".join(f"{c:<2}" for c in cells).rstrip()
            print(f'{row:<2} =      "{codes}"')


if __name__ == "__main__":
    main()
