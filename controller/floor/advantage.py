"""Advantage play, worked out on the floor from the shipped journal rows (issue 24, point 3).

Nothing here is ever shown at the table or changes the game: it reads rows the table already
wrote, after the fact.

**The counts.** Before every round, from the cards that actually came out of the shoe since its
shuffle (the burn card is removed but never seen, so it is not counted; the dealer's hole card
is seen at the reveal, so it counts from the next round on):

* **Hi-Lo** (2-6 count +1, 7-9 count 0, ten-value cards and aces count -1): the running count
  and the true count (running count / decks not yet dealt). It is the count surveillance
  departments and most counters use; its indices (below) are the published ones.
* **The count that fits the variant's deck**, the one the flag and the indices use. For a
  standard 52-card deck it is Hi-Lo itself (balanced: a full shoe sums to 0). A Spanish 48-card
  deck (nz-pontoon: the four tens removed, J/Q/K the only ten-value cards) has 20 low cards
  and 16 high ones, so Hi-Lo drifts up by 4 a deck as the shoe is dealt even with nothing in
  the player's favour. The fitting count is Hi-Lo **balanced for the Spanish deck**: the true
  count is (running count - 4/48 x cards counted) / decks not yet dealt, so a shoe dealt at
  the deck's own mix reads 0, as Hi-Lo does on 52 cards, and the same index numbers keep their
  meaning (this is the usual "start at -4 a deck" Spanish-21 Hi-Lo, made exact per card).

**Per rated session and per box** (:func:`evidence`): the Spearman correlation of the initial
bet with the true count before the round, the bet spread (largest bet / smallest), the index
plays (:data:`INDICES`) made at counts past their index and short of it, and wonging (the true
count when the player sat down mid-shoe and when they walked away).

**The flag** (:data:`FLAG_STATISTIC`): the bet-count correlation's z = rho x sqrt(n - 1)
(Spearman's rho over the session's n rounds; under no relation between bet and count it is
about standard normal) at or above :data:`FLAG_Z` = 3.09 (one-sided p = 0.001), over at least
:data:`MIN_ROUNDS` rounds. A flat bettor has rho = 0. Index plays and wonging are shown as the
evidence beside it, never flag on their own: a poor player's mistakes can look like index plays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from controller.floor.table_rules import TableRules, table_rules
from controller.game.errors import ConfigError
from controller.game.rules import load_variant
from controller.journal.store import Row
from controller.table.shoewatch import cut_tolerance

HI_LO: Mapping[str, int] = {
    **dict.fromkeys("23456", 1),
    **dict.fromkeys("789", 0),
    **dict.fromkeys("TJQKA", -1),
}
TENS = frozenset("TJQK")

FLAG_STATISTIC = "bet-count correlation z (Spearman rho x sqrt(n - 1))"
FLAG_Z = 3.09  # one-sided p = 0.001 under no relation between bet and count
MIN_ROUNDS = 20  # fewer rounds: no flag, whatever the correlation


# --- the count ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Count:
    """A shoe's count at one moment: ``running`` is Hi-Lo's, ``true`` the fitting count's true
    count (exact), ``hi_lo_true`` Hi-Lo's own true count, ``left`` the cards not yet dealt."""

    running: int
    true: Fraction
    hi_lo_true: Fraction
    counted: int
    left: int

    def as_json(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "true": round(float(self.true), 2),
            "hi_lo_true": round(float(self.hi_lo_true), 2),
            "cards_left": self.left,
        }


