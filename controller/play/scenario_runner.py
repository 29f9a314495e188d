"""``croupier scenario run``: play a scenario file through the whole controller.

The table is built by the same wiring as ``croupier run``'s (:class:`TableService`): a journal
(a temporary one), the emulated shoe, hole-card reader and button panel chosen by ``sim://``
URLs and opened through the production drivers, the journaled table, one owner loop. The runner
is that loop's owner (it pumps it) and the dealer's hands (:class:`DeviceHands`): it pulls cards
out of the emulated shoe, slides the hole card into the emulated reader, and presses the
scripted decisions on the emulated panel, key by key.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.game.hands import hand_value, is_natural
from controller.game.prompts import Prompt
from controller.game.rules import Variant, load_variant
from controller.game.settlement import EntryKind, LedgerEntry, net_by_player
from controller.game.words import line
from controller.play.autoplay import (
    SUPERVISOR_ACTIONS,
    Decision,
    Hands,
    RoundRecord,
    ScriptedBet,
    ScriptedRound,
    TableEvent,
    play_rounds,
)
from controller.play.autoplay import RefusedDecision as PlayRejection
from controller.play.errors import PlayError
from controller.play.scenario_file import (
    Scenario,
    ScriptAction,
    ScriptDouble,
    ScriptedShoe,
    ScriptHit,
    ScriptInsurance,
    ScriptRescue,
    ScriptSplit,
    ScriptStand,
    ScriptSurrender,
    SeededShoe,
)
from controller.play.scenario_report import (
    BoxReport,
    DealerReport,
    HandReport,
    LedgerRecord,
    PromptRecord,
    Rejection,
    RoundReport,
    ScenarioReport,
    WagerReport,
)
from controller.round.errors import ActionRefused
from controller.round.inputs import Bet
from controller.round.model import RoundState, total
from controller.round.spec import Action
from controller.service.service import TableService
from controller.table.access import KEY_ONLY
from controller.table.app import InputResult, TableApp, decision
from controller.table.config import LoadedTable, TableConfig
from controller.table.keypad import keys_for
from drivers.tbl21.cards import Card
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe
from sim_hardware.errors import ShoeEmptyError
from sim_hardware.faults import Misread, PeekMode

WAIT_S = 10.0


class DeviceHands(Hands):
    """The dealer's hands on the emulated devices of a table whose owner loop they pump; every
    act waits until the table saw it."""

    def __init__(
        self,
        service: TableService,
        wait_s: float = WAIT_S,
        *,
        scripted: bool = True,
        devices: Sequence[object] | None = None,
    ) -> None:
        """``devices``: the shoe, reader and panel when they are served elsewhere (on ptys);
        by default the service's own emulated devices."""
        assert service.app is not None
        if devices is None:
            devices = [service.emulated.get(r) for r in ("shoe", "peek", "panel")]
        shoe, reader, panel = devices
        assert isinstance(shoe, EmulatedShoe)
        assert isinstance(reader, EmulatedPeekReader)
        assert isinstance(panel, EmulatedPanel)
        self.scripted = scripted
        self.service = service
        self.app: TableApp = service.app
        self.shoe = shoe
        self.reader = reader
        self.panel = panel
        self.wait_s = wait_s

    def pump(self, done: Callable[[], bool], what: str) -> None:
        if not self.service.pump_until(done, self.wait_s):
            raise PlayError(f"{what} did not reach the controller within {self.wait_s:g} s")

    def settle_events(self, quiet_s: float = 0.05) -> None:
        """Handle whatever the devices still send (power-up, identification, acks)."""
        self.service.pump_quiet(quiet_s)

    def draw(self) -> None:
        before = self.app.cards_handled
        try:
            drawn = self.shoe.draw()
        except ShoeEmptyError:
            raise PlayError("the shoe ran out of cards") from None
        if drawn.card is None:
            self.pump(self.app.key_in_needed, "the unreadable-card fault")
            return
        self.pump(lambda: self.app.cards_handled > before, f"card {drawn.card}")

    def peek(self) -> None:
        before = self.app.peeks_handled
        hole = self.app.controller.hole_card()
        assert hole is not None  # the table peeks only once the hole card is dealt
        self.reader.insert_hole_card(hole)
        try:
            self.pump(lambda: self.app.peeks_handled > before, "the peek result")
        finally:
            self.reader.remove_hole_card()

    def enter(self, action: Action, data: dict[str, Any]) -> None:
        if action is Action.BET:
            placed = self.service.journaled.answer(
                Bet(data["box"], data["player"], data["amount_cents"])
            )
            if not placed.accepted:
                raise ActionRefused(action, self.app.controller.state, placed.reason)
            return
        if action is Action.SHUFFLE and self.scripted:
            # A scripted shoe goes on with its remaining cards after the shuffle (the script
            # placed one cut card only); a seeded shoe is shuffled anew with its cut card.
            self.shoe.cut = None
            self.shoe.prepare_next_shoe(self.shoe.cards_left)
        players = self.app.controller.box_players(int(data.get("box", 0) or 0))
        start = self.app.output_mark()
        for key in keys_for(action, data, players):
            self.panel.tap(key.value)

        def result() -> InputResult | None:
            for item in self.app.outputs_since(start):
                # this entry's result, or a refusal of one of the keys pressed for it
                if isinstance(item, InputResult) and (
                    item.action is action or (not item.accepted and bool(item.keys))
                ):
                    return item
            return None

        self.pump(lambda: result() is not None, f"the {action.value} entry")
        outcome = result()
        assert outcome is not None
        if not outcome.accepted:
            raise ActionRefused(action, self.app.controller.state, outcome.reason)
        if action is Action.SHUFFLE:
            self.pump(lambda: not self.app.shoe.shuffle_requested, "the new shoe")

    def table_event(self, event: TableEvent) -> None:
        app = self.app
        journaled = self.service.journaled
        if event.kind == "card_out_of_turn":
            self.draw()
        elif event.kind == "supervisor":
            self._turn_key("SUP")
            try:
                action = SUPERVISOR_ACTIONS[event.data["decision"]]
                result = journaled.answer(decision(action, by="supervisor"))
            finally:
                self._turn_key("RUN")
            if not result.accepted:
                raise ActionRefused(action, app.controller.state, result.reason)
        elif event.kind == "key_card":
            result = journaled.answer(
                decision(Action.KEY_CARD, card=Card.parse(event.data["card"]))
            )
            if not result.accepted:
                raise ActionRefused(Action.KEY_CARD, app.controller.state, result.reason)
        elif event.kind == "unreadable_card":
            self.shoe.inject(Misread(self.shoe.draw_no + 1))
        elif event.kind == "reader":
            self.reader.set_answer_mode(PeekMode(event.data["answer"]), count=1)
        elif event.kind in ("unplug", "replug"):
            device = {"shoe": self.shoe, "peek": self.reader, "panel": self.panel}[
                event.data["device"]
            ]
            if event.kind == "unplug":
                device.unplug()
                self.pump(self.app.holding, f"the {event.data['device']} link loss")
            else:
                device.replug()
                self.pump(lambda: not self.app.holding(), f"the {event.data['device']} return")
        else:
            raise PlayError(f"unknown table event {event.kind!r}")

    def _turn_key(self, position: str) -> None:
        self.panel.turn_key(position)
        self.pump(
            lambda: self.app.access.key == position,
            f"the key switch at {position}",
        )


