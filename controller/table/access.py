"""Who may take a supervisor's or a technician's decision: the key switch, and a PIN.

Three roles work at a table: the dealer (the panel with its key at ``RUN``), the supervisor
(key at ``SUP``) and the technician (key at ``TEC``). At a table that takes PINs
(:func:`pin_policy`, what ``croupier run`` uses) the key alone is not enough: with the key at
``SUP`` or ``TEC`` the panel is a PIN pad until that role signs in (digits ``D0_``..``D9_`` then
``OK_``, or a ``pin`` message from the dealer's display), and the sign-in lasts until the key
leaves that position (or the table restarts).

What each role may decide (:data:`ROLE_ACTIONS`):

- the supervisor: every supervisor decision - assign or burn a card nobody asked for, confirm a
  keyed-in card, clear a lockup, void the round;
- the technician: clear the lockup of a device's hardware fault (:data:`TECHNICIAN_FAULTS`: a
  failed lamp, an overflowed event queue, a memory check failure), once the device is put
  right; nothing that moves money or decides which cards count or whether a device can be
  trusted: not the card lockups (``CARD_PUSHBACK``, ``CARD_UNEXPECTED``,
  ``CARD_OVER_INVENTORY``, a draw-number gap, a reader that disagrees with the hole card), not
  ``CASE_TAMPER`` or ``FW_SIGNATURE_FAIL``, no void, no card decision;
- the dealer keys in a card the shoe could not read; a supervisor confirms it.

PINs are kept as salted scrypt hashes in the table file (``[supervisor] pin_hash``,
``[technician] pin_hash``; ``croupier passwd --pin ROLE``). ``max_wrong_pins`` wrong PINs in a row
(``[access]``, default 5) lock the role for ``lockout_seconds``: every attempt is then refused,
a right PIN too, and not even checked. The clock is the wall clock and each attempt's time is
journalled, so a restart (which replays the journal) keeps the lockout.

The table never journals or logs a PIN. What it journals for an attempt is its *outcome*
(:class:`PinAttempt`: the role, right / wrong / locked..., when, and the limits in force), as a
cause that the replay applies without the PIN; what it tells the dealer is an
:class:`AccessEvent` (journal row kind ``access``).

:data:`KEY_ONLY` is the key switch alone, as before PINs: for scenario runs, the simulator and
tests that drive a table directly; never for ``croupier run``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from controller.game.holds import HoldCause, HoldKind, HoldReason
from controller.game.refusals import Why, WhyNot
from controller.game.told import Tell, Told
from controller.game.words import call_words, key_only_words, refusal_words, signed_in_words
from controller.round.spec import DECISION_NAMES, SUPERVISOR_ACTIONS, Action
from controller.table.config import TableConfig, verify_secret
from controller.table.people import DealerSignIn
from controller.table.pepper import Pepper
from controller.table.staff import NO_STAFF, Staff
from drivers.tbl21.faults import FaultCode


class Role(StrEnum):
    SUPERVISOR = "supervisor"
    TECHNICIAN = "technician"


KEY_ROLES: dict[str, Role] = {"SUP": Role.SUPERVISOR, "TEC": Role.TECHNICIAN}
ROLE_KEYS: dict[Role, str] = {role: key for key, role in KEY_ROLES.items()}
ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.SUPERVISOR: SUPERVISOR_ACTIONS,
    Role.TECHNICIAN: frozenset({Action.CLEAR_LOCKUP}),
}
# Device faults of lockup severity that are a technician's to clear: hardware, not the cards and
# not tampering (drivers.tbl21.faults).
TECHNICIAN_FAULTS = frozenset(
    f.name for f in (FaultCode.LAMP_FAIL, FaultCode.QUEUE_OVERFLOW, FaultCode.MEMORY_CRC_FAIL)
)

PIN_ENTRY_MAX = 16  # digits kept from the panel; more are ignored (and the PIN is wrong)
DEFAULT_MAX_WRONG_PINS = 5
DEFAULT_LOCKOUT_SECONDS = 300


class AttemptResult(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    LOCKED = "locked"  # refused unchecked: the role is locked out
    NO_PIN = "no_pin"  # the table file sets no PIN for the role
    NO_KEY = "no_key"  # the key is at RUN: no role to sign in
    ALREADY = "already"  # that role is signed in already
    NOT_NEEDED = "not_needed"  # a table without PINs (KEY_ONLY)
    NEED_STAFF = "need_staff"  # the role signs in person by person: no staff number was given
    NO_STAFF = "no_staff"  # a staff number for a role that signs in with the table's role PIN


@dataclass(frozen=True, slots=True)
class PinAttempt:
    """The outcome of one PIN attempt (never the PIN): the cause the journal keeps and a replay
    applies. ``at`` is wall-clock seconds; the limits are the ones in force then."""

    role: Role | None
    result: AttemptResult
    at: float
    source: str  # "panel" or "display"
    name: str = ""  # who the role is at this table (the table file's name)
    max_wrong_pins: int = DEFAULT_MAX_WRONG_PINS
    lockout_seconds: int = DEFAULT_LOCKOUT_SECONDS
    # the staff number given (a person of the staff file; "unknown" for a number nobody has:
    # a PIN keyed into the wrong field is never journalled); "" for the role's shared PIN
    staff_id: str = ""

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> PinAttempt:
        """An attempt as journals before software 0.2 wrote it (``{"method": "pin", ...}``)."""
        role = payload.get("role")
        return cls(
            None if role is None else Role(role),
            AttemptResult(payload["result"]),
            float(payload["at"]),
            str(payload["source"]),
            str(payload.get("name", "")),
            int(payload["max_wrong_pins"]),
            int(payload["lockout_seconds"]),
        )


@dataclass(frozen=True, slots=True)
class SignOut:
    """Whoever is signed in signs out (the table restarted, the key turned)."""

    reason: str


@dataclass(frozen=True, slots=True)
class RequirePins:
    """From now on decisions need (or no longer need) a PIN besides the key."""

    required: bool


@dataclass(frozen=True, slots=True)
class AccessEvent:
    """What became of a sign-in, a lockout or a sign-out (journal row kind ``access``)."""

    role: str | None
    event: str  # signed_in, wrong_pin, locked, refused, signed_out, policy
    accepted: bool
    text: str  # what the dealer is told
    source: str = ""
    wrong_in_a_row: int = 0
    locked_until: float | None = None  # wall-clock seconds


@dataclass(frozen=True)
class AccessPolicy:
    """Whether supervisor and technician decisions need a PIN besides the key, and the PINs."""

    pins_required: bool
    pin_hashes: Mapping[Role, str | None] = field(default_factory=dict)
    names: Mapping[Role, str] = field(default_factory=dict)
    max_wrong_pins: int = DEFAULT_MAX_WRONG_PINS
    lockout_seconds: int = DEFAULT_LOCKOUT_SECONDS
    clock: Callable[[], float] = time.time
    pepper: Pepper | None = None  # what peppered PIN hashes were made with
    staff: Staff = NO_STAFF  # each person's staff number and PIN (controller.table.staff)

    def by_person(self, role: Role) -> bool:
        """The role signs in person by person (the staff file names someone of it), never with
        the table file's shared role PIN."""
        return bool(self.staff.of(role.value))

    def has_pin(self, role: Role) -> bool:
        return self.by_person(role) or self.pin_hashes.get(role) is not None

    def verify(self, role: Role, pin: str) -> bool:
        stored = self.pin_hashes.get(role)
        if stored is None or not pin.isdigit() or len(pin) > PIN_ENTRY_MAX:
            return False
        return verify_secret(pin, stored, self.pepper)

    def name(self, role: Role) -> str:
        return self.names.get(role, role.value)


