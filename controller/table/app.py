"""The table: device events in, round controller in the middle, device commands out.

:class:`TableApp` turns each driver event into a round input (a card, a peek result, a panel
decision, a hold for a lost device or a lockup fault), gives it to the
:class:`~controller.round.controller.RoundController`, and turns what the controller emits
into device commands (arm the reader, load a new shoe, light the keys that may be pressed). It
does no I/O itself: its commands are :class:`DeviceOrder` outputs, sent to a
:class:`~controller.table.commands.DeviceCommands` (the drivers in production) at once, or, on a
journalled table, once the journal has them.

Around the round it keeps three things, each in its own module: the keys a decision is entered
with (:mod:`controller.table.keypad`), who may decide what (the key switch, the PIN pad and
sign-in: :mod:`controller.table.access`), and the shoe's draw numbers, pushbacks and reloads
(:mod:`controller.table.shoewatch`). A press on a key that is not lit is refused with the
reason, and changes nothing.

Every cause (a driver event or one of the table's calls: :data:`Cause`) comes in through
:meth:`TableApp.apply`, which returns what it made (:class:`Applied`) to its caller: the
journaled table (:mod:`controller.journal.journaled`) commits it, then shows it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, overload

import structlog

from controller.game.holds import HoldCause, HoldKind
from controller.game.prompts import Prompt
from controller.game.refusals import Why, WhyNot
from controller.game.rules import Variant
from controller.game.settlement import LedgerEntry
from controller.game.words import DECK_WORDS, day_words, refusal_words
from controller.round.controller import (
    DeviceCommand,
    Output,
    RoundController,
    RoundMemento,
)
from controller.round.errors import ActionRefused, InputError
from controller.round.inputs import (
    DECISIONS_TYPES,
    Bet,
    Decision,
    DrawnCard,
    Hold,
    Input,
    KeyedCard,
    ReaderAnswer,
    Resume,
    Void,
    parse_input,
)
from controller.round.model import in_variant_shoe
from controller.round.spec import DECISION_NAMES, IN_ROUND, Action, State
from controller.table.access import (
    KEY_ONLY,
    AccessControl,
    AccessEvent,
    AccessPolicy,
    PinAttempt,
    PinPadKey,
    RequirePins,
    Role,
    SignOut,
    technician_lockup,
)
from controller.table.bets import same_player
from controller.table.commands import DeviceCommands, NoDevices, Relight, send_order
from controller.table.day import (
    DayAct,
    DayCall,
    DayEvent,
    GamingDay,
    RequireOpening,
    refused_day,
)
from controller.table.errors import EntryError
from controller.table.firmware import (
    AllowFirmware,
    approved,
    changed,
    changed_detail,
    described,
    unapproved_detail,
    unapproved_hold,
)
from controller.table.integrity import IntegrityAlarm
from controller.table.keypad import DECISION_KEYS, DIGIT_KEYS, PanelEntry, dealer_keys, why_dark
from controller.table.people import (
    DealerSignIn,
    DealerSignOut,
    People,
    PeopleCall,
    PeopleEvent,
    SitDown,
    WalkAway,
)
from controller.table.shoewatch import (
    Note,
    ShoeReceipt,
    ShoeWatch,
    Step,
    committed_cut,
    cut_tolerance,
)
from drivers.tbl21.cards import DeckType
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    CardDrawn,
    CardMotion,
    CardSensed,
    CutCard,
    CutKind,
    DeviceEvent,
    DeviceIdentified,
    DeviceIdentity,
    DeviceRefused,
    DeviceType,
    FaultCleared,
    FaultRaised,
    KeySwitch,
    LinkLost,
    LinkRestored,
    PeekResult,
    ShoeLoaded,
)

log = structlog.get_logger("croupier.table")

BETWEEN_ROUNDS = frozenset({State.BETTING, State.SHUFFLE, State.BURN, State.SETTLING})
SUPERVISOR_KEYS = (Button.HIT, Button.CANCEL, Button.OK, Button.DEAL)
WRONG_DECK = "WRONG_DECK"  # the technical code of the lockup for a shoe of another deck


@dataclass(frozen=True, slots=True)
class InputResult:
    """What became of a dealer input: accepted, or refused with the reason; ``move`` is the
    input the round was given (None when the keys made none), ``by`` who decided (a supervisor's
    or technician's decision; None for the dealer), ``why`` the round's refusal as a value (its
    words are ``reason``; None when accepted or refused before the round was asked)."""

    action: Action | None
    accepted: bool
    reason: str = ""
    keys: tuple[str, ...] = ()
    move: Input | None = None
    by: str | None = None
    why: WhyNot | None = field(default=None, compare=False)


def refused(
    action: Action | None,
    why: WhyNot,
    keys: tuple[str, ...] = (),
    move: Input | None = None,
    by: str | None = None,
) -> InputResult:
    """An input the table refused for ``why``, with its words (the one words module's)."""
    return InputResult(action, False, refusal_words(why), keys, move, by, why)


@dataclass(frozen=True, slots=True)
class DeviceOrder:
    """A command the table sends to a device: journalled first, then sent (journal row kind
    ``device_command``)."""

    device: str  # "shoe", "peek", "panel"
    command: str  # "arm_peek", "new_shoe", "light"
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SetAside:
    """A supervisor's decision at a table stopped for a supervisor (its journal's replay
    disagreed from row ``first_seq`` on): the journal's rows ``first_seq`` to ``last_seq`` are set
    aside (a replay neither applies nor compares them), and the round they were in is void:
    every open wager goes back. The cards drawn in those rows (``cards``) went to the discard
    with the round; the shoe's position is then ``draw_no`` (None: no card was drawn in them).

    Journalled as its own row kind (``set_aside``), a cause the replay applies where it stands.
    """

    first_seq: int
    last_seq: int
    round: int
    draw_no: int | None
    cards: int
    reason: str  # what the start found
    by: str | None  # who decided (the supervisor signed in on the halted screen)


@dataclass(frozen=True, slots=True)
class DeviceNote:
    """A device event worth recording that changes nothing in the round."""

    device: str
    text: str


TableOutput = (
    Output
    | InputResult
    | DeviceNote
    | AccessEvent
    | DeviceOrder
    | PeopleEvent
    | ShoeReceipt
    | DayEvent
)

# What a table is given: a driver event, or one of its calls (a bet, a supervisor's or
# technician's decision, the dealer's keyed-in card, a PIN attempt's outcome, a sign-out, the PIN
# policy or the firmware allowed changed, the panel's lights told again, a live-integrity alarm,
# a dealer's sign-in or a rated player's sit-down or walk-away, a step of the gaming day or its
# requirement), or a supervisor's set-aside at a
# table stopped for one. Each is journalled as its record before anything it makes is shown
# (controller.journal.causes).
Call = (
    Bet
    | Decision
    | KeyedCard
    | PinAttempt
    | SignOut
    | RequirePins
    | Relight
    | AllowFirmware
    | IntegrityAlarm
    | PeopleCall
    | DayCall
    | RequireOpening
)
Cause = DeviceEvent | Call | SetAside


@dataclass(frozen=True, slots=True)
class Applied:
    """What a cause made (:meth:`TableApp.apply`): the table's outputs, in order, and what
    became of a call (the input's result, or a PIN attempt's last event; None for a device
    event and for the calls that answer nothing)."""

    outputs: list[TableOutput]
    result: InputResult | AccessEvent | PeopleEvent | DayEvent | None = None


def decision(action: Action, **data: Any) -> Decision | KeyedCard:
    """A supervisor's decision or the dealer's keyed-in card from loose data (a script's or a
    test's); :class:`~controller.round.errors.InputError` when the data is not one."""
    move = parse_input(action, data)
    assert isinstance(move, (*DECISIONS_TYPES, KeyedCard)), move
    return move


@dataclass(frozen=True, slots=True)
class TableMemento:
    """Everything a cause may change in a :class:`TableApp`, copied (:meth:`TableApp.memento`);
    used once, by :meth:`TableApp.restore`."""

    controller: RoundMemento
    own: dict[str, Any]  # the table's own attributes (the parts below are restored in place)
    access: dict[str, Any]
    signin: dict[str, Any]
    shoe: dict[str, Any]
    entry: dict[str, Any]
    outputs: int  # how many outputs there were
    orders: int  # ... and device orders waiting


class TableApp:
    """One table: the round controller fed by device events."""

    def __init__(
        self,
        rules: Variant,
        commands: DeviceCommands | None = None,
        *,
        start: State = State.BURN,
        access: AccessPolicy = KEY_ONLY,
        hold_orders: bool = False,
    ) -> None:
        self.rules = rules
        self.access = AccessControl(access)
        self.shoe = ShoeWatch(rules.shoe.decks, rules.shoe.deck)
        self.controller = RoundController(rules, start=start)
        self.commands: DeviceCommands = commands if commands is not None else NoDevices()
        self.outputs: list[TableOutput] = []  # the recent ones (see trim_outputs)
        self.outputs_trimmed = 0  # outputs dropped from the front of ``outputs`` so far
        self.entry = PanelEntry()
        # As journals before format 5 were written: what was keyed survived a hold, and CALL
        # was noted among the next decision's keys (a replay of such a journal sets this).
        self.entry_outlives_holds = False
        # From journal format 14 on: a new_shoe order carries the cut position committed before
        # the shoe's first card, and the cut card is checked against it (a replay of an older
        # journal clears this: its orders carry nothing and its cut cards were not checked).
        self.commits_cut = True
        self.lit: frozenset[Button] = frozenset()
        self.cards_handled = 0
        self.peeks_handled = 0
        self.inputs_handled = 0
        self.card_in_reader = False
        self._peek_arm: str | None = None
        self._peek_held = False  # a hold interrupted the peek
        # The firmware hashes that may deal (empty: any; journalled as a cause, AllowFirmware),
        # and each device's last identification (both replaced, never changed in place: a
        # memento keeps the old ones).
        self.firmware_allow: tuple[str, ...] = ()
        self.identities: dict[str, DeviceIdentity] = {}
        # The dealer signed in and the rated players seated (controller.table.people; replaced,
        # never changed in place): never an input of the round.
        self.people = People()
        # The gaming day: opened, its chips moved, closed (controller.table.day; replaced,
        # never changed in place). A table that requires it deals only in an open day.
        self.day = GamingDay()
        # Device orders wait here until sent: at once, or, when the table is journalled
        # (``hold_orders``), once the journal has them (:meth:`send_orders`).
        self.hold_orders = hold_orders
        self._orders: list[DeviceOrder] = []
        self._flush()
        # Nobody was told the keys yet: that is the first command once the devices are open
        # (:meth:`relight`), journalled like every other.
        self._orders.clear()

    def apply(self, cause: Cause) -> Applied:
        """Apply one cause; what it made is returned (and kept in ``outputs``). Never raises
        for bad input: refusals are outputs. The table does no I/O here: its device orders wait
        for :meth:`send_orders` when ``hold_orders`` (a journalled table's)."""
        mark = self.output_mark()
        result = self._given(cause)
        return Applied(self.outputs_since(mark), result)

    @overload
    def answer(self, call: Bet | Decision | KeyedCard) -> InputResult: ...

    @overload
    def answer(self, call: PinAttempt) -> AccessEvent: ...

    def answer(self, call: Bet | Decision | KeyedCard | PinAttempt) -> InputResult | AccessEvent:
        """:meth:`apply` a call that is answered (a bet, a decision, a keyed-in card, a PIN
        attempt's outcome): what became of it."""
        result = self.apply(call).result
        assert isinstance(result, (InputResult, AccessEvent)), result
        return result

    def _given(self, cause: Cause) -> InputResult | AccessEvent | PeopleEvent | DayEvent | None:
        if isinstance(cause, DeviceEvent):
            self.handle(cause)
            return None
        if isinstance(cause, Bet):
            return self._bet(cause.box, cause.player, cause.amount_cents)
        if isinstance(cause, PinAttempt):
            return self._apply_pin(cause)
        if isinstance(cause, SignOut):
            return self._sign_out(cause.reason)
        if isinstance(cause, RequirePins):
            self._require_pins(cause.required)
            return None
        if isinstance(cause, Relight):
            self._relight()
            return None
        if isinstance(cause, AllowFirmware):
            self._allow_firmware(cause)
            return None
        if isinstance(cause, SetAside):
            return self._set_aside(cause)
        if isinstance(cause, IntegrityAlarm):
            self._integrity_alarm(cause)
            return None
        if isinstance(cause, (DealerSignIn, DealerSignOut, SitDown, WalkAway)):
            return self._people_call(cause)
        if isinstance(cause, DayCall):
            return self._day_call(cause)
        if isinstance(cause, RequireOpening):
            self.day = replace(self.day, required=cause.required)
            self._flush()
            return None
        return self._decide(cause)

    # --- events ----------------------------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> None:
        """Apply one driver event. Never raises for bad input: refusals become outputs."""
        device = event.device.type
        if isinstance(event, CardDrawn):
            if not self.day.deals() and not self._round_open():
                self._day_not_open()  # (a round dealt before the day was required plays out)
            self._steps(device, self.shoe.drawn(event))
        elif isinstance(event, CutCard):
            self.shoe.cut_card()
            self._cut_checked(device, event)
            self.controller.cut_card_seen()
        elif isinstance(event, ShoeLoaded):
            self._note(device, f"new shoe loaded ({event.cards_detected} cards)")
            round_open = self.controller.state not in BETWEEN_ROUNDS
            number = self.controller.round_number()
            self._steps(device, self.shoe.loaded(round_open, number, event.cards_detected))
        elif isinstance(event, PeekResult):
            self._apply(ReaderAnswer(event.outcome))
            self.peeks_handled += 1
        elif isinstance(event, CardSensed):
            self.card_in_reader = event.motion is CardMotion.INSERTED
            if self.card_in_reader and self._peek_arm and self.controller.state is State.PEEK:
                self._order("peek", "arm_peek", self._peek_arm)  # (again, after a U or E answer)
        elif isinstance(event, ButtonPressed):
            if self.day.panel_by and event.device.port != "display":
                # (no wall-clock time here: a replay must make the same rows)
                self._day_events(self.day.key(event.button))
            elif self.access.pin_pad_role() is not None:
                self._pin_key(event.button)
            elif self._supervising():
                self._supervisor_key(event.button, held=False)
            else:
                self._button(event.button)
        elif isinstance(event, ButtonHeld) and self._supervising():
            self._supervisor_key(event.button, held=True)
        elif isinstance(event, KeySwitch):
            position = event.position.value
            self._note(device, f"key switch at {position}")
            if self.access.turn(position):
                self._sign_out(f"the key turned to {position}")
        elif isinstance(event, FaultRaised):
            self._note(device, f"fault raised: {event.name} ({event.severity.value})")
            self._steps(device, self.shoe.fault(event, device.label))
        elif isinstance(event, FaultCleared):
            self._note(device, f"fault cleared: {event.name}")
        elif isinstance(event, (LinkLost, DeviceRefused)):
            lost = isinstance(event, LinkLost)
            what, cause = (
                ("link lost", HoldCause.LINK_LOST)
                if lost
                else ("refused", HoldCause.DEVICE_REFUSED)
            )
            self._apply(Hold(HoldKind.DEVICE_LOST, f"{device.label} {what}", device.label, cause))
        elif isinstance(event, LinkRestored):
            self._device_back(device.label)
        elif isinstance(event, DeviceIdentified):
            self._note(
                device,
                f"identified: {event.model} {event.serial} fw {event.fw_version} ({event.fw_hash})",
            )
            before = self.identities.get(device.label)
            self.identities = {**self.identities, device.label: event.identity}
            # A restarted controller meets the device anew: identified is as good as restored
            # for a hold the journal carried over.
            self._device_back(device.label)
            if device is DeviceType.SHOE:
                self.shoe.identified(event.identity)
                self._check_deck(event.identity.deck_type)
            if before is not None and changed(before, event.identity):
                self._unit_changed(device, before, event.identity)
        else:
            self._note(device, type(event).__name__)
        self._flush()

    def _steps(self, device: DeviceType, steps: list[Step]) -> None:
        """Carry out what the shoe watch says, in order."""
        for step in steps:
            if isinstance(step, Note):
                self._note(device, step.text)
            elif isinstance(step, ShoeReceipt):
                self._push(step)
            else:
                result = self._apply(step)
                if isinstance(step, DrawnCard):
                    self.shoe.applied(step.card, result.accepted)
                    self.cards_handled += 1  # (a repeat is not counted: it is not a new card)

    def _check_deck(self, deck: DeckType | None) -> None:
        """The shoe says which decks it holds: another deck than the variant's never deals
        (a 52-card shoe at a Spanish 48-card game would deal tens). The table locks up until a
        supervisor has checked the shoe; a shoe that does not say is checked card by card."""
        wanted = self.rules.shoe.deck
        if deck is None or deck is wanted:
            return
        if any(h.cause is HoldCause.WRONG_DECK for h in self.controller.hold_reasons):
            return
        self._apply(
            Hold(
                HoldKind.LOCKUP,
                f"{WRONG_DECK}: the shoe holds {DECK_WORDS[deck]} but {self.rules.id} deals "
                f"from {DECK_WORDS[wanted]}: load this game's cards in the shoe, then a "
                "supervisor clears the hold",
                "shoe",
                HoldCause.WRONG_DECK,
                about=DECK_WORDS[wanted],
            )
        )

    def _round_open(self) -> bool:
        """A round is dealt and not yet settled (also while it is on hold)."""
        c = self.controller
        state = c.table.resume_state if c.state is State.HOLD else c.state
        return state is not None and state not in BETWEEN_ROUNDS

    def _unit_changed(
        self, device: DeviceType, before: DeviceIdentity, now: DeviceIdentity
    ) -> None:
        """The device identified as another unit or with other firmware than before: in the
        middle of a round a supervisor checks the table (a swapped shoe may hold other cards);
        between rounds it is noted."""
        label = device.label
        if not self._round_open():
            self._note(
                device,
                f"another unit or firmware than before: was {described(before)}, "
                f"now {described(now)}",
            )
            return
        detail = changed_detail(label, before, now, self.controller.round_number())
        log.warning("device changed in the middle of a round", device=label, detail=detail)
        self._apply(Hold(HoldKind.LOCKUP, detail, label, HoldCause.DEVICE_CHANGED))

    def _allow_firmware(self, call: AllowFirmware) -> None:
        """From now on only the firmware ``call`` lists deals (empty: any)."""
        self.firmware_allow = call.hashes
        listed = ", ".join(call.hashes) if call.hashes else "any (the list is empty)"
        self._push(DeviceNote("table", f"firmware allowed from now on: {listed}"))
        self._flush()

    def _integrity_alarm(self, alarm: IntegrityAlarm) -> None:
        """Hold for a supervisor: a journal row or a rules file changed behind the table's back
        (:mod:`controller.table.integrity`)."""
        log.warning("integrity alarm", cause=alarm.cause.value, about=alarm.about)
        self._apply(
            Hold(HoldKind.LOCKUP, alarm.detail or alarm.about, None, alarm.cause, about=alarm.about)
        )
        self._flush()

    def _hold_unapproved(self) -> None:
        """Hold for each identified device whose firmware is not allowed (again after a void,
        which clears every hold): it never deals."""
        if not self.firmware_allow:
            return
        for label, identity in self.identities.items():
            if approved(self.firmware_allow, identity):
                continue
            holds = self.controller.hold_reasons
            if any(unapproved_hold(h, label) for h in holds):
                continue
            log.warning("device firmware not approved", device=label, fw_hash=identity.fw_hash)
            self._apply(
                Hold(
                    HoldKind.LOCKUP,
                    unapproved_detail(label, identity),
                    label,
                    HoldCause.FIRMWARE_NOT_APPROVED,
                    about=described(identity),
                )
            )

    def lockup_refusal(self) -> WhyNot | None:
        """Why the lockup a supervisor would clear next may not be cleared (None: it may): its
        device still runs firmware this table does not allow, or the gaming day it waits for is
        not open."""
        lockups = [h for h in self.controller.hold_reasons if h.kind is HoldKind.LOCKUP]
        if lockups and lockups[0].cause is HoldCause.DAY_NOT_OPEN and not self.day.deals():
            return WhyNot(Why.DAY_NOT_OPEN)
        if not lockups or lockups[0].device is None:
            return None
        label = lockups[0].device
        identity = self.identities.get(label)
        if (
            identity is None
            or not unapproved_hold(lockups[0], label)
            or approved(self.firmware_allow, identity)
        ):
            return None
        return WhyNot(Why.FIRMWARE_NOT_ALLOWED, device=label, detail=described(identity))

    def _device_back(self, label: str) -> None:
        """Clear the hold for a lost device, if the table holds for it (restored, or identified
        again: whichever the drivers report first)."""
        held = [h for h in self.controller.hold_reasons if h.kind is HoldKind.DEVICE_LOST]
        if any(h.device == label for h in held):
            self._apply(Resume(HoldKind.DEVICE_LOST, label))

    def _note(self, device: DeviceType, text: str) -> None:
        self._push(DeviceNote(device.label, text))

    # --- dealer input (panel buttons, or the display) --------------------------------------------

    def _bet(self, box: int, player: str, amount_cents: int) -> InputResult:
        """Record a bet (from the display or a scripted session); a name already on the round
        but for case is that player (:func:`~controller.table.bets.same_player`)."""
        player = same_player(player, self.controller.players())
        if not self.day.deals():
            result = refused(Action.BET, WhyNot(Why.DAY_NOT_OPEN))
            self._push(result)
            self._flush()
            return result
        result = self._perform(
            Action.BET, {"box": box, "player": player, "amount_cents": amount_cents}
        )
        rated = self.people.bet(box, player, amount_cents) if result.accepted else None
        if rated is not None:
            self._push(rated)  # the bet's session
        self._flush()
        return result

    def _day_not_open(self) -> None:
        """A card came out before the gaming day was opened: the table holds for a supervisor
        (once), and the card waits as one nobody asked for, to be burnt."""
        if any(h.cause is HoldCause.DAY_NOT_OPEN for h in self.controller.hold_reasons):
            return
        log.warning("card drawn before the gaming day was opened")
        self._apply(Hold(HoldKind.LOCKUP, day_words("hold"), None, HoldCause.DAY_NOT_OPEN))

    def _day_call(self, call: DayCall) -> DayEvent:
        """A step of the gaming day (controller.table.day): refused unless the role on the key
        may take it (a supervisor signed in; a technician too for a device's check), and a
        device's check unless the device identified itself (what it said is the record)."""
        role = self.access.key_role
        device_check = call.act in (DayAct.READER, DayAct.PANEL, DayAct.SHOE)
        allowed = role is Role.SUPERVISOR or (role is Role.TECHNICIAN and device_check)
        refusal: WhyNot | None = None
        if call.act is DayAct.DEMO:
            pass  # a demo's start (journaled.demo_opening), never a request of the display
        elif not allowed or role is None or not self.access.granted(role):
            tec = "TEC" if device_check else ""
            refusal = WhyNot(Why.DAY_NEEDS_SUPERVISOR, action=call.act.value, key=tec)
        detail = call.detail
        if (
            refusal is None
            and call.act is DayAct.CLOSING
            and (self._round_open() or bool(self.controller.bet_boxes()))
        ):
            refusal = WhyNot(Why.DAY_ROUND_OPEN)
        if refusal is None and call.act in (DayAct.READER, DayAct.SHOE):
            refusal, detail = self._device_check(call.act)
        if refusal is not None:
            day = self.day.number + (0 if self.day.is_open else 1)
            event = refused_day(refusal, day, call.by, call.at)
            self._push(event)
            self._flush()
            return event
        return self._day_events(self.day.apply(replace(call, detail=detail)))

    def _device_check(self, act: DayAct) -> tuple[WhyNot | None, str]:
        """A device's daily check: (why not, or None; what the device said of itself)."""
        label = "peek" if act is DayAct.READER else "shoe"
        identity = self.identities.get(label)
        if identity is None:
            return WhyNot(Why.DAY_NO_DEVICE, device=label), ""
        if any(h.device == label for h in self.controller.hold_reasons):
            return WhyNot(Why.DAY_NO_DEVICE, device=label), ""
        said = described(identity)
        if act is DayAct.SHOE:
            wanted = self.rules.shoe.deck
            held = identity.deck_type
            if held is not None and held is not wanted:
                why = WhyNot(Why.DAY_WRONG_DECK, got=DECK_WORDS[held], detail=DECK_WORDS[wanted])
                return why, ""
            decks = DECK_WORDS[wanted] if held is not None else "decks not reported"
            said = f"{said}, {self.rules.shoe.decks} x {decks}"
        return None, said

    def _day_events(self, made: tuple[GamingDay, list[DayEvent]]) -> DayEvent:
        self.day, events = made
        for event in events:
            self._push(event)
        self._flush()
        return events[-1]

    def _people_call(self, call: PeopleCall) -> PeopleEvent | None:
        """A dealer's sign-in or sign-out, a rated player's sit-down or walk-away: what became
        of it (controller.table.people). The round never sees it."""
        self.people, events = self.people.apply(call, self.rules.table.boxes)
        for event in events:
            self._push(event)
        self._flush()
        return events[-1] if events else None

    def _decide(self, move: Decision | KeyedCard) -> InputResult:
        """A supervisor's (or technician's) decision, or the dealer's keyed-in card. A decision
        needs the key switch at SUP (TEC: a technician's) and, at a table that takes PINs, that
        role signed in; who decided is then the signed-in person, whatever ``by`` says."""
        action = move.action
        refusal = self.access.refusal(action, self.controller.hold_reasons)
        if refusal is None and action is Action.CLEAR_LOCKUP:
            refusal = self.lockup_refusal()
        if refusal is not None:
            result = refused(action, refusal, move=move)
            log.info("input refused", action=action.value, reason=result.reason)
            self._push(result)
        else:
            role = self.access.key_role
            if isinstance(move, DECISIONS_TYPES) and self.access.policy.pins_required and role:
                move = replace(move, by=self.access.who(role))
            result = self._apply(move)
        self._flush()
        return result

    # --- roles and PINs (controller.table.access) ------------------------------------------------

    def _apply_pin(self, attempt: PinAttempt) -> AccessEvent:
        """Apply an attempt's outcome (live, or replayed from the journal); the last event."""
        events = self.access.apply(attempt)
        for event in events:
            self._push(event)
            if not event.accepted:
                log.info("sign-in refused", role=event.role, access=event.event)
        self._flush()
        return events[-1]

    def _require_pins(self, required: bool) -> None:
        """From now on decisions need (or no longer need) a PIN besides the key: the table
        journals when its policy changes, so a journal written before PINs replays as it was."""
        for event in self.access.require_pins(required):
            self._push(event)
        self._flush()

    def _sign_out(self, reason: str) -> AccessEvent | None:
        event = self.access.signin.sign_out(reason)
        if event is not None:
            self._push(event)
            self._flush()
        return event

    def _pin_key(self, button: Button) -> None:
        """A key on the PIN pad: a digit, CAN (clear) or OK_ (sign in). Digits make no output."""
        what = self.access.pin_key(button.value)
        if what is PinPadKey.DEALER:
            self._button(button)
        elif what is PinPadKey.ATTEMPT:
            self._apply_pin(self.access.check_pin(source="panel"))
        elif what is PinPadKey.REFUSED:
            why = self.access.pin_pad_refusal(button.value)
            self._push(refused(DECISION_KEYS.get(button), why, (button.value,)))

    def supervisor_choices(self) -> list[str]:
        """The decisions the role on the key may take now (the display's supervisor buttons):
        names of :data:`controller.table.access.DECISIONS`."""
        role = self.access.key_role
        if role is None or not self.access.granted(role):
            return []
        c = self.controller
        holds = c.hold_reasons if c.state is State.HOLD else []
        kinds = {h.kind for h in holds}
        choices: list[Action] = []
        foreign = any(
            h.kept_out or (h.card is not None and not in_variant_shoe(self.rules, h.card))
            for h in holds
            if h.kind is HoldKind.UNEXPECTED_CARD
        )  # a card the variant's shoe cannot hold (or not one more of) is never dealt
        if (
            HoldKind.UNEXPECTED_CARD in kinds
            and (
                c.table.resume_state is State.PLAYING
                or (c.table.resume_state is State.CARD_DUE and c.round.card_for is not None)
            )
            and not foreign
        ):
            choices.append(Action.ASSIGN_CARD)
        if HoldKind.UNEXPECTED_CARD in kinds:
            choices.append(Action.BURN_CARD)
        if any(h.kind is HoldKind.UNREADABLE_CARD and h.card is not None for h in holds):
            choices.append(Action.CONFIRM_CARD)
        if HoldKind.LOCKUP in kinds and self.lockup_refusal() is None:
            choices.append(Action.CLEAR_LOCKUP)
        if Action.VOID in c.allowed_actions() and any(b.hands for b in c.round.boxes.values()):
            choices.append(Action.VOID)
        return [
            DECISION_NAMES[a] for a in choices if self.access.refusal(a, c.hold_reasons) is None
        ]

    # --- the supervisor at the panel ----------------------------------------------------------
    #
    # With the key switch at SUP while the table holds, four keys take the supervisor's
    # decisions (docs/panel.md): HIT assigns a card nobody asked for to the hand in play, CAN
    # burns it, OK_ confirms a keyed-in card or clears a lockup, and DEA held for two seconds
    # voids the round. Each is journalled with who decided (the supervisor on the key).

    def _supervising(self) -> bool:
        role = self.access.key_role
        return (
            role is not None and self.controller.state is State.HOLD and self.access.granted(role)
        )

    def _supervisor_action(self, button: Button, held: bool) -> Action | None:
        holds = self.controller.hold_reasons
        if self.access.key_role is Role.TECHNICIAN:
            # a technician's OK_ clears a device's own lockup, and nothing else
            lockups = [h for h in holds if h.kind is HoldKind.LOCKUP]
            if button is Button.OK and lockups and technician_lockup(lockups[0]):
                return Action.CLEAR_LOCKUP
            return None
        kinds = {h.kind for h in holds}
        if button is Button.HIT and HoldKind.UNEXPECTED_CARD in kinds:
            return Action.ASSIGN_CARD
        if button is Button.CANCEL and HoldKind.UNEXPECTED_CARD in kinds:
            return Action.BURN_CARD
        if button is Button.OK:
            if any(h.kind is HoldKind.UNREADABLE_CARD and h.card is not None for h in holds):
                return Action.CONFIRM_CARD
            if HoldKind.LOCKUP in kinds and self.lockup_refusal() is None:
                return Action.CLEAR_LOCKUP
        if button is Button.DEAL and held and self.controller.dealt():
            return Action.VOID
        return None

    def _supervisor_key(self, button: Button, *, held: bool) -> None:
        role = self.access.key_role
        assert role is not None
        action = self._supervisor_action(button, held)
        if action is None:
            blocked = self.lockup_refusal() if button is Button.OK else None
            why = blocked or WhyNot(Why.KEY_DECIDES_NOTHING, role=role.value, key=button.value)
            self._push(refused(None, why, (button.value,)))
            return
        self._perform(action, {"by": self.access.who(role)}, (button.value,))

    # --- the dealer at the panel -----------------------------------------------------------------

    def _button(self, button: Button) -> None:
        if button not in self.lit:
            action = DECISION_KEYS.get(button)
            result = refused(
                action,
                why_dark(button, self.controller, self.rules.table.wagers_per_box),
                (button.value,),
            )
            log.info("input refused", button=button.value, reason=result.reason)
            self._push(result)
            self.entry.clear(refused=button)
            return
        entry = self.entry
        if entry.take(button, legacy=self.entry_outlives_holds):
            return
        action = DECISION_KEYS.get(button)
        if action is None:
            # CALL: the dealer calls a supervisor; it is noted, and is no key of a decision
            self._push(InputResult(None, True, f"{button.value} noted", (button.value,)))
            return
        keys = tuple(entry.keys) if self.entry_outlives_holds else (*entry.keys, button.value)
        if action is Action.SHUFFLE:
            self._request_shuffle(keys)
        else:
            try:
                move = entry.input_for(action, self.controller)
            except (EntryError, InputError) as bad:
                self._push(refused(action, bad.why, keys))
            else:
                self._apply(move, keys)
        entry.clear()

    def _request_shuffle(self, keys: tuple[str, ...]) -> None:
        """SHF: tell the shoe to load a new shoe; the round machine moves on once the shoe
        reports it loaded (so no card of the old shoe can be taken for a burn card)."""
        if self.controller.bets_placed():
            self._push(refused(Action.SHUFFLE, WhyNot(Why.BETS_ON_TABLE), keys))
            return
        self.shoe.shuffle_requested = True
        self._order("shoe", "new_shoe", *self._committed_cut())
        self.inputs_handled += 1
        self._push(InputResult(Action.SHUFFLE, True, "new shoe requested", keys))

    # --- the controller --------------------------------------------------------------------------

    def _perform(
        self, action: Action, data: dict[str, Any], keys: tuple[str, ...] = ()
    ) -> InputResult:
        try:
            move = parse_input(action, data)
        except InputError as bad:
            result = refused(action, bad.why, keys)
            log.info("input refused", action=action.value, reason=result.reason)
            self._count(action)
            self._push(result)
            return result
        return self._apply(move, keys)

    def _apply(self, move: Input, keys: tuple[str, ...] = ()) -> InputResult:
        """Give ``move`` to the round; what became of it is an output."""
        action = move.action
        by = move.by if isinstance(move, DECISIONS_TYPES) else None
        held = self.controller.state is State.HOLD
        try:
            self.controller.perform(move)
        except ActionRefused as refused:
            result = InputResult(action, False, refused.reason, keys, move, by, refused.why)
            log.info("input refused", action=action.value, reason=refused.reason)
        else:
            result = InputResult(action, True, "", keys, move, by)
            if isinstance(move, KeyedCard):
                self.shoe.keyed_in(move.card)  # it came out of the shoe too (its receipt)
            if not held and self.controller.state is State.HOLD and not self.entry_outlives_holds:
                # A hold interrupts whatever the dealer was keying: a box, a wager or an
                # amount keyed before it never carries into a decision after it.
                self.entry.clear()
        self._count(action)
        self._push(result)
        return result

    def _count(self, action: Action) -> None:
        if action not in (Action.CARD, Action.PEEK, Action.HOLD, Action.RESUME):
            self.inputs_handled += 1

    def _push(self, item: TableOutput) -> None:
        self.outputs.append(item)

    def _flush(self) -> None:
        self._hold_unapproved()
        for item in self.controller.drain():
            self._push(item)
            if isinstance(item, LedgerEntry):
                self.day = self.day.settled(-item.amount_cents)  # the house's win of the day
            if isinstance(item, DeviceCommand):
                self._command(item)
        if self.shoe.pushed_back is not None and not any(
            h.kind is HoldKind.REDRAW for h in self.controller.hold_reasons
        ):
            self.shoe.redraw_abandoned()  # the round was voided: the card comes out as new
        state = self.controller.state
        if state is State.HOLD and self.controller.table.resume_state is State.PEEK:
            self._peek_held = True  # the round goes back to the peek: keep what to arm
        elif state is not State.PEEK:
            self._peek_arm = None
            self._peek_held = False
        elif self._peek_held:
            # Back from a hold (a lid, a lost link): the reader may have lost its arming, so arm
            # it again for the hole card already in it, or when the card is sensed.
            self._peek_held = False
            if self._peek_arm and self.card_in_reader:
                self._order("peek", "arm_peek", self._peek_arm)
        lit = self.valid_buttons()
        if lit != self.lit:
            self.lit = lit
            self._order("panel", "light", *sorted(b.value for b in lit))
        if not self.hold_orders:
            self.send_orders()

    def _command(self, command: DeviceCommand) -> None:
        if command.command == "arm_peek":
            # The reader is armed once the hole card is in it (now, or when it is sensed).
            self._peek_arm = command.args[0]
            if self.card_in_reader:
                self._order("peek", "arm_peek", command.args[0])

    @property
    def cut_position(self) -> int:
        """The cut position this table commits every shoe to (:func:`committed_cut`)."""
        shoe = self.rules.shoe
        return committed_cut(shoe.decks, shoe.deck.size, shoe.cut_card_reserve)

    def _committed_cut(self) -> tuple[str, ...]:
        return (str(self.cut_position),) if self.commits_cut else ()

    def _cut_checked(self, device: DeviceType, event: CutCard) -> None:
        """The cut card came out: after the committed number of cards (within the tolerance of
        its kind), or a note says where it came out and where it was committed (the floor's
        surveillance page flags that shoe)."""
        if not self.commits_cut:
            return
        committed = self.cut_position
        virtual = event.kind is CutKind.VIRTUAL
        tolerance = cut_tolerance(self.rules.shoe.deck.size, virtual)
        if abs(event.draw_no - committed) <= tolerance:
            return
        kind = "virtual" if virtual else "physical"
        log.warning(
            "cut card not where committed", at=event.draw_no, committed=committed, kind=kind
        )
        self._note(
            device,
            f"cut card ({kind}) came out after card {event.draw_no}, not at the position "
            f"committed before the shoe's first card ({committed}, within {tolerance}): this "
            "shoe's shuffle point is not the one the journal holds",
        )

    def _order(self, device: str, command: str, *args: str) -> None:
        order = DeviceOrder(device, command, args)
        self._push(order)
        self._orders.append(order)

    def _set_aside(self, aside: SetAside) -> InputResult | None:
        """Apply a supervisor's :class:`SetAside`: the shoe is where the set-aside rows left it,
        and the round is void if one is open (None: no round was open, nothing to return). The
        supervisor's authority was checked where the decision was taken (the PIN on the halted
        screen), not by the key switch of this moment."""
        if aside.draw_no is not None:
            self.shoe.skip_to(aside.draw_no)
        self.shoe.set_aside += aside.cards  # (the shoe's receipt counts them)
        result = None
        if self.controller.state in (*IN_ROUND, State.HOLD):
            result = self._apply(Void(aside.by))
        self._flush()
        return result

    def _relight(self) -> None:
        """Tell the panel its lights again, as they are now."""
        self._order("panel", "light", *sorted(b.value for b in self.lit))
        self._flush()

    def memento(self) -> TableMemento:
        """A copy of everything a cause may change, for :meth:`restore` (a journalled table
        applies a cause before the journal has it, and takes it back if the journal fails)."""
        return TableMemento(
            self.controller.memento(),
            dict(vars(self)),
            dict(vars(self.access)),
            copy.deepcopy(vars(self.access.signin)),
            copy.deepcopy(vars(self.shoe)),
            copy.deepcopy(vars(self.entry)),
            len(self.outputs),
            len(self._orders),
        )

    def restore(self, memento: TableMemento) -> None:
        """Put the table back exactly as it was at :meth:`memento` (once per memento): the
        outputs and device orders made since are dropped, never sent."""
        self.controller.restore(memento.controller)
        for part, saved in (
            (self.access.signin, memento.signin),
            (self.access, memento.access),
            (self.shoe, memento.shoe),
            (self.entry, memento.entry),
            (self, memento.own),
        ):
            fields = vars(part)
            fields.clear()
            fields.update(saved)
        del self.outputs[memento.outputs :]
        del self._orders[memento.orders :]

    def send_orders(self) -> None:
        """Send the device orders made so far (a journalled table: once the journal has them)."""
        orders, self._orders = self._orders, []
        for order in orders:
            send_order(self.commands, order)

    # --- what the panel may press now ------------------------------------------------------------

    def valid_buttons(self) -> frozenset[Button]:
        if self.access.pin_pad_role() is not None:
            return frozenset({Button.OK, Button.CANCEL, Button.CALL, *DIGIT_KEYS})
        if self._supervising():
            return frozenset(
                {Button.CALL}
                | {b for b in SUPERVISOR_KEYS if self._supervisor_action(b, held=b is Button.DEAL)}
            )
        return dealer_keys(self.controller, self.rules.table.wagers_per_box)

    # --- views -----------------------------------------------------------------------------------

    @property
    def round_number(self) -> int:
        """The number of the round open now (the journal's ``round_id``)."""
        return self.controller.round_number()

    def output_mark(self) -> int:
        """A position in the table's outputs that stays valid across :meth:`trim_outputs`."""
        return self.outputs_trimmed + len(self.outputs)

    def outputs_since(self, mark: int) -> list[TableOutput]:
        """The outputs after ``mark`` (those still kept)."""
        return self.outputs[max(0, mark - self.outputs_trimmed) :]

    def trim_outputs(self, keep: int) -> None:
        """Keep only the last ``keep`` outputs in memory (the journal has every one)."""
        drop = len(self.outputs) - keep
        if drop > 0:
            del self.outputs[:drop]
            self.outputs_trimmed += drop

    def last_prompt(self) -> Prompt | None:
        for item in reversed(self.outputs):
            if isinstance(item, Prompt):
                return item
        return None

    def holding(self) -> bool:
        return self.controller.state is State.HOLD

    def key_in_needed(self) -> bool:
        return any(h.kind is HoldKind.UNREADABLE_CARD for h in self.controller.hold_reasons)
