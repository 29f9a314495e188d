"""The table as the display shows it: one JSON-ready dict, built on the table owner's thread.

Everything here is the public view of the round. The dealer's cards come from
:meth:`~controller.round.controller.RoundController.dealer_visible_cards`, never from
``round.dealer.cards``, so a hole card is not in the state (nor in ``/api/state``, nor in the
page) before it is turned over; only how many cards lie face down is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.display.chips import bet_chips, chips_json
from controller.display.wanted import wanted_keys
from controller.display.words import entry_words, felt_lines, instruction, say
from controller.game.hands import hand_value
from controller.game.holds import HoldKind
from controller.game.prompts import Prompt, money
from controller.game.settlement import EntryKind, LedgerEntry
from controller.game.words import hand_status, hold_words, line, parts, plain, prompt_json, when
from controller.round.controller import StateChanged
from controller.round.model import BoxState, total
from controller.round.phases import PHASES
from controller.round.spec import Action, State
from controller.service.history import RoundSummary
from controller.table.access import AccessEvent, Role
from controller.table.app import InputResult, TableApp
from controller.table.config import TableConfig
from controller.table.day import PANEL_KEYS
from controller.table.health import DeviceHealth
from drivers.tbl21.cards import Card
from drivers.tbl21.events import BUTTON_WORDS, Button

# The buttons of the panel in the order the display lays them out.
DECISION_BUTTONS = ("DEA", "HIT", "STD", "DBL", "SPL", "SUR", "INS", "RES", "OK_", "UND", "SHF")
ENTRY_BUTTONS = (*tuple(f"B{n}_" for n in range(1, 8)), "W1_", "W2_", "W3_")
DIGIT_BUTTONS = tuple(f"D{n}_" for n in range(10))
OTHER_BUTTONS = ("CAN", "CAL")
ALL_BUTTONS = DECISION_BUTTONS + ENTRY_BUTTONS + DIGIT_BUTTONS + OTHER_BUTTONS
assert set(ALL_BUTTONS) == {b.value for b in Button}


def _card(card: Card) -> str:
    return str(card)


def _entry_json(entry: LedgerEntry) -> dict[str, Any]:
    if entry.kind is EntryKind.RETURN:
        verb, cents = "return", entry.stake_cents
    elif entry.amount_cents > 0:
        verb, cents = "pay", entry.amount_cents
    elif entry.amount_cents < 0:
        verb, cents = "collect", -entry.amount_cents
    else:
        verb, cents = "push", entry.stake_cents
    odds = f" at {entry.odds_text}" if entry.odds is not None and verb == "pay" else ""
    hand = f" hand {entry.hand}" if entry.hand else ""
    return {
        "player": entry.player,
        "hand": entry.hand,
        "kind": entry.kind.value,
        "verb": verb,
        "cents": cents,
        "text": f"{verb} {money(cents)}{odds} - {entry.player}{hand}: {entry.reason}",
    }


def step_outputs(app: TableApp) -> list[Any]:
    """The outputs of the step the dealer is at: from the input that last moved the round to
    another state (a hold and its end aside, and a bet, an insurance or a box selected inside a
    window are not moves) to now. Its ledger entries are what to pay and collect now; what the
    round settled before (a natural paid at once, before the insurance window closed) shows as
    paid already."""
    outputs = app.outputs
    for i in range(len(outputs) - 1, -1, -1):
        o = outputs[i]
        if (
            isinstance(o, StateChanged)
            and o.source is not o.dest
            and o.action not in (Action.HOLD, Action.RESUME)
        ):
            start = i
            while start > 0 and not isinstance(outputs[start], InputResult):
                start -= 1
            return outputs[start:]
    return outputs  # the move is no longer kept (or there was none): the whole round


def _sums(entries: Sequence[LedgerEntry]) -> tuple[int, int, int]:
    """What the entries say to pay, to collect and to hand back (cents, each >= 0)."""
    pay = sum(e.amount_cents for e in entries if e.amount_cents > 0)
    collect = -sum(e.amount_cents for e in entries if e.amount_cents < 0)
    back = sum(e.stake_cents for e in entries if e.kind is EntryKind.RETURN)
    return pay, collect, back


def _money_json(entries: Sequence[LedgerEntry], chips: Sequence[int]) -> dict[str, Any]:
    """A step's money: each side (pay, collect, return) with its chips, and its lines."""
    odds = sorted({str(e.odds_text) for e in entries if e.amount_cents > 0 and e.odds})
    pay, collect, back = (
        {"cents": cents, "text": money(cents), "odds": o, **chips_json(cents, chips)}
        for cents, o in zip(_sums(entries), (odds, [], []), strict=True)
    )
    return {
        "pay_cents": pay["cents"],
        "collect_cents": collect["cents"],
        "return_cents": back["cents"],
        "pay": pay if pay["cents"] else None,
        "collect": collect if collect["cents"] else None,
        "return": back if back["cents"] else None,
        "push": any(e.amount_cents == 0 and e.kind is not EntryKind.RETURN for e in entries),
        "lines": [_entry_json(e) for e in entries],
    }


