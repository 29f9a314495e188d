"""Every sentence the dealer reads about the round, made from typed prompts and holds.

The round emits a :class:`~controller.game.prompts.Prompt` as a code, the sentence it is
(:class:`~controller.game.prompts.Say`) and typed fields (boxes, cards, amounts, the hold),
never words; a hold is a :class:`~controller.game.holds.HoldReason` with its typed
:class:`~controller.game.holds.HoldCause`. This module is the one place that turns them into
words: :func:`line` is a prompt as one line (the scenario report, the journal's ``text``,
``history``, the floor's live round), :func:`bar` and :func:`bar_detail` the dealer's prompt bar
and the line under it (the pit page shows the same), :func:`shown` the bar's words as the journal
records them beside the prompt, :func:`hold_text` and :func:`hold_words` a hold's stop line and
banner, :func:`refusal_words` why the round refused a move (a typed
:class:`~controller.game.refusals.WhyNot`). Nothing decides anything on these words: code reads
the typed fields (``tests/test_one_voice.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from controller.game.hands import HandEnd, hand_value
from controller.game.holds import HoldCause, HoldKind, HoldReason
from controller.game.prompts import Prompt, PromptCode, Say, money, rank_words
from controller.game.refusals import Why, WhyNot
from controller.game.rule_enums import format_odds
from controller.game.told import Tell, Told
from drivers.tbl21.cards import Card, DeckType
from drivers.tbl21.errors import CardNotationError
from drivers.tbl21.events import BUTTON_WORDS, Button

if TYPE_CHECKING:
    from controller.game.rules import Variant

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
    hold = p.hold or HoldReason(HoldKind.LOCKUP, "the table holds")
    return hold_text(hold.kind, hold.detail, hold.device, hold.cause)


def _held_card(p: Prompt) -> str:
    return "" if p.hold is None else str(p.hold.card)


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
        f"Stop: card {_held_card(p)} was not expected. Leave it face up and press CALL: the "
        "supervisor gives it to the hand in play, burns it, or voids the round."
    ),
    Say.KEPT_OUT: lambda p: (
        f"{'' if p.hold is None else p.hold.detail}: hold, check the shoe. Supervisor: burn it "
        "or void the round"
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
    on_bar = shown(prompt)
    if on_bar is not None:
        out["shown"] = on_bar
    return out


# --- the prompt bar ---------------------------------------------------------------------------

Part = dict[str, str]  # {"text": ...} or {"card": "AH"} (the page draws a card as a picture)


def parts(*items: str | Card | Sequence[Card]) -> list[Part]:
    """Text and cards in order (adjacent texts joined)."""
    out: list[Part] = []
    for item in items:
        cards: Iterable[Card] = [item] if isinstance(item, Card) else ()
        if isinstance(item, str):
            if out and "text" in out[-1]:
                out[-1] = {"text": out[-1]["text"] + item}
            elif item:
                out.append({"text": item})
            continue
        if not isinstance(item, Card):
            cards = item
        out.extend({"card": str(c)} for c in cards)
    return out


def plain(items: list[Part]) -> str:
    """The parts as one line of text (cards as their codes): for logs, the journal and tests."""
    return "".join(p.get("text", p.get("card", "")) for p in items)


def key_words(keys: Sequence[Button]) -> str:
    """'HIT, STAND or DOUBLE': the keys by the names printed on them."""
    names = [BUTTON_WORDS[b] for b in keys]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


DEVICE_NAMES = {"shoe": "shoe", "peek": "hole-card reader", "panel": "button panel"}


def device_name(role: str | None) -> str:
    return DEVICE_NAMES.get(role or "", role or "a device")


def hold_words(hold: HoldReason, *, day_open: bool = False) -> dict[str, Any]:
    """A hold as the banner says it: ``what`` happened (parts), ``todo`` and the technical
    ``detail`` (a fault code, for the technician), in small type. Decided on the hold's typed
    ``cause`` (never on the words of its ``detail``, which is shown only as the record), and
    for the hold before the gaming day on ``day_open``: once the day is open it says what is
    left to do (burn the card, clear the lockup), not that the day is shut."""
    device = device_name(hold.device)
    cause = hold.cause
    card = () if hold.card is None else (hold.card,)
    if hold.kind is HoldKind.DEVICE_LOST:
        refused = cause is HoldCause.DEVICE_REFUSED
        return {
            "what": parts(
                f"the {device} "
                + ("was refused (not an approved device)" if refused else "is not answering")
            ),
            "todo": f"Check the {device}'s cable and power; play goes on by itself when it is "
            "back. Press CALL for a supervisor if it stays lost.",
            "detail": "",
        }
    if cause is HoldCause.FOREIGN_CARD:
        return {
            "what": parts("a card this game's shoe cannot hold came out: ", *card),
            "todo": "Leave it face up, check the shoe holds this game's decks, and press CALL. "
            "The supervisor (key at SUP, signed in) burns it or voids the round.",
            "detail": hold.about,
        }
    if cause is HoldCause.OVER_COUNT:
        return {
            "what": parts("one card more than this game's shoe holds came out: ", *card),
            "todo": "Leave it face up, check the shoe for a card of another deck, and press "
            "CALL. The supervisor (key at SUP, signed in) burns it or voids the round.",
            "detail": f"{hold.about}, all out already",
        }
    if hold.kind is HoldKind.UNEXPECTED_CARD:
        return {
            "what": parts("a card came out when none was due: ", *card),
            "todo": "Leave it face up and press CALL. The supervisor (key at SUP, signed in) "
            "gives it to the hand in play, burns it, or voids the round.",
            "detail": "",
        }
    if hold.kind is HoldKind.UNREADABLE_CARD:
        if hold.card is not None:
            return {
                "what": parts("the keyed-in card ", hold.card, " waits for the supervisor"),
                "todo": "Supervisor: key at SUP, sign in, then CONFIRM CARD.",
                "detail": "",
            }
        return {
            "what": parts("the shoe could not read a card"),
            "todo": "Key the card in below (rank and suit, then KEY IN); the supervisor "
            "confirms it.",
            "detail": "",
        }
    if hold.kind is HoldKind.REDRAW:
        return {
            "what": parts("a card went back into the shoe: ", *card),
            "todo": "Draw it again: it is dealt already and goes where it went the first time.",
            "detail": "",
        }
    lockup = f"the {device} locked up" if hold.device else "the table locked up"
    record = hold.detail
    if cause is HoldCause.PEEK_MISMATCH:
        lockup = "the hole-card reader disagrees with the hole card"
    elif cause is HoldCause.SHOE_RELOADED:
        lockup = "the shoe loaded a new shoe in the middle of the round"
    elif cause is HoldCause.WRONG_DECK:
        return {
            "what": parts("the shoe holds another game's decks: no deal"),
            "todo": f"Load this game's cards ({hold.about}) in the shoe, then press CALL: a "
            "supervisor clears the hold.",
            "detail": cause.name,
        }
    elif cause is HoldCause.DRAW_GAP:
        lockup = "cards left the shoe unseen"
    elif cause is HoldCause.DRAW_RESET:
        return {
            "what": parts("the shoe restarted and lost its count of the cards drawn"),
            "todo": "Stop dealing. Leave every card drawn since face up, in order, and press "
            "CALL: the supervisor (key at SUP, signed in) clears this hold, then gives each "
            "card to its hand, burns it, or voids the round.",
            "detail": record,
        }
    elif cause is HoldCause.DEVICE_CHANGED:
        return {
            "what": parts(f"the {device} came back as another unit or with other firmware"),
            "todo": "Stop dealing and press CALL: the supervisor (key at SUP, signed in) checks "
            f"the {device} and the cards on the table, then clears the hold or voids the round.",
            "detail": record,
        }
    elif cause is HoldCause.FIRMWARE_NOT_APPROVED:
        return {
            "what": parts(f"the {device} runs firmware this table does not allow: no deal"),
            "todo": f"Press CALL for a technician: install approved firmware on the {device} "
            f"({hold.about}), or add its hash to devices.firmware_allow in the table file and "
            "restart croupier. Then a supervisor clears the hold.",
            "detail": cause.name,
        }
    elif cause in (HoldCause.JOURNAL_CHANGED, HoldCause.FILE_CHANGED):
        changed = (
            "the record of play was changed behind the table's back"
            if cause is HoldCause.JOURNAL_CHANGED
            else "a rules file was changed while the table runs"
        )
        return {
            "what": parts(f"{changed}: {hold.about}"),
            "todo": "Stop dealing and press CALL: the supervisor (key at SUP, signed in) finds "
            "out who changed it, then clears the hold or stops the table.",
            "detail": record,
        }
    elif cause is HoldCause.DAY_NOT_OPEN and day_open:
        return {
            "what": parts("the gaming day is open now: burn the held card and clear the lockup"),
            "todo": "Leave the card face up. The supervisor (key at SUP, signed in) burns the "
            "card and clears the lockup; then burn a card from the shoe and the table deals.",
            "detail": cause.name,
        }
    elif cause is HoldCause.DAY_NOT_OPEN:
        return {
            "what": parts("the gaming day is not open: the table deals nothing"),
            "todo": "Leave the card face up. A supervisor opens the table (Gaming day), then "
            "burns the card and clears the hold.",
            "detail": cause.name,
        }
    elif cause is HoldCause.DEVICE_FAULT:
        pushed = () if hold.card is None else (f"{hold.card} went back into the shoe",)
        record = " - ".join((str(hold.fault), *pushed))
    return {
        "what": parts(lockup),
        "todo": "Press CALL: a supervisor (or, for a device fault, a technician) checks the "
        "table and clears the lockup.",
        "detail": record,
    }


# The prompts that tell the dealer what to do now (the bar shows the last of them); the others
# are said beside it: money to move (the pay panel), the dealer's result (under the bar), notes.
NOT_ON_THE_BAR = frozenset(
    {
        Say.MONEY,
        Say.CUT_CARD,
        Say.SHOWS,
        Say.PONTOON,
        Say.NATURAL,
        Say.BUSTS,
        Say.STANDS,
        Say.RECOVERED,
        Say.JOURNAL,
    }
)
# The dealer's result, said under the bar.
OUTCOMES = frozenset({Say.PONTOON, Say.NATURAL, Say.BUSTS, Say.STANDS})
_OFFERS = frozenset(
    {Say.INSURANCE_FIRST, Say.INSURANCE_UP, Say.SURRENDER_AGAINST, Say.SURRENDER_NOW}
)
# The keys of what a prompt's ``options`` name.
_KEYS = {
    "hit": Button.HIT,
    "stand": Button.STAND,
    "double": Button.DOUBLE,
    "split": Button.SPLIT,
    "insurance": Button.INSURANCE,
    "surrender": Button.SURRENDER,
}


def on_the_bar(prompt: Prompt) -> bool:
    return prompt.say not in NOT_ON_THE_BAR


def _box_hand(p: Prompt) -> str:
    return f"box {p.box}" + (f", hand {p.hand}" if (p.count or 1) > 1 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _offers(p: Prompt) -> list[Part]:
    what = " and ".join(p.options)
    against = (" against ", p.cards[0]) if p.cards else ()
    return parts(f"Offer {what}", *against, ", then press OK")


def _bar_turn(p: Prompt) -> list[Part]:
    where = _box_hand(p)
    value = hand_value(p.cards).describe()
    main = parts(f"{where[:1].upper()}{where[1:]}: ", p.cards, f" {value}")
    keys = [_KEYS[o] for o in p.options if o in _KEYS]
    return main + parts(f" - {key_words(keys)}") if keys else main


def _bar_hold(p: Prompt) -> list[Part]:
    words = hold_words(p.hold) if p.hold is not None else {"what": parts("the table is on hold")}
    return parts("Stop: ") + words["what"]


_BARS: dict[Say, Callable[[Prompt], list[Part]]] = {
    Say.LOAD_SHOE: lambda p: parts("Load a new shoe, then press SHUFFLE"),
    Say.BURN: lambda p: parts(f"Burn {cards_words(max(p.count or 1, 1))} from the new shoe"),
    Say.TAKE_BETS: lambda p: parts(f"Round {p.count}: take the bets, then press DEAL"),
    Say.DEAL_TO_BOX: lambda p: parts(f"Deal a card to box {p.box}"),
    Say.DEALER_CARD: lambda p: parts(
        f"Deal the dealer's {'first' if p.count == 1 else 'second'} card "
        + ("face down" if p.face_down else "face up")
    ),
    Say.DEALER_SECOND: lambda p: parts("Deal the dealer's second card face up"),
    Say.HIT: lambda p: parts(f"Deal a card to {_box_hand(p)}"),
    Say.DOUBLED: lambda p: parts(f"Deal a card to {_box_hand(p)} (doubled: one card)"),
    Say.SPLIT: lambda p: parts(f"Deal a card to {_box_hand(p)} (split)"),
    Say.NEXT_HAND: lambda p: parts(f"Deal a card to {_box_hand(p)} (split)"),
    Say.TURN: _bar_turn,
    Say.INSURANCE_FIRST: _offers,
    Say.INSURANCE_UP: _offers,
    Say.SURRENDER_AGAINST: _offers,
    Say.SURRENDER_NOW: _offers,
    Say.PEEK: lambda p: parts("Put the hole card in the reader"),
    Say.PEEK_UNREAD: lambda p: parts("Put the hole card in the reader again: it did not read it"),
    Say.PEEK_EMPTY: lambda p: parts("Put the hole card in the reader again: it did not read it"),
    Say.RESCUE: lambda p: parts(
        f"Box {p.box}: RESCUE takes back the double (the wager is lost), OK plays on"
    ),
    Say.TURN_OVER: lambda p: parts("Turn the hole card over, then press OK"),
    Say.NATURAL_TURN_OVER: lambda p: parts("Turn the hole card over, then press OK"),
    Say.DRAWS: lambda p: parts(
        f"Draw a card for the dealer (dealer has {hand_value(p.cards).describe()})"
    ),
    Say.ROUND_OVER: lambda p: parts(
        f"Round {p.count} is over: pay and collect as shown, then press OK"
    ),
    Say.VOID: lambda p: parts(
        f"Round {p.count} is void: give back every wager as shown, then press OK"
    ),
    Say.HOLD: _bar_hold,
    Say.OUT_OF_TURN: _bar_hold,
    Say.KEPT_OUT: _bar_hold,
    Say.PEEK_MISMATCH: _bar_hold,
    Say.KEYED_WAITS: _bar_hold,
    Say.DEVICE_BACK: lambda p: parts(line(p)),
    Say.REDRAWN: lambda p: parts(line(p)),
    Say.ASSIGNED: lambda p: parts(line(p)),
    Say.BURNED: lambda p: parts(line(p)),
    Say.KEYED_HOLE: lambda p: parts(line(p)),
    Say.KEYED: lambda p: parts(line(p)),
}
assert set(_BARS) | NOT_ON_THE_BAR == set(Say)


def bar(prompt: Prompt) -> list[Part]:
    """The prompt bar for a prompt that tells the dealer what to do now (:func:`on_the_bar`)."""
    make = _BARS.get(prompt.say)
    return parts(line(prompt)) if make is None else make(prompt)


SHOE_LOADING = "The shoe is loading a new shoe: wait"  # SHUFFLE pressed, the shoe not yet back


def bar_detail(told: Prompt | None, *, bets: int, outcome: Prompt | None) -> list[Part]:
    """The line under the bar: the bets placed, how to answer an offer, or the dealer's
    result (``outcome``, a prompt of :data:`OUTCOMES` of this step)."""
    if told is not None and told.say is Say.TAKE_BETS and bets:
        return parts(f"{_plural(bets, 'bet')} placed")
    if told is not None and told.say in _OFFERS:
        keys = [_KEYS[o] for o in told.options if o in _KEYS]
        return parts(
            "Choose the box (BOX 1-7), then "
            + (key_words(keys) or "the offer")
            + "; OK when every box has answered"
        )
    if outcome is not None:
        said = line(outcome)
        return parts(said[:1].upper() + said[1:])
    return []


def shown(prompt: Prompt) -> str | None:
    """What the prompt bar showed for ``prompt`` (None: the prompt is not a bar's), as the
    journal records it beside the prompt's code."""
    return plain(bar(prompt)) if on_the_bar(prompt) else None


# --- recall: a recorded round as the supervisor reads it back (controller.display.recall) ----

RECALL_MARK = "RECALL: recorded rounds from the journal, not the live round"
_RECALLED_ACTIONS = {
    "bet": "bet",
    "deal": "deal",
    "hit": "hit",
    "stand": "stand",
    "double": "double",
    "split": "split",
    "surrender": "surrender",
    "insurance": "insurance",
    "rescue": "rescue",
    "ok": "OK",
    "undo": "undo",
    "shuffle": "shuffle",
    "burn": "burn",
    "void": "void the round",
    "assign_card": "give the card to the hand in play",
    "burn_card": "burn the card",
    "confirm_card": "confirm the keyed-in card",
    "clear_lockup": "clear the lockup",
    "key_card": "key in a card",
}


def recall_decision(action: str, data: Mapping[str, Any], by: str | None) -> str:
    """A recorded decision: ``Bet $10 on box 2 for ann``, ``Hit - box 1 hand 2``,
    ``Void the round - by anna``."""
    what = _RECALLED_ACTIONS.get(action, action.replace("_", " "))
    amount = data.get("amount_cents")
    where = []
    if isinstance(data.get("box"), int):
        where.append(f"box {data['box']}")
    if isinstance(data.get("hand"), int):
        where.append(f"hand {data['hand']}")
    if action == "bet" and isinstance(amount, int):
        text = f"Bet {money(amount)} on {' '.join(where) or 'a box'}"
        if data.get("player"):
            text += f" for {data['player']}"
    else:
        text = what[:1].upper() + what[1:]
        if isinstance(amount, int):
            text += f" {money(amount)}"
        if where:
            text += " - " + " ".join(where)
        if data.get("card"):
            text += f" ({data['card']})"
    return text + (f" - by {by}" if by else "")


def recall_refused(action: str | None, reason: str) -> str:
    """A recorded input the table refused, and why."""
    what = _RECALLED_ACTIONS.get(action or "", "a key")
    return f"Refused ({what}): {reason}"


def card_shown(code: str) -> str:
    """A recorded card as a person reads it: 'TD' as '10♦' (a code that is no card as it is)."""
    try:
        card = Card.parse(code)
    except CardNotationError:
        return code
    rank = "10" if card.rank.value == "T" else card.rank.value
    return rank + card.suit.symbol


def recall_card(card: str, draw_no: object) -> str:
    """A card the shoe recorded (its draw number), or one keyed in (None)."""
    shown = card_shown(card)
    return (
        f"card {shown} (draw {draw_no})" if isinstance(draw_no, int) else f"card {shown} keyed in"
    )


def recall_round_over(net_cents: int, *, complete: bool) -> str:
    """The round's result for the players, as recorded."""
    sign = "+" if net_cents > 0 else ""
    said = f"{sign}{money(net_cents)}"
    return (
        f"Round over: net to players {said}"
        if complete
        else (f"Not finished: net to players so far {said}")
    )


def action_words(action: str) -> str:
    """An action (its value) in the dealer's words ("assign card", "OK")."""
    return "OK" if action == "ok" else action.replace("_", " ")


# A state (its value) in the dealer's words, for "... is not possible while ...".
STATE_WORDS: dict[str, str] = {
    "shuffle": "while the shoe waits for a shuffle",
    "burn": "while burn cards are due",
    "betting": "while bets are open",
    "dealing": "during the initial deal",
    "offers": "while insurance and surrender are offered",
    "insurance": "while insurance is offered",
    "surrender": "while surrender is offered",
    "peek": "while the reader checks the hole card",
    "playing": "while a hand waits for its decision",
    "card_due": "while a card is due to a hand",
    "rescue": "while rescue is offered",
    "reveal": "before the hole card is turned over",
    "dealer": "while the dealer draws",
    "settling": "while the round is being settled",
    "hold": "while the table is on hold",
}


def state_words(state: str) -> str:
    """A state (its value) in the dealer's words: "while bets are open"."""
    return STATE_WORDS[state]


def _kind(w: WhyNot) -> str:
    """A hold's kind as the refusals have always named it (its value: "device_lost")."""
    return w.kind.value if w.kind is not None else "any"


def _double_on_totals(w: WhyNot) -> str:
    totals = [str(t) for t in w.totals]
    listed = ", ".join(totals[:-1]) + " or " + totals[-1] if len(totals) > 1 else "".join(totals)
    return f"double only on a total of {listed or 'none'}, the hand has {w.number}"


def _double_cards(w: WhyNot) -> str:
    allowed = f"{w.low}-{w.high}" if w.high else f"{w.low} or more"
    return f"double needs {allowed} cards, the hand has {w.number}"


def _plural_word(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


# What wanted a card, by the action (its value) that did.
_WANTS_A_CARD = {
    "card": "a card event needs a card",
    "key_card": "key in the card as rank and suit",
    "hold": "a hold's card must be a card",
}


def _pin_words(w: WhyNot) -> str:
    """What was wrong in a PIN attempt: "supervisor PIN", or "staff number or supervisor PIN"."""
    return f"staff number or {w.role} PIN" if w.by_staff else f"{w.role} PIN"


def _locked(w: WhyNot) -> str:
    return "" if w.until is None else f"; wrong PINs locked it until {when(w.until)}"


def when(at: float) -> str:
    """A wall-clock time as the table says it ("14:05:09 UTC")."""
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S UTC")


def duration(seconds: float) -> str:
    """A time span as the table says it ("1 min 30 s"), never under a second."""
    whole = max(1, math.ceil(seconds))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _not_recorded(what: str, trouble: str) -> str:
    """Why an input was refused when the journal could not record it."""
    why = trouble or "The journal cannot be written."
    return f"Not applied ({what}): nothing is recorded, so nothing is done. {why}"


# --- the shoe's decks (the round's foreign and over-count cards, the table's deck check) ----------

DECK_WORDS = {
    DeckType.STANDARD_52: "standard 52-card decks",
    DeckType.SPANISH_48: "Spanish 48-card decks, no tens",
}


def deck_words(rules: Variant) -> str:
    """The decks a variant's shoe holds: 'Spanish 48-card decks, no tens'."""
    return DECK_WORDS[rules.shoe.deck]


def count_words(decks: int) -> str:
    """How many of each card a shoe of ``decks`` holds: '6 decks: 6 of each card'."""
    return f"{decks} deck{'s' if decks > 1 else ''}: {decks} of each card"


def set_pin_hint(role: str) -> str:
    """A role (its value) has no PIN at this table: how to make one."""
    return (
        f"no {role} PIN is set for this table: make one with "
        f"`croupier passwd --pin {role}` and put the line it prints under [{role}] "
        "in the table file"
    )


def printed(key: str) -> str:
    """A panel key (its code) as the panel prints it: BOX 2, WAGER 3, 5, or the decision in
    words ("hit", "OK"); another key by its name ("cancel")."""
    button = Button(key)
    if key[0] in "BWD" and key[1].isdigit():
        n = int(key[1])
        return {"B": f"BOX {n}", "W": f"WAGER {n}", "D": str(n)}[key[0]]
    action = KEY_ACTIONS.get(button)
    return action_words(action) if action is not None else button.name.lower()


# The panel's decision keys and the actions (their values) they take (controller.table.keypad).
KEY_ACTIONS: dict[Button, str] = {
    Button.HIT: "hit",
    Button.STAND: "stand",
    Button.DOUBLE: "double",
    Button.SPLIT: "split",
    Button.SURRENDER: "surrender",
    Button.INSURANCE: "insurance",
    Button.RESCUE: "rescue",
    Button.OK: "ok",
    Button.UNDO: "undo",
    Button.SHUFFLE: "shuffle",
    Button.DEAL: "deal",
}


_REFUSALS: dict[Why, Callable[[WhyNot], str]] = {
    Why.NOT_NOW: lambda w: f"{action_words(w.action)} is not possible {state_words(w.state)}",
    Why.HAND_FINISHED: lambda w: "that hand has finished",
    Why.SECOND_CARD_OWED: lambda w: "the hand is still owed its second card",
    Why.ONE_CARD_AFTER_DOUBLE: lambda w: "only one card after a double",
    Why.HAS_21: lambda w: "the hand already has 21",
    Why.STAND_MINIMUM: lambda w: f"stand needs {w.number} or five cards",
    Why.NO_DOUBLE: lambda w: f"{w.game} has no double down",
    Why.DOUBLE_TIMES: lambda w: (
        "a hand may be doubled " + ("once only" if w.number == 1 else f"{w.number} times only")
    ),
    Why.DOUBLE_CARDS: _double_cards,
    Why.DOUBLE_TOTAL: lambda w: (
        f"double on three or more cards needs a total of {w.number} or less"
    ),
    Why.DOUBLE_ON_TOTALS: _double_on_totals,
    Why.NO_DOUBLE_AFTER_SPLIT: lambda w: "no double after a split",
    Why.SPLIT_ACES_NO_DOUBLE: lambda w: "split aces cannot be doubled",
    Why.NO_PLAYER_JOINS: lambda w: "no player joins the double",
    Why.CONTROLLER_MUST_JOIN: lambda w: (
        f"the box controller {w.player!r} decides the double and must join it"
    ),
    Why.NO_WAGER_ON_BOX: lambda w: f"{w.player!r} has no wager on box {w.box}",
    Why.DOUBLE_ORIGINAL_ONLY: lambda w: f"double is for the original wager ({money(w.cents)}) only",
    Why.DOUBLE_OVER_WAGER: lambda w: (
        f"double of {money(w.cents)} is more than {w.player!r}'s wager"
    ),
    Why.DOUBLE_UNDER_INCREMENT: lambda w: (
        f"double must be at least the table increment ({money(w.cents)})"
    ),
    Why.NO_SPLIT: lambda w: f"{w.game} has no split",
    Why.SPLIT_NEEDS_PAIR: lambda w: "split needs a pair as the hand's only two cards",
    Why.NOT_A_PAIR: lambda w: (
        f"{' and '.join(str(c) for c in w.cards)} are not a pair ({w.match} must match)"
    ),
    Why.MAX_HANDS: lambda w: f"at most {w.number} hands per box",
    Why.ACES_SPLIT_ONCE: lambda w: "aces may be split only once",
    Why.NO_RESCUE: lambda w: f"{w.game} has no double-down rescue",
    Why.NO_STAKE_ON_HAND: lambda w: f"{w.player!r} has no stake on this hand",
    Why.NOT_IN_DOUBLE: lambda w: f"{w.player!r} did not join the double",
    Why.ALREADY_RESCUED: lambda w: f"{w.player!r} has already rescued",
    Why.BUST_NO_RESCUE: lambda w: "a bust hand cannot be rescued",
    Why.NATURAL_NO_INSURANCE: lambda w: "a box with a natural cannot take insurance",
    Why.ALREADY_INSURED: lambda w: f"{w.player!r} has already insured box {w.box}",
    Why.INSURANCE_LIMIT: lambda w: (
        f"insurance must be more than $0 and at most {money(w.cents)} (half the wager)"
    ),
    Why.ALREADY_SURRENDERED: lambda w: f"box {w.box} has already surrendered",
    Why.NATURAL_NO_SURRENDER: lambda w: "a box with a natural cannot surrender",
    Why.SURRENDER_FIRST_TWO: lambda w: "surrender is decided on the first two cards",
    Why.OFFERED_ONLY_AGAINST: lambda w: (
        f"{w.action} is offered only against " + rank_words(w.ranks)
    ),
    Why.NO_BOX_CAN: lambda w: f"no box can {w.action} now",
    Why.NOTHING_TO_UNDO: lambda w: "nothing to undo since the last card or payment",
    Why.NOTHING_TO_ACKNOWLEDGE: lambda w: f"nothing to acknowledge {state_words(w.state)}",
    Why.NO_BETS: lambda w: "no bets on the table",
    Why.BETS_ON_TABLE: lambda w: "bets are on the table: settle or clear them first",
    Why.BOX_OUT_OF_RANGE: lambda w: f"box must be 1-{w.number}, got {w.box}",
    Why.BET_NEEDS_PLAYER: lambda w: "a bet needs a player",
    Why.BET_NOT_POSITIVE: lambda w: f"a bet must be more than 0, got {w.cents} cents",
    Why.BET_INCREMENT: lambda w: (
        f"a bet must be a multiple of the table increment {money(w.cents)}"
    ),
    Why.ALREADY_WAGERED: lambda w: f"{w.player!r} already has a wager on box {w.box}",
    Why.BOX_FULL: lambda w: (
        f"box {w.box} already has {w.number} wager{'' if w.number == 1 else 's'}, the most "
        f"{w.game} allows"
    ),
    Why.NO_HAND_IN_PLAY: lambda w: "no hand is in play",
    Why.NOT_IN_PLAY: lambda w: (
        f"box {w.box} is not in play; box {w.in_play}"
        + (f" hand {w.hand}" if w.hand else "")
        + " is"
    ),
    Why.HOLD_FROM_CARD: lambda w: f"a {_kind(w)} hold comes from a card, not from a hold request",
    Why.NO_HOLD_TO_CLEAR: lambda w: f"no {_kind(w)} hold to clear",
    Why.HOLD_NEEDS_SUPERVISOR: lambda w: f"a {_kind(w)} hold is cleared by a supervisor decision",
    Why.NOTHING_WAITING: lambda w: (
        f"there is no {_kind(w).replace('_', ' ')} waiting for a decision"
    ),
    Why.NO_HAND_FOR_CARD: lambda w: (
        "no hand is in play to take the card: burn it or void the round"
    ),
    Why.CARD_NOT_IN_SHOE: lambda w: f"{w.detail}: burn it or void the round",
    Why.NOT_KEYED_YET: lambda w: "the dealer has not keyed the card in yet",
    Why.NOTHING_TO_VOID: lambda w: "no round has been dealt: there is nothing to void",
    Why.BOX_MISSING: lambda w: "box is missing",
    Why.NO_BET_ON_BOX: lambda w: f"box {w.box} has no bet this round",
    Why.AMOUNT_MISSING: lambda w: "amount_cents must be a whole number, got None",
    # the table's own refusals
    Why.KEY_DECISION_NOT_TAKEN: lambda w: f"that decision is not taken {state_words(w.state)}",
    Why.KEY_BOX_NOT_NOW: lambda w: (
        f"a box is chosen only for a decision, not {state_words(w.state)}"
    ),
    Why.KEY_WAGER_NOT_NOW: lambda w: (
        f"a wager is chosen only for a decision, not {state_words(w.state)}"
    ),
    Why.KEY_WAGERS_AT_TABLE: lambda w: (
        f"a box takes at most {w.number} {_plural_word(w.number, 'wager')} at this table"
    ),
    Why.KEY_AMOUNT_NOT_NOW: lambda w: (
        f"an amount is keyed only for a decision, not {state_words(w.state)}"
    ),
    Why.KEY_DOES_NOTHING: lambda w: f"that key does nothing {state_words(w.state)}",
    Why.ENTRY_NEEDS_BOX: lambda w: (
        f"{action_words(w.action)} needs its box: press BOX 1 to BOX 7 first, then the "
        "decision (no box is in play now"
        + (f"; the keys before were cleared when {printed(w.key)} was refused" if w.key else "")
        + ")"
    ),
    Why.ENTRY_NO_WAGER: lambda w: (
        f"box {w.box} has no WAGER {w.number}: {w.held} {_plural_word(w.held, 'wager')} on it"
    ),
    Why.KEY_DECIDES_NOTHING: lambda w: f"with the {w.role} key, {w.key} decides nothing now",
    Why.FIRMWARE_NOT_ALLOWED: lambda w: (
        f"{device_words(w.device)} still runs firmware this table does not allow "
        f"({w.detail}): a technician installs approved firmware, or adds its hash to "
        "devices.firmware_allow and restarts croupier; only then can the hold be cleared"
    ),
    Why.NEEDS_SUPERVISOR_KEY: lambda w: "needs the supervisor key (turn the key switch to SUP)",
    Why.ROLE_CLEARS_LOCKUP_ONLY: lambda w: (
        f"a {w.role} may clear only a device's hardware lockup; "
        f"{w.action.replace('_', ' ')} needs the supervisor (key at SUP and the supervisor PIN)"
    ),
    Why.NO_PIN_SET: lambda w: set_pin_hint(w.role),
    Why.SIGN_IN_FIRST: lambda w: (
        f"a {w.role} signs in first: the staff number then OK, then the PIN then "
        f"OK on the panel with the key at {w.key}, or the staff number and "
        f"PIN fields on the display{_locked(w)}"
    ),
    Why.ENTER_PIN_FIRST: lambda w: (
        f"enter the {w.role} PIN: the digits 0-9 then OK on the panel with the key at "
        f"{w.key}, or the PIN field on the display{_locked(w)}"
    ),
    Why.PIN_PAD_STAFF_DIGITS: lambda w: (
        "key your staff number first: the digits 0-9, then OK (CANCEL clears)"
    ),
    Why.PIN_PAD_STAFF_OK: lambda w: (
        "key your staff number digits first, then OK, then your PIN and OK"
    ),
    Why.PIN_PAD_PIN_DIGITS: lambda w: (
        f"enter the {w.role} PIN first: the digits 0-9, then OK (CANCEL clears)"
    ),
    Why.PIN_PAD_PIN_OK: lambda w: f"key in the {w.role} PIN digits first, then OK",
    Why.BAD_HOLD_CAUSE: lambda w: f"hold cause must be one of {', '.join(HoldCause)}, got {w.got}",
    Why.BAD_HOLD_KIND: lambda w: f"hold kind must be one of {', '.join(HoldKind)}, got {w.got}",
    Why.BAD_PEEK_RESULT: lambda w: f"a peek result is Y, N, U or E, got {w.got}",
    Why.FIELD_MISSING: lambda w: f"{w.name} is missing",
    Why.NOT_WHOLE_NUMBER: lambda w: f"{w.name} must be a whole number, got {w.got}",
    Why.NOT_A_CARD: lambda w: f"{_WANTS_A_CARD.get(w.action, 'a card is needed')}, got {w.got}",
    Why.BOX_NOT_IN_USE: lambda w: f"box {w.box} is not in use at this table (boxes {w.boxes})",
    Why.BET_OUTSIDE_LIMITS: lambda w: (
        f"a bet must be {money(w.low)} to {money(w.high)}, got {money(w.cents)}"
    ),
    Why.BET_STEPS: lambda w: f"a bet must be in steps of {money(w.cents)}",
    Why.BETS_CLOSED: lambda w: "bets are closed",
    Why.JOURNAL_CANNOT_WRITE: lambda w: w.detail or "the journal cannot be written",
    Why.ACCESS_NO_KEY: lambda w: (
        "turn the key switch to SUP (supervisor) or TEC (technician) first"
    ),
    Why.ACCESS_NOT_NEEDED: lambda w: "this table takes no PINs: the key switch alone decides",
    Why.ACCESS_ALREADY: lambda w: f"the {w.role} is signed in already",
    Why.ACCESS_NEED_STAFF: lambda w: (
        f"this table signs each {w.role} in by name: key your staff number, then your PIN"
    ),
    Why.ACCESS_NO_STAFF: lambda w: (
        f"nobody of the {w.role} role is on this table's staff list: sign in with the "
        f"table's {w.role} PIN alone, without a staff number"
    ),
    Why.PIN_LOCKED: lambda w: (
        f"the {w.role} PIN is locked until {when(w.until or 0.0)} (another "
        f"{duration(w.seconds)}) after {w.number} wrong PINs in a row"
    ),
    Why.WRONG_PIN: lambda w: (
        f"wrong {_pin_words(w)}: {w.number} more in a row lock the {w.role} PIN for "
        f"{duration(w.seconds)}"
    ),
    Why.WRONG_PINS_IN_A_ROW: lambda w: f"wrong {_pin_words(w)} ({w.number} in a row)",
    Why.PIN_LOCKED_NOW: lambda w: (
        f"the {w.role} PIN is locked until {when(w.until or 0.0)} "
        f"({duration(w.seconds)}) after {w.number} wrong PINs in a row"
    ),
    Why.NO_DEALER_SIGNED_IN: lambda w: "no dealer is signed in",
    Why.NO_DEALERS_ON_STAFF: lambda w: (
        "no dealer is on this table's staff file: add each dealer with `croupier staff "
        "add NUMBER --role dealer --name NAME`"
    ),
    Why.JOURNAL_UNAVAILABLE: lambda w: w.detail or "journal unavailable",
    Why.NOT_RECORDED: lambda w: _not_recorded(f"the {w.key} key", w.detail),
    Why.NOTICE_NOT_RECORDED: lambda w: (
        _not_recorded("acknowledging the notice", w.detail) + " The notice stays."
    ),
    Why.NO_SUCH_NOTICE: lambda w: f"there is no notice {w.number} to acknowledge",
    Why.TABLE_NOT_RUNNING: lambda w: "the table is not running",
    Why.TABLE_SHUTTING_DOWN: lambda w: "the table is shutting down",
    Why.INTERNAL_ERROR: lambda w: "internal error: see the log",
    Why.HALTED_FOR_SUPERVISOR: lambda w: (
        "the table is stopped for a supervisor: nothing is dealt until a supervisor "
        "signs in and chooses"
    ),
    Why.HALTED_NO_PIN: lambda w: (
        f"{set_pin_hint(w.role)}; until then stop the table with Ctrl-C in its terminal"
    ),
    Why.HALTED_SIGN_IN_FIRST: lambda w: "a supervisor signs in with the supervisor PIN first",
    Why.NO_VOID_HERE: lambda w: f"the round cannot be voided here: {w.detail}",
    Why.VOID_NOT_WRITTEN: lambda w: f"the void could not be written: {w.detail}",
    Why.WRONG_DEALER_PIN: lambda w: "wrong staff number or dealer PIN",
    Why.DAY_OPEN_ALREADY: lambda w: f"gaming day {w.number} is open already: close it first",
    Why.DAY_NOT_OPEN_FOR: lambda w: (
        f"no gaming day is open: open the table before you {day_act_words(w.action)}"
    ),
    Why.DAY_PANEL_RUNNING: lambda w: "the panel test runs already: press each key still to go",
    Why.DAY_NO_CHIPS: lambda w: "count the chips first: a denomination and how many",
    Why.DAY_TWO_PEOPLE: lambda w: (
        f"{day_act_words(w.action)} needs two people: the supervisor signed in and a "
        "second person's staff number and PIN"
    ),
    Why.DAY_BAD_DENOMINATION: lambda w: (
        f"{money(w.cents)} is no chip: a denomination is a whole positive amount"
    ),
    Why.DAY_CHIPS_TWICE: lambda w: (
        f"the {money(w.cents)} chips are counted twice: give each denomination once"
    ),
    Why.DAY_BAD_COUNT: lambda w: f"{w.number} is no number of chips: 0 to {w.high}",
    Why.DAY_BAD_DROP: lambda w: f"a drop is 0 to {money(w.cents)}",
    Why.DAY_NEEDS_SUPERVISOR: lambda w: (
        f"only a supervisor signed in may {day_act_words(w.action)} (the key at SUP"
        + (", or TEC for a device check" if w.key == "TEC" else "")
        + ")"
    ),
    Why.DAY_NO_DEVICE: lambda w: (
        f"{device_words(w.device)} has not identified itself: connect it, then check it again"
    ),
    Why.DAY_WRONG_DECK: lambda w: f"the shoe holds {w.got} but the game deals from {w.detail}",
    Why.DAY_NOT_OPEN: lambda w: (
        "the gaming day is not open: a supervisor opens the table on the display first"
    ),
    Why.DAY_DEMO_ONLY: lambda w: (
        "only a demo table opens itself: a supervisor takes the opening's steps"
    ),
    Why.DAY_ROUND_OPEN: lambda w: (
        "a round is on the table: settle it (or take the bets back) before the closing"
    ),
    Why.DAY_WITNESS: lambda w: "wrong staff number or PIN for the second person",
    Why.WRONG_DEALER_PIN_LOCKS: lambda w: (
        f"wrong staff number or dealer PIN: {w.number} more in a row lock dealer sign-in for "
        f"{duration(w.seconds)}"
    ),
    Why.DEALER_PIN_LOCKED_NOW: lambda w: (
        f"wrong staff number or dealer PIN ({w.number} in a row): dealer sign-in is locked "
        f"until {when(w.until or 0.0)} ({duration(w.seconds)})"
    ),
    Why.DEALER_SIGN_IN_LOCKED: lambda w: (
        f"dealer sign-in is locked until {when(w.until or 0.0)} (another "
        f"{duration(w.seconds)}) after wrong PINs in a row"
    ),
    Why.DEALER_SIGNED_IN_ALREADY: lambda w: f"dealer {w.player} ({w.detail}) is signed in already",
    Why.NOBODY_RATED_AT_BOX: lambda w: f"nobody rated sits at box {w.box}",
    Why.NO_SUCH_BOX: lambda w: f"there is no box {w.box} at this table (boxes 1 to {w.number})",
    Why.BAD_PLAYER_CARD: lambda w: "a player card number is 4 to 16 of the digits 0-9",
    Why.BOX_SEATED: lambda w: (
        f"player card {w.detail} ({w.player}) sits at box {w.box}: walk them away first"
    ),
    Why.CARD_SEATED: lambda w: f"player card {w.detail} sits at box {w.box} already",
    Why.NAME_SEATED: lambda w: (
        f"{w.player} is the name of the player at box {w.box}: give this player "
        "another name for their bets"
    ),
}
assert set(_REFUSALS) == set(Why)


def refusal_words(why: WhyNot) -> str:
    """Why the round refused a move, as the dealer reads it (and the journal records it)."""
    return _REFUSALS[why.code](why)


# --- training: a drill's question, its answer and the trainee's result (controller.training) ---
# The drills ask about a round croupier dealt: the question is the table as the dealer sees it
# (cards shown as on the table) and what croupier would have said is shown after the answer.


def table_cards(cards: Iterable[Card]) -> str:
    """Cards as they lie on the table: '10♦ A♠'."""
    return " ".join(card_shown(str(c)) for c in cards) or "no cards"


def drill_table(
    boxes: Sequence[tuple[int, Sequence[tuple[Sequence[Card], int | None]]]],
    dealer: Sequence[Card],
) -> str:
    """The dealer's cards and each box's hands (cards, and the stake unless None), a line each."""
    lines = [f"Dealer: {table_cards(dealer)}"]
    for box, hands in boxes:
        for number, (cards, stake) in enumerate(hands, 1):
            which = f"Box {box} hand {number}" if len(hands) > 1 else f"Box {box}"
            shown_stake = "" if stake is None else f", stake {money(stake)}"
            lines.append(f"{which}: {table_cards(cards)}{shown_stake}")
    return "\n".join(lines)


_DRILL_ASKS: dict[str, str] = {
    "payout": "The round is over. What do you pay box {box} in all (winnings, not the stake)?",
    "insurance_max": "The dealer shows {up}. Box {box} bets {wager}: what is the most it may "
    "insure for?",
    "surrender": "The deal is done. Do you offer box {box} surrender now?",
    "total": "Box {box} is in play. What is its total?",
    "next_prompt": "Croupier said: {said}\nWhat does it tell the dealer to do next?",
    "hold": "The table stops: {what}.\nWhat do you do?",
    "procedure_keys": "The table stops: {what}.\nHandle it with the panel, as at the table.",
}
_DRILL_NAMES: dict[str, str] = {
    "payout": "payout of a box",
    "insurance_max": "insurance maximum",
    "surrender": "whether to offer surrender",
    "total": "the hand's total",
    "next_prompt": "what to do next",
    "hold": "what a hold means",
    "procedure": "a procedure, step by step",
}
_ANSWER_FORMS: dict[str, str] = {
    "money": "type the amount in dollars and cents (22.50)",
    "money_chips": "type the amount in dollars and cents (22.50), or count it out in chips",
    "number": "type a number",
    "yes_no": "type y or n",
    "choice": "type the number of your choice",
    "keys": "press the panel's keys as at the table, then DONE (typed: the keys' codes, "
    "KEY_SUP HIT KEY_RUN; HOLD_DEA holds DEA for 2 s)",
}


def drill_name(kind: str) -> str:
    """A kind of drill as the trainee and the instructor read it."""
    return _DRILL_NAMES.get(kind, kind)


def drill_ask(kind: str, **facts: object) -> str:
    """A drill's question, from its facts (``box``, ``up``, ``wager``, ``said``, ``what``)."""
    return _DRILL_ASKS[kind].format(**facts)


def answer_form_words(form: str) -> str:
    """How to type an answer of this form."""
    return _ANSWER_FORMS[form]


def answer_words(form: str, value: int, choices: Sequence[str] = ()) -> str:
    """An answer (the trainee's or croupier's) as it is read: $22.50, 17, yes, a choice's words."""
    if form == "money":
        return money(value)
    if form == "yes_no":
        return "yes" if value else "no"
    if form == "choice" and 0 <= value < len(choices):
        return f"{value + 1}. {choices[value]}"
    if form == "keys":  # the keys the table refused
        return (
            "no key refused" if value == 0 else f"{value} {'key' if value == 1 else 'keys'} refused"
        )
    return str(value)


_PANEL_STEPS = {"KEY_SUP": "key to SUP", "KEY_RUN": "key to RUN", "HOLD_DEA": "DEA held 2 s"}


def panel_steps(keys: Sequence[str]) -> str:
    """The keys of a procedure, in order, as the dealer reads them."""
    return "Keys: " + ", ".join(_PANEL_STEPS.get(k, k) for k in keys) + "."


def key_refused(key: str, reason: str) -> str:
    """A key the table refused during a procedure, and the table's words."""
    return f"{_PANEL_STEPS.get(key, key)} refused: {reason}"


def procedure_unfinished(why: str) -> str:
    """A procedure that did not take the table through the scenario."""
    return f"The table did not go on: {why}."


def drill_result(correct: bool, in_time: bool, seconds: float, limit_s: float | None) -> str:
    """How an answer went: right or wrong, and in time or not."""
    said = "Right" if correct else "Wrong"
    timing = f"{seconds:.1f} s"
    if limit_s is not None:
        timing += f" (limit {limit_s:g} s{'' if in_time else ': too slow'})"
    return f"{said}, {timing}."


def unreadable_answer(form: str) -> str:
    """An answer that is not of the question's form: what to type instead."""
    return f"That is not an answer here: {answer_form_words(form)}."


def hold_todo(hold: HoldReason) -> str:
    """What the dealer does about a hold (the banner's 'todo'), for a drill's choices."""
    todo: str = hold_words(hold)["todo"]
    return todo


def hold_what(hold: HoldReason) -> str:
    """What stopped the table (the banner's 'what'), as one line."""
    return read_out(hold_words(hold)["what"])


def read_out(items: list[Part]) -> str:
    """The parts as a person reads them: cards as on the table, a space between two cards."""
    out = ""
    for i, p in enumerate(items):
        if "card" in p:
            gap = " " if i and "card" in items[i - 1] else ""
            out += gap + card_shown(p["card"])
        else:
            out += p.get("text", "")
    return out


def told_words(prompt: Prompt) -> str:
    """A prompt as the dealer read it: the prompt bar's words, or its line when it is not a
    bar's (money to move, the dealer's result)."""
    return read_out(bar(prompt)) if on_the_bar(prompt) else line(prompt)


def answer_shown(yours: str, croupier: str) -> str:
    """The trainee's answer beside croupier's, shown once answered."""
    return f"Yours: {yours} · croupier: {croupier}"


def session_words(course: str, passed: int, questions: int, percent: float, mark: int,
                  ok: bool) -> str:  # fmt: skip
    """A session's result: how many passed, against the course's mark."""
    verdict = "PASS" if ok else "FAIL"
    return f"{course}: {passed} of {questions} passed ({percent} %, mark {mark} %): {verdict}"


def drill_summary_words(kind: str, passed: int, questions: int, mark: int, ok: bool) -> str:
    """One drill of a session: how many passed, against its mark."""
    return f"{drill_name(kind)}: {passed}/{questions} (mark {mark} %) {'pass' if ok else 'FAIL'}"


def question_head(kind: str, number: int, of: int, limit_s: int) -> str:
    """Which question this is, of how many, its kind and the time allowed."""
    return f"[{number}/{of}] {drill_name(kind)} (limit {limit_s} s)"


def croupier_answer(answer: str) -> str:
    return f"Croupier's answer: {answer}"


def croupier_said(told: str) -> str:
    return f"Croupier said: {told}"


# --- accepted people and access calls (controller.table.people, controller.table.access) ------


def _person(t: Told) -> str:
    """A role's person: "supervisor Ann Lee (1001)", "supervisor Ann", "supervisor"."""
    if t.staff_id:
        return f"{t.role} {t.name} ({t.staff_id})"
    return t.role if t.name == t.role else f"{t.role} {t.name}"


_TOLD: dict[Tell, Callable[[Told], str]] = {
    Tell.SIGNED_IN: lambda t: f"{_person(t)} signed in until the key leaves {t.key}",
    Tell.SIGNED_OUT: lambda t: f"{_person(t)} signed out: {t.reason}",
    Tell.PINS_REQUIRED: lambda t: (
        "supervisor and technician decisions need the key and that role's PIN"
    ),
    Tell.PINS_NOT_REQUIRED: lambda t: "supervisor and technician decisions need the key alone",
    Tell.DEALER_IN: lambda t: (
        f"dealer {t.name} ({t.staff_id}) signed in: the next rounds are theirs"
    ),
    Tell.DEALER_OUT: lambda t: f"dealer {t.name} ({t.staff_id}) signed out",
    Tell.DEALER_HANDED_OVER: lambda t: f"dealer {t.name} ({t.staff_id}) handed over to {t.player}",
    Tell.SIT_DOWN: lambda t: (
        f"player card {t.card} ({t.player}) sits at box {t.box}: rated from now on"
    ),
    Tell.WALK_AWAY: lambda t: f"player card {t.card} ({t.player}) left box {t.box}: session over",
    Tell.BET_SESSION: lambda t: f"box {t.box}: {t.player}'s bet is in session {t.session}",
}
assert set(_TOLD) == set(Tell)


def call_words(told: Told) -> str:
    """What the dealer is told of an accepted people or access call (the journal row's
    ``text``)."""
    return _TOLD[told.code](told)


def signed_in_words(role: str, name: str, staff_id: str) -> str:
    """Who is signed in, as the table names the role's person: "Ann Lee (supervisor 1001, key
    and PIN)"."""
    if staff_id:
        return f"{name} ({role} {staff_id}, key and PIN)"
    if name == role:
        return f"{name} (key and PIN)"
    return f"{name} ({role}, key and PIN)"


def key_only_words(role: str) -> str:
    """A role that decides with the key alone: "supervisor (key)"."""
    return f"{role} (key)"


def dealer_named(name: str, staff_id: str) -> str:
    """The dealer as a round names them: "Bo Chen (2001)"."""
    return f"{name} ({staff_id})"


# --- the gaming day (controller.table.day) -----------------------------------------------------

_DAY_ACTS = {
    "layout": "confirm the layout",
    "reader": "check the hole-card reader",
    "panel": "test the panel's keys",
    "shoe": "check the shoe",
    "opening": "count the opening chips",
    "fill": "enter a fill",
    "credit": "enter a credit",
    "drop": "key the drop",
    "closing": "count the closing chips",
}


def day_act_words(act: str) -> str:
    """A step of the gaming day as the display's buttons name it."""
    return _DAY_ACTS.get(act, act)


def day_words(code: str, **facts: Any) -> str:
    """A sentence about the gaming day (the day's events, the hold before it is open): ``code``
    says which, ``facts`` fill it in (amounts in cents). Its refusals are :class:`WhyNot`
    codes, said by :func:`refusal_words`."""
    cents = facts.get("cents")
    amount = money(cents) if isinstance(cents, int) else ""
    by = facts.get("by", "")
    if code == "layout":
        return f"layout confirmed against the rules by {by}"
    if code in ("reader", "shoe"):
        what = "hole-card reader" if code == "reader" else "shoe"
        return f"{what} checked by {by}: {facts.get('detail', '')}"
    if code == "panel_test":
        return f"panel test: press each of the panel's {facts['keys']} keys once"
    if code == "key":
        left = facts["left"]
        return f"panel key {facts['key']} works ({left} key{'' if left == 1 else 's'} to go)"
    if code == "panel":
        return f"panel checked by {by}: every key works"
    if code == "opening":
        return f"opening chips counted by {by}: {amount}"
    if code == "open":
        return f"gaming day {facts['day']} open: the table deals (opening chips {amount})"
    if code in ("fill", "credit"):
        moved = "brought to" if code == "fill" else "taken from"
        return f"{code}: {amount} {moved} the table by {by} and {facts['witness']}"
    if code == "drop":
        return f"drop keyed by {by}: {amount}"
    if code == "closing":
        win = facts["win"]
        house = facts["house"]
        won = "open (no drop keyed)" if win is None else money(win)
        return (
            f"gaming day {facts['day']} closed by {by}: closing chips {amount}; the table's "
            f"win {won}, the rounds' ledger {money(house)}"
        )
    if code == "hold":
        return (
            "the gaming day is not open: the table deals nothing until a supervisor opens it "
            "on the display (Gaming day); then burn this card and clear the hold"
        )
    if code == "demo_by":
        return "the demo (opened at its start; a live table is opened by a supervisor)"
    raise ValueError(f"no words for the gaming day's {code!r}")


_HAND_ENDS: dict[HandEnd, Callable[[Variant], str]] = {
    HandEnd.BUST: lambda rules: "bust",
    HandEnd.NATURAL: lambda rules: "natural",
    HandEnd.TWENTY_ONE: lambda rules: "21",
    HandEnd.SPLIT_ACES: lambda rules: "split aces take one card",
    HandEnd.ONE_AFTER_DOUBLE: lambda rules: "one card after a double",
    HandEnd.CARD_LIMIT: lambda rules: f"{rules.hands.max_cards} cards",
    HandEnd.STAND: lambda rules: "stand",
    HandEnd.RESCUED: lambda rules: "rescue",
}
assert set(_HAND_ENDS) == set(HandEnd)
# The ends the screen does not write beside a hand's total: the total says them already (a
# bust, a 21), or nothing needs saying (a stand).
_UNSAID_ENDS = frozenset({HandEnd.BUST, HandEnd.TWENTY_ONE, HandEnd.STAND})


def hand_end_words(end: HandEnd, rules: Variant) -> str:
    """Why a hand is over, in a word or two ("bust", "one card after a double", "5 cards"):
    the analysis' "hand ends: ..." counts."""
    return _HAND_ENDS[end](rules)


def hand_status(end: HandEnd | None, rules: Variant) -> str:
    """What the screen writes beside a finished hand's total ("natural", "5 cards"), or ""."""
    if end is None or end in _UNSAID_ENDS:
        return ""
    return hand_end_words(end, rules)
