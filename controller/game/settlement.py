"""Settlement: pure functions from the rules, a box's wagers and hands and the dealer's hand to
ledger entries. No I/O, no state: the round controller calls them at the moments the procedure
says (a natural at once, a bust at once, insurance on the dealer's second card...), and
:func:`settle_round` composes them for a finished round (the simulator and the tests use it).

Every amount is integer cents, signed from the player's side: a payout is positive, a collected
stake negative, a push or a returned stake zero. Each entry also names the stake it settles
(``stake_cents``), so that every cent put on the table is settled exactly once. Payouts at odds
are rounded down to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

from controller.game.errors import SettlementError
from controller.game.hands import (
    HandRank,
    Result,
    Tier,
    compare,
    dealer_rank,
    hand_value,
    initial_aces,
    is_natural,
    is_suited_777,
    player_rank,
    win_odds,
)
from controller.game.rule_enums import NaturalPolicy, Rounding, SurrenderSettles, format_odds
from drivers.tbl21.cards import Card

if TYPE_CHECKING:
    from controller.game.rules import Variant


class EntryKind(StrEnum):
    PAYOUT = "payout"  # a winning stake paid at odds
    COLLECT = "collect"  # a losing stake taken
    PUSH = "push"  # a stand-off: the stake stays with the player
    RETURN = "return"  # a stake handed back without a result (double on a dealer natural, void)
    SURRENDER = "surrender"  # half the wager taken, half returned
    RESCUE = "rescue"  # NZ 12.8: the double returned, the original forfeited
    INSURANCE_PAYOUT = "insurance_payout"
    INSURANCE_COLLECT = "insurance_collect"
    SUPER_BONUS = "super_bonus"  # NZ 11.2 flat amount
    TABLE_BONUS = "table_bonus"  # NZ 11.3: $50 to every other wager of a Super Bonus round


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    box: int
    player: str
    hand: int | None  # 1-based hand of the box; None for box-level stakes (insurance, surrender)
    kind: EntryKind
    amount_cents: int  # net to the player: + paid, - collected, 0 push/return
    stake_cents: int  # the stake this entry settles (0 for bonuses, which settle no stake)
    odds: Fraction | None
    reason: str

    @property
    def odds_text(self) -> str | None:
        return None if self.odds is None else format_odds(self.odds)


@dataclass(frozen=True, slots=True)
class Wager:
    """A player's initial wager on a box. The first wager on a box controls the box."""

    player: str
    amount_cents: int

    def __post_init__(self) -> None:
        _check_cents(self.amount_cents, f"wager of {self.player!r}", positive=True)


@dataclass(frozen=True, slots=True)
class Stake:
    """One player's money on one hand: the base (original or split stake) and any double."""

    player: str
    base_cents: int
    double_cents: int = 0
    rescued: bool = False
    # settled while its hand stayed open: a co-bettor's 21 paid at once on a hand the box
    # controller doubled to a lower total (NZ 12.2 binds only the doubler; 9.2)
    settled: bool = False

    def __post_init__(self) -> None:
        _check_cents(self.base_cents, f"stake of {self.player!r}", positive=True)
        _check_cents(self.double_cents, f"double of {self.player!r}", positive=False)
        if self.rescued and not self.double_cents:
            raise SettlementError(f"{self.player!r} cannot rescue a stake that was not doubled")

    @property
    def total_cents(self) -> int:
        return self.base_cents + self.double_cents


@dataclass(frozen=True, slots=True)
class Hand:
    cards: tuple[Card, ...]
    stakes: tuple[Stake, ...]
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False  # the box controller doubled this hand

    def fixed_aces(self, rules: Variant, stake: Stake | None = None) -> int:
        """Aces that count 1: those of the first two cards for a player who doubled (NZ 12.2).

        ``stake``: value the hand for that player (a co-bettor who did not join the double
        values it normally); ``None``: for the box controller, who decides the hand.
        """
        doubled = self.doubled if stake is None else stake.double_cents > 0
        if doubled and rules.double.initial_aces_count_one:
            return initial_aces(self.cards)
        return 0

    def rank(self, rules: Variant, stake: Stake | None = None) -> HandRank:
        return player_rank(rules, self.cards, self.from_split, self.fixed_aces(rules, stake))

    def total(self, rules: Variant, stake: Stake | None = None) -> int:
        return hand_value(self.cards, self.fixed_aces(rules, stake)).total


