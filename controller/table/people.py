"""Who is at the table: the dealer signed in, and the rated players seated at the boxes.

A dealer signs in with their staff number and PIN (the staff file's dealers,
:mod:`controller.table.staff`), on the display or the panel; whoever signs in next takes over
(a dealer change). Every round then carries who dealt it (the ``round_start`` row's
``dealer``). A rated player sits at a box with their player card number (keyed or scanned on the
display) and the name their bets at that box are placed under; they walk away when they leave.
A **session** is one sit-down to its walk-away, with an id of its own; every bet of a seated
player carries its session (a ``people`` row with ``event`` ``bet``). A box may stay unrated:
its bets carry no session; another player's bet at a rated box (a back bet) carries none either.

Each change is a *call* the journal records before the table applies it (:class:`DealerSignIn`,
:class:`DealerSignOut`, :class:`SitDown`, :class:`WalkAway`, row kind ``call``), so a restart
that replays the journal seats the same players in the same sessions and signs in the same
dealer. What became of each is a :class:`PeopleEvent` (row kind ``people``). None of this is
ever an input of the round: a settlement is the same with or without anyone seated.

A dealer's PIN is checked before the call is made and never journalled: the call holds the
outcome (right or wrong), as a supervisor's PIN attempt does, and the limits in force
(``max_wrong_pins``, ``lockout_seconds``: ``[access]`` of the table file, as for the supervisor's
PIN): that many wrong dealer sign-ins in a row lock the dealer's sign-in at the table for
``lockout_seconds``, during which every attempt is refused, a right PIN too, and not checked.
The lock is rebuilt by the replay like the rest (a call journalled before the limits were,
``max_wrong_pins`` 0, never locks).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from controller.game.refusals import Why, WhyNot
from controller.game.told import Tell, Told
from controller.game.words import call_words, dealer_named, refusal_words

CARD_NUMBER = re.compile(r"[0-9]{4,16}")  # a player card's number (digits, as a reader gives)


@dataclass(frozen=True, slots=True)
class DealerSignIn:
    """A dealer's sign-in attempt's outcome (never the PIN): ``staff_id`` is theirs ("unknown"
    for a number no dealer has), ``right`` whether the PIN was theirs."""

    staff_id: str
    name: str
    right: bool
    at: float  # wall-clock seconds
    source: str = "display"
    max_wrong_pins: int = 0  # the limits in force (0: no lockout, as before they were kept)
    lockout_seconds: int = 0


@dataclass(frozen=True, slots=True)
class DealerSignOut:
    """The dealer signs out (the table has no dealer until the next signs in)."""

    at: float


@dataclass(frozen=True, slots=True)
class SitDown:
    """A rated player sits at ``box``: their card number, the name their bets are placed under
    there, and the id of the session this sit-down opens."""

    box: int
    card: str
    player: str
    session: str
    at: float


@dataclass(frozen=True, slots=True)
class WalkAway:
    """The rated player at ``box`` leaves: their session ends."""

    box: int
    at: float


PeopleCall = DealerSignIn | DealerSignOut | SitDown | WalkAway
PEOPLE_CALLS: tuple[type, ...] = (DealerSignIn, DealerSignOut, SitDown, WalkAway)


# --- what the display asks (made into calls by the journaled table) --------------------------


@dataclass(frozen=True, slots=True)
class DealerRequest:
    """A dealer's staff number and PIN keyed on the display (the PIN is never kept)."""

    staff_id: str
    pin: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class DealerLeaves:
    """The dealer signs out on the display."""


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """Sit a rated player at a box: their card number and the name of their bets."""

    box: int
    card: str
    player: str


@dataclass(frozen=True, slots=True)
class LeaveRequest:
    """The rated player at a box walks away."""

    box: int


PeopleRequest = DealerRequest | DealerLeaves | SeatRequest | LeaveRequest
PEOPLE_REQUESTS = (DealerRequest, DealerLeaves, SeatRequest, LeaveRequest)


