"""The dealer's hands for scripted play: scenario files, tests, training and the simulator.

:func:`play_rounds` drives a :class:`RoundController` through scripted rounds the way
``scenarios.md`` describes: it places the bets, pulls a card from the shoe whenever the
controller asks for one, puts the hole card in the reader when asked, turns the hole card over,
enters the players' scripted decisions in order, closes an offer window when the next decision
does not belong to it, and acknowledges the settlement.

How a card reaches the controller, how the reader answers and how a decision is entered is the
job of a :class:`Hands` object: :class:`DirectHands` calls the controller itself (no devices);
the scenario runner's hands go through the emulated devices and the production drivers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from controller.game.hands import is_natural
from controller.game.prompts import Prompt
from controller.game.settlement import LedgerEntry
from controller.play.errors import PlayError
from controller.round.errors import ActionRefused
from controller.round.spec import DECISIONS, Action, State
from drivers.tbl21.cards import Card

if TYPE_CHECKING:  # (the simulator's kernel imports this module without the controller)
    from controller.round.controller import RoundController


@dataclass(frozen=True, slots=True)
class Decision:
    """One scripted player decision: an action and its data (box, player, amount_cents...)."""

    action: Action
    data: dict[str, Any]
    source: object = None  # what the script wrote, for the report


@dataclass(frozen=True, slots=True)
class TableEvent:
    """Something the dealer, a supervisor, a device or a technician does that is not a player's
    decision: ``card_out_of_turn``, ``unreadable_card``, ``supervisor`` (data: decision),
    ``key_card`` (data: card), ``reader`` (data: answer), ``unplug`` / ``replug`` (data:
    device)."""

    kind: str
    data: dict[str, Any]
    source: object = None


SUPERVISOR_ACTIONS = DECISIONS  # (by name)


@dataclass(frozen=True, slots=True)
class ScriptedBet:
    box: int
    player: str
    amount_cents: int


@dataclass(frozen=True, slots=True)
class ScriptedRound:
    bets: Sequence[ScriptedBet]
    decisions: Sequence[Decision | TableEvent]


@dataclass
class RefusedDecision:
    round: int
    decision: Decision | TableEvent
    reason: str


@dataclass
class RoundRecord:
    number: int
    prompts: list[Prompt] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    dealer_cards: list[Card] = field(default_factory=list)
    controller_round: Any = None  # the RoundState at the end of the round


class Hands(Protocol):
    """What the dealer physically does; each call ends with the controller having seen it."""

    def draw(self) -> None:
        """Pull the next card out of the shoe."""

    def peek(self) -> None:
        """Put the hole card in the reader and let it answer."""

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        """Enter a decision, an OK or a bet; raises ActionRefused when the controller refuses."""

    def table_event(self, event: TableEvent) -> None:
        """Do a scripted table event; raises ActionRefused when the controller refuses."""


class DirectHands:
    """Hands that talk to the controller directly: a card list for the shoe, a perfect reader."""

    def __init__(self, controller: RoundController, cards: Iterator[Card]) -> None:
        self.controller = controller
        self.cards = cards
        self.reader_answer: str | None = None  # a scripted fault for the next peek
        self.misread_next = False  # a scripted fault for the next card

    def draw(self) -> None:
        try:
            card = next(self.cards)
        except StopIteration:
            raise PlayError("the shoe ran out of cards") from None
        if self.misread_next:  # the card leaves the shoe, but nobody could read it
            self.misread_next = False
            self.controller.perform(
                Action.HOLD, kind="unreadable_card", detail="the shoe could not read a card"
            )
            return
        self.controller.perform(Action.CARD, card=card)

    def peek(self) -> None:
        answer, self.reader_answer = self.reader_answer, None
        self.controller.perform(Action.PEEK, outcome=reader_outcome(self.controller, answer))

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        self.controller.perform(action, **data)

    def table_event(self, event: TableEvent) -> None:
        c = self.controller
        if event.kind == "card_out_of_turn":
            self.draw()
        elif event.kind == "supervisor":
            # (no key switch here: the round takes the decisions it is given; who may take
            # them is the table's to say, controller.table.access)
            c.perform(SUPERVISOR_ACTIONS[event.data["decision"]], by="supervisor")
        elif event.kind == "key_card":
            c.perform(Action.KEY_CARD, card=Card.parse(event.data["card"]))
        elif event.kind == "unreadable_card":
            self.misread_next = True
        elif event.kind == "reader":
            self.reader_answer = event.data["answer"]
        elif event.kind == "unplug":
            device = event.data["device"]
            c.perform(Action.HOLD, kind="device_lost", detail=f"{device} unplugged", device=device)
        elif event.kind == "replug":
            c.perform(Action.RESUME, kind="device_lost", device=event.data["device"])
        else:
            raise PlayError(f"unknown table event {event.kind!r}")


def reader_outcome(controller: RoundController, answer: str | None) -> str:
    """What a hole-card reader answers for the round's hole card: the truth (Y/N), or a
    scripted fault (``lie``, ``unreadable`` -> U, ``no_card`` -> E)."""
    natural = is_natural(controller.rules, controller.round.dealer.cards[:2], False)
    truth = "Y" if natural else "N"
    faults = {"lie": "N" if natural else "Y", "unreadable": "U", "no_card": "E"}
    return faults.get(answer or "", truth)


WINDOW_ACTIONS = {
    State.OFFERS: {Action.INSURANCE, Action.SURRENDER},
    State.INSURANCE: {Action.INSURANCE},
    State.SURRENDER: {Action.SURRENDER},
    State.RESCUE: {Action.RESCUE},
}
CARD_STATES = {State.BURN, State.DEALING, State.CARD_DUE, State.DEALER}
IMMEDIATE_EVENTS = {"unreadable_card", "reader"}  # they arm a fault for the next card / peek
HOLD_EVENTS = {"supervisor", "key_card"}  # they answer a hold


def play_rounds(
    controller: RoundController,
    hands: Hands,
    rounds: Sequence[ScriptedRound],
    *,
    on_output: Callable[[list[Any]], None] | None = None,
    drain: Callable[[], list[Any]] | None = None,
    auto: Callable[[RoundController], Decision | None] | None = None,
    max_steps: int = 10_000,
) -> tuple[list[RoundRecord], list[RefusedDecision]]:
    """Play scripted rounds to their end. Returns a record per round and the refused decisions."""
    records: list[RoundRecord] = []
    rejected: list[RefusedDecision] = []

    take = drain if drain is not None else controller.drain

    def collect(record: RoundRecord) -> None:
        out = take()
        if on_output is not None:
            on_output(out)
        _keep(record, out)

    carried: list[Any] = []  # what the last round's closing OK emitted (the next round's)
    for script in rounds:
        number = controller.round.number
        record = RoundRecord(number)
        _keep(record, carried)
        _prepare_table(controller, hands, record, collect, max_steps)
        for bet in script.bets:
            hands.enter(
                Action.BET, {"box": bet.box, "player": bet.player, "amount_cents": bet.amount_cents}
            )
        hands.enter(Action.DEAL, {})
        collect(record)
        pending = list(script.decisions)
        steps = 0
        while controller.state is not State.SETTLING:
            steps += 1
            if steps > max_steps:
                raise PlayError(f"round {number} did not finish in {max_steps} steps")
            state = controller.state
            # When a scripted table event happens: a device fault for the next card or peek at
            # once; a supervisor's decision or a keyed-in card when the table holds; anything
            # else (a card out of turn, a cable pulled) at the next moment the controller waits
            # for a person. Cards and peeks that are due come first.
            head = pending[0] if pending else None
            event = head if isinstance(head, TableEvent) else None
            if event is not None and event.kind in IMMEDIATE_EVENTS:
                _try(hands, pending.pop(0), number, rejected)
            elif state in CARD_STATES:
                hands.draw()
            elif state is State.PEEK:
                hands.peek()
            elif event is not None and (state is State.HOLD or event.kind not in HOLD_EVENTS):
                _try(hands, pending.pop(0), number, rejected)
            elif state is State.REVEAL:
                hands.enter(Action.OK, {})
            elif state in WINDOW_ACTIONS:
                head = pending[0] if pending else None
                if head is None and auto is not None and (chosen := auto(controller)):
                    _try(hands, chosen, number, rejected)
                elif isinstance(head, Decision) and head.action in WINDOW_ACTIONS[state]:
                    _try(hands, pending.pop(0), number, rejected)
                else:
                    hands.enter(Action.OK, {})
            elif state is State.PLAYING:
                if not pending and auto is not None and (chosen := auto(controller)):
                    _try(hands, chosen, number, rejected)
                elif not pending:
                    box, index = controller.round.turn or (0, 0)
                    raise PlayError(
                        f"round {number}: the script ended while box {box} hand {index + 1} "
                        "waits for a decision"
                    )
                else:
                    _try(hands, pending.pop(0), number, rejected)
            elif state is State.HOLD:
                reasons = "; ".join(h.detail for h in controller.hold_reasons)
                raise PlayError(f"round {number}: the table is on hold ({reasons})")
            else:
                raise PlayError(f"round {number}: unexpected state {state.value}")
            collect(record)
        for decision in pending:
            rejected.append(
                RefusedDecision(number, decision, "the round ended before this decision")
            )
        record.dealer_cards = list(controller.round.dealer.cards)
        record.controller_round = controller.round
        hands.enter(Action.OK, {})
        carried = take()
        if on_output is not None:
            on_output(carried)
        records.append(record)
    return records, rejected


def _keep(record: RoundRecord, out: list[Any]) -> None:
    for item in out:
        if isinstance(item, Prompt):
            record.prompts.append(item)
        elif isinstance(item, LedgerEntry):
            record.ledger.append(item)


def _prepare_table(
    controller: RoundController,
    hands: Hands,
    record: RoundRecord,
    collect: Callable[[RoundRecord], None],
    max_steps: int,
) -> None:
    """Shuffle and burn until bets are open."""
    for _ in range(max_steps):
        state = controller.state
        if state is State.BETTING:
            return
        if state is State.SHUFFLE:
            hands.enter(Action.SHUFFLE, {})
        elif state is State.BURN:
            hands.draw()
        else:
            raise PlayError(f"cannot open bets from state {state.value}")
        collect(record)
    raise PlayError("the table did not open for bets")


def _try(
    hands: Hands, item: Decision | TableEvent, number: int, rejected: list[RefusedDecision]
) -> None:
    try:
        if isinstance(item, TableEvent):
            hands.table_event(item)
        else:
            hands.enter(item.action, item.data)
    except ActionRefused as refused:
        rejected.append(RefusedDecision(number, item, refused.reason))