@dataclass(frozen=True, slots=True)
class InsuranceBet:
    player: str
    amount_cents: int

    def __post_init__(self) -> None:
        _check_cents(self.amount_cents, f"insurance of {self.player!r}", positive=True)


@dataclass(frozen=True, slots=True)
class Box:
    number: int
    wagers: tuple[Wager, ...]
    hands: tuple[Hand, ...]
    surrendered: bool = False
    insurance: tuple[InsuranceBet, ...] = ()

    def wager_of(self, player: str) -> Wager:
        for w in self.wagers:
            if w.player == player:
                return w
        raise SettlementError(f"box {self.number} has no wager from {player!r}")


def _check_cents(value: int, what: str, *, positive: bool) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SettlementError(f"{what} must be whole cents (int), got {value!r}")
    if value < 0 or (positive and value == 0):
        raise SettlementError(f"{what} must be {'positive' if positive else '>= 0'}: {value}")


def at_odds(stake_cents: int, odds: Fraction, rounding: Rounding = Rounding.DOWN) -> int:
    """Winnings on a stake at exact odds, in whole cents: a fraction of a cent rounded down, or
    to the nearest cent with a half cent up (the variant's ``payouts.rounding``)."""
    if rounding is Rounding.HALF_UP:
        return (2 * stake_cents * odds.numerator + odds.denominator) // (2 * odds.denominator)
    return (stake_cents * odds.numerator) // odds.denominator


def _entry(
    box: Box,
    player: str,
    hand: int | None,
    kind: EntryKind,
    amount: int,
    stake: int,
    reason: str,
    odds: Fraction | None = None,
) -> LedgerEntry:
    return LedgerEntry(box.number, player, hand, kind, amount, stake, odds, reason)


def _hand(box: Box, index: int) -> Hand:
    if not 0 <= index < len(box.hands):
        raise SettlementError(f"box {box.number} has no hand {index + 1}")
    return box.hands[index]


def _live(stake: Stake) -> bool:
    return not stake.rescued and not stake.settled


# --- settlements made during play -----------------------------------------------------------


def settle_natural(rules: Variant, box: Box, index: int) -> list[LedgerEntry]:
    """A player natural paid at once (NZ 9.1)."""
    hand = _hand(box, index)
    if not is_natural(rules, hand.cards, hand.from_split):
        raise SettlementError(f"box {box.number} hand {index + 1} is not a natural")
    odds = rules.payouts.natural
    return [
        _entry(
            box,
            s.player,
            index + 1,
            EntryKind.PAYOUT,
            at_odds(s.total_cents, odds, rules.payouts.rounding),
            s.total_cents,
            "natural paid at once",
            odds,
        )
        for s in hand.stakes
    ]


def settle_twenty_one(rules: Variant, box: Box, index: int) -> list[LedgerEntry]:
    """A player 21 that wins whatever the dealer does (NZ 9.2), at the best applicable odds.

    Each live stake whose own valuation is 21 is paid: on a hand the box controller doubled,
    a co-bettor who did not join values the initial aces normally (NZ 12.2, 12.6), so his A-5-5
    is 21 and paid while the doubler's 11 plays on.
    """
    hand = _hand(box, index)
    out = []
    for s in hand.stakes:
        rank = hand.rank(rules, s)
        if _live(s) and rank.tier is not Tier.BUST and rank.total == 21:
            out.append(_win(rules, box, index, hand, s, rank))
    if not out:
        raise SettlementError(f"box {box.number} hand {index + 1} has no stake at 21")
    return out


def stakes_at_21(rules: Variant, hand: Hand) -> list[str]:
    """The players whose live stake on ``hand`` is worth 21 by their own valuation."""
    return [
        s.player
        for s in hand.stakes
        if _live(s) and hand.rank(rules, s).tier is not Tier.BUST and hand.total(rules, s) == 21
    ]


def _win(
    rules: Variant, box: Box, index: int, hand: Hand, stake: Stake, rank: HandRank
) -> LedgerEntry:
    odds = win_odds(rules, hand.cards, rank, doubled_stake=stake.double_cents > 0)
    return _entry(
        box,
        stake.player,
        index + 1,
        EntryKind.PAYOUT,
        at_odds(stake.total_cents, odds.odds, rules.payouts.rounding),
        stake.total_cents,
        odds.reason,
        odds.odds,
    )


