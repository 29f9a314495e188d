"""The inputs of a round: one frozen dataclass per action, with the data that action takes.

Whatever reaches the round controller - a card from the shoe, the reader's answer, a decision
keyed on the panel, a bet from the display, a supervisor's decision - is one of these, and the
same object is what the journal records as the cause and the replay applies again.
:func:`parse_input` builds one from loose data (a script's, a test's: ``perform(Action.BET,
box=1, ...)``), checking each field's type; what the data means for the round (is box 9 in
play, is the wager too large) the controller decides and explains.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from controller.game.holds import HoldCause, HoldKind
from controller.game.refusals import Why, WhyNot
from controller.round.errors import InputError
from controller.round.spec import Action
from drivers.tbl21.cards import Card
from drivers.tbl21.events import PeekOutcome


@dataclass(frozen=True, slots=True)
class Shuffle:
    """A new shoe was loaded (after the dealer pressed SHF)."""

    action: ClassVar[Action] = Action.SHUFFLE


@dataclass(frozen=True, slots=True)
class Bet:
    """A wager on a box (from the display, the demo's players or a script)."""

    action: ClassVar[Action] = Action.BET
    box: int
    player: str
    amount_cents: int


@dataclass(frozen=True, slots=True)
class Deal:
    """No more bets: the deal starts."""

    action: ClassVar[Action] = Action.DEAL


@dataclass(frozen=True, slots=True)
class DrawnCard:
    """A card came out of the shoe. ``kept_out``: why the table keeps it out of the round (one
    more of it than the shoe's decks hold): it waits for a supervisor, who burns it or voids
    the round."""

    action: ClassVar[Action] = Action.CARD
    card: Card
    kept_out: str | None = None


@dataclass(frozen=True, slots=True)
class ReaderAnswer:
    """The hole-card reader answered: natural (Y), none (N), unreadable (U), empty (E)."""

    action: ClassVar[Action] = Action.PEEK
    outcome: PeekOutcome


@dataclass(frozen=True, slots=True)
class Insure:
    """A player on a box takes insurance (half the wager unless an amount is given)."""

    action: ClassVar[Action] = Action.INSURANCE
    box: int | None = None
    player: str | None = None
    amount_cents: int | None = None


@dataclass(frozen=True, slots=True)
class Surrender:
    action: ClassVar[Action] = Action.SURRENDER
    box: int | None = None


@dataclass(frozen=True, slots=True)
class Ok:
    """OK: close a window, reveal, acknowledge the settlement."""

    action: ClassVar[Action] = Action.OK


@dataclass(frozen=True, slots=True)
class Hit:
    action: ClassVar[Action] = Action.HIT
    box: int | None = None  # the box in play unless given (then it must be that box)


@dataclass(frozen=True, slots=True)
class Stand:
    action: ClassVar[Action] = Action.STAND
    box: int | None = None


@dataclass(frozen=True, slots=True)
class Double:
    """Double the hand in play: every player on it joins unless ``players`` says who."""

    action: ClassVar[Action] = Action.DOUBLE
    box: int | None = None
    amount_cents: int | None = None  # each joining player's double; None: the wager
    players: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Split:
    action: ClassVar[Action] = Action.SPLIT
    box: int | None = None


@dataclass(frozen=True, slots=True)
class Rescue:
    """A player who joined the double takes it back (NZ), forfeiting the wager."""

    action: ClassVar[Action] = Action.RESCUE
    box: int | None = None
    player: str | None = None  # the box controller unless given


@dataclass(frozen=True, slots=True)
class Undo:
    action: ClassVar[Action] = Action.UNDO


@dataclass(frozen=True, slots=True)
class Hold:
    """The table holds: a device was lost, a lockup fault, a card to draw again."""

    action: ClassVar[Action] = Action.HOLD
    kind: HoldKind = HoldKind.DEVICE_LOST
    detail: str = ""
    device: str | None = None
    cause: HoldCause | None = None  # None: the kind's own (:data:`KIND_CAUSES`)
    fault: str | None = None  # the device's fault name, for a DEVICE_FAULT
    card: Card | None = None  # the card a fault concerns (one pushed back into the shoe)
    about: str | None = None  # what the hold names, in words (the decks, the unit)


@dataclass(frozen=True, slots=True)
class Resume:
    """A hold's reason cleared (a device came back, the pushed-back card came out again)."""

    action: ClassVar[Action] = Action.RESUME
    kind: HoldKind = HoldKind.DEVICE_LOST
    device: str | None = None


@dataclass(frozen=True, slots=True)
class KeyedCard:
    """The dealer keyed in the card the shoe could not read."""

    action: ClassVar[Action] = Action.KEY_CARD
    card: Card


@dataclass(frozen=True, slots=True)
class _Decision:
    """A supervisor's (or a technician's) decision; ``by`` is who took it."""

    by: str | None = None

    def detail(self) -> str:
        """The decision's data as the journal's ``supervisor`` rows have always written it."""
        return "{}" if self.by is None else str({"by": self.by})


@dataclass(frozen=True, slots=True)
class AssignCard(_Decision):
    """The card nobody asked for belongs to the hand in play."""

    action: ClassVar[Action] = Action.ASSIGN_CARD


@dataclass(frozen=True, slots=True)
class BurnCard(_Decision):
    """The card nobody asked for goes to the discards."""

    action: ClassVar[Action] = Action.BURN_CARD


@dataclass(frozen=True, slots=True)
class ConfirmCard(_Decision):
    """The keyed-in card is the card."""

    action: ClassVar[Action] = Action.CONFIRM_CARD


@dataclass(frozen=True, slots=True)
class ClearLockup(_Decision):
    action: ClassVar[Action] = Action.CLEAR_LOCKUP


@dataclass(frozen=True, slots=True)
class Void(_Decision):
    """The round is void: every open wager goes back."""

    action: ClassVar[Action] = Action.VOID


Decision = AssignCard | BurnCard | ConfirmCard | ClearLockup | Void
DECISIONS_TYPES = (AssignCard, BurnCard, ConfirmCard, ClearLockup, Void)
DECISION_INPUTS: dict[Action, type[Decision]] = {cls.action: cls for cls in DECISIONS_TYPES}
Input = (
    Shuffle
    | Bet
    | Deal
    | DrawnCard
    | ReaderAnswer
    | Insure
    | Surrender
    | Ok
    | Hit
    | Stand
    | Double
    | Split
    | Rescue
    | Undo
    | Hold
    | Resume
    | KeyedCard
    | Decision
)
INPUT_TYPES: dict[Action, type[Input]] = {
    cls.action: cls
    for cls in (
        Shuffle,
        Bet,
        Deal,
        DrawnCard,
        ReaderAnswer,
        Insure,
        Surrender,
        Ok,
        Hit,
        Stand,
        Double,
        Split,
        Rescue,
        Undo,
        Hold,
        Resume,
        KeyedCard,
        AssignCard,
        BurnCard,
        ConfirmCard,
        ClearLockup,
        Void,
    )
}
assert set(INPUT_TYPES) == set(Action)


def parse_input(action: Action, data: Mapping[str, Any]) -> Input:
    """The input ``action`` with ``data``; :class:`InputError` for a missing or mistyped field
    (the message names it). Fields the action does not take are not looked at (a panel entry
    names the box in play whatever the key)."""
    return _PARSERS[action](data)


def _hold(data: Mapping[str, Any]) -> Hold:
    kind = _hold_kind(data)
    cause = data.get("cause")
    try:
        why = None if cause is None else HoldCause(str(cause))
    except ValueError:
        raise InputError(WhyNot(Why.BAD_HOLD_CAUSE, got=repr(cause))) from None
    fault = data.get("fault")
    card = data.get("card")
    return Hold(
        kind,
        str(data.get("detail", kind.value)),
        _device(data),
        why,
        None if fault is None else str(fault),
        None if card is None else _card(card, Action.HOLD),
        _opt_str(data, "about"),
    )


def _double(data: Mapping[str, Any]) -> Double:
    players = data.get("players")
    return Double(
        _opt_int(data, "box"),
        _opt_int(data, "amount_cents"),
        None if players is None else tuple(str(p) for p in players),
    )


def _by(data: Mapping[str, Any]) -> str | None:
    by = data.get("by")
    return None if by is None else str(by)


_PARSERS: dict[Action, Callable[[Mapping[str, Any]], Input]] = {
    Action.SHUFFLE: lambda d: Shuffle(),
    Action.BET: lambda d: Bet(_int(d, "box"), str(d.get("player") or ""), _int(d, "amount_cents")),
    Action.DEAL: lambda d: Deal(),
    Action.CARD: lambda d: DrawnCard(_card(d.get("card"), Action.CARD)),
    Action.PEEK: lambda d: ReaderAnswer(_outcome(d)),
    Action.INSURANCE: lambda d: Insure(
        _opt_int(d, "box"), _opt_str(d, "player"), _opt_int(d, "amount_cents")
    ),
    Action.SURRENDER: lambda d: Surrender(_opt_int(d, "box")),
    Action.OK: lambda d: Ok(),
    Action.HIT: lambda d: Hit(_opt_int(d, "box")),
    Action.STAND: lambda d: Stand(_opt_int(d, "box")),
    Action.DOUBLE: _double,
    Action.SPLIT: lambda d: Split(_opt_int(d, "box")),
    Action.RESCUE: lambda d: Rescue(_opt_int(d, "box"), _opt_str(d, "player")),
    Action.UNDO: lambda d: Undo(),
    Action.HOLD: _hold,
    Action.RESUME: lambda d: Resume(_hold_kind(d), _device(d)),
    Action.KEY_CARD: lambda d: KeyedCard(_card(d.get("card"), Action.KEY_CARD)),
    Action.ASSIGN_CARD: lambda d: AssignCard(_by(d)),
    Action.BURN_CARD: lambda d: BurnCard(_by(d)),
    Action.CONFIRM_CARD: lambda d: ConfirmCard(_by(d)),
    Action.CLEAR_LOCKUP: lambda d: ClearLockup(_by(d)),
    Action.VOID: lambda d: Void(_by(d)),
}
assert set(_PARSERS) == set(Action)


def _outcome(data: Mapping[str, Any]) -> PeekOutcome:
    outcome = str(data.get("outcome", ""))
    try:
        return PeekOutcome(outcome)
    except ValueError:
        raise InputError(WhyNot(Why.BAD_PEEK_RESULT, got=repr(outcome))) from None


def _int(data: Mapping[str, Any], key: str) -> int:
    if key not in data:
        raise InputError(WhyNot(Why.FIELD_MISSING, name=key))
    return _as_int(data[key], key)


def _opt_int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    return None if value is None else _as_int(value, key)


def _as_int(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(WhyNot(Why.NOT_WHOLE_NUMBER, name=key, got=repr(value)))
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return None if value is None or value == "" else str(value)


def _device(data: Mapping[str, Any]) -> str | None:
    value = data.get("device")
    return None if value is None else str(value)


def _card(value: object, wanted_by: Action) -> Card:
    if not isinstance(value, Card):
        raise InputError(WhyNot(Why.NOT_A_CARD, action=wanted_by.value, got=repr(value)))
    return value


def _hold_kind(data: Mapping[str, Any]) -> HoldKind:
    value = str(data.get("kind", HoldKind.DEVICE_LOST))
    try:
        return HoldKind(value)
    except ValueError:
        raise InputError(WhyNot(Why.BAD_HOLD_KIND, got=repr(value))) from None