class ShoeCount:
    """Hi-Lo over one shoe and the true counts before each round."""

    def __init__(self, decks: int, deck_size: int) -> None:
        self.decks = decks
        self.deck_size = deck_size
        # Hi-Lo's drift per card of this deck: 0 on 52 cards, 4/48 on the Spanish deck
        full = {52: Fraction(0), 48: Fraction(4, 48)}
        self.drift = full.get(deck_size, Fraction(0))
        self.shuffle()

    @property
    def count_name(self) -> str:
        return "Hi-Lo" if self.drift == 0 else "Hi-Lo balanced for the Spanish 48-card deck"

    def shuffle(self) -> None:
        self.running = 0
        self.counted = 0
        self.left = self.decks * self.deck_size
        self.out: list[str] = []  # every card out of the shoe since its shuffle, burns too

    def dealt(self, card: str, *, seen: bool = True) -> None:
        """A card left the shoe (``seen``: face up at some point; a burn card is not)."""
        self.left = max(0, self.left - 1)
        self.out.append(card)
        if seen:
            self.running += HI_LO.get(card[:1], 0)
            self.counted += 1

    def now(self) -> Count:
        decks_left = Fraction(max(self.left, 1), self.deck_size)
        balanced = self.running - self.drift * self.counted
        return Count(
            self.running,
            balanced / decks_left,
            Fraction(self.running) / decks_left,
            self.counted,
            self.left,
        )


# --- the indices -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Index:
    """A counter's index play: with ``hand`` against the dealer's ``up`` card, play ``action``
    (the chart plays otherwise) when the true count is at or above ``at`` (``above``) or at or
    below it (not ``above``)."""

    name: str
    hand: str  # "16": a hard total; "TT": a pair of ten-value cards; "insurance"
    up: str  # "T": any ten-value card
    action: str  # the input action of the play: stand, hit, double, split, insurance
    at: int
    above: bool = True

    def past(self, true: Fraction) -> bool:
        """The count is past the index: the index says to make this play."""
        return true >= self.at if self.above else true <= self.at


# The Illustrious 18 (Hi-Lo, multi-deck, dealer stands on soft 17: Schlesinger, "Blackjack
# Attack"), the plays that carry most of a counter's gain from playing by the count. Each is a
# play the 6-deck chart does not make; the surrender indices ("Fab 4") are left out.
INDICES: tuple[Index, ...] = (
    Index("insurance at +3", "insurance", "A", "insurance", 3),
    Index("16 v T: stand at 0", "16", "T", "stand", 0),
    Index("15 v T: stand at +4", "15", "T", "stand", 4),
    Index("T,T v 5: split at +5", "TT", "5", "split", 5),
    Index("T,T v 6: split at +4", "TT", "6", "split", 4),
    Index("10 v T: double at +4", "10", "T", "double", 4),
    Index("12 v 3: stand at +2", "12", "3", "stand", 2),
    Index("12 v 2: stand at +3", "12", "2", "stand", 3),
    Index("11 v A: double at +1", "11", "A", "double", 1),
    Index("9 v 2: double at +1", "9", "2", "double", 1),
    Index("10 v A: double at +4", "10", "A", "double", 4),
    Index("9 v 7: double at +3", "9", "7", "double", 3),
    Index("16 v 9: stand at +5", "16", "9", "stand", 5),
    Index("13 v 2: hit at -1", "13", "2", "hit", -1, above=False),
    Index("12 v 4: hit below 0", "12", "4", "hit", -1, above=False),
    Index("12 v 5: hit at -2", "12", "5", "hit", -2, above=False),
    Index("12 v 6: hit at -1", "12", "6", "hit", -1, above=False),
    Index("13 v 3: hit at -2", "13", "3", "hit", -2, above=False),
)


def _rank(card: str) -> str:
    r = card[:1]
    return "T" if r in TENS else r


def hand_key(cards: Sequence[str]) -> tuple[str, bool]:
    """A hand's key for the indices: ``"TT"`` for two ten-value cards, else its total; and
    whether it is soft (an ace counted as 11)."""
    ranks = [_rank(c) for c in cards]
    total = sum(10 if r == "T" else 1 if r == "A" else int(r) for r in ranks)
    soft = "A" in ranks and total + 10 <= 21
    if len(ranks) == 2 and ranks == ["T", "T"]:
        return "TT", False
    return str(total + 10 if soft else total), soft


def index_for(cards: Sequence[str], up: str | None, action: str) -> Index | None:
    """The index play ``action`` makes with ``cards`` against ``up`` (None: none does)."""
    if up is None:
        return None
    if action == "insurance":
        return next((i for i in INDICES if i.hand == "insurance" and _rank(up) == "A"), None)
    key, soft = hand_key(cards)
    if soft:
        return None
    for index in INDICES:
        if index.hand == key and index.up == _rank(up) and index.action == action:
            return index
    return None