def settle_bust(rules: Variant, box: Box, index: int) -> list[LedgerEntry]:
    """A busted hand: every live stake on it is collected at once."""
    hand = _hand(box, index)
    if hand.rank(rules).tier is not Tier.BUST:
        raise SettlementError(f"box {box.number} hand {index + 1} is not bust")
    return [
        _entry(
            box,
            s.player,
            index + 1,
            EntryKind.COLLECT,
            -s.total_cents,
            s.total_cents,
            f"bust with {hand.total(rules)}",
        )
        for s in hand.stakes
        if _live(s)
    ]


def settle_rescue(rules: Variant, box: Box, index: int, player: str) -> list[LedgerEntry]:
    """NZ 12.8: the player takes back the doubled part and forfeits the original stake."""
    if not rules.double.rescue:
        raise SettlementError(f"{rules.id} has no double-down rescue")
    hand = _hand(box, index)
    stake = next((s for s in hand.stakes if s.player == player), None)
    if stake is None or not stake.double_cents:
        raise SettlementError(
            f"{player!r} has no doubled stake on box {box.number} hand {index + 1} to rescue"
        )
    if hand.total(rules) > 21:
        raise SettlementError("a rescue needs a hand of 21 or less")
    return [
        _entry(
            box,
            player,
            index + 1,
            EntryKind.RESCUE,
            -stake.base_cents,
            stake.total_cents,
            "rescue: double returned, original wager forfeited",
        )
    ]


def settle_surrender(rules: Variant, box: Box, dealer_natural: bool) -> list[LedgerEntry]:
    """A surrendered box, settled once the dealer's natural is known (NZ 9.4/9.5, PA 633a.9).

    Half of each wager is returned (rounded down to the cent), the rest collected; a dealer
    natural takes the whole wager where the rules say so.
    """
    if not box.surrendered:
        raise SettlementError(f"box {box.number} did not surrender")
    out = []
    for w in box.wagers:
        if dealer_natural and rules.surrender.dealer_natural_takes_all:
            out.append(
                _entry(
                    box,
                    w.player,
                    None,
                    EntryKind.COLLECT,
                    -w.amount_cents,
                    w.amount_cents,
                    "surrender void: dealer natural takes the wager",
                )
            )
        else:
            kept = at_odds(w.amount_cents, Fraction(1, 2), rules.payouts.rounding)  # returned
            out.append(
                _entry(
                    box,
                    w.player,
                    None,
                    EntryKind.SURRENDER,
                    kept - w.amount_cents,
                    w.amount_cents,
                    "surrender: half the wager returned",
                )
            )
    return out


def insurance_limit_cents(rules: Variant, wager: Wager) -> int:
    """The largest insurance a wager may take (NZ 10.4: not more than half), to the cent below:
    a limit is never rounded up."""
    return at_odds(wager.amount_cents, rules.insurance.max_fraction, Rounding.DOWN)


def settle_insurance(rules: Variant, box: Box, dealer_natural: bool) -> list[LedgerEntry]:
    out = []
    for bet in box.insurance:
        if dealer_natural:
            odds = rules.insurance.pays
            out.append(
                _entry(
                    box,
                    bet.player,
                    None,
                    EntryKind.INSURANCE_PAYOUT,
                    at_odds(bet.amount_cents, odds, rules.payouts.rounding),
                    bet.amount_cents,
                    "insurance wins: dealer natural",
                    odds,
                )
            )
        else:
            out.append(
                _entry(
                    box,
                    bet.player,
                    None,
                    EntryKind.INSURANCE_COLLECT,
                    -bet.amount_cents,
                    bet.amount_cents,
                    "insurance loses",
                )
            )
    return out


# --- settlements at the end of the dealer's hand -----------------------------------------------


