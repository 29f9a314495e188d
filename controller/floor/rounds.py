"""A table's rounds as the floor shows them on a click: the cards in the order they came out of
the shoe (or were keyed in), each with whom it was dealt to, the payouts and the overrides."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.game.prompts import money
from controller.journal.store import Row

_TARGET_PROMPTS = frozenset({"DEAL", "DEALER_DRAWS", "BURN", "PEEK", "REVEAL"})


def _target(payload: dict[str, Any]) -> str:
    box = payload.get("box")
    if isinstance(box, int):
        hand = payload.get("hand")
        return f"box {box}" + (f" hand {hand}" if isinstance(hand, int) and hand > 1 else "")
    text = str(payload.get("text", ""))
    if "dealer" in text or payload.get("code") in ("DEALER_DRAWS", "PEEK", "REVEAL"):
        return "dealer"
    if payload.get("code") == "BURN":
        return "burn"
    return text


def round_detail(rows: Iterable[Row]) -> dict[str, Any]:
    """One round from its rows (seq order)."""
    cards: list[dict[str, Any]] = []
    ledger: list[dict[str, Any]] = []
    overrides: list[dict[str, Any]] = []
    target = ""
    result: dict[str, Any] = {"round": None, "start": None, "end": None, "net_cents": None}
    for row in rows:
        p = row.payload
        result["round"] = row.round_id
        if result["start"] is None:
            result["start"] = row.ts
        if row.kind == "prompt" and p.get("code") in _TARGET_PROMPTS:
            target = _target(p)
        elif row.kind == "device_event" and p.get("type") == "CardDrawn":
            cards.append({"card": str(p.get("card", "")), "to": target, "ts": row.ts})
        elif (
            row.kind == "input"
            and p.get("action") == "key_card"
            and p.get("accepted")
            and isinstance(p.get("data"), dict)
        ):
            cards.append({"card": str(p["data"].get("card", "")), "to": target, "keyed": True})
        elif row.kind == "ledger":
            amount = int(p.get("amount_cents", 0))
            ledger.append(
                {
                    "box": p.get("box"),
                    "hand": p.get("hand"),
                    "player": p.get("player"),
                    "kind": p.get("kind"),
                    "amount_cents": amount,
                    "amount": money(amount),
                    "odds": p.get("odds"),
                    "reason": p.get("reason"),
                }
            )
        elif row.kind == "supervisor":
            overrides.append(
                {
                    "action": p.get("action"),
                    "by": p.get("by"),
                    "detail": p.get("detail"),
                    "ts": row.ts,
                }
            )
        elif row.kind == "round_end":
            result["end"] = row.ts
            net = p.get("net_cents")
            result["net_cents"] = net if isinstance(net, int) else None
    net_cents = result["net_cents"]
    result["net"] = None if net_cents is None else money(net_cents)
    # where each entry settles: "box 2", or "box 2 hand 1" where the box was split
    split = {e["box"] for e in ledger if isinstance(e["hand"], int) and e["hand"] > 1}
    for e in ledger:
        hand = e["hand"]
        e["where"] = f"box {e['box']}" + (
            f" hand {hand}" if e["box"] in split and isinstance(hand, int) else ""
        )
    result.update(cards=cards, ledger=ledger, overrides=overrides)
    result["void"] = any(o.get("action") == "void" for o in overrides)
    return result


def round_summaries(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """The rounds of some ``round_start``/``round_end``/``supervisor`` rows, newest first."""
    rounds: dict[int, dict[str, Any]] = {}
    for row in rows:
        if row.round_id is None:
            continue
        entry = rounds.setdefault(
            row.round_id,
            {"round": row.round_id, "start": None, "end": None, "net_cents": None, "void": False},
        )
        if row.kind == "round_start":
            entry["start"] = row.ts
        elif row.kind == "round_end":
            entry["end"] = row.ts
            net = row.payload.get("net_cents")
            entry["net_cents"] = net if isinstance(net, int) else None
        elif row.kind == "supervisor" and row.payload.get("action") == "void":
            entry["void"] = True
    out = sorted(rounds.values(), key=lambda r: int(r["round"]), reverse=True)
    for entry in out:
        entry["net"] = None if entry["net_cents"] is None else money(int(entry["net_cents"]))
    return out
