"""Rated sessions as the floor reads them from a table's rows: who sat where and when, their
bets, rounds and time, and every decision they made with the cards it was made on.

A session is one ``people`` ``sit_down`` row to its ``walk_away`` (open until then). Its
**rounds** are the rounds, played to their ``round_end`` and not void, in which a ``people``
``bet`` row carries its session id; its **wagers** the sum of those bets (initial bets: a
double or a split's second stake is the player's decision, rated by its cost); its **average
bet** wagers / rounds; its **time** from the sit-down to the walk-away (or the last row read);
its **dealers** the names on its rounds' ``round_start`` rows.

A **decision** is an accepted ``input`` row of ``hit``, ``stand``, ``double``, ``split`` or
``surrender`` on a rated box, or a rated box's insurance when an ``OFFER_INSURANCE`` window
closes (an ``insurance`` input of the box not undone: taken, with its amount; none: declined)
or a doubled hand's ``OFFER_RESCUE`` answered (``rescue``, or OK: ``no_rescue``),
with the cards of the hand in play (the last ``PLAYER_TURN`` prompt of that box names the hand)
and the dealer's first card, both from the ``card`` and ``key_card`` inputs in the order the
``DEAL`` prompts sent them; a split moves the hand's second card to a new hand after it, as the
round does. What each decision cost is worked out above the floor
(:mod:`controller.analysis.theo`), from these records alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

import psycopg

from controller.floor.chain import ROW_COLUMNS, row_from_values
from controller.floor.table_rules import (
    TableRules,
    changed,
    latest_config_sql,
    no_config,
    table_rules,
)
from controller.game.prompts import money
from controller.journal.store import Row, parse_ts

DECISIONS = frozenset({"hit", "stand", "double", "split", "surrender"})
NO_RESCUE = "no_rescue"  # a decision's action: the rescue offered, declined (OK)
_CARD_INPUTS = frozenset({"card", "key_card"})


@dataclass(frozen=True)
class SeenDecision:
    """A decision as the rows show it (cards as their codes: ``9H``)."""

    round: int
    box: int
    hand: int
    up: str | None  # the dealer's first card (None: not dealt yet, or unknown)
    cards: tuple[str, ...]
    split_hands: int  # hands on the box (1: not split)
    action: str
    wager_cents: int
    doubled: bool = False  # the hand was doubled before (where the rules let it draw on)
    insured_cents: int = 0  # an insurance decision: the amount insured (0: declined)


@dataclass
class SessionPlay:
    """One rated session as the rows show it."""

    session: str
    table_id: str
    card: str
    player: str
    box: int
    start: str
    end: str | None = None  # None: still seated
    last_seen: str = ""
    variant: str = ""
    rounds: int = 0
    wagers_cents: int = 0
    dealers: list[str] = field(default_factory=list)
    decisions: list[SeenDecision] = field(default_factory=list)
    # the rules its table dealt by (its latest config row at the sit-down, then at each of its
    # rounds; unknown: why it is not rated)
    rules: TableRules | None = None
    _bets: dict[int, int] = field(default_factory=dict)  # round -> cents (this session's)

    @property
    def average_bet_cents(self) -> int:
        return self.wagers_cents // self.rounds if self.rounds else 0


# the decisions the round lets the dealer undo (until the card they call for comes)
_UNDOABLE = frozenset({"hit", "double", "split"})


@dataclass(frozen=True)
class _Undoable:
    box: int
    hand: int
    action: str
    recorded: int | None  # its place in the round's rated decisions (None: not rated)
    split: bool


@dataclass
class _Hand:
    cards: list[str] = field(default_factory=list)
    doubled: bool = False


@dataclass
class _Round:
    number: int
    rules: TableRules
    variant: str = ""
    dealer: str = ""
    dealer_card: str | None = None
    hands: dict[int, list[_Hand]] = field(default_factory=dict)  # box -> its hands
    turn: dict[int, int] = field(default_factory=dict)  # box -> hand in play (1-based)
    target: tuple[str, int, int] | None = None  # ("box", box, hand) or ("dealer", 0, 0)
    void: bool = False
    decisions: list[tuple[str, SeenDecision]] = field(default_factory=list)  # (session, ...)
    undoable: list[_Undoable] = field(default_factory=list)
    insurance_open: bool = False  # an OFFER_INSURANCE prompt, its window not closed yet
    rescue_offer: tuple[int, int] | None = None  # OFFER_RESCUE's (box, hand), not answered yet
    insured: dict[int, int] = field(default_factory=dict)  # box -> cents insured (this window)


def _box_hands(rnd: _Round, box: int) -> list[_Hand]:
    return rnd.hands.setdefault(box, [_Hand()])


def sessions_of(rows: Iterable[Row]) -> list[SessionPlay]:
    """The rated sessions of one table's rows (seq order), oldest first (at the same time: by
    box)."""
    sessions: dict[str, SessionPlay] = {}
    seated: dict[int, str] = {}  # box -> session
    rounds: dict[int, _Round] = {}
    last_ts = ""
    rules: TableRules | None = None  # the table's, from its latest config row read
    for row in rows:
        p: dict[str, Any] = row.payload
        last_ts = row.ts
        if rules is None:
            rules = no_config(row.table_id)
        if row.kind == "config":
            rules = table_rules(row)
            continue
        rnd = rounds.setdefault(row.round_id, _Round(row.round_id, rules)) if row.round_id else None
        if row.kind == "people" and p.get("accepted"):
            _people(p, row, sessions, seated, rnd, rules)
        elif rnd is None:
            continue
        elif row.kind == "round_start":
            rnd.variant = str(p.get("variant") or "")
            rnd.rules = rules
            rnd.dealer = str(p.get("dealer_name") or p.get("dealer") or "")
        elif row.kind == "prompt":
            _prompt(p, rnd)
        elif row.kind == "input" and p.get("accepted"):
            _input(p, rnd, seated, sessions)
        elif row.kind == "supervisor" and p.get("action") == "void":
            rnd.void = True
        elif row.kind == "round_end" and not rnd.void:
            _ended(rnd, sessions)
    for s in sessions.values():
        s.last_seen = last_ts
    return sorted(sessions.values(), key=lambda s: (s.start, s.box, s.session))


def _people(
    p: dict[str, Any],
    row: Row,
    sessions: dict[str, SessionPlay],
    seated: dict[int, str],
    rnd: _Round | None,
    rules: TableRules,
) -> None:
    event, box, session = p.get("event"), p.get("box"), str(p.get("session") or "")
    if event == "sit_down" and isinstance(box, int) and session:
        sessions[session] = SessionPlay(
            session,
            row.table_id,
            str(p.get("card", "")),
            str(p.get("player", "")),
            box,
            row.ts,
            rules=rules,
        )
        seated[box] = session
    elif event == "walk_away" and isinstance(box, int):
        gone = seated.pop(box, None)
        if gone in sessions:
            sessions[gone].end = row.ts
    elif event == "bet" and session in sessions and rnd is not None:
        amount = p.get("amount_cents")
        if isinstance(amount, int):
            bets = sessions[session]._bets
            bets[rnd.number] = bets.get(rnd.number, 0) + amount


def _prompt(p: dict[str, Any], rnd: _Round) -> None:
    code, box, hand = p.get("code"), p.get("box"), p.get("hand")
    number = hand if isinstance(hand, int) else 1
    if code in {"DEAL", "DEALER_DRAWS"}:
        rnd.target = ("box", box, number) if isinstance(box, int) else ("dealer", 0, 0)
    elif code in ("BURN", "PEEK", "REVEAL"):
        rnd.target = None
    elif code == "PLAYER_TURN" and isinstance(box, int):
        rnd.turn[box] = number
    if code == "OFFER_INSURANCE":
        rnd.insurance_open = True
    elif code == "OFFER_RESCUE" and isinstance(box, int):
        rnd.rescue_offer = (box, number)


def _input(
    p: dict[str, Any], rnd: _Round, seated: dict[int, str], sessions: dict[str, SessionPlay]
) -> None:
    action, data = p.get("action"), p.get("data")
    data = data if isinstance(data, dict) else {}
    if action == "undo":
        _undo(rnd)
        return
    if action == "insurance" and rnd.insurance_open:
        box = data.get("box")
        if isinstance(box, int):
            _insured(rnd, box, data.get("amount_cents"), seated, sessions)
        return
    if action == "ok" and rnd.insurance_open:
        _insurance_closed(rnd, seated, sessions)
    if action in ("rescue", "ok") and rnd.rescue_offer is not None:
        _rescue_answered(rnd, action == "rescue", seated, sessions)
    if action not in _UNDOABLE:  # a card, a stand, OK... : nothing before it can be undone
        rnd.undoable.clear()
    if action in _CARD_INPUTS:
        card = data.get("card")
        if not isinstance(card, str) or rnd.target is None:
            return
        where, to_box, to_hand = rnd.target
        if where == "dealer":
            rnd.dealer_card = rnd.dealer_card or card
            return
        dealt = _box_hands(rnd, to_box)
        while len(dealt) < to_hand:
            dealt.append(_Hand())
        dealt[to_hand - 1].cards.append(card)
        return
    box = data.get("box")
    if action not in DECISIONS or not isinstance(box, int):
        return
    hands = _box_hands(rnd, box)
    hand = rnd.turn.get(box, 1)
    if hand > len(hands):
        return
    session = seated.get(box)
    recorded = None
    if session is not None and session in sessions:
        played = hands[hand - 1]
        bet = sessions[session]._bets.get(rnd.number, 0)
        seen = SeenDecision(
            rnd.number,
            box,
            hand,
            rnd.dealer_card,
            tuple(played.cards),
            len(hands),
            str(action),
            bet,
            played.doubled,
        )
        recorded = len(rnd.decisions)
        rnd.decisions.append((session, seen))
    split = action == "split" and len(hands[hand - 1].cards) == 2
    if split:
        second = hands[hand - 1].cards.pop()
        hands.insert(hand, _Hand([second]))
    elif action == "double":
        hands[hand - 1].doubled = True
    if action in _UNDOABLE:
        rnd.undoable.append(_Undoable(box, hand, str(action), recorded, split))


def _insured(
    rnd: _Round,
    box: int,
    amount: object,
    seated: dict[int, str],
    sessions: dict[str, SessionPlay],
) -> None:
    """A box took insurance (the amount given, else half the box's wager, as the round takes
    it); it is a decision when its window closes, and the dealer may undo it until then."""
    session = seated.get(box)
    bet = sessions[session]._bets.get(rnd.number, 0) if session in sessions else 0
    rnd.insured[box] = amount if isinstance(amount, int) else bet // 2
    rnd.undoable.append(_Undoable(box, 1, "insurance", None, False))


def _insurance_closed(
    rnd: _Round, seated: dict[int, str], sessions: dict[str, SessionPlay]
) -> None:
    """The insurance window closed: every rated box with a bet and two cards decided, to
    insure (the amount) or not (0); whether the rules offered its hand insurance is the
    rating's to say."""
    rnd.insurance_open = False
    for box, session in sorted(seated.items()):
        bet = sessions[session]._bets.get(rnd.number) if session in sessions else None
        hands = rnd.hands.get(box)
        if bet is None or not hands or len(hands[0].cards) != 2:
            continue
        seen = SeenDecision(
            rnd.number,
            box,
            1,
            rnd.dealer_card,
            tuple(hands[0].cards),
            1,
            "insurance",
            bet,
            insured_cents=rnd.insured.get(box, 0),
        )
        rnd.decisions.append((session, seen))
    rnd.insured.clear()


