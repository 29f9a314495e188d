"""``croupier history``: recall past rounds from the journal, step by step.

``croupier history [--journal PATH] [--last N] [--round ID] [--json]`` rebuilds rounds from the
journal's rows (see :mod:`controller.journal` for the row kinds) and prints them as a RECALL: what
was recorded, never the live table. Per round:

- ``cards``: the cards drawn from the shoe (``device_event`` rows of type CardDrawn) and cards
  keyed in by the dealer (accepted ``key_card`` inputs), in journal order;
- ``decisions``: accepted inputs other than the devices' own (``card``, ``peek``, ``hold``,
  ``resume``), each ``{action, data, keys, by}``; an input entered from the display (a bet, a
  supervisor's decision) takes its ``data`` and ``by`` from the ``call`` row written before it;
- ``prompts``: the prompt payloads; ``ledger``: the ledger payloads (payouts and collections);
- ``overrides``: supervisor rows ``{action, by, detail}``;
- ``net_cents``: the round_end row's figure, or the sum of the ledger when the round did not end;
- ``dealer``: who dealt it ("Bo Chen (2001)", from journal format 9; null: nobody signed in);
  ``sessions``: the bets of seated rated players, each ``{box, player, card, session,
  amount_cents}`` (``people`` rows; the sign-ins, sit-downs and walk-aways show as steps);
- ``steps`` (JSON only): every row of the round ``{seq, ts, kind, payload}``, in order.

The text shows the same steps for a person: button presses appear as the keys of the decision
(or refusal) they entered, and state changes, calls and device commands are left to ``--json``.
A rebuilt table (``recovery`` rows), a notice the dealer was shown (``notice``), a clean stop
(``stop``) and a supervisor's void at a halted start (``set_aside``, with every row it set aside
marked "(set aside)") are shown where they happened. The devices' heartbeats (their status
reports, every half second or so, and the notes that only repeat an event's name) are left out
unless ``--all`` asks for them; ``--json`` holds every row.

The default is the last 10 rounds; ``--round`` picks one. Exit status 0, 1 when the journal
cannot be read or the round is not in it, 2 when there is no journal at PATH.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.cli.commands import DEFAULT_LAST
from controller.game.prompts import money
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal, Row
from controller.round.phases import PHASES
from controller.round.spec import State
from drivers.tbl21.events import BUTTON_WORDS, Button

DEVICE_ACTIONS = frozenset({"card", "peek", "hold", "resume"})
KEYED_CARD_ACTION = "key_card"


@dataclass
class RoundRecall:
    round: int
    variant: str | None = None
    started: str | None = None
    ended: str | None = None
    complete: bool = False
    cards: list[str] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    overrides: list[dict[str, Any]] = field(default_factory=list)
    net_cents: int = 0
    dealer: str | None = None  # who dealt it (journal format 9 on)
    sessions: list[dict[str, Any]] = field(default_factory=list)  # rated players' bets
    steps: list[Row] = field(default_factory=list)
    inputs: dict[int, dict[str, Any]] = field(default_factory=dict)  # input rows, completed

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "variant": self.variant,
            "started": self.started,
            "ended": self.ended,
            "complete": self.complete,
            "cards": self.cards,
            "decisions": self.decisions,
            "prompts": self.prompts,
            "ledger": self.ledger,
            "overrides": self.overrides,
            "net_cents": self.net_cents,
            "dealer": self.dealer,
            "sessions": self.sessions,
            "steps": [
                {"seq": r.seq, "ts": r.ts, "kind": r.kind, "payload": r.payload} for r in self.steps
            ],
        }


def recall_round(round_id: int, rows: list[Row]) -> RoundRecall:
    """Rebuild one round from its rows (in seq order)."""
    recall = RoundRecall(round_id, steps=list(rows), inputs=complete_inputs(rows))
    net_from_end: int | None = None
    if rows:
        recall.started = rows[0].ts
    seen_start = False
    for row in rows:
        p = recall.inputs.get(row.seq, row.payload)
        if row.kind == "round_start":
            if not seen_start:  # the first mark counts (a table may mark a round again)
                recall.variant = _text(p.get("variant"))
                if p.get("dealer"):
                    recall.dealer = f"{p.get('dealer_name')} ({p.get('dealer')})"
            seen_start = True
        elif row.kind == "round_end":
            recall.complete = True
            recall.ended = row.ts
            if isinstance(p.get("net_cents"), int):
                net_from_end = p["net_cents"]
        elif row.kind == "device_event" and p.get("type") == "CardDrawn":
            recall.cards.append(str(p.get("card")))
        elif row.kind == "input" and p.get("accepted") is True:
            action = p.get("action")
            if action == KEYED_CARD_ACTION and isinstance(p.get("data"), dict):
                card = p["data"].get("card")
                if card is not None:
                    recall.cards.append(str(card))
            if action is not None and action not in DEVICE_ACTIONS:
                recall.decisions.append(
                    {
                        "action": action,
                        "data": p.get("data", {}),
                        "keys": p.get("keys", []),
                        "by": p.get("by"),
                    }
                )
        elif row.kind == "prompt":
            recall.prompts.append(p)
        elif row.kind == "ledger":
            recall.ledger.append(p)
        elif row.kind == "supervisor":
            recall.overrides.append(p)
        elif row.kind == "people" and p.get("event") == "bet":
            keep = ("box", "player", "card", "session", "amount_cents")
            recall.sessions.append({k: p.get(k) for k in keep})
    ledger_net = sum(
        e["amount_cents"] for e in recall.ledger if isinstance(e.get("amount_cents"), int)
    )
    recall.net_cents = net_from_end if net_from_end is not None else ledger_net
    return recall


def complete_inputs(rows: list[Row]) -> dict[int, dict[str, Any]]:
    """Input payloads with what their ``call`` row said: an input entered from the display (a
    bet, a supervisor's decision) is written first as a ``call`` with its arguments, then as an
    ``input`` with the result; the recall shows the arguments and who with the result."""
    completed: dict[int, dict[str, Any]] = {}
    call: dict[str, Any] | None = None
    for row in rows:
        if row.kind == "call":
            call = row.payload
        elif row.kind == "input" and call is not None:
            args = call.get("args")
            action = row.payload.get("action")
            called = "bet" if call.get("method") == "place_bet" else call.get("action")
            if isinstance(args, dict) and action == called:
                merged = dict(row.payload)
                if not merged.get("data"):
                    merged["data"] = {k: v for k, v in args.items() if k != "by"}
                if merged.get("by") is None and args.get("by") is not None:
                    merged["by"] = args["by"]
                completed[row.seq] = merged
            call = None
    return completed


def recall(
    journal: Journal, *, last: int = DEFAULT_LAST, round_id: int | None = None
) -> list[RoundRecall]:
    """The last ``last`` rounds (oldest first), or just ``round_id`` (empty if it is not there)."""
    ids = journal.round_ids()
    if round_id is not None:
        return [recall_round(round_id, journal.rows(round_id=round_id))] if round_id in ids else []
    return [recall_round(r, journal.rows(round_id=r)) for r in ids[-last:]]


def run(args: argparse.Namespace) -> int:
    path: Path = args.journal
    if not path.exists():
        print(f"croupier history: there is no journal at {path}", file=sys.stderr)
        return 2
    try:
        with Journal.open(path, readonly=True) as journal:
            check = journal.verify()
            rounds = recall(journal, last=args.last, round_id=args.round)
            table_id = journal.table_id
    except JournalUnavailable as exc:
        print(f"croupier history: {exc}", file=sys.stderr)
        return 1
    if not check.ok:
        print(
            f"croupier history: WARNING the journal does not verify ({check.describe()}); "
            "this recall may not be what happened. Run croupier audit verify.",
            file=sys.stderr,
        )
    if args.round is not None and not rounds:
        print(f"croupier history: round {args.round} is not in {path}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([r.to_json_dict() for r in rounds], indent=2, ensure_ascii=False))
        return 0
    print(render(rounds, path=path, table_id=table_id, verified=check.ok, everything=args.all))
    return 0


# --- text ------------------------------------------------------------------------------------


def render(
    rounds: list[RoundRecall],
    *,
    path: Path,
    table_id: str,
    verified: bool,
    everything: bool = False,
) -> str:
    """The rounds as text; ``everything`` keeps the devices' heartbeats in."""
    chain = "hash chain verified" if verified else "HASH CHAIN BROKEN: see croupier audit verify"
    lines = [
        f"RECALL of table {table_id} from journal {path} ({chain}); recorded rounds, not live play",
    ]
    if not rounds:
        lines.append("(no rounds recorded)")
    for r in rounds:
        lines.append("")
        lines.extend(_render_round(r, everything=everything))
    return "\n".join(lines)


# what a device says only to show it is there: its status report, and the note that repeats
# the name of an event already shown (or shown as the keys of a decision)
HEARTBEATS = frozenset({"DeviceStatus"})
ECHO_NOTES = frozenset({"DeviceStatus", "ButtonPressed", "ButtonReleased", "ButtonHeld"})


def is_heartbeat(row: Row) -> bool:
    """A device's heartbeat, or a note that only names an event."""
    if row.kind == "device_event":
        return row.payload.get("type") in HEARTBEATS
    return row.kind == "note" and row.payload.get("text") in ECHO_NOTES


def _render_round(r: RoundRecall, *, everything: bool = False) -> list[str]:
    variant = f" ({r.variant})" if r.variant else ""
    until = r.ended if r.complete else "not finished"
    dealt = f"  dealt by {r.dealer}" if r.dealer else ""
    lines = [f"== Round {r.round}{variant}  {r.started} .. {until}{dealt}"]
    marked = False
    aside = [
        (int(row.payload["first_seq"]), int(row.payload["last_seq"]))
        for row in r.steps
        if row.kind == "set_aside"
    ]
    for row in r.steps:
        if row.kind == "round_start":
            if marked:
                continue  # a round marked again is still one round
            marked = True
        if not everything and is_heartbeat(row):
            continue
        text = _step(row, r.inputs.get(row.seq, row.payload))
        if text is not None and any(first <= row.seq <= last for first, last in aside):
            text = f"(set aside) {text}"
        if text is not None:
            lines.append(f"  {row.ts[11:23]}  {text}")
    lines.append(f"  cards: {' '.join(r.cards) or '-'}")
    outcome = "net to players" if r.complete else "net to players so far"
    lines.append(f"  {outcome}: {_signed(r.net_cents)}")
    return lines


def _step(row: Row, p: dict[str, Any]) -> str | None:
    kind = row.kind
    if kind == "round_start":
        return f"{'start':<9} round {p.get('round')} {p.get('variant') or ''}".rstrip()
    if kind == "round_end":
        return f"{'end':<9} net to players {_signed(p.get('net_cents'))}"
    if kind == "device_event":
        return _device_step(p)
    if kind == "input":
        action = p.get("action")
        keys = ", ".join(_key_word(k) for k in p.get("keys") or [])
        keyed = f" [{keys}]" if keys else ""
        by = f" by {p['by']}" if p.get("by") else ""
        data = _data_text(p.get("data"))
        if p.get("accepted") is not True:
            return f"{'refused':<9} {action or 'key'}{data}{keyed}{by}: {p.get('reason', '')}"
        if action in DEVICE_ACTIONS:
            return None
        if action is None:  # CALL: no decision, the dealer called a supervisor to the table
            return f"{'called':<9} the dealer pressed {keys or 'a key'}: a supervisor is called{by}"
        return f"{'decision':<9} {str(action).upper()}{data}{keyed}{by}"
    if kind == "prompt":
        # what the dealer's bar showed (journal format 8 on), else the prompt's line
        return f"{'prompt':<9} {p.get('code')}: {p.get('shown', p.get('text', ''))}"
    if kind == "ledger":
        hand = f" hand {p['hand']}" if p.get("hand") is not None else ""
        odds = f" at {p['odds']}" if p.get("odds") else ""
        return (
            f"{'ledger':<9} box {p.get('box')} {p.get('player')}{hand} {p.get('kind')} "
            f"{_signed(p.get('amount_cents'))}{odds} (stake {_money(p.get('stake_cents'))}; "
            f"{p.get('reason', '')})"
        )
    if kind == "supervisor":
        return f"{'OVERRIDE':<9} {p.get('action')} by {p.get('by')}: {p.get('detail', '')}"
    if kind == "note":
        return f"{'note':<9} {p.get('device')}: {p.get('text')}"
    if kind == "access":
        return f"{'access':<9} {p.get('text')}"
    if kind == "people":
        if p.get("event") == "bet":
            return (
                f"{'rated':<9} box {p.get('box')} {p.get('player')} (card {p.get('card')}) bet "
                f"{_money(p.get('amount_cents'))} in session {p.get('session')}"
            )
        said = "people" if p.get("accepted") else "refused"
        return f"{said:<9} {p.get('text')}"
    if kind == "shoe_receipt":
        cut = "after" if p.get("cut_card") else "before"
        return (
            f"{'SHOE':<9} ended ({p.get('reason')}, {cut} the cut card): {p.get('dealt')} cards "
            f"dealt, {p.get('cards_left')} left in the decks, the shoe says "
            f"{p.get('shoe_left', '?')}; shortfall {p.get('shortfall')}, surplus {p.get('surplus')}"
        )
    if kind == "day":
        said = "day" if p.get("accepted") else "refused"
        return f"{said:<9} {p.get('text')}"
    if kind == "recovery":
        return f"{'RECOVERED':<9} {p.get('text')}"
    if kind == "notice":
        return f"{'notice':<9} {p.get('event')}: {p.get('text')}"
    if kind == "set_aside":
        return (
            f"{'SET ASIDE':<9} rows {p.get('first_seq')}-{p.get('last_seq')} by {p.get('by')} "
            f"({_cards(p.get('cards'))} to the discard), the round void: {p.get('reason')}"
        )
    if kind == "stop":
        return (
            f"{'STOPPED':<9} {p.get('reason')} (round {p.get('round')}: {_phase(p.get('state'))})"
        )
    return None  # state changes, device commands: in --json steps only


def _device_step(p: dict[str, Any]) -> str | None:
    kind = p.get("type")
    device = p.get("device")
    where = device.get("type") if isinstance(device, dict) else "?"
    if kind == "CardDrawn":
        return f"{'card':<9} {p.get('card')} (draw {p.get('draw_no')}, {where})"
    if kind == "PeekResult":
        return f"{'peek':<9} outcome {p.get('outcome')} ({where})"
    if kind in ("ButtonPressed", "ButtonReleased", "ButtonHeld"):
        return None  # the keys show with the decision or refusal they entered
    return f"{'device':<9} {kind} ({where})"


def _data_text(data: object) -> str:
    """``box=1 player=ann amount=$10``: who first, money as money."""
    if not isinstance(data, dict) or not data:
        return ""
    first = [k for k in ("box", "hand", "player", "players") if k in data]
    parts = []
    for key in [*first, *sorted(k for k in data if k not in first)]:
        value = data[key]
        if key.endswith("_cents") and isinstance(value, int):
            parts.append(f"{key.removesuffix('_cents')}={money(value)}")
        elif isinstance(value, list):
            parts.append(f"{key}={','.join(str(v) for v in value)}")
        else:
            parts.append(f"{key}={value}")
    return " " + " ".join(parts)


def _phase(state: object) -> str:
    """Where a round was, in words ('players' turns'); an unknown state as it is."""
    try:
        return PHASES[State(str(state))]
    except ValueError:
        return str(state)


def _key_word(code: object) -> str:
    """A panel key as the screen names it (``B2_`` -> ``BOX 2``); an unknown code as it is."""
    try:
        return BUTTON_WORDS[Button(str(code))]
    except ValueError:
        return str(code)


def _cards(count: object) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _signed(cents: object) -> str:
    if not isinstance(cents, int):
        return "?"
    return ("+" if cents > 0 else "") + money(cents)


def _money(cents: object) -> str:
    return money(cents) if isinstance(cents, int) else "?"


def _text(value: object) -> str | None:
    return None if value is None else str(value)
