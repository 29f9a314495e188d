"""What the display says, in the dealer's words: never a state, action or key identifier.

The round controller's prompts are written for the dealer too ("The shoe reconnected. Back to
insurance: ..."); the screen says the same from the round itself: what to do now, with the cards as
cards (a *part* is ``{"text": ...}`` or ``{"card": "AH"}``, drawn as a picture by the page), the
keys by the names printed on them, and a hold as what happened and what to do about it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from controller.game.hands import hand_value
from controller.game.holds import HoldCause, HoldKind
from controller.game.prompts import Prompt, PromptCode, Say, money
from controller.game.words import line
from controller.round.model import DealTarget, HoldReason
from controller.round.phases import PHASES
from controller.round.spec import State
from controller.table.app import TableApp
from controller.table.keypad import PanelEntry
from drivers.tbl21.cards import Card
from drivers.tbl21.events import BUTTON_WORDS, Button

# The keys as the panel (and the screen) names them, in the order the screen lays them out:
# one fixed grid, the same in every state.
_DECISION_KEYS = (
    Button.HIT,
    Button.STAND,
    Button.DOUBLE,
    Button.SPLIT,
    Button.SURRENDER,
    Button.INSURANCE,
    Button.RESCUE,
    Button.OK,
    Button.DEAL,
    Button.UNDO,
    Button.SHUFFLE,
    Button.CANCEL,
    Button.CALL,
)
_BOX_KEYS = (*(Button(f"B{n}_") for n in range(1, 8)), *(Button(f"W{n}_") for n in range(1, 4)))
_DIGIT_KEYS = tuple(Button(f"D{n}_") for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 0))
# The keys as the screen groups them, each with its word (drivers.tbl21.events.BUTTON_WORDS).
KEY_GROUPS: tuple[tuple[str, tuple[tuple[Button, str], ...]], ...] = tuple(
    (group, tuple((b, BUTTON_WORDS[b]) for b in keys))
    for group, keys in (
        ("decisions", _DECISION_KEYS),
        ("boxes", _BOX_KEYS),
        ("digits", _DIGIT_KEYS),
    )
)
KEY_LABELS = {button: label for _, keys in KEY_GROUPS for button, label in keys}
assert set(KEY_LABELS) == set(Button)

# Where the round is, as a few words for the status line (the pit page shows the same).

DEVICES = {"shoe": "shoe", "peek": "hole-card reader", "panel": "button panel"}

Part = dict[str, str]


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
    """The parts as one line of text (cards as their codes): for logs and tests."""
    return "".join(p.get("text", p.get("card", "")) for p in items)


def key_list(buttons: Sequence[Button]) -> str:
    """'HIT, STAND or DOUBLE'."""
    names = [KEY_LABELS[b] for b in buttons]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def device_name(role: str | None) -> str:
    return DEVICES.get(role or "", role or "a device")


def _s(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def instruction(app: TableApp, step_prompts: Sequence[Prompt]) -> dict[str, Any]:
    """What the dealer does now: ``parts`` (the prompt bar), ``detail`` (a line under it) and
    ``tone`` (``act``, ``wait``, ``pay`` or ``hold``)."""
    c = app.controller
    round_ = c.round
    state = c.state
    lit = app.lit
    detail: list[Part] = []
    tone = "act"
    codes = {p.code for p in step_prompts}
    if state is State.HOLD:
        return _hold_instruction(app)
    if state is State.SHUFFLE:
        if app.shoe.shuffle_requested:
            main, tone = parts("The shoe is loading a new shoe: wait"), "wait"
        else:
            main = parts("Load a new shoe, then press SHUFFLE")
    elif state is State.BURN:
        main = parts(f"Burn {_s(max(c.table.burn_left, 1), 'card')} from the new shoe")
    elif state is State.BETTING:
        bets = sum(len(b.wagers) for b in round_.boxes.values())
        main = parts(
            f"Round {round_.number}: take the bets"
            + (", then press DEAL" if Button.DEAL in lit and bets else "")
        )
        if bets:
            detail = parts(f"{_s(bets, 'bet')} placed")
    elif state in (State.DEALING, State.DEALER) and round_.deal_plan:
        target, n = round_.deal_plan[0]
        if target is DealTarget.BOX:
            main = parts(f"Deal a card to box {n}")
        else:
            face = "face down" if n == 2 and app.rules.has_hole_card else "face up"
            if n == 1 and not app.rules.dealer.first_card_face_up:
                face = "face down"
            main = parts(f"Deal the dealer's {'first' if n == 1 else 'second'} card {face}")
    elif state is State.DEALER and len(round_.dealer.cards) < 2:
        main = parts("Deal the dealer's second card face up")
    elif state is State.DEALER:
        cards = c.dealer_visible_cards()
        main = parts(f"Draw a card for the dealer (dealer has {hand_value(cards).describe()})")
    elif state in (State.OFFERS, State.INSURANCE, State.SURRENDER):
        up = round_.dealer.first
        offers = []
        if state is State.INSURANCE or (
            state is State.OFFERS and PromptCode.OFFER_INSURANCE in codes
        ):
            offers.append("insurance")
        if state is State.SURRENDER or (
            state is State.OFFERS and PromptCode.OFFER_SURRENDER in codes
        ):
            offers.append("surrender")
        if not offers:
            offers = ["insurance", "surrender"] if state is State.OFFERS else [state.value]
        what = " and ".join(offers)
        main = parts(f"Offer {what}", *((" against ", up) if up is not None else ()))
        main += parts(", then press OK")
        offer_keys: list[Button] = [b for b in (Button.INSURANCE, Button.SURRENDER) if b in lit]
        detail = parts(
            "Choose the box (BOX 1-7), then "
            + (key_list(offer_keys) or "the offer")
            + "; OK when every box has answered"
        )
    elif state is State.PEEK:
        peek = next((p for p in reversed(step_prompts) if p.code is PromptCode.PEEK), None)
        again = peek is not None and peek.say in (Say.PEEK_UNREAD, Say.PEEK_EMPTY)
        main = parts(
            "Put the hole card in the reader" + (" again: it did not read it" if again else "")
        )
        tone = "act"
    elif state is State.PLAYING and round_.turn is not None:
        box_no, index = round_.turn
        hand = round_.hand(box_no, index)
        value = hand_value(hand.cards)
        keys = [b for b in (Button.HIT, Button.STAND, Button.DOUBLE, Button.SPLIT) if b in lit]
        where = f"Box {box_no}" + (
            f", hand {index + 1}" if len(round_.boxes[box_no].hands) > 1 else ""
        )
        main = parts(f"{where}: ", hand.cards, f" {value.describe()}")
        if keys:
            main += parts(f" - {key_list(keys)}")
    elif state is State.CARD_DUE and round_.card_for is not None:
        box_no, index = round_.card_for
        hands = len(round_.boxes[box_no].hands)
        why = ""
        if (
            round_.hand(box_no, index).doubles
            and not hand_value(round_.hand(box_no, index).cards).bust
        ):
            why = " (doubled: one card)"
        elif round_.hand(box_no, index).from_split and len(round_.hand(box_no, index).cards) == 1:
            why = " (split)"
        main = parts(
            f"Deal a card to box {box_no}" + (f", hand {index + 1}" if hands > 1 else "") + why
        )
    elif state is State.RESCUE and round_.turn is not None:
        box_no, _ = round_.turn
        main = parts(f"Box {box_no}: RESCUE takes back the double (the wager is lost), OK plays on")
    elif state is State.REVEAL:
        main = parts("Turn the hole card over, then press OK")
    elif state is State.SETTLING and round_.voided:
        main = parts(
            f"Round {round_.number} is void: give back every wager as shown, then press OK"
        )
    elif state is State.SETTLING:
        main = parts(f"Round {round_.number} is over: pay and collect as shown, then press OK")
        tone = "pay"
    else:
        prompt = app.last_prompt()
        main = parts(line(prompt) if prompt is not None else "Wait for the table")
        tone = "wait"
    outcome = next(
        (
            p
            for p in reversed(step_prompts)
            if p.code
            in (PromptCode.DEALER_STANDS, PromptCode.DEALER_BUST, PromptCode.DEALER_NATURAL)
        ),
        None,
    )
    if outcome is not None and not detail:
        said = line(outcome)
        detail = parts(said[:1].upper() + said[1:])
    return {"parts": main, "detail": detail, "tone": tone}


def _hold_instruction(app: TableApp) -> dict[str, Any]:
    holds = app.controller.hold_reasons
    first: dict[str, Any] = (
        hold_words(holds[0]) if holds else {"what": parts("the table is on hold"), "todo": ""}
    )
    what: list[Part] = first["what"]
    return {
        "parts": parts("Stop: ") + what,
        "detail": parts(str(first["todo"])),
        "tone": "hold",
    }


def hold_words(hold: HoldReason) -> dict[str, Any]:
    """A hold as the banner says it: ``what`` happened (parts), ``todo`` and the technical
    ``detail`` (a fault code, for the technician), in small type. Decided on the hold's typed
    ``cause`` (never on the words of its ``detail``, which is shown only as the record)."""
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
    elif cause is HoldCause.DEVICE_FAULT:
        pushed = () if hold.card is None else (f"{hold.card} went back into the shoe",)
        record = " - ".join((str(hold.fault), *pushed))
    return {
        "what": parts(lockup),
        "todo": "Press CALL: a supervisor (or, for a device fault, a technician) checks the "
        "table and clears the lockup.",
        "detail": record,
    }


def entry_words(entry: PanelEntry) -> str:
    """What the dealer has keyed so far ('box 3, wager 2, $2.50'), or ''."""
    out = []
    if entry.box is not None:
        out.append(f"box {entry.box}")
    out.extend(f"wager {w}" for w in entry.wagers)
    if entry.digits:
        out.append(money(int(entry.digits)))
    return ", ".join(out)


_KEY_CODE = re.compile(r"\b(" + "|".join(re.escape(b.value) for b in Button) + r")(?![A-Za-z0-9])")


_AT_STATE = re.compile(r"\bat (" + "|".join(s.value for s in State) + r")\b")


def say(text: str) -> str:
    """A text from the table in the dealer's words: each key code as the key's name ('OK_' ->
    'OK'), a state as where the round was ('recovered at card_due' -> 'recovered at "a card is
    due"')."""
    text = _AT_STATE.sub(lambda m: f'at "{PHASES[State(m.group(1))]}"', text)
    return _KEY_CODE.sub(lambda m: KEY_LABELS[Button(m.group(1))], text)