def decision_of(action: ScriptAction) -> Decision | TableEvent:
    """A scenario file's action as a round-controller decision or a table event."""
    if action.table_event:
        body = next(iter(action.as_dict().values()))
        return TableEvent(action.kind, body, action)
    data: dict[str, Any] = {"box": action.box}
    if isinstance(action, ScriptInsurance):
        data |= {"player": action.player, "amount_cents": action.amount_cents}
        kind = Action.INSURANCE
    elif isinstance(action, ScriptDouble):
        if action.amount_cents is not None:
            data["amount_cents"] = action.amount_cents
        if action.players is not None:
            data["players"] = list(action.players)
        kind = Action.DOUBLE
    elif isinstance(action, ScriptRescue):
        data["player"] = action.player
        kind = Action.RESCUE
    elif isinstance(action, ScriptSurrender):
        kind = Action.SURRENDER
    elif isinstance(action, ScriptHit):
        kind = Action.HIT
    elif isinstance(action, ScriptStand):
        kind = Action.STAND
    elif isinstance(action, ScriptSplit):
        kind = Action.SPLIT
    else:  # pragma: no cover - ACTION_TYPES and this mapping grow together
        raise PlayError(f"no decision for scripted action {action.kind!r}")
    return Decision(kind, data, action)


def scripted_rounds(scenario: Scenario) -> list[ScriptedRound]:
    return [
        ScriptedRound(
            [ScriptedBet(b.box, b.player, b.amount_cents) for b in r.bets],
            [decision_of(a) for a in r.actions],
        )
        for r in scenario.rounds
    ]