@dataclass(frozen=True, slots=True)
class PeopleEvent:
    """What became of a people call, or a seated player's bet (journal row kind ``people``).

    ``event``: ``dealer_in``, ``dealer_out``, ``sit_down``, ``walk_away``, ``bet`` or
    ``refused``; ``text`` what the dealer is told."""

    event: str
    accepted: bool
    text: str
    box: int | None = None
    staff_id: str = ""
    name: str = ""
    card: str = ""
    session: str = ""
    player: str = ""
    amount_cents: int = 0
    at: float | None = None


def refused_event(
    why: WhyNot,
    box: int | None = None,
    *,
    staff_id: str = "",
    card: str = "",
    at: float | None = None,
) -> PeopleEvent:
    """A people call refused for ``why``: the event says it in the words module's words (the
    row keeps them as before; the code is not a field of the ``people`` row)."""
    return PeopleEvent(
        "refused", False, refusal_words(why), box, staff_id=staff_id, card=card, at=at
    )


@dataclass(frozen=True, slots=True)
class Seat:
    card: str
    player: str
    session: str
    since: float


@dataclass(frozen=True)
class People:
    """The dealer and the seats, as the journal's calls left them (replaced, never changed in
    place: a table's memento keeps the old one)."""

    dealer_id: str = ""
    dealer_name: str = ""
    dealer_since: float | None = None
    seats: Mapping[int, Seat] = field(default_factory=dict)
    dealer_wrong: int = 0  # wrong dealer sign-ins in a row
    dealer_locked_until: float | None = None  # wall-clock seconds

    def dealer_locked(self, at: float) -> bool:
        """Dealer sign-in is locked at ``at`` (too many wrong PINs in a row)."""
        return self.dealer_locked_until is not None and at < self.dealer_locked_until

    def dealer(self) -> str | None:
        """The dealer as a round names them: "Bo Chen (2001)" (None: nobody signed in)."""
        return dealer_named(self.dealer_name, self.dealer_id) if self.dealer_id else None

    def apply(self, call: PeopleCall, boxes: int) -> tuple[People, list[PeopleEvent]]:
        """The people after ``call`` and what became of it (``boxes``: the table's boxes)."""
        if isinstance(call, DealerSignIn):
            return self._sign_in(call)
        if isinstance(call, DealerSignOut):
            if not self.dealer_id:
                return self, [refused_event(WhyNot(Why.NO_DEALER_SIGNED_IN))]
            out = self._out(call.at)
            return replace(self, dealer_id="", dealer_name="", dealer_since=None), [out]
        if isinstance(call, SitDown):
            return self._sit(call, boxes)
        seat = self.seats.get(call.box)
        if seat is None:
            why = WhyNot(Why.NOBODY_RATED_AT_BOX, box=call.box)
            return self, [refused_event(why, call.box, at=call.at)]
        seats = {b: s for b, s in self.seats.items() if b != call.box}
        text = call_words(Told(Tell.WALK_AWAY, box=call.box, card=seat.card, player=seat.player))
        event = PeopleEvent(
            "walk_away", True, text, call.box, card=seat.card, session=seat.session,
            player=seat.player, at=call.at,
        )  # fmt: skip
        return replace(self, seats=seats), [event]

    def _out(self, at: float, to: str = "") -> PeopleEvent:
        """The dealer signs out (``to``: handing over to that dealer)."""
        code = Tell.DEALER_HANDED_OVER if to else Tell.DEALER_OUT
        told = Told(code, name=self.dealer_name, staff_id=self.dealer_id, player=to)
        return PeopleEvent(
            "dealer_out",
            True,
            call_words(told),
            staff_id=self.dealer_id,
            name=self.dealer_name,
            at=at,
        )

    def _sign_in(self, call: DealerSignIn) -> tuple[People, list[PeopleEvent]]:
        def refused(people: People, why: WhyNot) -> tuple[People, list[PeopleEvent]]:
            return people, [refused_event(why, staff_id=call.staff_id, at=call.at)]

        until = self.dealer_locked_until
        if until is not None and call.at < until:
            left = until - call.at
            return refused(self, WhyNot(Why.DEALER_SIGN_IN_LOCKED, until=until, seconds=left))
        # (a lockout over: its count starts again)
        was = self if until is None else replace(self, dealer_wrong=0, dealer_locked_until=None)
        if not call.right:
            if not call.max_wrong_pins:
                return refused(was, WhyNot(Why.WRONG_DEALER_PIN))
            wrong = was.dealer_wrong + 1
            seconds = call.lockout_seconds
            if wrong < call.max_wrong_pins:
                left_pins = call.max_wrong_pins - wrong
                why = WhyNot(Why.WRONG_DEALER_PIN_LOCKS, number=left_pins, seconds=seconds)
                return refused(replace(was, dealer_wrong=wrong), why)
            locked = call.at + seconds
            why = WhyNot(Why.DEALER_PIN_LOCKED_NOW, number=wrong, until=locked, seconds=seconds)
            return refused(replace(was, dealer_wrong=0, dealer_locked_until=locked), why)
        return replace(was, dealer_wrong=0)._signed_in(call)

    def _signed_in(self, call: DealerSignIn) -> tuple[People, list[PeopleEvent]]:
        if call.staff_id == self.dealer_id:
            why = WhyNot(Why.DEALER_SIGNED_IN_ALREADY, player=call.name, detail=call.staff_id)
            return self, [refused_event(why, staff_id=call.staff_id, at=call.at)]
        events = [self._out(call.at, call.name)] if self.dealer_id else []
        events.append(
            PeopleEvent(
                "dealer_in",
                True,
                call_words(Told(Tell.DEALER_IN, name=call.name, staff_id=call.staff_id)),
                staff_id=call.staff_id,
                name=call.name,
                at=call.at,
            )
        )
        return replace(
            self, dealer_id=call.staff_id, dealer_name=call.name, dealer_since=call.at
        ), events

    def _sit(self, call: SitDown, boxes: int) -> tuple[People, list[PeopleEvent]]:
        def refused(why: WhyNot) -> tuple[People, list[PeopleEvent]]:
            return self, [refused_event(why, call.box, card=call.card, at=call.at)]

        if not 1 <= call.box <= boxes:
            return refused(WhyNot(Why.NO_SUCH_BOX, box=call.box, number=boxes))
        if not CARD_NUMBER.fullmatch(call.card):
            return refused(WhyNot(Why.BAD_PLAYER_CARD))
        taken = self.seats.get(call.box)
        if taken is not None:
            return refused(
                WhyNot(Why.BOX_SEATED, box=call.box, detail=taken.card, player=taken.player)
            )
        for box, seat in self.seats.items():
            if seat.card == call.card:
                return refused(WhyNot(Why.CARD_SEATED, box=box, detail=call.card))
            if seat.player.casefold() == call.player.casefold():
                return refused(WhyNot(Why.NAME_SEATED, box=box, player=seat.player))
        seat = Seat(call.card, call.player, call.session, call.at)
        told = Told(Tell.SIT_DOWN, box=call.box, card=call.card, player=call.player)
        text = call_words(told)
        event = PeopleEvent(
            "sit_down", True, text, call.box, card=call.card, session=call.session,
            player=call.player, at=call.at,
        )  # fmt: skip
        return replace(self, seats={**self.seats, call.box: seat}), [event]

    def as_json(self) -> dict[str, object]:
        """The dealer and the seats as the display and the pit's view show them."""
        return {
            "dealer": self.dealer(),
            "seats": [
                {"box": box, "card": s.card, "player": s.player, "session": s.session}
                for box, s in sorted(self.seats.items())
            ],
        }

    def bet(self, box: int, player: str, amount_cents: int) -> PeopleEvent | None:
        """The row that gives an accepted bet its session (None: no rated player of that name
        sits at that box)."""
        seat = self.seats.get(box)
        if seat is None or seat.player.casefold() != player.casefold():
            return None
        return PeopleEvent(
            "bet",
            True,
            call_words(Told(Tell.BET_SESSION, box=box, player=player, session=seat.session)),
            box,
            card=seat.card,
            session=seat.session,
            player=player,
            amount_cents=amount_cents,
        )