# --- what the rows show ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """A decision of a box's player: the index it matches (if any) and the count then."""

    round_id: int
    action: str
    cards: tuple[str, ...]
    up: str | None
    true: Fraction
    index: Index | None


@dataclass
class BoxRound:
    """One box's round: the count before it, the initial bet, the session it belongs to."""

    table_id: str
    round_id: int
    box: int
    player: str
    bet_cents: int
    count: Count
    session: str | None = None
    ts: str = ""
    plays: list[Play] = field(default_factory=list)
    # the cards out of the shoe before the round, burns too (what remains is its shoe); None:
    # the shoe's shuffle is before the rows read, so its cards out are not all known
    out: tuple[str, ...] | None = None
    # the rules the table dealt it by (its latest config row: controller.floor.table_rules)
    rules: TableRules | None = None


@dataclass
class Seating:
    """A rated session's sit-down and walk-away, with the count at each."""

    session: str
    table_id: str
    box: int
    player: str
    card: str
    joined: Count
    joined_mid_shoe: bool
    left: Count | None = None


@dataclass
class ShoeProof:
    """What the journal proves of one shoe's shuffle point (journal format 14 on): the cut
    position committed before the shoe's first card (on the ``new_shoe`` order, or on the
    ``config`` row of a start for the shoe already loaded), and where the cut card came out.

    ``began_before``: the shoe began before the rows read (its commitment, if any, is not among
    them), so it is not judged."""

    table_id: str
    number: int  # the shoe's number among the rows read, from 1
    deck_size: int
    committed: int | None = None  # cut after this many cards
    committed_seq: int | None = None
    first_card_seq: int | None = None
    first_card_ts: str = ""
    cut_at: int | None = None  # the cut card came out after this many cards
    cut_virtual: bool = False
    began_before: bool = False

    @property
    def committed_first(self) -> bool:
        """The cut position was in the journal before the shoe's first card."""
        return self.committed is not None and (
            self.first_card_seq is None or (self.committed_seq or 0) < self.first_card_seq
        )

    @property
    def cut_as_committed(self) -> bool | None:
        """The cut card came out where committed, within its tolerance (None: not out yet, or
        nothing committed)."""
        if self.cut_at is None or self.committed is None:
            return None
        tolerance = cut_tolerance(self.deck_size, self.cut_virtual)
        return abs(self.cut_at - self.committed) <= tolerance

    @property
    def flagged(self) -> bool:
        return not self.began_before and (
            not self.committed_first or self.cut_as_committed is False
        )

    @property
    def why(self) -> str:
        if self.began_before:
            return "began before the rows read: not judged"
        if not self.committed_first:
            return "no cut position in the journal before the shoe's first card"
        said = f"cut position {self.committed} committed at row {self.committed_seq}"
        if self.first_card_seq is not None:
            said += f", before the first card (row {self.first_card_seq})"
        if self.cut_as_committed is False:
            return (
                f"{said}; the cut card came out after card {self.cut_at}, outside the "
                f"tolerance of {cut_tolerance(self.deck_size, self.cut_virtual)}"
            )
        if self.cut_at is not None:
            return f"{said}; the cut card came out after card {self.cut_at}"
        return said

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "shoe": self.number,
            "committed": self.committed,
            "committed_seq": self.committed_seq,
            "first_card_seq": self.first_card_seq,
            "first_card_at": self.first_card_ts,
            "cut_at": self.cut_at,
            "committed_first": self.committed_first,
            "cut_as_committed": self.cut_as_committed,
            "flagged": self.flagged,
            "why": self.why,
        }


@dataclass
class TableRead:
    """Everything one table's rows show: its box rounds, its rated sessions and its shoes."""

    table_id: str
    variant: str = ""
    count_name: str = "Hi-Lo"
    rules: TableRules | None = None  # from the latest config row read (None: none read)
    rounds: list[BoxRound] = field(default_factory=list)
    seatings: dict[str, Seating] = field(default_factory=dict)
    shoes: list[ShoeProof] = field(default_factory=list)


