"""Published exact figures the analysis is checked against (tests and bench).

Sources (Wizard of Odds, combinatorial analyses):
* Blackjack appendix 2 (dealer's final total per up card after the dealer checked for
  blackjack) and 2B (before the check), "Dealer Stands on Soft 17" tables for 1 and 2 decks:
  https://wizardofodds.com/games/blackjack/appendix/2/ and .../appendix/2b/ (last updates
  2007-04-29 and 2004-07-20). Columns 17, 18, 19, 20, 21, (BJ,) bust.
* Blackjack appendix 9, expected returns of every initial hand and of the game, composition
  dependent play, resplit to four hands except aces, no draw to split aces ("for splitting
  values the program only considered how many hands the player had already split"):
  https://wizardofodds.com/games/blackjack/appendix/9/1ds17r4/ (1 deck, S17),
  .../9/1dh17r4/, .../9/2dh17r4/, .../9/5dh17r4/ (H17, 1, 2 and 5 decks) and
  .../9/euro-6dh17r4/, .../9/euro-8dh17r4/ (6 and 8 decks, H17, no hole card, the dealer's
  blackjack takes doubles and splits), all last updated 2019-10-30/31.
"""

from __future__ import annotations

# appendix 2: after the check (1 and 2 decks, S17); up card -> (17, 18, 19, 20, 21, bust)
AFTER_CHECK_S17: dict[int, dict[str, tuple[float, ...]]] = {
    1: {
        "A": (0.183786, 0.19089, 0.18868, 0.191692, 0.075137, 0.169815),
        "2": (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0.352973),
        "3": (0.130313, 0.130946, 0.123761, 0.123345, 0.116047, 0.375588),
        "4": (0.130973, 0.114163, 0.120679, 0.116286, 0.115096, 0.402803),
        "5": (0.119687, 0.123483, 0.116909, 0.104694, 0.106321, 0.428905),
        "6": (0.166948, 0.106454, 0.107192, 0.100705, 0.097879, 0.420823),
        "7": (0.372345, 0.138583, 0.077334, 0.078897, 0.072987, 0.259854),
        "8": (0.130857, 0.362989, 0.129445, 0.06829, 0.069791, 0.238627),
        "9": (0.121886, 0.103921, 0.357391, 0.12225, 0.061109, 0.233442),
        "T": (0.124156, 0.122486, 0.124421, 0.356869, 0.03957, 0.232499),
    },
    2: {
        "A": (0.186367, 0.189883, 0.188851, 0.190272, 0.076531, 0.168096),
        "2": (0.139367, 0.133348, 0.130744, 0.123997, 0.119254, 0.353291),
        "3": (0.132764, 0.130676, 0.124575, 0.121811, 0.11538, 0.374794),
        "4": (0.130704, 0.120208, 0.121038, 0.116366, 0.113145, 0.39854),
        "5": (0.121005, 0.122831, 0.117318, 0.109022, 0.10732, 0.422505),
        "6": (0.166224, 0.10617, 0.106749, 0.101217, 0.097508, 0.422132),
        "7": (0.370478, 0.138195, 0.078013, 0.078781, 0.07339, 0.261143),
        "8": (0.129697, 0.361182, 0.129025, 0.068857, 0.06961, 0.24163),
        "9": (0.12094, 0.112016, 0.354051, 0.121118, 0.060977, 0.230898),
        "T": (0.122412, 0.1216, 0.122524, 0.36387, 0.038449, 0.231144),
    },
}
# appendix 2B: before the check, 1 deck S17; up card -> (17, 18, 19, 20, 21, BJ, bust)
BEFORE_CHECK_S17_1D: dict[str, tuple[float, ...]] = {
    "A": (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    "T": (0.114418, 0.112879, 0.114662, 0.328879, 0.0364661, 0.0784314, 0.214264),
}
# appendix 9: (dealer up, player cards) -> (stand, hit, double); conditional on no dealer
# blackjack where the dealer has a hole card
HANDS: dict[str, dict[tuple[str, tuple[int, int]], tuple[float, float, float]]] = {
    "1ds17r4": {
        ("A", (6, 5)): (-0.634013, 0.172946, 0.240259),
        ("A", (6, 4)): (-0.636118, 0.081506, 0.048615),
        ("A", (7, 1)): (-0.101015, -0.108386, -0.357778),
        ("A", (5, 4)): (-0.654533, -0.070215, -0.395771),
    },
    "euro-6dh17r4": {
        ("A", (6, 5)): (-0.720879, -0.235772, -0.535879),
        ("A", (6, 4)): (-0.720814, -0.286818, -0.639108),
        ("A", (7, 1)): (-0.466029, -0.421285, -0.909374),
    },
}
# appendix 9: expected return of the game (double after split allowed / not)
GAMES: dict[str, tuple[dict[str, object], float, float]] = {
    "1ds17r4": ({"shoe.decks": 1}, 0.001839, 0.000423),
    "1dh17r4": ({"shoe.decks": 1, "dealer.hits_soft_17": True}, -0.000072, -0.001513),
    "2dh17r4": ({"shoe.decks": 2, "dealer.hits_soft_17": True}, -0.003797, -0.005252),
    "5dh17r4": ({"shoe.decks": 5, "dealer.hits_soft_17": True}, -0.005918, -0.007366),
    "euro-6dh17r4": ({"shoe.decks": 6, "dealer.hits_soft_17": True}, -0.0072705, -0.0086975),
    "euro-8dh17r4": ({"shoe.decks": 8, "dealer.hits_soft_17": True}, -0.007562, -0.0089865),
}
NO_HOLE_CARD: dict[str, object] = {
    "dealer.second_card": "after-boxes",
    "dealer.peek_up_cards": [],
    "insurance.allowed": False,
}


def game_overrides(name: str, das: bool = True) -> dict[str, object]:
    """pa-blackjack set to the rules of an appendix 9 game: no surrender, the deck count,
    S17/H17, and for the euro games no hole card."""
    base, _das, _ndas = GAMES[name]
    out: dict[str, object] = {
        "surrender.allowed": False,
        "shoe.cut_card_reserve": 26,
        "shoe.burn_cards": 0,
        **base,
    }
    if name.startswith("euro"):
        out.update(NO_HOLE_CARD)
    if not das:
        out["double.after_split"] = False
    return out