def settle_dealer_natural(
    rules: Variant,
    box: Box,
    open_hands: Sequence[int],
    already_lost: dict[str, int] | None = None,
) -> list[LedgerEntry]:
    """Open hands of a box against a dealer natural.

    With ``original-only`` (NZ 12.7), each player loses at most the original wager on the box,
    counting what the player already lost on the box this round (``already_lost``, in cents);
    every double and split stake beyond it is returned. Otherwise each open hand is compared
    with the natural like any other hand.
    """
    opened = [_hand(box, i) for i in open_hands]
    restricted = (
        rules.dealer_natural.against_doubles is NaturalPolicy.ORIGINAL_ONLY
        and any(h.doubled or any(s.double_cents for s in h.stakes) for h in opened)
    ) or (rules.dealer_natural.against_splits is NaturalPolicy.ORIGINAL_ONLY and len(box.hands) > 1)
    if not restricted:
        dealer = _natural_rank()
        return [e for i in open_hands for e in _showdown(rules, box, i, dealer)]
    lost = dict(already_lost or {})
    remaining = {w.player: max(0, w.amount_cents - lost.get(w.player, 0)) for w in box.wagers}
    out: list[LedgerEntry] = []
    for i in open_hands:
        hand = box.hands[i]
        for s in hand.stakes:
            if not _live(s):
                continue
            take = min(remaining.get(s.player, 0), s.base_cents)
            remaining[s.player] = remaining.get(s.player, 0) - take
            if take:
                out.append(
                    _entry(
                        box,
                        s.player,
                        i + 1,
                        EntryKind.COLLECT,
                        -take,
                        take,
                        "dealer natural takes the original wager only",
                    )
                )
            if s.total_cents - take:
                out.append(
                    _entry(
                        box,
                        s.player,
                        i + 1,
                        EntryKind.RETURN,
                        0,
                        s.total_cents - take,
                        "dealer natural: double and split stakes returned",
                    )
                )
    return out


def _natural_rank() -> HandRank:
    return HandRank(Tier.NATURAL, 21)


def settle_showdown(
    rules: Variant, box: Box, index: int, dealer_cards: Sequence[Card]
) -> list[LedgerEntry]:
    """An open hand against the dealer's finished hand."""
    return _showdown(rules, box, index, dealer_rank(rules, dealer_cards))


def _showdown(rules: Variant, box: Box, index: int, dealer: HandRank) -> list[LedgerEntry]:
    hand = _hand(box, index)
    out = []
    for s in hand.stakes:
        if not _live(s):
            continue
        rank = hand.rank(rules, s)  # each player's own valuation (NZ 12.2 binds the doubler)
        result = compare(rules, rank, dealer)
        if (
            rules.payouts.twenty_one_paid_at_once
            and rank.tier is not Tier.BUST
            and rank.total == 21
        ):
            result = Result.WIN  # NZ 9.2: a player 21 always wins
        if result is Result.WIN:
            out.append(_win(rules, box, index, hand, s, rank))
        elif result is Result.LOSE:
            out.append(
                _entry(
                    box,
                    s.player,
                    index + 1,
                    EntryKind.COLLECT,
                    -s.total_cents,
                    s.total_cents,
                    f"{rank.describe()} loses to dealer {dealer.describe()}",
                )
            )
        else:
            out.append(
                _entry(
                    box,
                    s.player,
                    index + 1,
                    EntryKind.PUSH,
                    0,
                    s.total_cents,
                    f"stand-off at {rank.describe()}",
                )
            )
    return out


def is_super_bonus_hand(rules: Variant, hand: Hand, dealer_first: Card | None) -> bool:
    sb = rules.super_bonus
    return (
        sb.enabled
        and dealer_first is not None
        and dealer_first.rank is sb.dealer_first_rank
        and is_suited_777(hand.cards)
        and (sb.paid_on_split or not hand.from_split)
    )


def settle_super_bonus(
    rules: Variant, boxes: Sequence[Box], dealer_first: Card | None
) -> list[LedgerEntry]:
    """NZ 11.2-11.4, at the end of the round: the flat Super Bonus to each winning stake and
    ``other_wagers_cents`` to every other wager of the round."""
    sb = rules.super_bonus
    winners: set[tuple[int, str]] = set()
    out: list[LedgerEntry] = []
    for box in boxes:
        if box.surrendered:
            continue
        for i, hand in enumerate(box.hands):
            if not is_super_bonus_hand(rules, hand, dealer_first):
                continue
            for s in hand.stakes:
                if s.rescued or (s.double_cents and not sb.paid_on_doubled):
                    continue
                amount = rules.super_bonus_amount(s.base_cents)
                if amount:
                    winners.add((box.number, s.player))
                    out.append(
                        _entry(
                            box,
                            s.player,
                            i + 1,
                            EntryKind.SUPER_BONUS,
                            amount,
                            0,
                            "Super Bonus: suited 7-7-7 against a dealer 7",
                        )
                    )
    if winners and sb.other_wagers_cents:
        for box in boxes:
            for w in box.wagers:
                if (box.number, w.player) not in winners:
                    out.append(
                        _entry(
                            box,
                            w.player,
                            None,
                            EntryKind.TABLE_BONUS,
                            sb.other_wagers_cents,
                            0,
                            "Super Bonus round: every other wager receives a bonus",
                        )
                    )
    return out


# --- a whole round ------------------------------------------------------------------------------