def _rescue_answered(
    rnd: _Round, taken: bool, seated: dict[int, str], sessions: dict[str, SessionPlay]
) -> None:
    """The rescue offered a doubled hand was taken (RESCUE) or declined (OK): a decision of
    the box's rated player, on the hand's cards with its card after the double."""
    assert rnd.rescue_offer is not None
    box, hand = rnd.rescue_offer
    rnd.rescue_offer = None
    session = seated.get(box)
    hands = rnd.hands.get(box, [])
    if session not in sessions or hand > len(hands):
        return
    assert session is not None
    played = hands[hand - 1]
    seen = SeenDecision(
        rnd.number,
        box,
        hand,
        rnd.dealer_card,
        tuple(played.cards),
        len(hands),
        "rescue" if taken else NO_RESCUE,
        sessions[session]._bets.get(rnd.number, 0),
        played.doubled,
    )
    rnd.decisions.append((session, seen))


def _undo(rnd: _Round) -> None:
    """The dealer undid the last hit, double, split or insurance (before its card or while
    its window is open): it was never made."""
    if not rnd.undoable:
        return
    last = rnd.undoable.pop()
    if last.action == "insurance":
        rnd.insured.pop(last.box, None)
        return
    if last.recorded is not None and last.recorded < len(rnd.decisions):
        del rnd.decisions[last.recorded]
    hands = _box_hands(rnd, last.box)
    if last.split and last.hand < len(hands):
        moved = hands.pop(last.hand)
        hands[last.hand - 1].cards += moved.cards
    elif last.action == "double" and last.hand <= len(hands):
        hands[last.hand - 1].doubled = False