def _total_text(pay: int, collect: int, back: int) -> str:
    said = [
        f"{verb} {money(cents)}"
        for verb, cents in (("pay", pay), ("collect", collect), ("return", back))
        if cents
    ]
    text = ", ".join(said)
    return text[:1].upper() + text[1:]


def _box_json(
    app: TableApp,
    box: BoxState | None,
    number: int,
    step: set[int],
    chips: Sequence[int],
) -> dict[str, Any]:
    round_ = app.controller.round
    if box is None:
        return {
            "number": number,
            "in_play": False,
            "wagers": [],
            "hands": [],
            "settlement": None,
            "step": None,
        }
    hands = []
    for i, hand in enumerate(box.hands):
        value = total(app.rules, hand)
        soft = hand_value(hand.cards).soft and not hand.doubles and value <= 21
        hands.append(
            {
                "index": i + 1,
                "cards": [_card(c) for c in hand.cards],
                "total": value if hand.cards else None,
                "soft": soft,
                "bust": value > 21,
                "doubled": hand.doubles > 0,
                "finished": hand.finished,
                "end": hand.end.value if hand.end is not None else None,
                "status": hand_status(hand.end, app.rules),
                "in_turn": round_.turn == (number, i),
                "card_due": round_.card_for == (number, i),
                "stakes": [
                    {
                        "player": s.player,
                        "cents": s.base_cents + s.double_cents,
                        "rescued": s.rescued,
                    }
                    for s in hand.stakes
                ],
            }
        )
    entries = [e for e in round_.ledger if e.box == number]
    now = [e for e in entries if id(e) in step]
    earlier = [e for e in entries if id(e) not in step]
    staked = sum(s.base_cents + s.double_cents for h in box.hands for s in h.stakes)
    if not box.hands:
        staked = sum(w.amount_cents for w in box.wagers)
    pay, collect, returned = _sums(entries)
    return {
        "number": number,
        "in_play": True,
        # Each player's wager, and what the player has at stake now (a double, a split): the
        # text says the stake, so a doubled $9 reads $18 beside "pay $18".
        "wagers": [
            {
                "player": w.player,
                "cents": w.amount_cents,
                "stake_cents": (at_stake := _player_stake(box, w.player, w.amount_cents)),
                "text": money(at_stake),
            }
            for w in box.wagers
        ],
        "insurance": [
            {"player": p, "cents": c, "text": money(c)} for p, c in box.insurance.items()
        ],
        "surrendered": box.surrendered,
        "stake": {
            "cents": staked,
            "text": money(staked),
            "doubled": any(h.doubles for h in box.hands),
            "split": len(box.hands) > 1,
            "insurance_cents": sum(box.insurance.values()),
        },
        "step": _money_json(now, chips) if now else None,
        "earlier": _total_text(*_sums(earlier)),
        "hands": hands,
        "settlement": {
            "pay_cents": pay,
            "collect_cents": collect,
            "return_cents": returned,
            "pay": money(pay),
            "collect": money(collect),
            "lines": [_entry_json(e) for e in entries],
        }
        if entries
        else None,
    }


def _player_stake(box: BoxState, player: str, wager_cents: int) -> int:
    """What ``player`` has at stake on ``box`` now: every hand's stake with its doubles (the
    wager itself before the cards are dealt)."""
    stakes = [s for h in box.hands for s in h.stakes if s.player == player]
    return sum(s.base_cents + s.double_cents for s in stakes) if stakes else wager_cents


def _prompt_json(prompt: Prompt | None) -> dict[str, Any] | None:
    return None if prompt is None else prompt_json(prompt)


def _access_json(app: TableApp, config: TableConfig) -> dict[str, Any]:
    """Roles and sign-in as the display shows them (never a PIN: only how many digits)."""
    policy = app.access.policy
    names = {Role.SUPERVISOR: config.supervisor.name, Role.TECHNICIAN: config.technician.name}
    role = app.access.key_role
    now = policy.clock()
    holds = app.controller.hold_reasons
    message = next((o for o in reversed(app.outputs[-60:]) if isinstance(o, AccessEvent)), None)
    return {
        "pins": policy.pins_required,
        "key_role": None if role is None else role.value,
        "signed_in": None if app.access.signin.role is None else app.access.signin.role.value,
        "signed_in_name": None
        if app.access.signin.role is None
        else f"{app.access.signin.name} ({app.access.signin.staff_id})"
        if app.access.signin.staff_id
        else names[app.access.signin.role],
        "by_person": role is not None and policy.by_person(role),
        "staff_keyed": app.access.staff_keyed(),
        "pin_pad": app.access.pin_pad_role() is not None,
        "pin_keyed": app.access.pin_keyed(),
        "pin_set": {r.value: policy.has_pin(r) for r in Role} if policy.pins_required else {},
        "locked": {
            r.value: when(until)
            for r in Role
            if (until := app.access.signin.locked_until(r, now)) is not None
        },
        "decisions": app.supervisor_choices(),
        "key_in": app.key_in_needed(),
        "keyed": any(h.kind is HoldKind.UNREADABLE_CARD and h.card is not None for h in holds),
        "message": None
        if message is None
        else {"text": say(message.text), "accepted": message.accepted, "event": message.event},
    }


