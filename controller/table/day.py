"""The gaming day: the table opened, its chips moved, and closed (issue 25, point 4).

A gaming day starts with the *opening*: a supervisor confirms the layout against the variant
(the rules the felt must show), each device is checked (the hole-card reader and the shoe as they
identified themselves, the shoe's decks against the variant's; the panel's keys pressed one by
one), and the opening chip inventory is counted by denomination. Once all five are done the day
is open. While it is open chips are brought to the table (a *fill*) and taken from it (a
*credit*), each entered with two sign-ins (the supervisor signed in and a second person, never
the same); the count room's *drop* may be keyed. The *closing* counts the chips again and ends
the day, with the table's win::

    win = closing - opening + credits - fills + drop

(None while the drop is left open), beside the house's win of the rounds' ledger for the day:
the floor report shows both and their difference.

Whether a table must be opened before it deals is the table file's ``[gaming_day] required``
(false by default: a table deals at once, and may still be opened and closed). A start that
changes it journals :class:`RequireOpening`; until a required day is open the table takes no bet
and a card drawn holds the table for a supervisor (the card waits, to be burnt).

Each step is a :class:`DayCall` (row kind ``call``) the journal records before the table applies
it, naming who did it; what became of it is a :class:`DayEvent` (row kind ``day``): a replay of
the journal opens, fills and closes the same day. Nothing here does I/O; its words are
:func:`controller.game.words.day_words`, its refusals :class:`~controller.game.refusals.WhyNot`
codes said by ``refusal_words``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from controller.game.refusals import Why, WhyNot
from controller.game.words import day_words, refusal_words
from drivers.tbl21.events import BUTTON_WORDS, Button

Chips = tuple[tuple[int, int], ...]  # (denomination in cents, how many), by denomination


class DayAct(StrEnum):
    """What a day's call does."""

    LAYOUT = "layout"  # the supervisor confirms the felt shows the variant's rules
    READER = "reader"  # the hole-card reader's daily check
    PANEL = "panel"  # the panel's key test begins (done once every key was pressed)
    SHOE = "shoe"  # the shoe's identity and decks
    OPENING = "opening"  # the opening chip inventory
    FILL = "fill"  # chips brought to the table
    CREDIT = "credit"  # chips taken from the table
    DROP = "drop"  # the count room's drop for the day
    CLOSING = "closing"  # the closing chip inventory: the day ends
    DEMO = "demo"  # a demo table opens its day itself at start (never asked on the display)


# The opening's steps, in the order the display lists them.
OPENING_STEPS = (DayAct.LAYOUT, DayAct.READER, DayAct.PANEL, DayAct.SHOE, DayAct.OPENING)
PANEL_KEYS = frozenset(Button)  # every key of the panel is pressed once in its test
MAX_CHIPS = 100_000  # chips of one denomination in one count (a rack holds a few hundred)
MAX_CENTS = 10**12  # the most a drop may be (ten billion dollars: a typing slip beyond)


@dataclass(frozen=True, slots=True)
class RequireOpening:
    """From now on the table deals only in an open gaming day (or again at once)."""

    required: bool


@dataclass(frozen=True, slots=True)
class DayCall:
    """One step of the gaming day, as the journal records it: who did it (``by``; a fill's or a
    credit's second person ``witness``), what was counted (``chips``), the drop (``cents``) and
    what the devices said (``detail``: the reader's or the shoe's identity)."""

    act: DayAct
    by: str
    at: float
    chips: Chips = ()
    cents: int = 0
    witness: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class DayRequest:
    """A step of the gaming day asked on the display: its chips (denomination in cents ->
    how many), the drop, and a fill's or credit's second person (their PIN is never kept)."""

    act: DayAct
    chips: Chips = ()
    cents: int = 0
    witness: str = ""  # the second person's staff number
    witness_pin: str = field(default="", repr=False)


@dataclass(frozen=True, slots=True)
class DayEvent:
    """What became of a day's call or a panel key in its test (journal row kind ``day``).

    ``event``: a :class:`DayAct` value, ``panel_test`` (the panel's key test began), ``key`` (a
    key pressed in it), ``open`` (the last
    opening step was done), ``closed`` or ``refused``; ``cents`` the chips' value (a count, a
    fill, a credit, the drop); ``win_cents`` the day's win at its closing (None: the drop is
    open); ``house_cents`` the house's win of the rounds' ledger in the day."""

    event: str
    accepted: bool
    text: str
    day: int
    by: str = ""
    witness: str = ""
    chips: Chips = ()
    cents: int = 0
    win_cents: int | None = None
    house_cents: int | None = None
    key: str = ""
    at: float | None = None