def _ended(rnd: _Round, sessions: dict[str, SessionPlay]) -> None:
    for s in sessions.values():
        bet = s._bets.get(rnd.number)
        if bet is None:
            continue
        s.rules = _rules_of(s, rnd.rules)
        s.rounds += 1
        s.wagers_cents += bet
        s.variant = s.variant or rnd.variant
        if rnd.dealer and rnd.dealer not in s.dealers:
            s.dealers.append(rnd.dealer)
    for session, seen in rnd.decisions:
        if session in sessions:
            sessions[session].decisions.append(seen)


def _rules_of(s: SessionPlay, dealt: TableRules) -> TableRules:
    """A session's rules with a round dealt by ``dealt`` added: its first round's; unknown
    where they are (the first reason kept), or where a round was dealt by other rules."""
    if s.rounds == 0 or s.rules is None:
        return dealt
    if s.rules.rules is None:
        return s.rules
    if dealt.rules is None:
        return dealt
    return s.rules if s.rules.same_as(dealt) else changed(dealt)


# --- from the floor's database ---------------------------------------------------------------

_KINDS = ("config", "people", "round_start", "prompt", "input", "supervisor", "round_end")
_RATED_ROWS = f"""
WITH sat AS (
    SELECT DISTINCT table_id FROM croupier.journal_rows
    WHERE kind = 'people' AND at >= %(start)s AND at < %(end)s
      AND payload::jsonb ->> 'event' = 'sit_down')
(SELECT {ROW_COLUMNS} FROM croupier.journal_rows
 WHERE kind = ANY(%(kinds)s) AND at >= %(start)s AND at < %(end)s
   AND table_id IN (SELECT table_id FROM sat))
UNION ALL
{latest_config_sql("%(start)s", "sat")}
ORDER BY table_id, seq
"""  # noqa: S608 - fixed names


