"""The demo table's people: players who bet and decide by basic strategy, and a dealer who
draws, slides the hole card into the reader and presses the panel, at a human pace.

:class:`DemoDealer` is ticked by the table owner (:class:`~controller.service.service.TableService`)
between events: it looks at what the table waits for and does ONE physical act on the emulated
devices (pull a card from the shoe, insert the hole card, tap the panel keys of a decision),
then waits until the table has seen the effect of that act before the next one. It never calls
the round controller: its acts reach the table through the devices and the drivers, like a
person's. The decisions come from :class:`~controller.play.strategy.StrategyPlayer`, the panel keys
from :func:`~controller.table.keypad.keys_for`, as in the scenario runner's
:class:`~controller.play.scenario_runner.DeviceHands` (which pumps the event queue itself and so
cannot be used beside the table owner).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from controller.game.errors import ConfigError
from controller.game.hands import hand_value
from controller.play.autoplay import Decision
from controller.play.counter import CardCounter, CounterSeat
from controller.play.strategy import Strategy, StrategyPlayer, strategy_for
from controller.round.controller import RoundController
from controller.round.inputs import Bet
from controller.round.model import why_not_hit, why_not_stand
from controller.round.spec import Action, State
from controller.service.service import ActorFactory, TableService
from controller.table.app import InputResult, TableApp
from controller.table.config import DEMO_PINS
from controller.table.keypad import keys_for
from controller.table.people import PeopleEvent
from controller.table.staff import DEMO_DEALER_ID
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.errors import ShoeEmptyError

PLAYERS = ("ann", "bob", "cat", "dan", "eve", "fay", "gus")
WINDOWS = (State.OFFERS, State.INSURANCE, State.SURRENDER, State.RESCUE)
CARD_STATES = (State.BURN, State.DEALING, State.CARD_DUE, State.DEALER)
EFFECT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """Emulated players and dealer: how fast they act, which boxes they play."""

    pace_s: float = 0.8
    boxes: tuple[int, ...] = (1, 2, 3)
    seed: int = 7
    counters: tuple[CounterSeat, ...] = ()  # demo card counters, each seated at their box
    rated: bool = False  # seat the rated demo players (:func:`rated_demo_players`)


def demo_dealer(options: DemoOptions) -> ActorFactory:
    """The demo's people for a table whose three devices are emulated in its process."""

    def seat(service: TableService) -> DemoDealer:
        shoe, reader, panel = (service.emulated.get(r) for r in ("shoe", "peek", "panel"))
        if not (
            isinstance(shoe, EmulatedShoe)
            and isinstance(reader, EmulatedPeekReader)
            and isinstance(panel, EmulatedPanel)
            and service.app is not None
        ):
            raise ConfigError(
                service.table.source,
                [
                    "--demo needs the emulated devices: the demo dealer's hands act on them "
                    "(devices in the table file must all be 'emulated')"
                ],
            )
        config = service.config
        boxes = tuple(b for b in options.boxes if b in config.boxes) or config.boxes[:3]
        return DemoDealer(
            service.app,
            shoe,
            reader,
            panel,
            strategy_for(service.rules),
            boxes=boxes,
            min_cents=config.limits.min_cents,
            max_cents=config.limits.max_cents,
            increment_cents=config.limits.increment_cents,
            pace_s=options.pace_s,
            seed=options.seed,
            bet=service.journaled.answer,
            counters=_seat_counters(service, options.counters, boxes, config.limits.min_cents),
            rated=rated_demo_players(boxes) if options.rated else (),
            people=service.journaled,
        )

    return seat


def _seat_counters(
    service: TableService, seats: tuple[CounterSeat, ...], boxes: tuple[int, ...], unit: int
) -> tuple[CardCounter, ...]:
    """Sit each demo counter down at their box (a rated session) and make their counter."""
    shoe = service.rules.shoe
    out = []
    for seat in seats:
        if seat.box not in boxes:
            continue
        service.journaled.sit_down(seat.box, seat.card, seat.player)  # (seated already: refused)
        out.append(CardCounter(seat, shoe.decks, shoe.deck.size, unit))
    return tuple(out)


@dataclass
class _Pending:
    what: str
    done: Callable[[], bool]
    deadline: float