KEY_ONLY = AccessPolicy(pins_required=False)


def pin_policy(
    config: TableConfig,
    clock: Callable[[], float] = time.time,
    pepper: Pepper | None = None,
    staff: Staff = NO_STAFF,
) -> AccessPolicy:
    """The table file's PINs and limits: what ``croupier run`` enforces (``pepper``: the
    table's, for PIN hashes made with it; ``staff``: the people who sign in one by one)."""
    return AccessPolicy(
        pins_required=True,
        pin_hashes={
            Role.SUPERVISOR: config.supervisor.pin_hash,
            Role.TECHNICIAN: config.technician.pin_hash,
        },
        names={Role.SUPERVISOR: config.supervisor.name, Role.TECHNICIAN: config.technician.name},
        max_wrong_pins=config.access.max_wrong_pins,
        lockout_seconds=config.access.lockout_seconds,
        clock=clock,
        pepper=pepper,
        staff=staff,
    )


@dataclass
class RoleLock:
    wrong: int = 0  # wrong PINs in a row
    locked_until: float | None = None


@dataclass
class SignIn:
    """Who is signed in, and each role's wrong PINs and lockout: rebuilt by the journal's
    replay exactly as it was (every change comes from a journalled cause)."""

    role: Role | None = None
    name: str = ""
    staff_id: str = ""  # the person signed in ("": the role's shared PIN)
    locks: dict[Role, RoleLock] = field(default_factory=lambda: {r: RoleLock() for r in Role})

    def locked_until(self, role: Role, at: float) -> float | None:
        until = self.locks[role].locked_until
        return until if until is not None and at < until else None

    def who(self) -> str:
        assert self.role is not None
        return signed_in_words(self.role.value, self.name, self.staff_id)

    def apply(self, attempt: PinAttempt) -> list[AccessEvent]:
        """Apply an attempt's outcome; what to tell the dealer and journal."""
        role, result = attempt.role, attempt.result
        label = "" if role is None else role.value

        def refused(why: WhyNot, **extra: Any) -> list[AccessEvent]:
            text = refusal_words(why)
            return [AccessEvent(label or None, "refused", False, text, attempt.source, **extra)]

        if role is None or result is AttemptResult.NO_KEY:
            return refused(WhyNot(Why.ACCESS_NO_KEY))
        if result is AttemptResult.NOT_NEEDED:
            return refused(WhyNot(Why.ACCESS_NOT_NEEDED))
        if result is AttemptResult.ALREADY:
            return refused(WhyNot(Why.ACCESS_ALREADY, role=label))
        if result is AttemptResult.NO_PIN:
            return refused(WhyNot(Why.NO_PIN_SET, role=label))
        if result is AttemptResult.NEED_STAFF:
            return refused(WhyNot(Why.ACCESS_NEED_STAFF, role=label))
        if result is AttemptResult.NO_STAFF:
            return refused(WhyNot(Why.ACCESS_NO_STAFF, role=label))
        by_staff = bool(attempt.staff_id)
        lock = self.locks[role]
        if lock.locked_until is not None and attempt.at >= lock.locked_until:
            lock.locked_until, lock.wrong = None, 0  # the lockout is over
        if result is AttemptResult.LOCKED:
            until = lock.locked_until if lock.locked_until is not None else attempt.at
            why = WhyNot(
                Why.PIN_LOCKED,
                role=label,
                until=until,
                seconds=until - attempt.at,
                number=attempt.max_wrong_pins,
            )
            return refused(why, locked_until=until)
        if result is AttemptResult.RIGHT:
            lock.wrong = 0
            self.role, self.name = role, attempt.name or label
            self.staff_id = attempt.staff_id
            key = ROLE_KEYS[role]
            return [
                AccessEvent(
                    label,
                    "signed_in",
                    True,
                    call_words(Told(Tell.SIGNED_IN, label, self.name, self.staff_id, key)),
                    attempt.source,
                )
            ]
        lock.wrong += 1
        if lock.wrong < attempt.max_wrong_pins:
            left = attempt.max_wrong_pins - lock.wrong
            return [
                AccessEvent(
                    label,
                    "wrong_pin",
                    False,
                    refusal_words(
                        WhyNot(
                            Why.WRONG_PIN,
                            role=label,
                            by_staff=by_staff,
                            number=left,
                            seconds=attempt.lockout_seconds,
                        )
                    ),
                    attempt.source,
                    wrong_in_a_row=lock.wrong,
                )
            ]
        wrong, lock.wrong = lock.wrong, 0
        lock.locked_until = attempt.at + attempt.lockout_seconds
        return [
            AccessEvent(
                label,
                "wrong_pin",
                False,
                refusal_words(
                    WhyNot(Why.WRONG_PINS_IN_A_ROW, role=label, by_staff=by_staff, number=wrong)
                ),
                attempt.source,
                wrong_in_a_row=wrong,
            ),
            AccessEvent(
                label,
                "locked",
                False,
                refusal_words(
                    WhyNot(
                        Why.PIN_LOCKED_NOW,
                        role=label,
                        until=lock.locked_until,
                        seconds=attempt.lockout_seconds,
                        number=wrong,
                    )
                ),
                attempt.source,
                wrong_in_a_row=wrong,
                locked_until=lock.locked_until,
            ),
        ]

    def sign_out(self, reason: str) -> AccessEvent | None:
        if self.role is None:
            return None
        role, name, staff_id = self.role, self.name, self.staff_id
        self.role, self.name, self.staff_id = None, "", ""
        return AccessEvent(
            role.value,
            "signed_out",
            True,
            call_words(Told(Tell.SIGNED_OUT, role.value, name, staff_id, reason=reason)),
        )


