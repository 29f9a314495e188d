"""A table's rounds as the floor shows them: the bets, the cards in the order they came out of the
shoe (or were keyed in), each with whom it was dealt to, how each box settled and the overrides;
the live round as it goes (the same, from the rows so far) and the lists of rounds, each with its
times in the casino's zone."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import tzinfo
from typing import Any

from controller.game.prompts import money
from controller.journal.store import Row, parse_ts

_TARGET_PROMPTS = frozenset({"DEAL", "DEALER_DRAWS", "BURN", "PEEK", "REVEAL"})


def clock(ts: str | None, zone: tzinfo | None) -> str | None:
    """A row's time (UTC in the journal) as the casino's clock reads it: ``22:31:05``."""
    if ts is None:
        return None
    return parse_ts(ts).astimezone(zone).strftime("%H:%M:%S")


def _target(payload: dict[str, Any]) -> str:
    box = payload.get("box")
    if isinstance(box, int):
        hand = payload.get("hand")
        return f"box {box}" + (f" hand {hand}" if isinstance(hand, int) and hand > 1 else "")
    code = payload.get("code")
    # a deal with no box is the dealer's card (their first, second or hole card)
    if code in ("DEAL", "DEALER_DRAWS", "PEEK", "REVEAL"):
        return "dealer"
    if code == "BURN":
        return "burn"
    return str(payload.get("text", ""))


# What the journal's prompt says, as the dealer's screen says it: cards as cards, the choices by
# the names printed on the keys ("box 2 hand 1: 5H 5D (10) - hit, stand" is shown as
# "Box 2: 5♥ 5♦ 10 - HIT or STAND", the hand named only where the box was split).
_CARD = re.compile(r"\b([2-9TJQKA][CDHS])\b")
_TURN = re.compile(r"^box (\d+) hand (\d+): ")
_TOTAL = re.compile(r"(?<=[CDHS]) \(((?:soft )?\d+|bust \(\d+\))\)")
_CHOICES = re.compile(r" - ([a-z]+(?:, [a-z]+)*)$")
_KEYS = {
    "hit": "HIT",
    "stand": "STAND",
    "double": "DOUBLE",
    "split": "SPLIT",
    "surrender": "SURRENDER",
    "insure": "INSURE",
    "insurance": "INSURE",
    "rescue": "RESCUE",
}


def prompt_parts(text: str, split: Iterable[int] = ()) -> list[dict[str, str]]:
    """A prompt's text as parts (``{"text": ...}`` or ``{"card": "AH"}``) in the dealer's
    screen's words; ``split``: the boxes that have more than one hand."""
    turn = _TURN.match(text)
    if turn is not None:
        box, hand = int(turn.group(1)), int(turn.group(2))
        where = f"Box {box}" + (f", hand {hand}" if box in set(split) else "")
        text = f"{where}: " + text[turn.end() :]
    text = _TOTAL.sub(lambda m: f" {m.group(1)}", text)
    choices = _CHOICES.search(text)
    if choices is not None:
        words = choices.group(1).split(", ")
        if all(w in _KEYS for w in words):
            keys = [_KEYS[w] for w in words]
            said = keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + " or " + keys[-1]
            text = text[: choices.start()] + " - " + said
    text = text[:1].upper() + text[1:]
    out: list[dict[str, str]] = []
    at = 0
    for card in _CARD.finditer(text):
        between = text[at : card.start()]
        if between and not (between == " " and out and "card" in out[-1]):  # cards side by side
            out.append({"text": between})
        out.append({"card": card.group(1)})
        at = card.end()
    if at < len(text):
        out.append({"text": text[at:]})
    return out


# A run of card codes side by side in the bar's recorded words ("8C8D 16 - HIT or STAND").
_CARD_RUN = re.compile(r"(?<![0-9A-Za-z])((?:[2-9TJQKA][CDHS])+)(?![0-9A-Za-z])")


def shown_parts(shown: str) -> list[dict[str, str]]:
    """The prompt bar's words as the journal recorded them (``shown``, journal format 8 on:
    :func:`controller.game.words.plain`, cards as their codes) as parts again: the words the
    dealer read, unchanged, with each card a card."""
    out: list[dict[str, str]] = []
    at = 0
    for run in _CARD_RUN.finditer(shown):
        if run.start() > at:
            out.append({"text": shown[at : run.start()]})
        codes = run.group(1)
        out.extend({"card": codes[i : i + 2]} for i in range(0, len(codes), 2))
        at = run.end()
    if at < len(shown):
        out.append({"text": shown[at:]})
    return out


def _amount(amount: int, odds: object) -> str:
    """A settlement's money for the pit: ``+$30 at 3:2``, ``-$7``, ``$0``."""
    sign = "+" if amount > 0 else ""
    shown = f"{sign}{money(amount)}"
    return f"{shown} at {odds}" if amount > 0 and isinstance(odds, str) and odds else shown


def round_detail(rows: Iterable[Row], zone: tzinfo | None = None) -> dict[str, Any]:
    """One round from its rows (seq order): finished, or as far as it has gone."""
    fold = RoundFold()
    for row in rows:
        fold.feed(row)
    return fold.detail(zone)


