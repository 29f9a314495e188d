"""Every sentence the dealer reads about the round, made from typed prompts and holds.

The round emits a :class:`~controller.game.prompts.Prompt` as a code, the sentence it is
(:class:`~controller.game.prompts.Say`) and typed fields (boxes, cards, amounts, the hold's
cause), never words; a hold is a :class:`~controller.game.holds.HoldCause` with what it names.
This module is the one place that turns them into words: :func:`line` is the prompt as one line
(the terminal, the scenario report, the journal's ``text``, ``history``), :func:`hold_text` a
hold's stop line. Nothing decides anything on these words: code reads the typed fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.game.hands import hand_value
from controller.game.holds import HoldCause, HoldKind
from controller.game.prompts import Prompt, PromptCode, Say, money
from controller.game.rules import format_odds

DEVICE_WORDS = {"shoe": "the shoe", "peek": "the hole-card reader", "panel": "the button panel"}


def device_words(device: str | None) -> str:
    return DEVICE_WORDS.get(device or "", f"the {device}" if device else "a device")


def cards_words(n: int) -> str:
    return f"{n} card" + ("" if n == 1 else "s")


# What the dealer does when a hold ends, by where the round goes back to (a state's value).
GO_ON: dict[str, str] = {
    "shuffle": "Load a new shoe, then press SHUFFLE.",
    "burn": "Go on burning the new shoe's cards.",
    "betting": "Go on taking the bets, then press DEAL.",
    "dealing": "Go on with the deal.",
    "offers": "Back to insurance and surrender: press OK when every box has answered.",
    "insurance": "Back to insurance: press OK when every box has answered.",
    "surrender": "Back to surrender: press OK when every box has answered.",
    "peek": "Put the hole card in the reader.",
    "playing": "The hand in play waits for its decision.",
    "card_due": "Deal the card that is due.",
    "rescue": "Back to the rescue offer: RESCUE or OK.",
    "reveal": "Turn the hole card over, then press OK.",
    "dealer": "Go on drawing for the dealer.",
    "settling": "Pay and collect as shown, then press OK.",
    "hold": "The table still holds.",
}
# The states whose own prompt follows a resume: it says what to do.
PROMPTED = frozenset({"shuffle", "burn", "betting", "playing"})


def hold_text(kind: HoldKind, detail: str, device: str | None, cause: HoldCause) -> str:
    """A hold as the dealer reads it: what stopped the table, and what to do."""
    if kind is HoldKind.DEVICE_LOST:
        name = device_words(device)
        if cause is HoldCause.DEVICE_REFUSED:
            return (
                f"Stop: {name} was refused (not an approved device). Press CALL for a technician."
            )
        return (
            f"Stop: {name} is not answering. Check its cable and power; play goes on by itself "
            "when it is back. Press CALL if it stays lost."
        )
    if kind is HoldKind.UNREADABLE_CARD:
        return (
            "Stop: the shoe could not read a card. Key it in on the screen; the supervisor "
            "confirms it."
        )
    if kind is HoldKind.REDRAW:
        return "Stop: a card went back into the shoe. Draw it again: it goes where it went first."
    return (
        f"Stop: {detail}. Press CALL: a supervisor (or, for a device fault, a technician) "
        "checks the table and clears the lockup."
    )


def _card(p: Prompt) -> str:
    return " ".join(str(c) for c in p.cards)


def _where(p: Prompt) -> str:
    return f"box {p.box}" + (f" hand {p.hand}" if p.hand else "") + f" ({p.player})"


def _turn(p: Prompt) -> str:
    total = p.total or 0
    soft = "soft " if p.soft and total <= 21 else ""
    return f"box {p.box} hand {p.hand}: {_card(p)} ({soft}{total}) - {', '.join(p.options)}"


def _dealer_card(p: Prompt) -> str:
    which = "first" if p.count == 1 else "second"
    return f"deal the dealer's {which} card {'face down' if p.face_down else 'face up'}"


def _money(p: Prompt) -> str:
    amount = money(p.amount_cents or 0)
    if p.code is PromptCode.RETURN:
        return f"return {amount} to {_where(p)}: {p.detail}"
    if p.code is PromptCode.PAY:
        odds = "" if p.odds is None else f" at {format_odds(p.odds)}"
        return f"pay {_where(p)} {amount}{odds}: {p.detail}"
    if p.code is PromptCode.COLLECT:
        return f"collect {amount} from {_where(p)}: {p.detail}"
    return f"push on {_where(p)}: {p.detail}"


def _hold(p: Prompt) -> str:
    return hold_text(p.hold or HoldKind.LOCKUP, p.detail, p.device, p.cause or HoldCause.OTHER)


def _back(cleared: str) -> Callable[[Prompt], str]:
    """What came back, and what to do now unless the state's own prompt says it next."""

    def said(p: Prompt) -> str:
        what = cleared.format(card=_card(p), device=device_words(p.device).capitalize())
        state = p.state or "betting"
        return what if state in PROMPTED else f"{what} {GO_ON[state]}"

    return said


def _over(p: Prompt) -> str:
    summary = ", ".join(f"{player} {money(cents)}" for player, cents in p.net)
    return f"Round {p.count} over ({summary}): pay and collect, then press OK."