def technician_lockup(hold: HoldReason) -> bool:
    """A lockup a technician may clear: the table's ``"<device> lockup <fault>"`` hold for one
    of :data:`TECHNICIAN_FAULTS` (not a card or tamper fault, a draw-number gap or a reader that
    disagrees with the hole card)."""
    return (
        hold.kind is HoldKind.LOCKUP
        and hold.device is not None
        and hold.cause is HoldCause.DEVICE_FAULT
        and hold.fault in TECHNICIAN_FAULTS
    )


class PinPadKey(StrEnum):
    """What a key on the PIN pad did."""

    KEPT = "kept"  # a digit, or CAN: nothing to tell
    DEALER = "dealer"  # CAL: the dealer's key as ever
    ATTEMPT = "attempt"  # OK_ after digits: check the PIN
    REFUSED = "refused"  # any other key: the PIN first


class AccessControl:
    """The key switch, the PIN pad and who is signed in: who may decide what, now.

    The round takes whatever decision it is given; the table asks here first. Every change
    comes from a journalled cause (a key-switch event, a PIN attempt's outcome, a sign-out, a
    change of policy), so a replay rebuilds it exactly."""

    def __init__(self, policy: AccessPolicy = KEY_ONLY) -> None:
        self.policy = policy  # KEY_ONLY: the key alone (scenario runs, the simulator, tests)
        self.signin = SignIn()
        self.key = "RUN"  # the key switch: RUN, SUP or TEC
        self._pin = ""  # digits keyed on the PIN pad: never output, logged or journalled
        # the staff number keyed before the PIN, where the role signs in by person (it is no
        # secret: its digits are journalled as the keys they are)
        self._staff = ""

    @property
    def key_role(self) -> Role | None:
        return KEY_ROLES.get(self.key)

    def turn(self, position: str) -> bool:
        """The key switch turned; whether whoever is signed in must sign out."""
        self.key = position
        self._pin = self._staff = ""
        return self.signin.role is not None and self.key_role is not self.signin.role

    def pin_pad_role(self) -> Role | None:
        """The role whose PIN the panel takes now: the key is at its position, the table takes
        PINs, and that role is not signed in."""
        role = self.key_role
        if role is None or not self.policy.pins_required or self.signin.role is role:
            return None
        return role

    def pin_keyed(self) -> int:
        """How many digits are keyed on the PIN pad (what the display shows as dots)."""
        return len(self._pin)

    def keying_staff_number(self) -> bool:
        """The PIN pad takes a staff number now (the role on the key signs in by person and
        no staff number is keyed yet): its digits are journalled, never a PIN's."""
        role = self.pin_pad_role()
        return role is not None and self.policy.by_person(role) and not self._staff

    def staff_keyed(self) -> str:
        """The staff number keyed on the PIN pad ("" before OK takes it)."""
        return self._staff

    def attempt_ready(self) -> bool:
        """``OK_`` now makes a PIN attempt: a PIN is keyed (after the staff number, where the
        role signs in by person)."""
        return bool(self._pin) and not self.keying_staff_number()

    def pin_key(self, button: str) -> PinPadKey:
        """A key on the PIN pad (``D0_``..``D9_``, ``CAN``, ``OK_``...)."""
        if button.startswith("D") and button[1:2].isdigit():
            if len(self._pin) < PIN_ENTRY_MAX:
                self._pin += button[1]
            return PinPadKey.KEPT
        if button == "CAN":
            self._pin = self._staff = ""
            return PinPadKey.KEPT
        if button == "CAL":
            return PinPadKey.DEALER
        if button == "OK_" and self._pin and self.keying_staff_number():
            self._staff, self._pin = self._pin, ""
            return PinPadKey.KEPT
        if button == "OK_" and self._pin:
            return PinPadKey.ATTEMPT
        return PinPadKey.REFUSED

    def pin_pad_refusal(self, button: str) -> WhyNot:
        role = self.pin_pad_role()
        assert role is not None
        if self.keying_staff_number():
            if button != "OK_":
                return WhyNot(Why.PIN_PAD_STAFF_DIGITS)
            return WhyNot(Why.PIN_PAD_STAFF_OK)
        if button != "OK_":
            return WhyNot(Why.PIN_PAD_PIN_DIGITS, role=role.value)
        return WhyNot(Why.PIN_PAD_PIN_OK, role=role.value)

    def check_pin(
        self, pin: str | None = None, *, source: str = "panel", staff_id: str | None = None
    ) -> PinAttempt:
        """The outcome of a PIN attempt (``pin``, or the digits keyed on the panel; the staff
        number ``staff_id`` or the one keyed before them), without applying it. The PIN is
        checked only when it may count: never for a locked role."""
        text = self._pin if pin is None else pin
        staff = (self._staff if pin is None else "") if staff_id is None else staff_id
        policy = self.policy
        role = self.key_role
        at = policy.clock()
        name = policy.name(role) if role is not None else ""
        journalled_id = ""
        if role is None:
            result = AttemptResult.NO_KEY
        elif not policy.pins_required:
            result = AttemptResult.NOT_NEEDED
        elif self.signin.role is role:
            result = AttemptResult.ALREADY
        elif not policy.has_pin(role):
            result = AttemptResult.NO_PIN
        elif policy.by_person(role) and not staff:
            result = AttemptResult.NEED_STAFF
        elif staff and not policy.by_person(role):
            result = AttemptResult.NO_STAFF
        elif self.signin.locked_until(role, at) is not None:
            result = AttemptResult.LOCKED
        elif staff:
            person = policy.staff.check(role.value, staff, text)
            known = policy.staff.get(staff)
            journalled_id = staff if known is not None and known.role == role.value else "unknown"
            result = AttemptResult.WRONG if person is None else AttemptResult.RIGHT
            if person is not None:
                name = person.name
        else:
            right = policy.verify(role, text)
            result = AttemptResult.RIGHT if right else AttemptResult.WRONG
        return PinAttempt(
            role,
            result,
            at,
            source,
            name=name,
            max_wrong_pins=policy.max_wrong_pins,
            lockout_seconds=policy.lockout_seconds,
            staff_id=journalled_id,
        )

    def check_dealer(
        self, staff_id: str, pin: str, *, source: str = "display", locked: bool = False
    ) -> DealerSignIn:
        """The outcome of a dealer's sign-in (the staff file's dealers), without applying it;
        a number no dealer has is journalled as "unknown" (it may be a PIN in the wrong field).
        ``locked``: dealer sign-in is locked out, and the PIN is not even checked."""
        person = None if locked else self.policy.staff.check("dealer", staff_id, pin)
        known = self.policy.staff.get(staff_id)
        shown = staff_id if known is not None and known.role == "dealer" else "unknown"
        name = "" if person is None else person.name
        return DealerSignIn(
            shown,
            name,
            person is not None,
            self.policy.clock(),
            source,
            self.policy.max_wrong_pins,
            self.policy.lockout_seconds,
        )

    def apply(self, attempt: PinAttempt) -> list[AccessEvent]:
        """Apply an attempt's outcome (live, or replayed from the journal)."""
        self._pin = self._staff = ""
        return self.signin.apply(attempt)

    def require_pins(self, required: bool) -> list[AccessEvent]:
        """From now on decisions need (or no longer need) a PIN besides the key."""
        if required is self.policy.pins_required:
            return []
        self.policy = replace(self.policy, pins_required=required)
        self._pin = self._staff = ""
        events: list[AccessEvent] = []
        signed_out = None if required else self.signin.sign_out("PINs are no longer required")
        if signed_out is not None:
            events.append(signed_out)
        told = Told(Tell.PINS_REQUIRED if required else Tell.PINS_NOT_REQUIRED)
        events.append(AccessEvent(None, "policy", True, call_words(told)))
        return events

    def who(self, role: Role) -> str:
        if self.policy.pins_required and self.signin.role is role:
            return self.signin.who()
        return key_only_words(role.value)

    def granted(self, role: Role) -> bool:
        return not self.policy.pins_required or self.signin.role is role

    def refusal(self, action: Action, holds: Sequence[HoldReason]) -> WhyNot | None:
        """Why the role on the key may not take ``action`` now (None: it may, as far as access
        goes; the round decides the rest). The dealer's actions need nothing."""
        if action not in SUPERVISOR_ACTIONS:
            return None
        role = self.key_role
        if role is None:
            return WhyNot(Why.NEEDS_SUPERVISOR_KEY)
        lockups = [h for h in holds if h.kind is HoldKind.LOCKUP]
        if action not in ROLE_ACTIONS[role] or (
            role is Role.TECHNICIAN and not (lockups and technician_lockup(lockups[0]))
        ):
            return WhyNot(
                Why.ROLE_CLEARS_LOCKUP_ONLY, role=role.value, action=DECISION_NAMES[action]
            )
        if self.granted(role):
            return None
        if not self.policy.has_pin(role):
            return WhyNot(Why.NO_PIN_SET, role=role.value)
        # (no clock here: a replay, at another time, must refuse with the same words)
        until = self.signin.locks[role].locked_until
        code = Why.SIGN_IN_FIRST if self.policy.by_person(role) else Why.ENTER_PIN_FIRST
        return WhyNot(code, role=role.value, key=ROLE_KEYS[role], until=until)