class DemoDealer:
    """Plays the table through the emulated devices; ``tick(now)`` from the owner's thread."""

    name = "demo"

    def __init__(
        self,
        app: TableApp,
        shoe: EmulatedShoe,
        reader: EmulatedPeekReader,
        panel: EmulatedPanel,
        strategy: Strategy,
        *,
        boxes: tuple[int, ...],
        min_cents: int,
        max_cents: int,
        increment_cents: int,
        pace_s: float,
        seed: int = 7,
        bet: Callable[[Bet], object] | None = None,
        counters: tuple[CardCounter, ...] = (),
        rated: tuple[RatedDemoPlayer, ...] = (),
        people: SeatsPeople | None = None,
    ) -> None:
        self.app = app
        self.counters = {c.seat.box: c for c in counters}
        # Bets go in like the display's: through the journaled table when there is one.
        self.bet = bet if bet is not None else app.answer
        self.shoe = shoe
        self.reader = reader
        self.panel = panel
        self.rated = rated if people is not None else ()
        self.people = people
        self.player: Callable[[RoundController], Decision | None] = RatedPlay(
            StrategyPlayer(strategy), {p.box for p in self.rated if p.style == "poor"}
        )
        self._seated = False
        self.boxes = boxes
        self.min_cents = min_cents
        self.max_cents = max_cents
        self.increment_cents = increment_cents
        self.pace_s = pace_s
        self.rng = random.Random(seed)
        self.stalled = ""  # why the dealer stopped (the shoe ran out...)
        self._pending: _Pending | None = None
        self._next_at = 0.0
        self._refusals = 0
        self._hole_in_reader = False

    def tick(self, now: float) -> None:
        pending = self._pending
        if pending is not None:
            if not pending.done() and now < pending.deadline:
                return
            self._pending = None
        if now < self._next_at or self.stalled:
            return
        if self._act(now):
            self._next_at = now + self.pace_s

    # --- one act ---------------------------------------------------------------------------------

    def _act(self, now: float) -> bool:
        app = self.app
        state = app.controller.state
        if self._hole_in_reader and state is not State.PEEK:
            self.reader.remove_hole_card()
            self._hole_in_reader = False
        if state is State.HOLD:
            return False  # a person (or a cable) has to clear it
        if state in CARD_STATES:
            return self._draw(now)
        if state is State.PEEK:
            return self._peek(now)
        if state is State.SHUFFLE:
            for counter in self.counters.values():
                counter.shuffled()
            return self._keys(now, ["SHF"], lambda: app.controller.state is not State.SHUFFLE)
        if state is State.BETTING:
            if not self._seated:
                self._seat()
            if not app.controller.bets_placed():
                self._bet()
                return True
            return self._keys(now, ["DEA"])
        if state in (State.REVEAL, State.SETTLING):
            return self._keys(now, ["OK_"])
        if state in WINDOWS or state is State.PLAYING:
            decision = self._counted(app) or self.player(app.controller)
            if decision is None or self._refusals >= 2:
                self._refusals = 0
                fallback = "OK_" if state in WINDOWS else "STD"
                return self._keys(now, [fallback])
            players = app.controller.box_players(int(decision.data.get("box", 0) or 0))
            keys = [k.value for k in keys_for(decision.action, decision.data, players)]
            return self._keys(now, keys)
        return False

    def _seat(self) -> None:
        """The demo dealer signs in (where the staff file has them) and the rated players sit
        down, once, before the first bet."""
        self._seated = True
        if self.people is None or not self.rated:
            return
        self.people.dealer_sign_in(DEMO_DEALER_ID, DEMO_PINS["dealer"], source="demo")
        for p in self.rated:
            self.people.sit_down(p.box, p.card, PLAYERS[p.box - 1])

    def _bet(self) -> None:
        steps = max(1, (min(self.max_cents, self.min_cents * 4) - self.min_cents))
        steps //= self.increment_cents
        for number in self.boxes:
            cents = self.min_cents + self.increment_cents * self.rng.randint(0, steps)
            counter = self.counters.get(number)
            if counter is not None:
                self.bet(Bet(number, counter.seat.player, counter.bet_cents(self.max_cents)))
                continue
            self.bet(Bet(number, PLAYERS[number - 1], cents))

    def _counted(self, app: TableApp) -> Decision | None:
        """A counter's index play, if one of them has one now (None: the chart decides)."""
        for counter in self.counters.values():
            decision = counter.decide(app.controller)
            if decision is not None:
                return decision
        return None

    def _draw(self, now: float) -> bool:
        app = self.app
        before = app.cards_handled
        try:
            drawn = self.shoe.draw()
        except ShoeEmptyError:
            self.stalled = "the shoe ran out of cards"
            return False
        if drawn.card is None:
            self._wait(now, "an unreadable card", app.key_in_needed)
        else:
            burn = app.controller.state is State.BURN
            for counter in self.counters.values():
                counter.saw(str(drawn.card), burn=burn)
            self._wait(now, f"card {drawn.card}", lambda: app.cards_handled > before)
        return True

    def _peek(self, now: float) -> bool:
        app = self.app
        if self._hole_in_reader:
            return False
        before = app.peeks_handled
        # The dealer's hands slide the physical hole card into the reader.
        hole = app.controller.hole_card()
        assert hole is not None  # the table peeks only once the hole card is dealt
        self.reader.insert_hole_card(hole)
        self._hole_in_reader = True
        self._wait(now, "the peek", lambda: app.peeks_handled > before)
        return True

    def _keys(self, now: float, keys: list[str], done: Callable[[], bool] | None = None) -> bool:
        app = self.app
        start = app.output_mark()  # (the table service may trim its outputs meanwhile)

        def answered() -> bool:
            for item in app.outputs_since(start):
                if isinstance(item, InputResult):
                    if not item.accepted:
                        self._refusals += 1
                    elif item.action is not Action.SHUFFLE:
                        self._refusals = 0
                    return done() if done is not None and item.accepted else True
            return False

        for key in keys:
            self.panel.tap(key)
        self._wait(now, " ".join(keys), answered)
        return True

    def _wait(self, now: float, what: str, done: Callable[[], bool]) -> None:
        self._pending = _Pending(what, done, now + EFFECT_TIMEOUT_S)


