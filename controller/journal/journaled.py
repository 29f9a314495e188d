"""The table with its journal: written first, and rebuilt from it after a crash.

:class:`JournaledTable` puts the journal between the world and the table:

- every *cause* (a device event; a bet, a supervisor's decision, a PIN attempt's outcome from
  the display: :mod:`controller.journal.causes`) is journalled (row kinds ``device_event`` and
  ``call``) with every *effect* (prompt, ledger entry, state change, input result, note, and
  every command for a device) the table produces while applying it: the table applies the cause
  in memory, the cause's row and its effects' rows are committed in ONE transaction, and only
  then is anyone shown them, any command sent or the device event acknowledged. A journal that
  cannot take them leaves the table as it was before the cause (the device sends the event
  again); while the journal is failing, a cause is committed on its own before it is applied;
- ``round_start`` / ``round_end`` rows mark each round.

:func:`recover` rebuilds the table after a restart by replaying the causes through a fresh
:class:`~controller.table.app.TableApp` (the same code as at the table; no pickles). The replayed
effects must match what the journal holds: the journal may miss a tail (the process died after
a cause was committed and before its effects were), which is then written, and its device
commands, never sent, are sent once the devices are open; any other difference is a
:class:`~controller.journal.errors.RecoveryMismatch`, and the table does not guess. A start
checks before it writes: :meth:`JournaledTable.prepare` (or :func:`replay`) rebuilds the table
and compares without writing a row, :meth:`PreparedTable.commit` then writes the tail and the
``recovery`` row; :func:`check_variant` refuses a journal whose rounds are of another variant.

Journals keep their format: each start writes a ``software`` row with the ``journal_format`` it
writes (:data:`JOURNAL_FORMAT`); rows written under format 1 (before the table's device commands
and its inputs' data were journalled) are compared as format 1 wrote them.

A PIN never reaches the journal: the digits keyed on the panel's PIN pad are neither journalled
nor logged, and a PIN attempt (``OK_`` after them, or a PIN from the display) is checked first and
journalled as its outcome, which the replay applies as it is. A rebuilt table signs out whoever
was signed in (a restart is not the same person's shift). Whether PINs are required is journalled
too when it changes: a table starts key-only and the first start that requires PINs says so, so
a journal written before PINs (or by a key-only table) replays as it was.
"""

from __future__ import annotations

import json
import re
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, overload

import structlog

from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.refusals import Why, WhyNot
from controller.game.rules import Variant
from controller.game.words import day_words, refusal_words
from controller.journal.causes import cause_row, read_cause
from controller.journal.errors import JournalUnavailable, RecoveryMismatch, VariantConflict
from controller.journal.logs import bind_round
from controller.journal.records import to_value
from controller.journal.rows import Entry, RoundMarks
from controller.journal.store import Journal, Row
from controller.round.inputs import Bet, Decision, KeyedCard
from controller.round.model import RoundState
from controller.round.spec import Action, State
from controller.table.access import (
    KEY_ONLY,
    AccessEvent,
    AccessPolicy,
    PinAttempt,
    RequirePins,
    SignOut,
)
from controller.table.app import (
    Applied,
    Cause,
    DeviceOrder,
    InputResult,
    SetAside,
    TableApp,
    TableOutput,
    refused,
)
from controller.table.bets import BetLimits
from controller.table.commands import DeviceCommands, NoDevices, Relight, send_order
from controller.table.day import (
    DayAct,
    DayCall,
    DayEvent,
    DayRequest,
    RequireOpening,
    refused_day,
)
from controller.table.firmware import AllowFirmware
from controller.table.keypad import DIGIT_KEYS
from controller.table.people import (
    DealerRequest,
    DealerSignOut,
    LeaveRequest,
    PeopleCall,
    PeopleEvent,
    PeopleRequest,
    SeatRequest,
    SitDown,
    WalkAway,
    refused_event,
)
from drivers.tbl21.events import Button, ButtonPressed, DeviceEvent

log = structlog.get_logger("croupier.journal")