def scenario_rules(scenario: Scenario) -> Variant:
    overrides = {k: _rule_value(v) for k, v in scenario.rules.items()}
    return load_variant(scenario.variant_path or scenario.variant, overrides or None)


def _rule_value(value: object) -> object:
    if isinstance(value, tuple):
        return [_rule_value(v) for v in value]
    return value


def output_cursor(app: TableApp) -> Callable[[], list[Any]]:
    """What the table emitted since the last call (the table drains the controller itself)."""
    seen = 0

    def drain() -> list[Any]:
        nonlocal seen
        new = app.outputs_since(seen)
        seen = app.output_mark()
        return new

    return drain


@dataclass
class ScenarioResult:
    report: ScenarioReport
    records: list[RoundRecord]


def shoe_url(shoe: ScriptedShoe | SeededShoe) -> str:
    """The emulated shoe's URL for a scripted card list or a seeded shuffle of the variant's
    shoe (:mod:`sim_hardware.urls`)."""
    if isinstance(shoe, ScriptedShoe):
        url = "sim://shoe?cards=" + ",".join(str(c) for c in shoe.cards)
    else:
        url = f"sim://shoe?seed={shoe.seed}"
    return url if shoe.cut is None else f"{url}&cut={shoe.cut}"


def scenario_table(rules: Variant, shoe: ScriptedShoe | SeededShoe, journal: Path) -> LoadedTable:
    """The table file of a scripted session: every box, any bet the variant takes, the three
    devices emulated, a journal of its own."""
    step = rules.table.min_increment_cents
    config = TableConfig.model_validate(
        {
            "table_id": "scenario",
            "variant": rules.id,
            "boxes": list(range(1, rules.table.boxes + 1)),
            "limits": {"min_cents": step, "max_cents": step * 10**7, "increment_cents": step},
            "devices": {"shoe": shoe_url(shoe), "peek": "sim://peek", "panel": "sim://panel"},
            "journal": {"path": str(journal)},
        }
    )
    return LoadedTable(config, rules, "<scenario>", journal.parent)


@contextmanager
def emulated_table(
    rules: Variant, shoe: ScriptedShoe | SeededShoe, *, wait_s: float = WAIT_S
) -> Iterator[DeviceHands]:
    """A table built like ``croupier run``'s, with its three devices emulated in-process and a
    temporary journal: yields the dealer's hands (``hands.app`` is the table), the caller being
    the table's owner. Everything is closed and removed on the way out."""
    with tempfile.TemporaryDirectory(prefix="croupier-scenario-") as folder:
        # A scenario's supervisor decides with the key alone: the script plays the person, and
        # PINs are proven on their own (tests/security). `croupier run` always takes PINs.
        service = TableService(
            scenario_table(rules, shoe, Path(folder) / "journal.sqlite3"),
            access=KEY_ONLY,
            identify_s=wait_s,
        )
        try:
            service.open()
            hands = DeviceHands(service, wait_s, scripted=isinstance(shoe, ScriptedShoe))
            hands.settle_events()
            yield hands
        finally:
            service.close()