def refused_day(why: WhyNot, day: int, by: str, at: float | None) -> DayEvent:
    """A step of the gaming day refused for ``why``: the event says it in the words module's
    words (the ``day`` row keeps them; the code is not a field of the row)."""
    return DayEvent("refused", False, refusal_words(why), day, by, at=at)


def chips_cents(chips: Chips) -> int:
    """What chips are worth, in cents."""
    return sum(denomination * count for denomination, count in chips)


def chips_problem(chips: Chips) -> WhyNot | None:
    """Why ``chips`` are no count (None: they are): whole positive denominations, each once,
    counts from 0 to :data:`MAX_CHIPS`."""
    seen: set[int] = set()
    for denomination, count in chips:
        if denomination <= 0:
            return WhyNot(Why.DAY_BAD_DENOMINATION, cents=denomination)
        if denomination in seen:
            return WhyNot(Why.DAY_CHIPS_TWICE, cents=denomination)
        if not 0 <= count <= MAX_CHIPS:
            return WhyNot(Why.DAY_BAD_COUNT, number=count, high=MAX_CHIPS)
        seen.add(denomination)
    return None


def day_win(
    opening_cents: int, closing_cents: int, fills_cents: int, credits_cents: int, drop: int | None
) -> int | None:
    """The table's win for the day: closing - opening + credits - fills + drop (None: the drop
    is left open)."""
    if drop is None:
        return None
    return closing_cents - opening_cents + credits_cents - fills_cents + drop