JOURNAL_FORMAT = 15  # 1: software 0.1 (no device_command rows, inputs without their data)
# 2: before the dealer's words and the keys lit by the rules of the moment (issue 13): its
# prompts' texts, its inputs' reasons and its panel lights are not what this software makes.
# 3: as 4, but no ``set_aside`` rows (a software writing 3 replays a set-aside journal as
# disagreeing, and stops for a supervisor).
# 4: what the dealer keyed before a hold carried into the decision after it, and a CALL was
# noted among the next decision's keys (replayed so: ``TableApp.entry_outlives_holds``).
# 5: a keyed-in card the supervisor confirmed was named in the prompt after it, even the dealer's
# face-down one ("Keyed-in card AS confirmed."); that sentence is compared without its card.
# 6: a hold's input carried its kind and words only; from 7 on it carries its typed cause (and
# the fault, card and words it names: ``HOLD_TYPED``), which older rows are compared without.
# 7: a prompt row held its code and line; from 8 on a prompt that says what to do now also holds
# ``shown``, the words of the prompt bar (controller.game.words.bar), compared from 8 on.
# 8: no people at the table; from 9 on a dealer signs in and rated players sit down (``call``
# rows of controller.table.people, ``people`` rows, a round_start's ``dealer``): a software
# writing 8 cannot replay a journal that has them (older journals replay as they were).
# 9: a fresh table's opening prompt (before any cause) was shown and not journalled; from 10 on
# it is the first effect row of the table's first start (:meth:`JournaledTable.opening`). A
# replay does not compare it: it is the start's, made by the rules of that start (which may
# change before a card is dealt, flagged), not by a cause.
# 10: an input row held a refusal's words (``reason``) only; from 11 on it holds its code too
# (``why``, a controller.game.refusals.Why value, None when accepted), compared from 11 on.
# 10 (and 11): no gaming day; from 12 on a day is opened, its chips moved and closed (``call``
# rows of controller.table.day, ``day`` rows), and a table may require it before it deals
# (``RequireOpening``): a software writing 11 cannot replay a journal that has them.
# 12: no shoe receipts; from 13 on the end of each shoe (the shoe loading the next) writes a
# ``shoe_receipt`` effect row (controller.table.shoewatch), which a replay makes for older
# journals too but does not compare (they never held one). From 13 a dealer's sign-in call also
# carries the wrong-PIN limits in force (``max_wrong_pins``, ``lockout_seconds``); an older
# call, without them, never locks dealer sign-in.
# 13: a new_shoe order carried no arguments and the cut card was taken wherever it came out;
# from 14 on the order carries the cut position committed before the shoe's first card
# (``TableApp.cut_position``) and a cut card out of its tolerance is noted. Older journals are
# replayed without either (``commits_cut``).
# 14: a start's ``config`` row named the variant and hashed its file (``variant``,
# ``variant_sha256``) but did not hold the rules; from 15 on it also holds the rules the table
# deals by (``rules``: the validated variant's JSON, a custom file's and any override included),
# by which the floor rates its sessions (controller.floor.table_rules). A config row is neither
# a cause nor an effect: a replay never reads it, so older journals replay as they were.
OPENING_FORMAT = 10
WHY_FORMAT = 11
RECEIPT_FORMAT = 13
CUT_FORMAT = 14
RULES_FORMAT = 15
CAUSE_KINDS = ("device_event", "call", "set_aside")
EFFECT_KINDS = (
    "prompt",
    "ledger",
    "state",
    "input",
    "supervisor",
    "access",
    "people",
    "shoe_receipt",
    "day",
    "command",
    "device_command",
    "note",
)
MARK_KINDS = ("round_start", "round_end")
FINISHED_KEPT = 100  # finished rounds a replay keeps: the most [display] last_rounds may list