def rated_query(start: datetime, end: datetime) -> tuple[str, dict[str, Any]]:
    """The rows rated sessions are read from: every table with a sit-down in the period, its
    rows of the kinds a rating reads, in the period, and its latest ``config`` row before it
    (the rules it was dealing by as the period began: migration 0011's index finds it)."""
    return _RATED_ROWS, {"kinds": list(_KINDS), "start": start, "end": end}


def sessions_in(rows: Iterable[Row], start: datetime, end: datetime) -> list[SessionPlay]:
    """The sessions of :func:`rated_query`'s rows that sat down in the period (a session
    belongs to the period its sit-down falls in; its rounds that ended in the period count)."""
    by_table: dict[str, list[Row]] = {}
    for row in rows:
        by_table.setdefault(row.table_id, []).append(row)
    out: list[SessionPlay] = []
    for table_rows in by_table.values():
        out += [s for s in sessions_of(table_rows) if start <= parse_ts(s.start) < end]
    return sorted(out, key=lambda s: (s.start, s.table_id, s.session))


def rated_sessions(
    db: psycopg.Connection[Any], start: datetime, end: datetime
) -> list[SessionPlay]:
    """:func:`sessions_in` the period, read from the floor's database."""
    sql, args = rated_query(start, end)
    rows = [row_from_values(v) for v in db.execute(sql, args).fetchall()]
    return sessions_in(rows, start, end)


# --- a session's rating, as the floor shows it -------------------------------------------------


def cents_shown(cents: Fraction) -> str:
    """Exact cents as money, rounded to the cent only here (half away from zero)."""
    whole = (abs(cents) + Fraction(1, 2)).__floor__()
    return money(whole if cents >= 0 else -whole)