# Where a round is, in the dealer's words, by the round state's value (controller.round.phases
# keys them by the state and checks that every state has its words).
PHASE_WORDS: dict[str, str] = {
    "shuffle": "new shoe needed",
    "burn": "burning the new shoe",
    "betting": "bets open",
    "dealing": "dealing",
    "offers": "insurance and surrender",
    "insurance": "insurance",
    "surrender": "surrender",
    "peek": "checking the hole card",
    "playing": "players' turns",
    "card_due": "a card is due",
    "rescue": "rescue offer",
    "reveal": "turning the hole card",
    "dealer": "dealer's turn",
    "settling": "paying out",
    "hold": "on hold",
}


_LINES: dict[Say, Callable[[Prompt], str]] = {
    Say.LOAD_SHOE: lambda p: "Load a new shoe, then press SHUFFLE.",
    Say.CUT_CARD: lambda p: "cut card: shuffle after this round",
    Say.BURN: lambda p: f"Burn {cards_words(p.count or 0)} from the new shoe.",
    Say.TAKE_BETS: lambda p: f"Round {p.count}: take the bets, then press DEAL.",
    Say.DEAL_TO_BOX: lambda p: f"deal to box {p.box}",
    Say.DEALER_CARD: _dealer_card,
    Say.DEALER_SECOND: lambda p: "deal the dealer's second card",
    Say.HIT: lambda p: f"deal to box {p.box}",
    Say.DOUBLED: lambda p: f"deal one card to box {p.box} (doubled)",
    Say.SPLIT: lambda p: f"Split: deal to box {p.box} hand {p.hand}",
    Say.NEXT_HAND: lambda p: f"deal to box {p.box} hand {p.hand}",
    Say.TURN: _turn,
    Say.INSURANCE_FIRST: lambda p: "Dealer's first card is an ace: offer insurance, then press OK.",
    Say.INSURANCE_UP: lambda p: "Dealer's up card is an ace: offer insurance, then press OK.",
    Say.SURRENDER_AGAINST: lambda p: f"surrender offered against {_card(p)}",
    Say.SURRENDER_NOW: lambda p: "Offer surrender: any box may surrender now, then press OK.",
    Say.PEEK: lambda p: "put the hole card in the reader",
    Say.PEEK_UNREAD: lambda p: "the reader could not read the card: insert the hole card again",
    Say.PEEK_EMPTY: lambda p: "the reader has no card: insert the hole card again",
    Say.RESCUE: lambda p: f"box {p.box}: rescue? (take back the double, forfeit the wager)",
    Say.TURN_OVER: lambda p: "turn the hole card over, then press OK",
    Say.SHOWS: lambda p: f"dealer shows {_card(p)} ({hand_value(p.cards).describe()})",
    Say.NATURAL_TURN_OVER: lambda p: "Dealer natural: turn the hole card over, then press OK.",
    Say.PONTOON: lambda p: "dealer has pontoon",
    Say.NATURAL: lambda p: "dealer has a natural",
    Say.DRAWS: lambda p: f"dealer has {hand_value(p.cards).describe()}: draw",
    Say.BUSTS: lambda p: f"dealer busts with {hand_value(p.cards).total}",
    Say.STANDS: lambda p: f"dealer stands on {hand_value(p.cards).describe()}",
    Say.ROUND_OVER: _over,
    Say.MONEY: _money,
    Say.HOLD: _hold,
    Say.OUT_OF_TURN: lambda p: (
        f"Stop: card {_card(p)} was not expected. Leave it face up and press CALL: the "
        "supervisor gives it to the hand in play, burns it, or voids the round."
    ),
    Say.KEPT_OUT: lambda p: (
        f"{p.detail}: hold, check the shoe. Supervisor: burn it or void the round"
    ),
    Say.PEEK_MISMATCH: lambda p: (
        "Stop: the hole-card reader disagrees with the hole card. Press CALL for a supervisor."
    ),
    Say.DEVICE_BACK: _back("{device} reconnected."),
    Say.REDRAWN: _back("The card is drawn again."),
    Say.ASSIGNED: _back("Card {card} given to the hand in play."),
    Say.BURNED: _back("Card {card} burned."),
    Say.KEYED_HOLE: _back("Keyed-in card confirmed as the dealer's face-down card."),
    Say.KEYED: _back("Keyed-in card {card} confirmed."),
    Say.KEYED_WAITS: lambda p: (
        "The keyed-in card waits for the supervisor: key at SUP, sign in, then confirm it."
    ),
    Say.VOID: lambda p: f"round {p.count} void: every open wager returned",
    Say.RECOVERED: lambda p: (
        f"The table restarted: round {p.count} was rebuilt from the table's record and goes "
        f"on where it stopped ({PHASE_WORDS[p.state or '']})."
    ),
    Say.JOURNAL: lambda p: p.detail,
}
assert set(_LINES) == set(Say)


def line(prompt: Prompt) -> str:
    """The prompt as one line: what the terminal prints, the scenario report's and the
    journal's ``text``."""
    return _LINES[prompt.say](prompt)


def prompt_json(prompt: Prompt) -> dict[str, Any]:
    """The prompt as the journal's ``prompt`` row and the display's state hold it: its code,
    the fields set among box, hand, player, amount and odds, and its :func:`line`."""
    out: dict[str, Any] = {"code": prompt.code.value}
    if prompt.box is not None:
        out["box"] = prompt.box
    if prompt.hand is not None:
        out["hand"] = prompt.hand
    if prompt.player is not None:
        out["player"] = prompt.player
    if prompt.amount_cents is not None:
        out["amount_cents"] = prompt.amount_cents
    if prompt.odds is not None:
        out["odds"] = format_odds(prompt.odds)
    out["text"] = line(prompt)
    return out