class JournaledTable:
    """A :class:`TableApp` whose causes are applied, then journaled with their effects before
    anyone is shown them (memento, apply, commit, show; or restore)."""

    def __init__(
        self,
        app: TableApp,
        journal: Journal,
        *,
        show: Callable[[TableOutput], None] | None = None,
        marks: RoundMarks | None = None,
        limits: BetLimits | None = None,
    ) -> None:
        self.app = app
        self.limits = limits  # the table's bet limits (None: the game's rules alone)
        self.journal = journal
        self.show = show
        self.marks = marks if marks is not None else RoundMarks()
        self.recovery: RecoveryReport | None = None  # set when the table was rebuilt
        self.unavailable: str | None = None  # why the journal could not be written last time
        self.unsent: list[DeviceOrder] = []  # a recovered tail's commands, for the devices
        self._unwritten: list[Entry] = []  # rows the journal could not take yet
        self._unshown: list[TableOutput] = []  # ... and their outputs, shown once it does
        self._seen = app.output_mark()  # the table's outputs up to here have their rows
        self.marks.follow(app)
        app.hold_orders = True  # commands leave once journalled (``_written``)

    @classmethod
    def start(
        cls,
        rules: Variant,
        journal: Journal,
        commands: DeviceCommands | None = None,
        *,
        show: Callable[[TableOutput], None] | None = None,
        start: State = State.BURN,
        access: AccessPolicy = KEY_ONLY,
        limits: BetLimits | None = None,
    ) -> JournaledTable:
        """A fresh table on an empty journal, or the table the journal describes."""
        prepared = cls.prepare(rules, journal, start=start, access=access)
        return prepared.commit(commands, show=show, limits=limits)

    @classmethod
    def prepare(
        cls,
        rules: Variant,
        journal: Journal,
        *,
        start: State = State.BURN,
        access: AccessPolicy = KEY_ONLY,
    ) -> PreparedTable:
        """The table the journal describes, rebuilt but not yet written to the journal: a start
        checks everything (a :class:`RecoveryMismatch` is raised here) before it writes a row,
        then :meth:`PreparedTable.commit`."""
        if next(journal.iter_rows(kinds=[*CAUSE_KINDS, *EFFECT_KINDS]), None) is None:
            # nothing of a table in it yet (perhaps the start-up's software and config rows)
            app = TableApp(rules, None, start=start, access=_key_only(access), hold_orders=True)
            return PreparedTable(journal, app, access, None)
        return replay(rules, journal, start=start, access=access)

    @property
    def controller(self) -> Any:
        return self.app.controller

    # --- causes ---------------------------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> bool:
        """Journal and apply a device event. False when the journal cannot be written: the
        event is not applied (and must not be acknowledged, so the device sends it again)."""
        return self.apply(event) is not None

    def apply(self, cause: Cause) -> Applied | None:
        """Give a cause to the table, journalled with its effects (:meth:`_journaled`); None
        (nothing applied) when the journal cannot be written.

        On the PIN pad a digit is applied unjournalled (it is part of a PIN; a staff number's
        digits are journalled, they are none), and ``OK_`` after the PIN's digits is journalled
        as the attempt's outcome instead of as the key press. A bet is checked against the
        table's limits before it is recorded (one check for the display, the demo's players and
        scripts); the round checks the game's rules."""
        access = self.app.access
        if isinstance(cause, ButtonPressed) and access.pin_pad_role() is not None:
            if cause.button in DIGIT_KEYS and not access.keying_staff_number():
                return self.app.apply(cause)
            if cause.button is Button.OK and access.attempt_ready():
                return self._journaled(access.check_pin(source="panel"))
        elif isinstance(cause, Bet) and self.limits is not None:
            refusal = self.limits.refusal(cause.box, cause.amount_cents, self.app.controller.state)
            if refusal is not None:
                result = refused(Action.BET, refusal)
                log.info("bet refused", box=cause.box, reason=result.reason)
                return Applied([], result)
        return self._journaled(cause)

    @overload
    def answer(self, call: Bet | Decision | KeyedCard) -> InputResult: ...

    @overload
    def answer(self, call: PinAttempt) -> AccessEvent: ...

    def answer(self, call: Bet | Decision | KeyedCard | PinAttempt) -> InputResult | AccessEvent:
        """:meth:`apply` a call that is answered (a bet, a decision, a keyed-in card, a PIN
        attempt's outcome) and say what became of it (refused, with the journal's trouble, when
        the journal cannot be written)."""
        applied = self.apply(call)
        if applied is not None and isinstance(applied.result, (InputResult, AccessEvent)):
            return applied.result
        if isinstance(call, PinAttempt):
            trouble = WhyNot(Why.JOURNAL_UNAVAILABLE, detail=self.unavailable or "")
            return AccessEvent(None, "refused", False, refusal_words(trouble))
        trouble = WhyNot(Why.JOURNAL_CANNOT_WRITE, detail=self.unavailable or "")
        return refused(call.action, trouble)

    def dealer_sign_in(self, staff_id: str, pin: str, *, source: str = "display") -> PeopleEvent:
        """A dealer's staff number and PIN: checked, the outcome journalled, then applied (a
        table with no dealer on its staff file refuses at once, saying so: nothing to journal)."""
        if not self.app.access.policy.staff.of("dealer"):
            return refused_event(WhyNot(Why.NO_DEALERS_ON_STAFF))
        locked = self.app.people.dealer_locked(self.app.access.policy.clock())
        call = self.app.access.check_dealer(staff_id, pin, source=source, locked=locked)
        return self._people(call)

    def dealer_sign_out(self) -> PeopleEvent:
        return self._people(DealerSignOut(self.app.access.policy.clock()))

    def sit_down(self, box: int, card: str, player: str) -> PeopleEvent:
        """A rated player sits at ``box``: a new session (its id: the table's, and random)."""
        session = f"{self.journal.table_id}-{secrets.token_hex(5)}"
        at = self.app.access.policy.clock()
        return self._people(SitDown(box, card, player, session, at))

    def walk_away(self, box: int) -> PeopleEvent:
        return self._people(WalkAway(box, self.app.access.policy.clock()))

    def people_request(self, request: PeopleRequest) -> PeopleEvent:
        """What the display asks of the people at the table, as its call."""
        if isinstance(request, DealerRequest):
            return self.dealer_sign_in(request.staff_id, request.pin)
        if isinstance(request, SeatRequest):
            return self.sit_down(request.box, request.card, request.player)
        if isinstance(request, LeaveRequest):
            return self.walk_away(request.box)
        return self.dealer_sign_out()

    def _people(self, call: PeopleCall) -> PeopleEvent:
        applied = self.apply(call)
        if applied is None or not isinstance(applied.result, PeopleEvent):
            return refused_event(WhyNot(Why.JOURNAL_UNAVAILABLE, detail=self.unavailable or ""))
        return applied.result

    def require_opening(self, required: bool) -> None:
        """Journal (as a cause) and apply whether the table deals only in an open gaming day,
        if that changes (a start with the table file's ``[gaming_day] required``)."""
        if required is not self.app.day.required:
            self.apply(RequireOpening(required))

    def demo_opening(self) -> None:
        """A demo table opens its gaming day itself at start (journalled, named as the demo's:
        a live table is opened by a supervisor on the display)."""
        if not self.app.day.deals():
            by = day_words("demo_by")
            self.apply(DayCall(DayAct.DEMO, by, self.app.access.policy.clock()))

    def day_request(self, request: DayRequest) -> DayEvent:
        """A step of the gaming day asked on the display, as its call: done by the role on the
        key (who, by name where they signed in as themselves); a fill's or a credit's second
        person is checked against the staff file first (a wrong PIN is refused, nothing
        journalled: the PIN is never kept) and must be another person."""
        access = self.app.access
        role = access.key_role
        by = access.who(role) if role is not None else "nobody on the key"
        at = access.policy.clock()
        day = self.app.day.number + (0 if self.app.day.is_open else 1)
        if request.act is DayAct.DEMO:
            return refused_day(WhyNot(Why.DAY_DEMO_ONLY), day, by, at)
        witness = ""
        if request.act in (DayAct.FILL, DayAct.CREDIT) and request.witness:
            staff = access.policy.staff
            person = next(
                (
                    p
                    for p in (
                        staff.check(r, request.witness, request.witness_pin)
                        for r in ("supervisor", "technician", "dealer")
                    )
                    if p is not None
                ),
                None,
            )
            if person is None:
                return refused_day(WhyNot(Why.DAY_WITNESS), day, by, at)
            if person.id == access.signin.staff_id:
                why = WhyNot(Why.DAY_TWO_PEOPLE, action=request.act.value)
                return refused_day(why, day, by, at)
            witness = f"{person.name} ({person.role} {person.id})"
        call = DayCall(request.act, by, at, request.chips, request.cents, witness)
        applied = self.apply(call)
        if applied is None or not isinstance(applied.result, DayEvent):
            why = WhyNot(Why.JOURNAL_UNAVAILABLE, detail=self.unavailable or "")
            return refused_day(why, day, by, at)
        return applied.result

    def require_pins(self, required: bool) -> None:
        """Journal (as a cause) and apply a change of the table's PIN policy."""
        if required is not self.app.access.policy.pins_required:
            self.apply(RequirePins(required))

    def allow_firmware(self, hashes: tuple[str, ...] | list[str]) -> None:
        """Journal (as a cause) and apply the firmware allowed from now on, if the table's
        differs (a start with the table file's ``devices.firmware_allow``)."""
        call = AllowFirmware.of(hashes)
        if call.hashes != self.app.firmware_allow:
            self.apply(call)

    def sign_out(self, reason: str) -> None:
        """Sign out whoever is signed in (journalled as a cause first)."""
        if self.app.access.signin.role is not None:
            self.apply(SignOut(reason))

    def replay(self, kind: str, payload: dict[str, Any]) -> None:
        """Feed a recorded cause (a ``device_event`` or ``call`` row's payload) to the table,
        journaled like a live one (a restarted session catching up with its script)."""
        self.apply(read_cause(kind, payload))

    def _journaled(self, cause: Cause) -> Applied | None:
        """Memento, apply, commit, show (or restore): the table applies the cause and returns
        what it made; the effects still waiting for the journal, the cause's row, then its
        effects' rows are committed in that order and in ONE transaction (one commit, one sync
        of the file); only then is anyone shown any of it, any command sent for a device or the
        cause's event acknowledged. If the journal cannot take them the table is put back
        exactly as it was before the cause (:meth:`TableApp.restore`), the dealer is told, and
        None is returned: nothing is applied, and a device event is left unacknowledged, so the
        device sends it again. A crash before the commit leaves the journal as before the
        cause, and the device sends the event again.

        While the journal is failing (it failed last time), the cause is committed on its own
        first, as before any effect: a journal that still fails then refuses it before the
        table has done anything with it."""
        app = self.app
        if self.unavailable is not None:
            if not self._cause(cause):
                return None
            applied = app.apply(cause)
            self._flush()
            return applied
        self._collect()  # outputs made outside a cause: rows now, as the table is before it
        kind, payload = cause_row(cause)
        came_in = app.round_number
        saved, marks = app.memento(), self.marks.saved()
        try:
            applied = app.apply(cause)
        except Exception:
            # A fault in the table itself: the cause is journalled as it always was (a replay
            # meets the same fault) and its effects so far follow it before the next cause.
            mark, self._seen = self._seen, app.output_mark()
            partial = app.outputs_since(mark)
            self._cause(cause)
            self._unwritten += self.marks.entries(app, partial)
            self._unshown += partial
            raise
        effects = self.marks.entries(app, applied.outputs)
        try:
            self.journal.append_groups(
                [
                    (self._unwritten, came_in),
                    ([(kind, payload)], came_in),
                    (effects, app.round_number),
                ]
            )
        except JournalUnavailable as exc:
            app.restore(saved)
            self.marks.restore(marks)
            self._unavailable(exc, "input not applied")
            return None
        self.unavailable = None
        self._seen = app.output_mark()
        entries, outputs = [*self._unwritten, *effects], [*self._unshown, *applied.outputs]
        self._unwritten, self._unshown = [], []
        self._written(entries, outputs)
        return applied

    def _cause(self, cause: Cause) -> bool:
        """Commit a cause on its own before it is applied (while the journal is failing); on
        failure tell the dealer and apply nothing. Effects still waiting for the journal (it
        failed after their cause) go first."""
        kind, payload = cause_row(cause)
        try:
            self._flush(raising=True)
            self.journal.append(kind, payload, round_id=self.app.round_number)
        except JournalUnavailable as exc:
            self._unavailable(exc, "input not applied")
            return False
        self.unavailable = None
        return True

    def _unavailable(self, exc: JournalUnavailable, what: str) -> None:
        message = str(exc)
        log.error(f"journal unavailable: {what}", error=message)
        if message != self.unavailable and self.show is not None:
            self.show(Prompt(PromptCode.JOURNAL_UNAVAILABLE, Say.JOURNAL, detail=message))
        self.unavailable = message

    # --- effects --------------------------------------------------------------------------------

    def _collect(self) -> None:
        """The table's outputs not yet given a row (made outside a cause, or by a cause the
        table failed in) as rows (with the round marks they make now), waiting for the
        journal."""
        stray = self.app.outputs_since(self._seen)
        self._seen = self.app.output_mark()
        if stray:
            self._unwritten += self.marks.entries(self.app, stray)
            self._unshown += stray

    def _flush(self, *, raising: bool = False) -> None:
        """Commit the table's new effects, then show them and send its commands. If the journal
        cannot take them they wait (unshown, unsent) for the next try, before any new cause."""
        self._collect()
        if not self._unwritten:
            return
        entries = self._unwritten
        round_id = self.app.round_number
        try:
            self.journal.append_many(entries, round_id=round_id)
        except JournalUnavailable as exc:
            if raising:
                raise
            self._unavailable(exc, "effects not written yet")
            return
        outputs, self._unwritten, self._unshown = self._unshown, [], []
        self._written(entries, outputs)

    def _written(self, entries: list[Entry], outputs: list[TableOutput]) -> None:
        """The journal has these rows: send the table's commands, show its outputs."""
        self.app.send_orders()  # journalled: now the devices may be told
        if any(kind == "round_start" for kind, _ in entries):
            table = self.app.controller.table
            bind_round(
                table_id=self.journal.table_id,
                shoe_id=f"{self.journal.table_id}-shoe{table.shoe_number}",
                round_id=self.app.round_number,
            )
        if self.show is not None:
            for item in outputs:
                self.show(item)

    def opening(self) -> None:
        """Journal, then show, what a fresh table first tells the dealer (its opening prompt,
        made before any cause): the start's effect, written like any other (it waits for the
        journal if the journal cannot take it). Its panel lights are not among them: nobody
        was told the keys yet (:meth:`devices_ready`)."""
        said = opening_prompts(self.app)
        self._unwritten += self.marks.entries(self.app, said)
        self._unshown += said
        self._flush()

    def devices_ready(self) -> None:
        """The devices are open: send the commands of a recovered tail (journalled now, never
        sent before the crash), then tell the panel its lights as they are (a restarted panel
        may show others; journalled as a cause, like anything the table does)."""
        unsent, self.unsent = self.unsent, []
        for order in unsent:
            send_order(self.app.commands, order)
        self.apply(Relight())


