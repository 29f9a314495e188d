"""Recall: the last rounds, card by card with every decision and payment, read from the journal.

For the dealer's screen once a supervisor is signed in (during a hold, and at a table stopped
for a supervisor too) and for the pit's page: :func:`read_recall` opens the journal read-only
(in the web server's worker thread, never on the table owner's: the round goes on meanwhile)
and rebuilds the last ``[display] recall_rounds`` rounds from their rows. Nothing comes from the
table's memory: what is shown is what was recorded. Each round is a list of steps, in the order
they were written:

* ``card``: a card the shoe drew (or one keyed in), with what the dealer was told to do with it
  (the deal prompt before it, as the journal recorded its words);
* ``decision``: a bet, a player's decision, a supervisor's (with who), and ``refused`` inputs;
* ``money``: every payment, collection, push and stake handed back, in the words the dealer
  read (the prompt rows: :func:`controller.game.words.line` wrote them);
* ``told``: the other things the dealer was told (a hold and its end, the dealer's result);
* ``end``: the round's result for the players.

The page marks the whole panel RECALL (:data:`~controller.game.words.RECALL_MARK`) so that
nobody takes it for the live round.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.game.prompts import PromptCode
from controller.game.words import (
    RECALL_MARK,
    recall_card,
    recall_decision,
    recall_refused,
    recall_round_over,
)
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal, Row

DEVICE_ACTIONS = frozenset({"card", "peek", "hold", "resume"})
MONEY = frozenset({PromptCode.PAY, PromptCode.COLLECT, PromptCode.PUSH, PromptCode.RETURN})
LEFT_OUT = frozenset({PromptCode.DEAL})  # said with the card it asked for


def _calls(rows: list[Row]) -> dict[int, dict[str, Any]]:
    """The arguments and who of an input entered from the display: written as a ``call`` row
    first (a bet's player and amount, a supervisor's name), then its ``input`` row."""
    found: dict[int, dict[str, Any]] = {}
    call: dict[str, Any] | None = None
    for row in rows:
        if row.kind == "call":
            call = row.payload
        elif row.kind == "input" and call is not None:
            data = {k: v for k, v in call.items() if k != "type"}
            args = call.get("args")
            if isinstance(args, dict):  # (a journal written before the calls were typed)
                data = dict(args)
            found[row.seq] = data
            call = None
    return found


def recall_round(number: int, rows: list[Row]) -> dict[str, Any]:
    """One round's steps, from its rows (in journal order)."""
    steps: list[dict[str, Any]] = []
    calls = _calls(rows)
    told_to: str | None = None  # the deal prompt waiting for its card
    complete, net = False, 0
    variant = None
    for row in rows:
        p = row.payload
        at = row.ts[11:19]
        if row.kind == "round_start" and variant is None:
            variant = p.get("variant")
        elif row.kind == "round_end":
            complete = True
            net = p["net_cents"] if isinstance(p.get("net_cents"), int) else net
        elif row.kind == "ledger" and not complete and isinstance(p.get("amount_cents"), int):
            net += p["amount_cents"]
        elif row.kind == "device_event" and p.get("type") == "CardDrawn":
            steps.append(_card(at, str(p.get("card")), p.get("draw_no"), told_to))
            told_to = None
        elif row.kind == "input":
            step = _input(at, p, calls.get(row.seq, {}), told_to)
            if step is not None:
                if step["kind"] == "card":
                    told_to = None
                steps.append(step)
        elif row.kind == "prompt":
            code = p.get("code")
            if code in LEFT_OUT:
                told_to = str(p.get("text", ""))
            else:
                kind = "money" if code in MONEY else "told"
                said = p.get("shown") or p.get("text", "")  # the bar's words, where recorded
                steps.append({"at": at, "kind": kind, "text": str(said)})
    if complete:
        net = next(
            (
                r.payload["net_cents"]
                for r in rows
                if r.kind == "round_end" and isinstance(r.payload.get("net_cents"), int)
            ),
            net,
        )
    steps.append({"at": "", "kind": "end", "text": recall_round_over(net, complete=complete)})
    return {
        "round": number,
        "variant": variant,
        "started": rows[0].ts if rows else None,
        "complete": complete,
        "net_cents": net,
        "steps": steps,
    }


def _card(at: str, card: str, draw_no: object, told_to: str | None) -> dict[str, Any]:
    return {
        "at": at,
        "kind": "card",
        "card": card,
        "text": recall_card(card, draw_no),
        "told": told_to or "",
    }


def _input(
    at: str, p: dict[str, Any], call: dict[str, Any], told_to: str | None
) -> dict[str, Any] | None:
    action = p.get("action")
    data = dict(p.get("data") or {})
    for key, value in call.items():
        if key != "by":
            data.setdefault(key, value)
    by = p.get("by") or call.get("by")
    if p.get("accepted") is not True:
        return {"at": at, "kind": "refused", "text": recall_refused(action, str(p.get("reason")))}
    if action in DEVICE_ACTIONS or action is None:
        return None
    if action == "key_card" and data.get("card"):
        return _card(at, str(data["card"]), None, told_to)
    return {
        "at": at,
        "kind": "decision",
        "text": recall_decision(str(action), data, str(by) if by else None),
    }


def read_recall(path: Path, last: int) -> dict[str, Any]:
    """The last ``last`` rounds of the journal at ``path`` (the latest first), read-only."""
    try:
        with Journal.open(path, readonly=True) as journal:
            ids = journal.round_ids()[-last:]
            rounds = [recall_round(r, journal.rows(round_id=r)) for r in ids]
    except JournalUnavailable as exc:
        return {"mark": RECALL_MARK, "rounds": [], "error": str(exc)}
    return {"mark": RECALL_MARK, "rounds": rounds[::-1], "error": None}


def recall_refusal(state: dict[str, Any]) -> str | None:
    """Why the dealer's screen may not show the recall now (None: a supervisor is signed in,
    at a running table or at one stopped for a supervisor)."""
    halted = state.get("halted")
    if isinstance(halted, dict):
        signed = halted.get("signed_in") is not None
    else:
        access = state.get("access")
        signed = isinstance(access, dict) and access.get("signed_in") == "supervisor"
    if signed:
        return None
    return (
        "the recall of the last rounds is for a supervisor: key at SUP and the supervisor signed in"
    )
