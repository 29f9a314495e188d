"""The table: device events in, round controller in the middle, device commands out.

:class:`TableApp` is what sits on the one event queue. It turns each driver event into a round
action (a card, a peek result, a panel decision, a hold for a lost device or a lockup fault),
runs it through the :class:`~controller.round.RoundController`, and turns what the controller
emits into device commands (arm the reader, load a new shoe, light the valid buttons). It does
no I/O itself: commands go to a :class:`DeviceCommands` object, which in production is the
drivers and in tests may be anything that records them.

The dealer panel has no keyboard, so decisions are entered as short key sequences (see
``docs/panel.md``): optional box key ``B1_``..``B7_``, optional wager-position keys
``W1_``..``W3_`` (the players on the box, in the order they bet), optional amount digits keyed
like a till (``D2_ D5_ D0_`` is $2.50), then the decision key (``HIT``, ``STD``, ``DBL``,
``SPL``, ``SUR``, ``INS``, ``RES``, ``OK_``, ``UND``, ``SHF``, ``DEA``). ``CAN`` clears the
entry. A press on a button that is not lit is ignored and reported.

Supervisor and technician decisions need the key switch at ``SUP`` / ``TEC`` and, at a table
that takes PINs, that role signed in (:mod:`controller.access`): until then the panel is a PIN
pad, and the digits keyed on it are kept only until ``OK_`` (never output, logged or journalled).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import structlog

from controller.game.prompts import Prompt, PromptCode
from controller.game.rules import Variant
from controller.round.controller import DeviceCommand, Output, RoundController
from controller.round.errors import ActionRefused
from controller.round.inputs import (
    DECISIONS_TYPES,
    Decision,
    Input,
    InputError,
    KeyedCard,
    parse_input,
)
from controller.round.model import HoldKind
from controller.round.spec import SUPERVISOR_ACTIONS, Action, State
from controller.table.access import (
    DECISION_NAMES,
    KEY_ONLY,
    KEY_ROLES,
    PIN_ENTRY_MAX,
    ROLE_ACTIONS,
    ROLE_KEYS,
    AccessEvent,
    AccessPolicy,
    AttemptResult,
    PinAttempt,
    Role,
    SignIn,
    set_pin_hint,
    technician_lockup,
    when,
)
from controller.table.commands import DeviceCommands, NoDevices, send_order
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonHeld,
    ButtonPressed,
    CardDrawn,
    CardMotion,
    CardSensed,
    CutCard,
    DeviceEvent,
    DeviceIdentified,
    DeviceRefused,
    DeviceType,
    FaultCleared,
    FaultRaised,
    KeySwitch,
    LinkLost,
    LinkRestored,
    PeekResult,
    Severity,
    ShoeLoaded,
)

log = structlog.get_logger("croupier.table")

CARD_UNREADABLE = 0x10
CARD_PUSHBACK = 0x12
BETWEEN_ROUNDS = frozenset({State.BETTING, State.SHUFFLE, State.BURN, State.SETTLING})

DECISION_KEYS: dict[Button, Action] = {
    Button.HIT: Action.HIT,
    Button.STAND: Action.STAND,
    Button.DOUBLE: Action.DOUBLE,
    Button.SPLIT: Action.SPLIT,
    Button.SURRENDER: Action.SURRENDER,
    Button.INSURANCE: Action.INSURANCE,
    Button.RESCUE: Action.RESCUE,
    Button.OK: Action.OK,
    Button.UNDO: Action.UNDO,
    Button.SHUFFLE: Action.SHUFFLE,
    Button.DEAL: Action.DEAL,
}
ACTION_KEYS = {action: button for button, action in DECISION_KEYS.items()}
BOX_KEYS = [Button(f"B{n}_") for n in range(1, 8)]
WAGER_KEYS = [Button(f"W{n}_") for n in range(1, 4)]
DIGIT_KEYS = [Button(f"D{n}_") for n in range(10)]
ENTRY_STATES = {State.OFFERS, State.INSURANCE, State.SURRENDER, State.PLAYING, State.RESCUE}


@dataclass(frozen=True, slots=True)
class InputResult:
    """What became of a dealer input: accepted, or refused with the reason; ``move`` is the
    input the round was given (None when the keys made none), ``by`` who decided (a supervisor's
    or technician's decision; None for the dealer)."""

    action: Action | None
    accepted: bool
    reason: str = ""
    keys: tuple[str, ...] = ()
    move: Input | None = None
    by: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceOrder:
    """A command the table sends to a device: journalled first, then sent (journal row kind
    ``device_command``)."""

    device: str  # "shoe", "peek", "panel"
    command: str  # "arm_peek", "new_shoe", "light"
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceNote:
    """A device event worth recording that changes nothing in the round."""

    device: str
    text: str


TableOutput = Output | InputResult | DeviceNote | AccessEvent | DeviceOrder


@dataclass
class PanelEntry:
    box: int | None = None
    wagers: list[int] = field(default_factory=list)
    digits: str = ""
    keys: list[str] = field(default_factory=list)

    def clear(self) -> None:
        self.box = None
        self.wagers.clear()
        self.digits = ""
        self.keys.clear()


class TableApp:
    """One table: the round controller fed by device events."""

    def __init__(
        self,
        rules: Variant,
        commands: DeviceCommands | None = None,
        *,
        start: State = State.BURN,
        on_output: Callable[[TableOutput], None] | None = None,
        access: AccessPolicy = KEY_ONLY,
        hold_orders: bool = False,
    ) -> None:
        self.rules = rules
        self.access = access  # KEY_ONLY: the key alone (scenario runs, the simulator, tests)
        self.signin = SignIn()
        self._pin = ""  # digits keyed on the PIN pad: never output, logged or journalled
        self.controller = RoundController(rules, start=start)
        self.commands: DeviceCommands = commands if commands is not None else NoDevices()
        self.outputs: list[TableOutput] = []  # the recent ones (see trim_outputs)
        self.outputs_trimmed = 0  # outputs dropped from the front of ``outputs`` so far
        self.entry = PanelEntry()
        self.lit: frozenset[Button] = frozenset()
        self.cards_handled = 0
        self.peeks_handled = 0
        self.inputs_handled = 0
        self.card_in_reader = False
        self.shuffle_requested = False  # SHF pressed: the shoe was told to load a new shoe
        self.last_draw_no: int | None = None  # the shoe's last draw number applied
        self.unread_draws = 0  # unreadable cards since then (each leaves a gap of one)
        self._peek_arm: str | None = None
        self._peek_held = False  # a hold interrupted the peek
        self.last_card: Card | None = None  # the last card from the shoe the table applied
        self.pushed_back: Card | None = None  # applied, then pushed back into the shoe (0x12)
        self.round_end_journaled: int | None = None  # (kept by controller.journaled)
        self._on_output = on_output
        # Device orders wait here until sent: at once, or, when the table is journalled
        # (``hold_orders``), once the journal has them (:meth:`send_orders`).
        self.hold_orders = hold_orders
        self._orders: list[DeviceOrder] = []
        self._flush()
        # Nobody was told the keys yet: that is the first command once the devices are open
        # (:meth:`relight`), journalled like every other.
        self._orders.clear()

    def set_output_sink(self, sink: Callable[[TableOutput], None] | None) -> None:
        """Where each output goes as it is produced (besides ``outputs``): the journal."""
        self._on_output = sink

    # --- events ----------------------------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> None:
        """Apply one driver event. Never raises for bad input: refusals become outputs."""
        if isinstance(event, CardDrawn):
            self._drawn(event)
        elif isinstance(event, CutCard):
            self.controller.cut_card_seen()
        elif isinstance(event, ShoeLoaded):
            self._note(event.device.type, f"new shoe loaded ({event.cards_detected} cards)")
            self.last_draw_no, self.unread_draws = 0, 0
            if self.shuffle_requested:
                self.shuffle_requested = False
                self._perform(Action.SHUFFLE, {})
            elif self.controller.state not in BETWEEN_ROUNDS:
                # Nobody asked for it and a round is open: its cards so far came from the old
                # shoe, the next from the new one. A supervisor checks before play goes on.
                self._perform(
                    Action.HOLD,
                    {
                        "kind": HoldKind.LOCKUP.value,
                        "device": "shoe",
                        "detail": "SHOE_RELOADED: the shoe loaded a new shoe in the middle of "
                        f"round {self.controller.round.number}; supervisor verification",
                    },
                )
        elif isinstance(event, PeekResult):
            self._perform(Action.PEEK, {"outcome": event.outcome.value})
            self.peeks_handled += 1
        elif isinstance(event, CardSensed):
            self.card_in_reader = event.motion is CardMotion.INSERTED
            if self.card_in_reader and self._peek_arm and self.controller.state is State.PEEK:
                self._order("peek", "arm_peek", self._peek_arm)  # (again, after a U or E answer)
        elif isinstance(event, ButtonPressed):
            if self.pin_pad_role() is not None:
                self._pin_key(event.button)
            elif self._supervising():
                self._supervisor_key(event.button, held=False)
            else:
                self._button(event.button)
        elif isinstance(event, ButtonHeld) and self._supervising():
            self._supervisor_key(event.button, held=True)
        elif isinstance(event, KeySwitch):
            self.controller.set_key_position(event.position.value)
            self._note(event.device.type, f"key switch at {event.position.value}")
            self._pin = ""
            if self.signin.role is not None and KEY_ROLES.get(event.position.value) is not (
                self.signin.role
            ):
                self.sign_out(f"the key turned to {event.position.value}")
        elif isinstance(event, FaultRaised):
            self._fault(event)
        elif isinstance(event, FaultCleared):
            self._note(event.device.type, f"fault cleared: {event.name}")
        elif isinstance(event, (LinkLost, DeviceRefused)):
            what = "link lost" if isinstance(event, LinkLost) else "refused"
            self._perform(
                Action.HOLD,
                {
                    "kind": HoldKind.DEVICE_LOST.value,
                    "detail": f"{event.device.type.label} {what}",
                    "device": event.device.type.label,
                },
            )
        elif isinstance(event, LinkRestored):
            self._device_back(event.device.type.label)
        elif isinstance(event, DeviceIdentified):
            self._note(
                event.device.type,
                f"identified: {event.model} {event.serial} fw {event.fw_version} ({event.fw_hash})",
            )
            # A restarted controller meets the device anew: identified is as good as restored
            # for a hold the journal carried over.
            self._device_back(event.device.type.label)
        else:
            self._note(event.device.type, type(event).__name__)
        self._flush()

    def _drawn(self, event: CardDrawn) -> None:
        """A card from the shoe, checked against the shoe's draw numbers: one more than the last
        (plus one per unreadable card). An old number is a repeat and is not applied again; a
        jump means cards left the shoe unseen, and the table locks up for a supervisor's check
        instead of guessing (the card itself then waits, as a card nobody asked for)."""
        last = self.last_draw_no
        if last is not None and event.draw_no <= last:
            self._note(
                DeviceType.SHOE,
                f"card {event.card} of draw {event.draw_no} seen "
                f"before (last draw {last}): not applied again",
            )
            return
        if self.pushed_back is not None and event.card == self.pushed_back:
            # The card the shoe pushed back comes out again: it was dealt already, so it goes
            # where it went the first time and is not applied a second time.
            self.last_draw_no = event.draw_no
            self.unread_draws = 0
            self.pushed_back = None
            self._note(
                DeviceType.SHOE,
                f"card {event.card} drawn again after its pushback (draw {event.draw_no}): "
                "already dealt, not applied again",
            )
            self._perform(Action.RESUME, {"kind": HoldKind.REDRAW.value, "device": "shoe"})
            return
        if last is not None and event.draw_no > last + 1 + self.unread_draws:
            missing = event.draw_no - last - 1 - self.unread_draws
            self._perform(
                Action.HOLD,
                {
                    "kind": HoldKind.LOCKUP.value,
                    "device": "shoe",
                    "detail": f"DRAW_GAP: {missing} card(s) left the shoe "
                    f"unseen before draw {event.draw_no}; supervisor "
                    "verification",
                },
            )
        self.last_draw_no = event.draw_no
        self.unread_draws = 0
        result = self._perform(Action.CARD, {"card": event.card})
        self.last_card = event.card if result.accepted else None
        self.cards_handled += 1  # (a repeat is not counted: it is not a new card)

    def _device_back(self, label: str) -> None:
        """Clear the hold for a lost device, if the table holds for it (restored, or identified
        again: whichever the drivers report first)."""
        held = [h for h in self.controller.hold_reasons if h.kind is HoldKind.DEVICE_LOST]
        if any(h.device == label for h in held):
            self._perform(Action.RESUME, {"kind": HoldKind.DEVICE_LOST.value, "device": label})

    def _fault(self, event: FaultRaised) -> None:
        device = event.device.type.label
        self._note(event.device.type, f"fault raised: {event.name} ({event.severity.value})")
        if event.code == CARD_UNREADABLE:
            self.unread_draws += 1
            self._perform(
                Action.HOLD,
                {
                    "kind": HoldKind.UNREADABLE_CARD.value,
                    "detail": "the shoe could not read a card: key it in",
                    "device": device,
                },
            )
        elif event.severity is Severity.LOCKUP:
            pushed = self.last_card if event.code == CARD_PUSHBACK else None
            self._perform(
                Action.HOLD,
                {
                    "kind": HoldKind.LOCKUP.value,
                    "detail": f"{device} lockup {event.name}"
                    + ("" if pushed is None else f": {pushed} went back into the shoe"),
                    "device": device,
                },
            )
            if pushed is not None and self.pushed_back is None:
                # The card was applied before the shoe pushed it back: it stays dealt, and the
                # table holds until it is drawn again (or the round is voided).
                self.pushed_back = pushed
                self._perform(
                    Action.HOLD,
                    {
                        "kind": HoldKind.REDRAW.value,
                        "detail": f"draw {pushed} again: it is dealt already and goes where it "
                        "went the first time",
                        "device": device,
                    },
                )

    def _note(self, device: DeviceType, text: str) -> None:
        self._push(DeviceNote(device.label, text))

    # --- dealer input (panel buttons, or the display) --------------------------------------------

    def place_bet(self, box: int, player: str, amount_cents: int) -> InputResult:
        """Record a bet (from the display or a scripted session)."""
        result = self._perform(
            Action.BET, {"box": box, "player": player, "amount_cents": amount_cents}
        )
        self._flush()
        return result

    def supervisor(self, action: Action, **data: Any) -> InputResult:
        """:meth:`decide` ``action`` with ``data`` (a script's or a test's loose data)."""
        try:
            move = parse_input(action, data)
        except InputError as bad:
            result = InputResult(action, False, str(bad))
            self._push(result)
            self._flush()
            return result
        assert isinstance(move, (*DECISIONS_TYPES, KeyedCard)), move
        return self.decide(move)

    def decide(self, move: Decision | KeyedCard) -> InputResult:
        """A supervisor's (or technician's) decision, or the dealer's keyed-in card. A decision
        needs the key switch at SUP (TEC: a technician's) and, at a table that takes PINs, that
        role signed in; who decided is then the signed-in person, whatever ``by`` says."""
        action = move.action
        refusal = self._access_refusal(action)
        if refusal is not None:
            result = InputResult(action, False, refusal, move=move)
            log.info("input refused", action=action.value, reason=refusal)
            self._push(result)
        else:
            role = KEY_ROLES.get(self.controller.table.key_position)
            if isinstance(move, Decision) and self.access.pins_required and role is not None:
                move = replace(move, by=self._who(role))
            result = self._apply(move)
        self._flush()
        return result

    # --- roles and PINs (controller.access) ------------------------------------------------------

    def pin_pad_role(self) -> Role | None:
        """The role whose PIN the panel takes now: the key is at its position, the table takes
        PINs, and that role is not signed in."""
        role = KEY_ROLES.get(self.controller.table.key_position)
        if role is None or not self.access.pins_required or self.signin.role is role:
            return None
        return role

    def pin_keyed(self) -> int:
        """How many digits are keyed on the PIN pad (what the display shows as dots)."""
        return len(self._pin)

    def check_pin(self, pin: str | None = None, *, source: str = "panel") -> PinAttempt:
        """The outcome of a PIN attempt (``pin``, or the digits keyed on the panel), without
        applying it. The PIN is checked only when it may count: never for a locked role."""
        text = self._pin if pin is None else pin
        policy = self.access
        role = KEY_ROLES.get(self.controller.table.key_position)
        at = policy.clock()
        if role is None:
            result = AttemptResult.NO_KEY
        elif not policy.pins_required:
            result = AttemptResult.NOT_NEEDED
        elif self.signin.role is role:
            result = AttemptResult.ALREADY
        elif not policy.has_pin(role):
            result = AttemptResult.NO_PIN
        elif self.signin.locked_until(role, at) is not None:
            result = AttemptResult.LOCKED
        else:
            right = policy.verify(role, text)
            result = AttemptResult.RIGHT if right else AttemptResult.WRONG
        return PinAttempt(
            role,
            result,
            at,
            source,
            name=policy.name(role) if role is not None else "",
            max_wrong_pins=policy.max_wrong_pins,
            lockout_seconds=policy.lockout_seconds,
        )

    def apply_pin(self, attempt: PinAttempt) -> AccessEvent:
        """Apply an attempt's outcome (live, or replayed from the journal); the last event."""
        self._pin = ""
        events = self.signin.apply(attempt)
        for event in events:
            self._push(event)
            if not event.accepted:
                log.info("sign-in refused", role=event.role, access=event.event)
        self._flush()
        return events[-1]

    def require_pins(self, required: bool) -> None:
        """From now on decisions need (or no longer need) a PIN besides the key: the table
        journals when its policy changes, so a journal written before PINs replays as it was."""
        if required is self.access.pins_required:
            return
        self.access = replace(self.access, pins_required=required)
        self._pin = ""
        signed_out = None if required else self.signin.sign_out("PINs are no longer required")
        if signed_out is not None:
            self._push(signed_out)
        text = (
            "supervisor and technician decisions need the key and that role's PIN"
            if required
            else "supervisor and technician decisions need the key alone"
        )
        self._push(AccessEvent(None, "policy", True, text))
        self._flush()

    def enter_pin(self, pin: str, *, source: str = "display") -> AccessEvent:
        """Check and apply a PIN in one step (a table without a journal)."""
        return self.apply_pin(self.check_pin(pin, source=source))

    def sign_out(self, reason: str) -> AccessEvent | None:
        event = self.signin.sign_out(reason)
        if event is not None:
            self._push(event)
            self._flush()
        return event

    def _who(self, role: Role) -> str:
        if self.access.pins_required and self.signin.role is role:
            return self.signin.who()
        return f"{role.value} (key)"

    def _granted(self, role: Role) -> bool:
        return not self.access.pins_required or self.signin.role is role

    def _access_refusal(self, action: Action) -> str | None:
        """Why the role on the key may not take ``action`` now (None: it may, as far as access
        goes; the round decides the rest). The dealer's actions need nothing."""
        if action not in SUPERVISOR_ACTIONS:
            return None
        role = KEY_ROLES.get(self.controller.table.key_position)
        if role is None:
            return None  # the round refuses it: "needs the supervisor key"
        if action not in ROLE_ACTIONS[role] or (
            role is Role.TECHNICIAN and not self._technician_lockup()
        ):
            return (
                f"a {role.value} may clear only a device's hardware lockup; "
                f"{DECISION_NAMES[action].replace('_', ' ')} needs the supervisor "
                "(key at SUP and the supervisor PIN)"
            )
        if self._granted(role):
            return None
        if not self.access.has_pin(role):
            return set_pin_hint(role)
        # (no clock here: a replay, at another time, must refuse with the same words)
        until = self.signin.locks[role].locked_until
        locked = "" if until is None else f"; wrong PINs locked it until {when(until)}"
        return (
            f"enter the {role.value} PIN: digits D0_-D9_ then OK_ on the panel with the key at "
            f"{ROLE_KEYS[role]}, or the PIN field on the display{locked}"
        )

    def _technician_lockup(self) -> bool:
        """Whether the lockup a clear would clear (the first) is a technician's."""
        lockups = [h for h in self.controller.hold_reasons if h.kind is HoldKind.LOCKUP]
        return bool(lockups) and technician_lockup(lockups[0])

    def _pin_key(self, button: Button) -> None:
        """A key on the PIN pad: a digit, CAN (clear) or OK_ (sign in). Digits make no output."""
        if button in DIGIT_KEYS:
            if len(self._pin) < PIN_ENTRY_MAX:
                self._pin += str(DIGIT_KEYS.index(button))
            return
        if button is Button.CANCEL:
            self._pin = ""
            return
        if button is Button.CALL:
            self._button(button)
            return
        role = self.pin_pad_role()
        assert role is not None
        if button is Button.OK and self._pin:
            self.apply_pin(self.check_pin(source="panel"))
            return
        reason = (
            f"enter the {role.value} PIN first: digits D0_-D9_, then OK_ (CAN clears)"
            if button is not Button.OK
            else f"key in the {role.value} PIN digits first, then OK_"
        )
        self._push(InputResult(DECISION_KEYS.get(button), False, reason, (button.value,)))

    def supervisor_choices(self) -> list[str]:
        """The decisions the role on the key may take now (the display's supervisor buttons):
        names of :data:`controller.access.DECISIONS`."""
        role = KEY_ROLES.get(self.controller.table.key_position)
        if role is None or not self._granted(role):
            return []
        c = self.controller
        holds = c.hold_reasons if c.state is State.HOLD else []
        kinds = {h.kind for h in holds}
        choices: list[Action] = []
        if HoldKind.UNEXPECTED_CARD in kinds and c.table.resume_state is State.PLAYING:
            choices.append(Action.ASSIGN_CARD)
        if HoldKind.UNEXPECTED_CARD in kinds:
            choices.append(Action.BURN_CARD)
        if any(h.kind is HoldKind.UNREADABLE_CARD and h.card is not None for h in holds):
            choices.append(Action.CONFIRM_CARD)
        if HoldKind.LOCKUP in kinds:
            choices.append(Action.CLEAR_LOCKUP)
        if Action.VOID in c.allowed_actions() and any(b.hands for b in c.round.boxes.values()):
            choices.append(Action.VOID)
        return [DECISION_NAMES[a] for a in choices if self._access_refusal(a) is None]

    # --- the supervisor at the panel ----------------------------------------------------------
    #
    # With the key switch at SUP while the table holds, four keys take the supervisor's
    # decisions (docs/panel.md): HIT assigns a card nobody asked for to the hand in play, CAN
    # burns it, OK_ confirms a keyed-in card or clears a lockup, and DEA held for two seconds
    # voids the round. Each is journalled with who decided (the supervisor on the key).

    def _supervising(self) -> bool:
        role = KEY_ROLES.get(self.controller.table.key_position)
        return role is not None and self.controller.state is State.HOLD and self._granted(role)

    def _supervisor_action(self, button: Button, held: bool) -> Action | None:
        if KEY_ROLES.get(self.controller.table.key_position) is Role.TECHNICIAN:
            # a technician's OK_ clears a device's own lockup, and nothing else
            if button is Button.OK and self._technician_lockup():
                return Action.CLEAR_LOCKUP
            return None
        holds = {h.kind for h in self.controller.hold_reasons}
        if button is Button.HIT and HoldKind.UNEXPECTED_CARD in holds:
            return Action.ASSIGN_CARD
        if button is Button.CANCEL and HoldKind.UNEXPECTED_CARD in holds:
            return Action.BURN_CARD
        if button is Button.OK:
            keyed = any(
                h.kind is HoldKind.UNREADABLE_CARD and h.card is not None
                for h in self.controller.hold_reasons
            )
            if keyed:
                return Action.CONFIRM_CARD
            if HoldKind.LOCKUP in holds:
                return Action.CLEAR_LOCKUP
        if (
            button is Button.DEAL
            and held
            and any(b.hands for b in self.controller.round.boxes.values())
        ):
            return Action.VOID
        return None

    def _supervisor_key(self, button: Button, *, held: bool) -> None:
        role = KEY_ROLES[self.controller.table.key_position]
        action = self._supervisor_action(button, held)
        if action is None:
            reason = f"with the {role.value} key, {button.value} decides nothing now"
            self._push(InputResult(None, False, reason, (button.value,)))
            return
        self._perform(action, {"by": self._who(role)}, (button.value,))

    def _button(self, button: Button) -> None:
        if button not in self.lit:
            action = DECISION_KEYS.get(button)
            why = self.controller.why_not(action) if action is not None else None
            reason = why or f"button {button.value} is not lit: ignored"
            log.info("input refused", button=button.value, reason=reason)
            self._push(InputResult(action, False, reason, (button.value,)))
            self.entry.clear()
            return
        entry = self.entry
        entry.keys.append(button.value)
        if button is Button.CANCEL:
            entry.clear()
            return
        if button in BOX_KEYS:
            entry.box = BOX_KEYS.index(button) + 1
            return
        if button in WAGER_KEYS:
            entry.wagers.append(WAGER_KEYS.index(button) + 1)
            return
        if button in DIGIT_KEYS:
            entry.digits += str(DIGIT_KEYS.index(button))
            return
        action = DECISION_KEYS.get(button)
        if action is None:
            self._push(InputResult(None, True, f"{button.value} noted", (button.value,)))
            return
        keys = tuple(entry.keys)
        if action is Action.SHUFFLE:
            self._request_shuffle(keys)
            entry.clear()
            return
        try:
            data = self._entry_data(action)
        except ActionRefused as refused:
            self._push(InputResult(action, False, refused.reason, keys))
        else:
            self._perform(action, data, keys)
        entry.clear()

    def _request_shuffle(self, keys: tuple[str, ...]) -> None:
        """SHF: tell the shoe to load a new shoe; the round machine moves on once the shoe
        reports it loaded (so no card of the old shoe can be taken for a burn card)."""
        if self.controller.round.boxes:
            self._push(
                InputResult(
                    Action.SHUFFLE, False, "bets are on the table: settle or clear them first", keys
                )
            )
            return
        self.shuffle_requested = True
        self._order("shoe", "new_shoe")
        self.inputs_handled += 1
        self._push(InputResult(Action.SHUFFLE, True, "new shoe requested", keys))

    def _entry_data(self, action: Action) -> dict[str, Any]:
        entry = self.entry
        data: dict[str, Any] = {}
        round_ = self.controller.round
        box_no = entry.box
        if box_no is None and round_.turn is not None:
            box_no = round_.turn[0]
        if box_no is not None:
            data["box"] = box_no
        players: list[str] = []
        if entry.wagers:
            box = round_.boxes.get(box_no or 0)
            for position in entry.wagers:
                if box is None or position > len(box.wagers):
                    raise ActionRefused(
                        action,
                        self.controller.state,
                        f"no wager at position W{position} on box {box_no}",
                    )
                players.append(box.wagers[position - 1].player)
        if entry.digits:
            data["amount_cents"] = int(entry.digits)
        if action is Action.DOUBLE and players:
            data["players"] = players
        elif action in (Action.INSURANCE, Action.RESCUE) and players:
            data["player"] = players[0]
        return data

    # --- the controller --------------------------------------------------------------------------

    def _perform(
        self, action: Action, data: dict[str, Any], keys: tuple[str, ...] = ()
    ) -> InputResult:
        try:
            move = parse_input(action, data)
        except InputError as bad:
            result = InputResult(action, False, str(bad), keys)
            log.info("input refused", action=action.value, reason=result.reason)
            self._count(action)
            self._push(result)
            return result
        return self._apply(move, keys)

    def _apply(self, move: Input, keys: tuple[str, ...] = ()) -> InputResult:
        """Give ``move`` to the round; what became of it is an output."""
        action = move.action
        by = move.by if isinstance(move, DECISIONS_TYPES) else None
        try:
            self.controller.perform(move)
        except ActionRefused as refused:
            result = InputResult(action, False, refused.reason, keys, move, by)
            log.info("input refused", action=action.value, reason=refused.reason)
        else:
            result = InputResult(action, True, "", keys, move, by)
        self._count(action)
        self._push(result)
        return result

    def _count(self, action: Action) -> None:
        if action not in (Action.CARD, Action.PEEK, Action.HOLD, Action.RESUME):
            self.inputs_handled += 1

    def _push(self, item: TableOutput) -> None:
        self.outputs.append(item)
        if self._on_output is not None:
            self._on_output(item)

    def _flush(self) -> None:
        for item in self.controller.drain():
            self._push(item)
            if isinstance(item, DeviceCommand):
                self._command(item)
        if self.pushed_back is not None and not any(
            h.kind is HoldKind.REDRAW for h in self.controller.hold_reasons
        ):
            self.pushed_back = None  # the round was voided: the card comes out as a new one
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

    def _order(self, device: str, command: str, *args: str) -> None:
        order = DeviceOrder(device, command, args)
        self._push(order)
        self._orders.append(order)

    def relight(self) -> None:
        """Tell the panel its lights again, as they are now."""
        self._order("panel", "light", *sorted(b.value for b in self.lit))
        self._flush()

    def send_orders(self) -> None:
        """Send the device orders made so far (a journalled table: once the journal has them)."""
        orders, self._orders = self._orders, []
        for order in orders:
            send_order(self.commands, order)

    # --- what the panel may press now ------------------------------------------------------------

    def valid_buttons(self) -> frozenset[Button]:
        c = self.controller
        if self.pin_pad_role() is not None:
            return frozenset({Button.OK, Button.CANCEL, Button.CALL, *DIGIT_KEYS})
        if self._supervising():
            keys = (Button.HIT, Button.CANCEL, Button.OK, Button.DEAL)
            return frozenset(
                {Button.CALL}
                | {b for b in keys if self._supervisor_action(b, held=b is Button.DEAL)}
            )
        allowed = c.allowed_actions()
        lit: set[Button] = {Button.CALL, Button.CANCEL}
        for action, button in ACTION_KEYS.items():
            if action not in allowed:
                continue
            if action in (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT) and not c.can(
                action
            ):
                continue
            if action is Action.DEAL and not c.round.boxes:
                continue  # no more bets: there must be bets first
            if action is Action.SHUFFLE and c.round.boxes:
                continue  # a shuffle waits until the bets are settled or cleared
            lit.add(button)
        if c.state in ENTRY_STATES:
            lit.update(BOX_KEYS[n - 1] for n in c.round.boxes)
            lit.update(WAGER_KEYS[: self.rules.table.wagers_per_box])
            lit.update(DIGIT_KEYS)
        return frozenset(lit)

    # --- views -----------------------------------------------------------------------------------

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

    def prompts(self) -> list[Prompt]:
        return [o for o in self.outputs if isinstance(o, Prompt)]

    def last_prompt(self) -> Prompt | None:
        for item in reversed(self.outputs):
            if isinstance(item, Prompt):
                return item
        return None

    def holding(self) -> bool:
        return self.controller.state is State.HOLD

    def key_in_needed(self) -> bool:
        return any(h.kind is HoldKind.UNREADABLE_CARD for h in self.controller.hold_reasons)


def keys_for(action: Action, data: dict[str, Any], box_players: list[str]) -> list[Button]:
    """The panel keys that enter ``action`` with ``data`` (the scenario runner's fingers)."""
    keys: list[Button] = []
    box = data.get("box")
    if isinstance(box, int) and 1 <= box <= len(BOX_KEYS):
        keys.append(BOX_KEYS[box - 1])
    players: list[str] = []
    if action is Action.DOUBLE and data.get("players") is not None:
        players = list(data["players"])
    elif action in (Action.INSURANCE, Action.RESCUE) and data.get("player"):
        players = [str(data["player"])]
    for player in players:
        if player in box_players:
            keys.append(WAGER_KEYS[box_players.index(player)])
    amount = data.get("amount_cents")
    if isinstance(amount, int) and amount > 0:
        keys.extend(DIGIT_KEYS[int(d)] for d in str(amount))
    keys.append(ACTION_KEYS[action])
    return keys


def is_prompt(item: TableOutput, code: PromptCode) -> bool:
    return isinstance(item, Prompt) and item.code is code