def opening_prompts(app: TableApp) -> list[TableOutput]:
    """The prompts a table made as it was built, before any cause (a fresh table's opening)."""
    return [item for item in app.outputs if isinstance(item, Prompt)]


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    causes: int  # causes replayed
    effects_checked: int  # journaled effect rows matched by the replay
    effects_written: int  # effects the journal was missing (written now)
    round_number: int
    state: State

    def describe(self) -> str:
        return (
            f"round {self.round_number} recovered at {self.state.value} "
            f"({self.causes} inputs replayed, {self.effects_checked} records matched"
            + (f", {self.effects_written} written" if self.effects_written else "")
            + ")"
        )


@dataclass(frozen=True, slots=True)
class _Replayed:
    entry: Entry
    item: TableOutput | None  # the output it is the row of (None: a round mark)
    format: int  # the journal format in force when its cause was journalled


def recover(
    rules: Variant,
    journal: Journal,
    commands: DeviceCommands | None = None,
    *,
    show: Callable[[TableOutput], None] | None = None,
    start: State = State.BURN,
    access: AccessPolicy = KEY_ONLY,
) -> JournaledTable:
    """Rebuild the table from its journal (see the module docstring)."""
    return replay(rules, journal, start=start, access=access).commit(commands, show=show)


class PreparedTable:
    """A table rebuilt from its journal (or a fresh one) that has written nothing yet."""

    def __init__(
        self,
        journal: Journal,
        app: TableApp,
        access: AccessPolicy,
        replayed: _Replay | None,
    ) -> None:
        self.journal = journal
        self.app = app
        self.access = access
        self.replayed = replayed  # None: a fresh table

    @property
    def finished(self) -> tuple[list[RoundState], int]:
        """The last rounds the journal's replay finished (at most :data:`FINISHED_KEPT`, oldest
        first) and how many it finished: what a restarted table's display lists."""
        if self.replayed is None:
            return [], 0
        return self.replayed.finished, self.replayed.rounds_finished

    @property
    def drawn(self) -> int:
        """The shoe's last draw number the journal holds (0 for a fresh table)."""
        return self.app.shoe.last_draw_no or 0

    def commit(
        self,
        commands: DeviceCommands | None = None,
        *,
        show: Callable[[TableOutput], None] | None = None,
        limits: BetLimits | None = None,
    ) -> JournaledTable:
        """Write what the start adds to the journal (a recovered tail, the ``recovery`` row,
        the sign-out and the PIN policy) and hand the table over."""
        app, journal, access = self.app, self.journal, self.access
        if self.replayed is None:
            app.commands = commands if commands is not None else NoDevices()
            table = JournaledTable(app, journal, show=show, limits=limits)
            table.opening()
            table.require_pins(access.pins_required)
            return table
        done = self.replayed
        missing = done.missing
        if missing:
            journal.append_many([m.entry for m in missing], round_id=app.round_number)
        app.commits_cut = True  # the start wrote this software's format: its shoes commit cuts
        app.commands = commands if commands is not None else NoDevices()
        table = JournaledTable(app, journal, show=show, marks=done.marks, limits=limits)
        table.unsent = [m.item for m in missing if isinstance(m.item, DeviceOrder)]
        report = RecoveryReport(
            done.causes,
            done.checked,
            len(missing),
            app.round_number,
            app.controller.state,
        )
        table.recovery = report
        journal.append(
            "recovery",
            {
                "round": report.round_number,
                "state": report.state.value,
                "causes": report.causes,
                "effects_checked": report.effects_checked,
                "effects_written": report.effects_written,
                "text": report.describe(),
            },
            round_id=report.round_number,
        )
        if show is not None:
            show(
                Prompt(
                    PromptCode.RESUMED,
                    Say.RECOVERED,
                    count=report.round_number,
                    state=report.state.value,
                )
            )
        table.sign_out("the table restarted")
        table.require_pins(access.pins_required)
        return table