def _shoe_for(found: TableRules) -> ShoeCount:
    """The shoe of the rules the table journalled; where they are not known, the shipped
    variant's of that id (the count's best guess: the page's edge refuses such a table)."""
    if found.rules is not None:
        return ShoeCount(found.rules.shoe.decks, found.rules.shoe.deck.size)
    try:
        rules = load_variant(found.variant)
    except (ConfigError, OSError, ValueError):
        return ShoeCount(6, 52)
    return ShoeCount(rules.shoe.decks, rules.shoe.deck.size)


def read_table(table_id: str, rows: Iterable[Row]) -> TableRead:
    """Replay one table's rows (seq order) into its box rounds and rated sessions."""
    out = TableRead(table_id)
    shoe = ShoeCount(6, 52)
    face_up = True
    burn_next = False
    target: int | None = None  # the box the next card goes to (None: the dealer)
    dealer: list[str] = []
    hands: dict[int, list[str]] = {}
    split: set[int] = set()
    pending: dict[int, BoxRound] = {}  # bets placed for the next round, by box
    live: dict[int, BoxRound] = {}
    before: Count = shoe.now()
    proof: ShoeProof | None = None
    whole_shoe = False
    next_cut: tuple[int, int] | None = None  # (position, seq) of the last new_shoe order
    for row in rows:
        p = row.payload
        kind = row.kind
        if proof is None:  # the shoe in play at the first row read
            proof = ShoeProof(table_id, 1, shoe.deck_size, began_before=row.seq > 1)
            whole_shoe = row.seq <= 1  # the shoe's cards out are known from its start
            out.shoes.append(proof)
        if kind == "config" and isinstance(p.get("variant"), str):
            out.variant = p["variant"]
            out.rules = table_rules(row)
            shoe = _shoe_for(out.rules)
            out.count_name = shoe.count_name
            face_up = _face_up(out.rules)
            proof.deck_size = shoe.deck_size
            cut = p.get("cut_position")
            if isinstance(cut, int) and proof.first_card_seq is None and proof.committed is None:
                proof.committed, proof.committed_seq = cut, row.seq
        elif kind == "device_command" and p.get("command") == "new_shoe":
            args = p.get("args") or []
            next_cut = (int(args[0]), row.seq) if args and str(args[0]).isdigit() else None
        elif kind == "device_event" and p.get("type") == "ShoeLoaded":
            # a new shoe's cards (asked for by a new_shoe order, which commits its cut, or not)
            proof = ShoeProof(table_id, len(out.shoes) + 1, shoe.deck_size)
            if next_cut is not None:
                proof.committed, proof.committed_seq = next_cut
            next_cut = None
            out.shoes.append(proof)
        elif kind == "device_event" and p.get("type") == "CutCard":
            if isinstance(p.get("draw_no"), int) and proof.cut_at is None:
                proof.cut_at = p["draw_no"]
                proof.cut_virtual = p.get("kind") == "V"
        elif kind == "prompt":
            code = p.get("code")
            if code == "BURN":
                burn_next = True
            elif code == "DEAL":
                box = p.get("box")
                target = box if isinstance(box, int) else None
            elif code in ("DEALER_DRAWS", "PEEK", "REVEAL"):
                target = None
        elif kind == "input" and p.get("accepted"):
            action = p.get("action")
            found = p.get("data")
            data: dict[str, Any] = found if isinstance(found, dict) else {}
            if action == "shuffle":
                shoe.shuffle()
                whole_shoe = True
            elif action in ("card", "key_card") and isinstance(data.get("card"), str):
                card = data["card"]
                if proof.first_card_seq is None:
                    proof.first_card_seq, proof.first_card_ts = row.seq, row.ts
                shoe.dealt(card, seen=not burn_next)
                if burn_next:
                    burn_next = False
                elif target is None:
                    dealer.append(card)
                elif target not in split:
                    hands.setdefault(target, []).append(card)
            elif action == "bet" and isinstance(data.get("amount_cents"), int):
                box = int(data.get("box", 0))
                was = pending.get(box)
                cents = data["amount_cents"] + (was.bet_cents if was else 0)
                pending[box] = BoxRound(
                    table_id, 0, box, str(data.get("player", "")), cents, before
                )
                if was is not None:
                    pending[box].session = was.session
            elif isinstance(data.get("box"), int) and data["box"] in live:
                box = data["box"]
                up = dealer[0] if dealer and face_up else None
                cards = tuple(hands.get(box, ()))
                if box not in split or action == "insurance":
                    count = live[box].count
                    live[box].plays.append(
                        Play(
                            row.round_id or 0,
                            str(action),
                            cards,
                            up,
                            count.true,
                            index_for(cards, up, str(action)),
                        )
                    )
                if action == "split":
                    split.add(box)
        elif kind == "people" and p.get("accepted"):
            _people(out, p, pending, shoe, table_id)
        elif kind == "round_start":
            before = shoe.now()
            live = {}
            out_before = tuple(shoe.out) if whole_shoe else None
            for box, entry in pending.items():
                entry.round_id = row.round_id or 0
                entry.count = before
                entry.ts = row.ts
                entry.out = out_before
                entry.rules = out.rules
                live[box] = entry
                out.rounds.append(entry)
            pending = {}
            dealer, hands, split = [], {}, set()
        elif kind == "round_end":
            live = {}
    return out