def run_scenario(scenario: Scenario, *, wait_s: float = WAIT_S) -> ScenarioResult:
    """Play ``scenario`` through emulated devices and the production drivers."""
    rules = scenario_rules(scenario)
    with emulated_table(rules, scenario.shoe, wait_s=wait_s) as hands:
        records, rejected = play_rounds(
            hands.app.controller, hands, scripted_rounds(scenario), drain=output_cursor(hands.app)
        )
    return ScenarioResult(build_report(scenario, rules, records, rejected), records)


# --- the report -------------------------------------------------------------------------------


def build_report(
    scenario: Scenario,
    rules: Variant,
    records: list[RoundRecord],
    rejected: list[PlayRejection],
) -> ScenarioReport:
    rounds = [_round_report(rules, rec) for rec in records]
    rejections = [Rejection(r.round, _scripted(r.decision), r.reason) for r in rejected]
    return ScenarioReport(
        spec=scenario.spec, variant=rules.id, rounds=tuple(rounds), rejected=tuple(rejections)
    )


def _scripted(decision: Decision | TableEvent) -> ScriptAction:
    assert isinstance(decision.source, ScriptAction)
    return decision.source


def _round_report(rules: Variant, rec: RoundRecord) -> RoundReport:
    state: RoundState = rec.controller_round
    dealer = rec.dealer_cards
    value = hand_value(dealer) if dealer else None
    dealer_report = DealerReport(
        cards=tuple(dealer),
        total=value.total if value else 0,
        bust=bool(value and value.bust),
        natural=len(dealer) == 2 and is_natural(rules, dealer, False),
    )
    boxes = []
    for number in state.box_numbers():
        box = state.boxes[number]
        hands = []
        for i, hand in enumerate(box.hands):
            entries = [e for e in rec.ledger if e.box == number and e.hand == i + 1]
            hands.append(
                HandReport(
                    tuple(hand.cards),
                    total(rules, hand),
                    hand.doubles > 0,
                    _outcome(box.surrendered, entries, state.voided),
                )
            )
        boxes.append(
            BoxReport(
                number,
                tuple(WagerReport(w.player, w.amount_cents) for w in box.wagers),
                tuple(hands),
            )
        )
    net = net_by_player(rec.ledger, state.players())
    return RoundReport(
        round=rec.number,
        dealer=dealer_report,
        boxes=tuple(boxes),
        prompts=tuple(_prompt_record(p) for p in rec.prompts),
        ledger=tuple(_ledger_record(e) for e in rec.ledger),
        net_cents=net,
    )


def _outcome(surrendered: bool, entries: list[LedgerEntry], voided: bool) -> str:
    if surrendered:
        return "surrender"
    kinds = {e.kind for e in entries}
    if EntryKind.RESCUE in kinds:
        return "rescue"
    if voided and kinds <= {EntryKind.RETURN}:
        return "void"
    amount = sum(e.amount_cents for e in entries)
    if not entries:
        return "open"
    if amount > 0:
        return "win"
    if amount < 0:
        return "lose"
    return "push"


def _prompt_record(p: Prompt) -> PromptRecord:
    odds = None if p.odds is None else f"{p.odds.numerator}:{p.odds.denominator}"
    return PromptRecord(
        code=p.code.value,
        box=p.box,
        hand=p.hand,
        player=p.player,
        amount_cents=p.amount_cents,
        odds=odds,
        text=line(p),
    )


def _ledger_record(e: LedgerEntry) -> LedgerRecord:
    return LedgerRecord(
        box=e.box,
        player=e.player,
        kind=e.kind.value,
        amount_cents=e.amount_cents,
        odds=e.odds_text,
        reason=e.reason,
    )