@dataclass(frozen=True, slots=True)
class _Replay:
    marks: RoundMarks
    causes: int  # causes replayed
    checked: int  # journaled effect rows matched
    missing: list[_Replayed]  # effects the journal lacks (its tail), to be written
    finished: list[RoundState]  # the last rounds finished (FINISHED_KEPT at most), oldest first
    rounds_finished: int


def replay(
    rules: Variant,
    journal: Journal,
    *,
    start: State = State.BURN,
    access: AccessPolicy = KEY_ONLY,
    then: SetAside | None = None,
) -> PreparedTable:
    """Replay the journal's causes through a fresh table and check every journaled effect
    against the replay (:class:`RecoveryMismatch` at the first difference); writes nothing.

    The rows a supervisor set aside (a ``set_aside`` row, :class:`SetAside`) are neither
    applied nor compared; the ``set_aside`` row itself is applied where it stands. ``then``: a
    set-aside not yet journalled, applied after the journal's last row (what writing it would
    give, :mod:`controller.journal.setaside`)."""
    # The journal says when PINs became required (a journal from before them replays as it was).
    app = TableApp(rules, NoDevices(), start=start, access=_key_only(access), hold_orders=True)
    marks = RoundMarks()
    marks.follow(app)
    replayed: list[_Replayed] = []
    journaled: list[tuple[int, Entry, int]] = []  # (seq, entry, format)
    causes = 0
    fmt = JOURNAL_FORMAT  # rows before any software row: written by this format (tests)
    finished: deque[RoundState] = deque(maxlen=FINISHED_KEPT)
    count = 0  # rounds finished

    def apply(cause: Cause) -> None:
        nonlocal causes, count
        for item in app.apply(cause).outputs:
            entries = marks.entries(app, [item])
            replayed.extend(
                _Replayed(entry, item if i == 0 else None, fmt) for i, entry in enumerate(entries)
            )
        causes += 1
        closed = marks.take_closed()
        finished.extend(closed)
        count += len(closed)

    asides = [_aside(row) for row in journal.iter_rows(kinds=["set_aside"])]
    if then is not None:
        asides.append(then)
    for row in journal.iter_rows():
        if row.kind == "software":
            fmt = int(row.payload.get("journal_format", 1))
            app.entry_outlives_holds = fmt < 5
            app.commits_cut = fmt >= CUT_FORMAT
            continue
        if row.kind == "prompt" and causes == 0 and fmt >= OPENING_FORMAT:
            continue  # the opening: made by the rules of its start, not by a cause
        if any(a.first_seq <= row.seq <= a.last_seq for a in asides):
            continue  # set aside by a supervisor: neither applied nor compared
        if row.kind in CAUSE_KINDS:
            apply(read_cause(row.kind, row.payload, row.seq))
        elif (row.kind in EFFECT_KINDS or row.kind in MARK_KINDS) and _kept(
            (row.kind, dict(row.payload)), fmt
        ):
            journaled.append((row.seq, (row.kind, dict(row.payload)), fmt))
    if then is not None:
        apply(then)
    app.send_orders()  # nowhere: the replay's commands were sent when they were journalled
    compared = [r for r in replayed if _kept(r.entry, r.format)]
    for index, (seq, expected, expected_fmt) in enumerate(journaled):
        got = compared[index] if index < len(compared) else None
        if got is None or _normal(got.entry, got.format) != _normal(expected, expected_fmt):
            raise RecoveryMismatch(seq, expected, None if got is None else got.entry)
    missing = compared[len(journaled) :]
    done = _Replay(marks, causes, len(journaled), missing, list(finished), count)
    return PreparedTable(journal, app, access, done)