def table_state(
    app: TableApp,
    config: TableConfig,
    devices: list[DeviceHealth],
    last_rounds: list[RoundSummary],
    *,
    rounds_completed: int,
    demo: bool,
) -> dict[str, Any]:
    """The whole display state (JSON-ready). Built on the table owner's thread only."""
    c = app.controller
    round_ = c.round
    visible = c.dealer_visible_cards()
    face_down = len(round_.dealer.cards) - len(visible)
    last_input = next((o for o in reversed(app.outputs) if isinstance(o, InputResult)), None)
    lost = [d.role for d in devices if d.status in ("lost", "refused")]
    boxes_in_use = sorted(set(config.boxes) | set(round_.boxes))
    recent = [o for o in app.outputs[-60:] if isinstance(o, Prompt)][-8:]
    outputs = step_outputs(app)
    in_round = {id(e) for e in round_.ledger}
    step_entries = [o for o in outputs if isinstance(o, LedgerEntry) and id(o) in in_round]
    step = {id(e) for e in step_entries}
    chips = config.display.chips
    told = instruction(app, [o for o in outputs if isinstance(o, Prompt)])
    banners = []
    shown = {plain(told["parts"])}
    for hold in c.hold_reasons:
        words = hold_words(hold, day_open=app.day.deals())
        said = plain(parts("Stop: ") + words["what"])
        if said not in shown:
            shown.add(said)
            banners.append({"kind": "hold", **words})
    totals = _money_json(step_entries, chips)
    totals["text"] = _total_text(
        totals["pay_cents"], totals["collect_cents"], totals["return_cents"]
    )
    return {
        "table": {
            "id": config.table_id,
            "variant": app.rules.id,
            "variant_name": app.rules.name,
            "limits": {
                "min_cents": config.limits.min_cents,
                "max_cents": config.limits.max_cents,
                "increment_cents": config.limits.increment_cents,
                "text": f"{money(config.limits.min_cents)} - {money(config.limits.max_cents)}",
            },
            "bet_chips": bet_chips(chips, config.limits.increment_cents, config.limits.max_cents),
            "boxes": list(config.boxes),
            "wagers_per_box": app.rules.table.wagers_per_box,
            "hole_card": app.rules.has_hole_card,
        },
        "round": round_.number,
        "state": c.state.value,
        "holding": c.state is State.HOLD,
        "holds": [h.detail for h in c.hold_reasons],
        "shuffle_due": c.table.shuffle_due or c.state is State.SHUFFLE,
        "key": app.access.key,
        "prompt": _prompt_json(app.last_prompt()),
        "recent_prompts": [line(p) for p in recent],
        "turn": None
        if round_.turn is None
        else {"box": round_.turn[0], "hand": round_.turn[1] + 1},
        "dealer": {
            "cards": [_card(card) for card in visible],
            "face_down": face_down,
            "total": hand_value(visible).describe() if visible else "",
            "revealed": face_down == 0,
        },
        "boxes": [_box_json(app, round_.boxes.get(n), n, step, chips) for n in boxes_in_use],
        "step_total": totals,
        "instruction": told,
        "phase": PHASES[c.state],
        "hold_banners": banners,
        "lit": sorted(b.value for b in app.lit),
        "wanted": sorted(b.value for b in wanted_keys(app)),
        "entry": list(app.entry.keys),
        "entry_text": entry_words(app.entry),
        "last_input": None
        if last_input is None
        else {
            "action": None if last_input.action is None else last_input.action.value,
            "accepted": last_input.accepted,
            "reason": say(last_input.reason),
            "keys": list(last_input.keys),
        },
        "access": _access_json(app, config),
        "people": app.people.as_json(),
        "day": {
            **app.day.as_json(),
            "denominations": sorted(chips),
            "keys_left": [
                BUTTON_WORDS[b] for b in sorted(PANEL_KEYS) if b.value not in app.day.keys_seen
            ],
            "felt": felt_lines(
                app.rules, f"{money(config.limits.min_cents)} - {money(config.limits.max_cents)}"
            ),
        },
        "devices": [d.as_json() for d in devices],
        "devices_lost": lost,
        "last_rounds": [r.as_json() for r in reversed(last_rounds)],
        "rounds_completed": rounds_completed,
        "demo": demo,
    }