def _people(
    out: TableRead, p: Mapping[str, Any], pending: dict[int, BoxRound], shoe: ShoeCount, tid: str
) -> None:
    event = p.get("event")
    box = p.get("box")
    session = p.get("session")
    if not isinstance(box, int) or not isinstance(session, str) or not session:
        return
    if event == "bet" and box in pending:
        pending[box].session = session
    elif event == "sit_down":
        out.seatings[session] = Seating(
            session,
            tid,
            box,
            str(p.get("player", "")),
            str(p.get("card", "")),
            shoe.now(),
            shoe.counted > 0,
        )
    elif event == "walk_away" and session in out.seatings:
        out.seatings[session].left = shoe.now()


def _face_up(found: TableRules) -> bool:
    if found.rules is not None:
        return bool(found.rules.dealer.first_card_face_up)
    try:
        return bool(load_variant(found.variant).dealer.first_card_face_up)
    except (ConfigError, OSError, ValueError):
        return True


# --- the statistics ----------------------------------------------------------------------------


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = mean
        i = j + 1
    return out


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation; 0 where either side does not vary (a flat bettor)."""
    n = len(x)
    if n < 2 or n != len(y):
        return 0.0
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 0 or syy <= 0:
        return 0.0
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's on the ranks, ties at their mean rank)."""
    return pearson(ranks(x), ranks(y))


def correlation_z(bets: Sequence[int], counts: Sequence[Fraction]) -> tuple[float, float]:
    """(rho, z): Spearman's rho of bets against true counts and z = rho x sqrt(n - 1)."""
    rho = spearman([float(b) for b in bets], [float(c) for c in counts])
    return rho, rho * math.sqrt(max(len(bets) - 1, 0))