@dataclass(frozen=True)
class GamingDay:
    """The table's gaming day as the journal's calls left it (replaced, never changed in place:
    a table's memento keeps the old one). ``number``: the days opened so far."""

    required: bool = False
    number: int = 0
    is_open: bool = False
    done: Mapping[str, str] = field(default_factory=dict)  # opening step -> who did it
    panel_by: str = ""  # who began the panel's key test ("": none runs)
    keys_seen: frozenset[str] = frozenset()
    opening_cents: int = 0
    fills_cents: int = 0
    credits_cents: int = 0
    drop_cents: int | None = None
    house_cents: int = 0  # the house's win of the rounds settled in the open day
    last: DayEvent | None = None  # the last closing (what the display shows of the day before)

    def deals(self) -> bool:
        """Whether the table may deal: its day is open, or opening is not required."""
        return self.is_open or not self.required

    def to_do(self) -> list[DayAct]:
        """The opening's steps still to do (none once the day is open)."""
        return [] if self.is_open else [s for s in OPENING_STEPS if s.value not in self.done]

    def settled(self, house_cents: int) -> GamingDay:
        """The house won ``house_cents`` more in a round settled now (counted in an open day)."""
        if not self.is_open or house_cents == 0:
            return self
        return replace(self, house_cents=self.house_cents + house_cents)

    def apply(self, call: DayCall) -> tuple[GamingDay, list[DayEvent]]:
        """The day after ``call`` and what became of it."""
        day = self.number + (0 if self.is_open else 1)
        act = call.act
        if act is DayAct.DEMO:
            if self.is_open:
                return self._refused(call, WhyNot(Why.DAY_OPEN_ALREADY, number=self.number))
            done = {step.value: call.by for step in OPENING_STEPS}
            return replace(self, done=done)._opened([], call.at)
        if act in OPENING_STEPS and self.is_open:
            return self._refused(call, WhyNot(Why.DAY_OPEN_ALREADY, number=self.number))
        if act not in OPENING_STEPS and not self.is_open:
            return self._refused(call, WhyNot(Why.DAY_NOT_OPEN_FOR, action=act.value))
        problem = chips_problem(call.chips)
        if problem is not None:
            return self._refused(call, problem)
        cents = chips_cents(call.chips)
        if act is DayAct.PANEL:
            if self.panel_by:
                return self._refused(call, WhyNot(Why.DAY_PANEL_RUNNING))
            text = day_words("panel_test", keys=len(PANEL_KEYS))
            event = replace(self._event(call, day, cents, text=text), event="panel_test")
            return replace(self, panel_by=call.by, keys_seen=frozenset()), [event]
        if act in OPENING_STEPS:
            if act is DayAct.OPENING and not call.chips:
                return self._refused(call, WhyNot(Why.DAY_NO_CHIPS))
            done = {**self.done, act.value: call.by}
            text = day_words(act.value, by=call.by, detail=call.detail, cents=cents)
            events = [self._event(call, day, cents, text=text)]
            opening = cents if act is DayAct.OPENING else self.opening_cents
            after = replace(self, done=done, opening_cents=opening)
            return after._opened(events, call.at)
        if act in (DayAct.FILL, DayAct.CREDIT):
            if not call.witness or call.witness == call.by:
                return self._refused(call, WhyNot(Why.DAY_TWO_PEOPLE, action=act.value))
            if cents <= 0:
                return self._refused(call, WhyNot(Why.DAY_NO_CHIPS))
            text = day_words(act.value, by=call.by, witness=call.witness, cents=cents)
            event = self._event(call, day, cents, text=text)
            if act is DayAct.FILL:
                return replace(self, fills_cents=self.fills_cents + cents), [event]
            return replace(self, credits_cents=self.credits_cents + cents), [event]
        if act is DayAct.DROP:
            if not 0 <= call.cents <= MAX_CENTS:
                return self._refused(call, WhyNot(Why.DAY_BAD_DROP, cents=MAX_CENTS))
            text = day_words("drop", by=call.by, cents=call.cents)
            event = self._event(call, day, call.cents, text=text)
            return replace(self, drop_cents=call.cents), [event]
        if not call.chips:
            return self._refused(call, WhyNot(Why.DAY_NO_CHIPS))
        win = day_win(
            self.opening_cents, cents, self.fills_cents, self.credits_cents, self.drop_cents
        )
        text = day_words(
            "closing", by=call.by, day=day, cents=cents, win=win, house=self.house_cents
        )
        closed = DayEvent(
            "closed", True, text, day, call.by, chips=call.chips, cents=cents, win_cents=win,
            house_cents=self.house_cents, at=call.at,
        )  # fmt: skip
        return GamingDay(required=self.required, number=self.number, last=closed), [closed]

    def key(self, button: Button) -> tuple[GamingDay, list[DayEvent]]:
        """A key of the panel pressed in its test (the test ends when every key was). Its rows
        carry no time of their own: the device event they come from has it."""
        day = self.number + 1
        seen = self.keys_seen | {button.value}
        left = len(PANEL_KEYS) - len(seen)
        text = day_words("key", key=BUTTON_WORDS[button], left=left)
        events = [DayEvent("key", True, text, day, self.panel_by, key=button.value)]
        if left:
            return replace(self, keys_seen=seen), events
        by = self.panel_by
        events.append(DayEvent("panel", True, day_words("panel", by=by), day, by))
        after = replace(self, keys_seen=frozenset(), panel_by="", done={**self.done, "panel": by})
        return after._opened(events, None)

    def _opened(self, events: list[DayEvent], at: float | None) -> tuple[GamingDay, list[DayEvent]]:
        if self.to_do():
            return self, events
        number = self.number + 1
        text = day_words("open", day=number, cents=self.opening_cents)
        events.append(DayEvent("open", True, text, number, cents=self.opening_cents, at=at))
        opened = GamingDay(
            required=self.required,
            number=number,
            is_open=True,
            done=self.done,
            opening_cents=self.opening_cents,
            last=self.last,
        )
        return opened, events

    def _event(self, call: DayCall, day: int, cents: int, *, text: str) -> DayEvent:
        return DayEvent(
            call.act.value, True, text, day, call.by, call.witness, call.chips, cents,
            at=call.at,
        )  # fmt: skip

    def _refused(self, call: DayCall, why: WhyNot) -> tuple[GamingDay, list[DayEvent]]:
        day = self.number + (0 if self.is_open else 1)
        return self, [refused_day(why, day, call.by, call.at)]

    def as_json(self) -> dict[str, object]:
        """The day as the display shows it."""
        return {
            "required": self.required,
            "number": self.number,
            "open": self.is_open,
            "deals": self.deals(),
            "steps": [{"step": s.value, "by": self.done.get(s.value, "")} for s in OPENING_STEPS],
            "panel_test": bool(self.panel_by),
            "opening_cents": self.opening_cents,
            "fills_cents": self.fills_cents,
            "credits_cents": self.credits_cents,
            "drop_cents": self.drop_cents,
            "house_cents": self.house_cents,
            "last": None if self.last is None else self.last.text,
        }