def _aside(row: Row) -> SetAside:
    cause = read_cause(row.kind, row.payload, row.seq)
    assert isinstance(cause, SetAside)
    return cause


def check_variant(journal: Journal, variant: str) -> None:
    """Refuse (:class:`VariantConflict`) to deal ``variant`` on a journal whose rounds are of
    another variant: its replay would deal them again under other rules. Reads only."""
    last: Row | None = None
    for row in journal.iter_rows(kinds=["round_start"]):
        last = row
    if last is None:
        return
    found = str(last.payload.get("variant", variant))
    if found == variant:
        return
    number = int(last.payload.get("round", last.round_id or 0))
    ended = any(
        r.payload.get("round") == number
        for r in journal.iter_rows(kinds=["round_end"], after_seq=last.seq)
    )
    raise VariantConflict(str(journal.path), found, variant, None if ended else number, number)


def _key_only(access: AccessPolicy) -> AccessPolicy:
    return replace(access, pins_required=False)


def _kept(entry: Entry, fmt: int) -> bool:
    """Whether a journal of format ``fmt`` holds a row for this replayed effect (format 1 did
    not journal the table's device commands, formats before 13 no shoe receipts)."""
    kind, payload = entry
    if kind == "shoe_receipt":
        return fmt >= RECEIPT_FORMAT
    if kind != "device_command":
        return True
    if fmt < 3:  # format 2 lit keys the rules did not allow: its lights are not compared
        return fmt >= 2 and payload.get("command") != "light"
    return True