class RoundFold:
    """A round's rows folded as they come (seq order): :meth:`detail` is the round as far as it
    has gone. The floor's live view keeps one for the round in play and feeds it each row once
    (issue 26: reading the round's every row again at each showing was most of the watcher's
    work at 1,000 tables)."""

    __slots__ = (
        "bets",
        "cards",
        "end",
        "first_ts",
        "ledger",
        "net_cents",
        "on_bar",
        "overrides",
        "prompt",
        "round",
        "start",
        "target",
    )

    def __init__(self) -> None:
        self.cards: list[dict[str, Any]] = []
        self.bets: list[dict[str, Any]] = []
        self.ledger: list[dict[str, Any]] = []
        self.overrides: list[dict[str, Any]] = []  # (their times in the zone added when shown)
        self.target = ""
        self.prompt = ""
        self.on_bar = False  # the prompt is the bar's words as shown (journal format 8 on)
        self.first_ts: str | None = None
        self.round: int | None = None
        self.start: str | None = None
        self.end: str | None = None
        self.net_cents: int | None = None

    def feed(self, row: Row) -> None:
        p = row.payload
        kind = row.kind
        self.round = row.round_id
        self.first_ts = self.first_ts or row.ts
        if kind == "round_start":
            self.start = row.ts
        elif kind == "prompt":
            self.on_bar = "shown" in p
            self.prompt = str(p["shown"] if self.on_bar else p.get("text", self.prompt))
            if p.get("code") in _TARGET_PROMPTS:
                self.target = _target(p)
        elif kind == "device_event" and p.get("type") == "CardDrawn":
            self.cards.append({"card": str(p.get("card", "")), "to": self.target, "ts": row.ts})
        elif kind == "input" and p.get("accepted") and isinstance(p.get("data"), dict):
            data = p["data"]
            if p.get("action") == "key_card":
                self.cards.append(
                    {"card": str(data.get("card", "")), "to": self.target, "keyed": True}
                )
            elif p.get("action") == "bet" and isinstance(data.get("amount_cents"), int):
                self.bets.append(
                    {
                        "box": data.get("box"),
                        "player": data.get("player"),
                        "amount_cents": data["amount_cents"],
                        "amount": money(data["amount_cents"]),
                    }
                )
        elif kind == "ledger":
            amount = int(p.get("amount_cents", 0))
            self.ledger.append(
                {
                    "box": p.get("box"),
                    "hand": p.get("hand"),
                    "player": p.get("player"),
                    "kind": p.get("kind"),
                    "amount_cents": amount,
                    "amount": _amount(amount, p.get("odds")),
                    "odds": p.get("odds"),
                    "reason": p.get("reason") or str(p.get("kind", "")),
                }
            )
        elif kind == "supervisor":
            self.overrides.append(
                {
                    "action": p.get("action"),
                    "by": p.get("by"),
                    "detail": p.get("detail"),
                    "ts": row.ts,
                }
            )
        elif kind == "round_end":
            self.end = row.ts
            net = p.get("net_cents")
            self.net_cents = net if isinstance(net, int) else None

    def detail(self, zone: tzinfo | None = None) -> dict[str, Any]:
        """The round as far as it has gone, its times in ``zone``: new lists and entries each
        time (the cards' and bets' entries are the fold's own, never changed after)."""
        net_cents = self.net_cents
        start = self.start or self.first_ts  # (bets come before the round's start row)
        in_play = self.end is None
        prompt = self.prompt if in_play else ""
        cards = list(self.cards)
        split_boxes = {int(c["to"].split()[1]) for c in cards if " hand " in str(c["to"])}
        # where each entry settles: "box 2", or "box 2 hand 1" where the box was split
        split = {e["box"] for e in self.ledger if isinstance(e["hand"], int) and e["hand"] > 1}
        ledger = [
            {
                **e,
                "where": f"box {e['box']}"
                + (
                    f" hand {e['hand']}" if e["box"] in split and isinstance(e["hand"], int) else ""
                ),
            }
            for e in self.ledger
        ]
        overrides = [{**o, "time": clock(o["ts"], zone)} for o in self.overrides]
        return {
            "round": self.round,
            "start": start,
            "end": self.end,
            "net_cents": net_cents,
            "net": None if net_cents is None else money(net_cents),
            "start_time": clock(start, zone),
            "end_time": clock(self.end, zone),
            "in_play": in_play,
            "prompt": prompt,
            "prompt_parts": shown_parts(prompt)
            if self.on_bar
            else prompt_parts(prompt, split_boxes),
            "cards": cards,
            "bets": list(self.bets),
            "ledger": ledger,
            "overrides": overrides,
            "void": any(o.get("action") == "void" for o in overrides),
        }


def summarize(rounds: dict[int, dict[str, Any]], row: Row) -> bool:
    """Fold a ``round_start``, ``round_end`` or void ``supervisor`` row into its round's summary
    in ``rounds`` (by number); False for any other row."""
    void = row.kind == "supervisor" and row.payload.get("action") == "void"
    if row.round_id is None or not (void or row.kind in ("round_start", "round_end")):
        return False
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
    else:
        entry["void"] = True
    return True


def round_summaries(rows: Iterable[Row], zone: tzinfo | None = None) -> list[dict[str, Any]]:
    """The rounds of some ``round_start``/``round_end``/``supervisor`` rows, newest first."""
    rounds: dict[int, dict[str, Any]] = {}
    for row in rows:
        summarize(rounds, row)
    out = sorted(rounds.values(), key=lambda r: int(r["round"]), reverse=True)
    for entry in out:
        summed(entry, zone)
    return out


def summed(entry: dict[str, Any], zone: tzinfo | None) -> dict[str, Any]:
    """A round's summary with what the page shows: the players' net in money, the times."""
    net = entry["net_cents"]
    entry["net"] = None if net is None else money(int(net))
    entry["start_time"] = clock(entry["start"], zone)
    entry["end_time"] = clock(entry["end"], zone)
    entry["in_play"] = entry["end"] is None
    return entry