@dataclass(frozen=True, slots=True)
class Evidence:
    """One rated session's (or one box's) evidence and whether it is flagged."""

    key: str  # the session id, or "table box N"
    player: str
    table_id: str
    box: int
    rounds: int
    rho: float
    z: float
    spread: Fraction
    min_bet_cents: int
    max_bet_cents: int
    mean_bet_low_cents: int  # at a true count below +1
    mean_bet_high_cents: int  # at +2 or more
    rounds_low: int  # the rounds at a true count below +1 (0: no mean bet there)
    rounds_high: int  # the rounds at +2 or more
    index_right: int  # index plays made at counts past their index
    index_wrong: int  # the same plays at counts short of it
    index_names: tuple[str, ...]
    joined_true: float | None
    left_true: float | None
    joined_mid_shoe: bool
    flagged: bool
    points: tuple[tuple[float, int], ...]  # (true count, bet cents) per round, for the plot

    @property
    def why(self) -> str:
        if self.rounds < MIN_ROUNDS:
            return f"{self.rounds} rounds: too few to judge (the flag needs {MIN_ROUNDS})"
        verdict = "at or above" if self.flagged else "below"
        return (
            f"{FLAG_STATISTIC} = {self.z:.2f} over {self.rounds} rounds, {verdict} the "
            f"threshold {FLAG_Z}"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "player": self.player,
            "table_id": self.table_id,
            "box": self.box,
            "rounds": self.rounds,
            "rho": round(self.rho, 3),
            "z": round(self.z, 2),
            "statistic": FLAG_STATISTIC,
            "threshold": FLAG_Z,
            "flagged": self.flagged,
            "why": self.why,
            "spread": f"1-{float(self.spread):g}",
            "min_bet_cents": self.min_bet_cents,
            "max_bet_cents": self.max_bet_cents,
            "mean_bet_low_cents": self.mean_bet_low_cents,
            "mean_bet_high_cents": self.mean_bet_high_cents,
            "rounds_below_plus_1": self.rounds_low,
            "rounds_at_plus_2_or_more": self.rounds_high,
            "index_plays_past_index": self.index_right,
            "index_plays_short_of_index": self.index_wrong,
            "index_plays": list(self.index_names),
            "joined_true": self.joined_true,
            "left_true": self.left_true,
            "joined_mid_shoe": self.joined_mid_shoe,
        }


def evidence(
    key: str, rounds: Sequence[BoxRound], seating: Seating | None = None
) -> Evidence | None:
    """The evidence of some box rounds (one session's, or one box's); None for no rounds."""
    if not rounds:
        return None
    bets = [r.bet_cents for r in rounds]
    counts = [r.count.true for r in rounds]
    rho, z = correlation_z(bets, counts)
    low = [r.bet_cents for r in rounds if r.count.true < 1]
    high = [r.bet_cents for r in rounds if r.count.true >= 2]
    plays = [p for r in rounds for p in r.plays if p.index is not None]
    right = [p for p in plays if p.index is not None and p.index.past(p.true)]
    first = rounds[0]
    return Evidence(
        key=key,
        player=first.player,
        table_id=first.table_id,
        box=first.box,
        rounds=len(rounds),
        rho=rho,
        z=z,
        spread=Fraction(max(bets), max(min(bets), 1)),
        min_bet_cents=min(bets),
        max_bet_cents=max(bets),
        mean_bet_low_cents=sum(low) // len(low) if low else 0,
        mean_bet_high_cents=sum(high) // len(high) if high else 0,
        rounds_low=len(low),
        rounds_high=len(high),
        index_right=len(right),
        index_wrong=len(plays) - len(right),
        index_names=tuple(sorted({p.index.name for p in right if p.index is not None})),
        joined_true=None if seating is None else round(float(seating.joined.true), 2),
        left_true=(
            None if seating is None or seating.left is None else round(float(seating.left.true), 2)
        ),
        joined_mid_shoe=seating is not None and seating.joined_mid_shoe,
        flagged=len(rounds) >= MIN_ROUNDS and z >= FLAG_Z,
        points=tuple((round(float(r.count.true), 2), r.bet_cents) for r in rounds),
    )


def sessions(read: TableRead) -> list[Evidence]:
    """Every rated session of a table, each with its evidence."""
    by_session: dict[str, list[BoxRound]] = {}
    for r in read.rounds:
        if r.session:
            by_session.setdefault(r.session, []).append(r)
    out = []
    for session, rounds in by_session.items():
        found = evidence(session, rounds, read.seatings.get(session))
        if found is not None:
            out.append(found)
    return out


def boxes(read: TableRead) -> list[Evidence]:
    """Every box of a table over all its rounds, rated or not."""
    by_box: dict[int, list[BoxRound]] = {}
    for r in read.rounds:
        by_box.setdefault(r.box, []).append(r)
    out = []
    for box, rounds in sorted(by_box.items()):
        found = evidence(f"{read.table_id} box {box}", rounds)
        if found is not None:
            out.append(found)
    return out