# --- the rated demo players (issue 24: ratings and theo) -------------------------------------


@dataclass(frozen=True, slots=True)
class RatedDemoPlayer:
    """A demo player seated as rated: their box, player card number and how they play
    (``basic``: the shipped chart; ``poor``: :class:`RatedPlay`'s costly habits)."""

    box: int
    card: str
    style: str


RATED_DEMO_PLAYERS = (
    RatedDemoPlayer(1, "40010001", "basic"),
    RatedDemoPlayer(2, "40010002", "poor"),
)


def rated_demo_players(boxes: tuple[int, ...]) -> tuple[RatedDemoPlayer, ...]:
    """The rated demo players whose boxes the demo plays (their bets' names: :data:`PLAYERS`)."""
    return tuple(p for p in RATED_DEMO_PLAYERS if p.box in boxes)


class SeatsPeople(Protocol):
    """What the demo asks of the journaled table to seat its rated players."""

    def dealer_sign_in(self, staff_id: str, pin: str, *, source: str = ...) -> PeopleEvent: ...

    def sit_down(self, box: int, card: str, player: str) -> PeopleEvent: ...


POOR_STAND_FROM = 12  # a poor player stands on a hard 12 or more against a 7 or more


class RatedPlay:
    """The chart's decisions (``chart``), but at the ``poor`` boxes a poor player's: never
    doubles, splits or surrenders, and stands on a hard 12-16 against a dealer's 7 or more
    (or any card, where it is face down), each only where the rules allow what is played
    instead."""

    def __init__(self, chart: StrategyPlayer, poor: set[int]) -> None:
        self.chart = chart
        self.poor = poor

    def __call__(self, controller: RoundController) -> Decision | None:
        decision = self.chart(controller)
        if decision is None or int(decision.data.get("box", 0) or 0) not in self.poor:
            return decision
        if decision.action is Action.SURRENDER:
            return None
        in_play = controller.hand_in_play()
        if controller.state is not State.PLAYING or in_play is None:
            return decision
        number, hand = in_play
        rules = controller.rules
        value = hand_value(hand.cards)
        up = controller.dealer_up()
        high = up is None or not rules.dealer.first_card_face_up or up.points >= 7 or up.is_ace
        wanted = decision.action
        if not value.soft and POOR_STAND_FROM <= value.total <= 16 and high:
            wanted = Action.STAND
        elif wanted in (Action.DOUBLE, Action.SPLIT):
            wanted = Action.HIT if value.total < POOR_STAND_FROM else Action.STAND
        allowed = {
            Action.STAND: why_not_stand(rules, hand) is None,
            Action.HIT: why_not_hit(rules, hand) is None,
        }
        if allowed.get(wanted, False):
            return Decision(wanted, {"box": number})
        return decision