def net_by_player(entries: Iterable[LedgerEntry], players: Iterable[str] = ()) -> dict[str, int]:
    """What each player won (+) or lost (-) over ``entries``, in integer cents; ``players``
    first, in their order, at 0 unless an entry moves their money."""
    net: dict[str, int] = dict.fromkeys(players, 0)
    for e in entries:
        net[e.player] = net.get(e.player, 0) + e.amount_cents
    return net


@dataclass(slots=True)
class RoundLedger:
    entries: list[LedgerEntry] = field(default_factory=list)

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        self.entries.extend(entries)

    def net_by_player(self) -> dict[str, int]:
        return net_by_player(self.entries)

    def house_net(self) -> int:
        return -sum(e.amount_cents for e in self.entries)


def mark_settled(box: Box, index: int, players: Iterable[str]) -> Box:
    """``box`` with the stakes of ``players`` on hand ``index`` marked settled."""
    who = set(players)
    hand = box.hands[index]
    stakes = tuple(replace(s, settled=True) if s.player in who else s for s in hand.stakes)
    hands = list(box.hands)
    hands[index] = replace(hand, stakes=stakes)
    return replace(box, hands=tuple(hands))


def surrender_waits_for_dealer(rules: Variant) -> bool:
    """A surrender forfeits its half at the completion of the dealer's hand (NZ 9.5)."""
    return rules.surrender.settles is SurrenderSettles.DEALER_HAND_COMPLETE


def settle_round(rules: Variant, boxes: Sequence[Box], dealer_cards: Sequence[Card]) -> RoundLedger:
    """Settle a finished round in the order of the procedure (rules.md, "Order of play").

    ``boxes`` hold their final hands (split, doubled, rescued stakes and surrender marked);
    ``dealer_cards`` the dealer's final hand, first card first.
    """
    ledger = RoundLedger()
    if not dealer_cards:
        raise SettlementError("the dealer has no cards: nothing can be settled")
    dealer_first = dealer_cards[0]
    dealer_natural = (
        is_natural(rules, dealer_cards[:2], from_split=False) and len(dealer_cards) == 2
    )
    dealer = dealer_rank(rules, dealer_cards)
    boxes = list(boxes)
    open_hands: dict[int, list[int]] = {}
    lost: dict[int, dict[str, int]] = {}
    for b in range(len(boxes)):
        box = boxes[b]
        box_lost = lost.setdefault(box.number, {})
        if box.surrendered:
            open_hands[box.number] = []
            continue
        still_open = []
        for i, hand in enumerate(box.hands):
            rank = hand.rank(rules)
            played: list[LedgerEntry] = []
            for s in hand.stakes:
                if s.rescued:
                    played += settle_rescue(rules, box, i, s.player)
            at_21 = stakes_at_21(rules, hand) if rules.payouts.twenty_one_paid_at_once else []
            if rules.payouts.natural_paid_at_once and rank.tier is Tier.NATURAL:
                played += settle_natural(rules, box, i)
            elif rank.tier is Tier.BUST:
                played += settle_bust(rules, box, i)
            elif at_21 and not is_super_bonus_hand(rules, hand, dealer_first):
                # 9.2; on a hand doubled lower for the controller, a co-bettor's 21 (12.2)
                played += settle_twenty_one(rules, box, i)
                box = boxes[b] = mark_settled(box, i, at_21)
                if any(_live(s) for s in box.hands[i].stakes):
                    still_open.append(i)
            elif any(_live(s) for s in hand.stakes):
                still_open.append(i)
            for e in played:
                if e.amount_cents < 0:
                    box_lost[e.player] = box_lost.get(e.player, 0) - e.amount_cents
            ledger.extend(played)
        open_hands[box.number] = still_open
    waits = surrender_waits_for_dealer(rules) and not dealer_natural
    for box in boxes:
        ledger.extend(settle_insurance(rules, box, dealer_natural))
        if box.surrendered and not waits:
            ledger.extend(settle_surrender(rules, box, dealer_natural))
    for box in boxes:
        if box.surrendered and waits:
            ledger.extend(settle_surrender(rules, box, dealer_natural))
        elif dealer_natural:
            ledger.extend(
                settle_dealer_natural(rules, box, open_hands[box.number], lost[box.number])
            )
        else:
            for i in open_hands[box.number]:
                ledger.extend(_showdown(rules, box, i, dealer))
    ledger.extend(settle_super_bonus(rules, boxes, dealer_first))
    return ledger