@dataclass(frozen=True)
class Rating:
    """A rated session with its theo (None where its variant could not be analysed)."""

    play: SessionPlay
    book_cents: Fraction | None
    skill_cents: Fraction | None
    cost_cents: Fraction | None
    decisions: int = 0
    unvalued: int = 0
    worst: tuple[str, ...] = ()  # the costliest decisions in words
    rules: TableRules | None = None  # what it was rated by (None: the session's, as read)

    @property
    def dealt_by(self) -> TableRules:
        """The rules of the rating, or why there is none."""
        found = self.rules if self.rules is not None else self.play.rules
        return found if found is not None else no_config(self.play.table_id)

    @property
    def unrated(self) -> str | None:
        """Why the session has no theo (None: it is rated)."""
        found = self.dealt_by
        return None if found.known else found.words()

    @property
    def minutes(self) -> int:
        end = self.play.end or self.play.last_seen or self.play.start
        return int((parse_ts(end) - parse_ts(self.play.start)).total_seconds() // 60)

    def as_json(self) -> dict[str, Any]:
        p = self.play

        def exact(v: Fraction | None) -> str | None:
            return None if v is None else str(v)

        return {
            "session": p.session,
            "table_id": p.table_id,
            "card": p.card,
            "player": p.player,
            "box": p.box,
            "dealers": p.dealers,
            "start": p.start,
            "end": p.end,
            "minutes": self.minutes,
            "variant": p.variant,
            "rounds": p.rounds,
            "wagers_cents": p.wagers_cents,
            "average_bet_cents": p.average_bet_cents,
            "book_theo_cents": exact(self.book_cents),
            "skill_theo_cents": exact(self.skill_cents),
            "decision_cost_cents": exact(self.cost_cents),
            "decisions": self.decisions,
            "unvalued_decisions": self.unvalued,
            "costliest": list(self.worst),
            "rules": self.dealt_by.as_json(),
            "unrated": self.unrated,
        }

    def shown(self) -> dict[str, str]:
        """The rating table's cells."""
        p = self.play

        def theo(v: Fraction | None) -> str:
            return "-" if v is None else cents_shown(v)

        return {
            "card": p.card,
            "player": p.player,
            "table": p.table_id,
            "box": str(p.box),
            "dealer": ", ".join(p.dealers) or "-",
            "start": p.start,
            "end": p.end or "seated",
            "minutes": str(self.minutes),
            "rounds": str(p.rounds),
            "average_bet": money(p.average_bet_cents),
            "rules": self.dealt_by.words() if self.unrated is None else f"unrated: {self.unrated}",
            "book_theo": theo(self.book_cents),
            "skill_theo": theo(self.skill_cents),
            "decision_cost": theo(self.cost_cents),
        }


RATING_COLUMNS = (
    ("card", "player card"),
    ("player", "name"),
    ("table", "table"),
    ("box", "box"),
    ("dealer", "dealer"),
    ("start", "start"),
    ("end", "end"),
    ("minutes", "minutes"),
    ("rounds", "rounds"),
    ("average_bet", "average bet"),
    ("book_theo", "book theo"),
    ("skill_theo", "skill theo"),
    ("decision_cost", "decision cost"),
    ("rules", "rules"),  # last: the theo columns are what a pit reads first at 1,024 pixels
)


def ratings_text(ratings: Iterable[Rating], clock: Callable[[str], str] = str) -> list[str]:
    """The rating table as the text report's lines."""
    out = []
    for r in ratings:
        cells = r.shown()
        cells["start"] = clock(r.play.start)
        cells["end"] = clock(r.play.end) if r.play.end else "seated"
        rounds = f"{cells['rounds']} round" + ("" if r.play.rounds == 1 else "s")
        out.append(
            f"rated {cells['card']} ({cells['player']}) table {cells['table']} box "
            f"{cells['box']}, dealer {cells['dealer']}, {cells['start']} to {cells['end']} "
            f"({cells['minutes']} min): {rounds}, average bet {cells['average_bet']}, book theo "
            f"{cells['book_theo']}, skill theo {cells['skill_theo']} (decision cost "
            f"{cells['decision_cost']}); {cells['rules']}"
        )
    return out