# The fields of a hold's input from format 7 on (its typed cause and what it names).
HOLD_TYPED = frozenset({"cause", "fault", "card", "about"})
_KEYED_CONFIRMED = re.compile(r"Keyed-in card (\S+ )?confirmed[^.]*\.")


def _normal(entry: Entry, fmt: int) -> tuple[str, Any]:
    """Compare through canonical JSON (what the journal stores), as format ``fmt`` wrote it."""
    kind, payload = entry
    value = json.loads(json.dumps(to_value(payload), sort_keys=True))
    if fmt < 2 and kind == "input":
        value = {**value, "data": {}, "by": None}  # format 1 wrote neither
    if fmt < 3 and kind == "input":  # the reason's words, and what a key now dark had keyed
        value = {**value, "data": {}, "reason": "", "keys": []}
    if fmt < 3 and kind == "prompt":  # the dealer's words
        value = {**value, "text": ""}
    elif fmt < 6 and kind == "prompt":  # which keyed-in card was confirmed, named or not
        value = {**value, "text": _KEYED_CONFIRMED.sub("Keyed-in card confirmed.", value["text"])}
    if fmt < 8 and kind == "prompt":  # the prompt bar's words were not recorded
        value.pop("shown", None)
    if fmt < WHY_FORMAT and kind == "input":  # the refusal's code was not recorded
        value.pop("why", None)
    if fmt < 7 and kind == "input" and value.get("action") == "hold":
        data = {k: v for k, v in value["data"].items() if k not in HOLD_TYPED}
        value = {**value, "data": data}
    return kind, value


def resume_points(journal: Journal) -> dict[str, tuple[int, int]]:
    """Per device role, the ``(boot, seq)`` of the last device event the journal holds: a new
    driver given these does not apply a resend of it again (``drivers.table.open_table``)."""
    points: dict[str, tuple[int, int]] = {}
    for row in journal.iter_rows(kinds=["device_event"]):
        payload = row.payload
        device = payload.get("device")
        boot, seq = payload.get("boot"), payload.get("seq")
        if isinstance(device, dict) and isinstance(boot, int) and isinstance(seq, int):
            points[str(device.get("type"))] = (boot, seq)
    return points
