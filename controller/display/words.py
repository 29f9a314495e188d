"""What the display says, in the dealer's words: never a state, action or key identifier.

The sentences themselves come from :mod:`controller.game.words`, the one place that says the
round's prompts and holds (the prompt bar is :func:`controller.game.words.bar` of the round's
current prompt, with the cards as cards: a *part* is ``{"text": ...}`` or ``{"card": "AH"}``,
drawn as a picture by the page); this module lays them out and names the keys and phases.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from controller.game.prompts import Prompt, Say, money
from controller.game.rules import Variant, format_odds
from controller.game.words import (
    OUTCOMES,
    SHOE_LOADING,
    bar,
    bar_detail,
    hold_words,
    parts,
)
from controller.round.phases import PHASES
from controller.round.spec import State
from controller.table.app import TableApp
from controller.table.keypad import PanelEntry
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


def instruction(app: TableApp, step_prompts: Sequence[Prompt]) -> dict[str, Any]:
    """What the dealer does now: ``parts`` (the prompt bar), ``detail`` (a line under it) and
    ``tone`` (``act``, ``wait``, ``pay`` or ``hold``). The bar is the round's last prompt that
    says what to do (``RoundController.told``) as :func:`controller.game.words.bar` says it:
    the words the journal records beside that prompt (``shown``). On hold it is the first hold,
    said by the same words as the prompt that stopped the table."""
    c = app.controller
    holds = c.hold_reasons
    if c.state is State.HOLD and holds:
        words = hold_words(holds[0], day_open=app.day.deals())
        return {
            "parts": parts("Stop: ") + words["what"],
            "detail": parts(str(words["todo"])),
            "tone": "hold",
        }
    told = c.told
    outcome = next((p for p in reversed(step_prompts) if p.say in OUTCOMES), None)
    bets = c.bets_placed()
    detail = bar_detail(told, bets=bets, outcome=outcome)
    if c.state is State.SHUFFLE and app.shoe.shuffle_requested:
        return {"parts": parts(SHOE_LOADING), "detail": detail, "tone": "wait"}
    if told is None:
        return {"parts": parts("Wait for the table"), "detail": detail, "tone": "wait"}
    tone = "pay" if told.say is Say.ROUND_OVER else "act"
    return {"parts": bar(told), "detail": detail, "tone": tone}


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


def felt_lines(rules: Variant, limits: str) -> list[str]:
    """The rules the felt must show, from the variant: what a supervisor confirms the layout
    against when the gaming day opens."""
    d, p, sur, ins = rules.dealer, rules.payouts, rules.surrender, rules.insurance
    lines = [
        f"Dealer {'hits' if d.hits_soft_17 else 'stands on'} soft 17 "
        f"({'H17' if d.hits_soft_17 else 'S17'})",
        f"{'Pontoon' if rules.id.startswith('nz-') else 'Blackjack'} pays {format_odds(p.natural)}",
        f"Insurance pays {format_odds(ins.pays)}" if ins.allowed else "No insurance",
        f"Surrender: {sur.timing.value}" if sur.allowed else "No surrender",
        f"Bets {limits}",
    ]
    return lines
