"""Drills: questions about rounds the real round controller dealt from a seeded shoe.

Every question is made by dealing a round on :class:`~controller.round.controller.RoundController`
(the table's own, with its prompts) from a shoe shuffled by ``random.Random(seed)``, the players
deciding by the variant's basic strategy; its correct answer is what croupier itself worked out
(the ledger's payout, the round's insurance limit, its surrender offer, the total of the hand in
play, the next prompt, what the hold banner says to do), never a number of our own. The same
variant, kind and seed make the same question.

A question is asked in words made by :mod:`controller.game.words`; an answer is parsed into an
integer of the question's form (cents, a number, 1/0 for yes/no, a choice's index) and checked
against the correct one. Choices are told apart by their typed prompts and holds, never by their
words.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from controller.game.holds import HoldCause, HoldKind, HoldReason
from controller.game.prompts import Prompt, PromptCode, Say, money
from controller.game.rules import Variant
from controller.game.settlement import LedgerEntry
from controller.game.words import (
    drill_ask,
    drill_table,
    hold_todo,
    hold_what,
    on_the_bar,
    panel_steps,
    table_cards,
    told_words,
)
from controller.play.autoplay import DirectHands, play_rounds, reader_outcome
from controller.play.errors import PlayError
from controller.play.lab import PACK as SCENARIO_PACK
from controller.play.scenario_file import Scenario, ScriptedShoe, load_scenario
from controller.play.scenario_runner import scripted_rounds
from controller.play.strategy import Strategy, StrategyPlayer, strategy_for
from controller.round.controller import RoundController
from controller.round.errors import ActionRefused
from controller.round.inputs import Hold
from controller.round.model import HandState, RoundState, why_not_insure
from controller.round.spec import Action, State
from controller.training.errors import TrainingError
from controller.training.procedure import (
    ProcedureResult,
    panel_keys,
    panel_procedures,
    pressing,
    run_procedure,
    script_keys,
)
from drivers.tbl21.cards import Card, shoe_cards

# Wagers of the drills: amounts a table takes, many of them odd so that 3:2 and a half need
# working out (cents).
WAGERS_CENTS = (500, 1000, 1500, 2000, 2500, 3500, 4500, 5500, 7500, 12500, 1700, 900)
PLAYERS = ("ann", "bob", "cat")
CARD_STATES = frozenset({State.BURN, State.DEALING, State.CARD_DUE, State.DEALER})
WINDOWS = {
    State.OFFERS: {Action.INSURANCE, Action.SURRENDER},
    State.INSURANCE: {Action.INSURANCE},
    State.SURRENDER: {Action.SURRENDER},
    State.RESCUE: {Action.RESCUE},
}
DEALER_SHOWN = frozenset({State.DEALER, State.SETTLING})  # the hole card is face up
MAX_STEPS = 400  # acts in one round (a round takes a few dozen)
MAX_TRIES = 400  # shoes tried for a question (an insurance drill needs an ace up: 1 in 13)
CHOICES = 4


class DrillKind(StrEnum):
    PAYOUT = "payout"
    INSURANCE_MAX = "insurance_max"
    SURRENDER = "surrender"
    TOTAL = "total"
    NEXT_PROMPT = "next_prompt"
    HOLD = "hold"
    PROCEDURE = "procedure"  # the steps of a shipped scenario: each stop, each payout


class AnswerForm(StrEnum):
    MONEY = "money"  # cents, typed in dollars
    NUMBER = "number"
    YES_NO = "yes_no"  # 1 yes, 0 no
    CHOICE = "choice"  # the index of a choice (typed from 1)
    KEYS = "keys"  # the panel's keys pressed, in order (scored: the keys the table refused)


FORMS = {
    DrillKind.PAYOUT: AnswerForm.MONEY,
    DrillKind.INSURANCE_MAX: AnswerForm.MONEY,
    DrillKind.SURRENDER: AnswerForm.YES_NO,
    DrillKind.TOTAL: AnswerForm.NUMBER,
    DrillKind.NEXT_PROMPT: AnswerForm.CHOICE,
    DrillKind.HOLD: AnswerForm.CHOICE,
    DrillKind.PROCEDURE: AnswerForm.KEYS,  # (its other stops: CHOICE, its payouts: MONEY)
}


@dataclass(frozen=True, slots=True)
class Question:
    """One question: the table as the trainee sees it, what is asked, the choices (for a
    choice), the correct answer (an integer of ``form``) and what croupier said (shown after)."""

    kind: DrillKind
    variant: str
    seed: int
    form: AnswerForm
    table: str
    ask: str
    correct: int
    told: str
    choices: tuple[str, ...] = ()
    scenario: str = ""  # a procedure's shipped scenario (handled with the panel: KEYS)
    steps: tuple[str, ...] = ()  # its script's keys (shown after, in words: told)


def parse_answer(form: AnswerForm, text: str, choices: int = 0) -> int | None:
    """A typed answer as an integer of ``form``; None when it is not one (say what to type)."""
    text = text.strip().lower()
    if form is AnswerForm.MONEY:
        text = text.removeprefix("$").replace(",", "")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            return None
        cents = amount * 100
        if not amount.is_finite() or cents != cents.to_integral_value() or amount < 0:
            return None
        return int(cents)
    if form is AnswerForm.YES_NO:
        return {"y": 1, "yes": 1, "n": 0, "no": 0}.get(text)
    if form is AnswerForm.KEYS:  # how many keys (their score is the table's: handle_keys)
        keys = panel_keys(text)
        return len(keys) if keys else None
    if not text.isdigit() or len(text) > 6:
        return None
    value = int(text)
    if form is AnswerForm.CHOICE:
        return value - 1 if 1 <= value <= choices else None
    return value


def is_correct(question: Question, value: int) -> bool:
    return value == question.correct


def available(rules: Variant, kind: DrillKind) -> bool:
    """Whether the variant has this drill (no insurance or surrender drill where none is
    offered)."""
    if kind is DrillKind.INSURANCE_MAX:
        return rules.insurance.allowed
    if kind is DrillKind.SURRENDER:
        return rules.surrender.allowed
    if kind is DrillKind.PROCEDURE:
        return bool(_procedures(rules))
    return True


def make_questions(rules: Variant, kind: DrillKind, seed: int) -> list[Question]:
    """The questions of one drill's item: a question, or a procedure's steps."""
    if kind is DrillKind.PROCEDURE:
        if not available(rules, kind):
            raise TrainingError(f"{rules.id} has no procedure drill: no shipped scenario has one")
        found = _procedures(rules)
        return [replace(q, seed=seed) for q in found[seed % len(found)]]
    return [make_question(rules, kind, seed)]


def make_question(rules: Variant, kind: DrillKind, seed: int) -> Question:
    """The question of ``kind`` dealt from the shoe of ``seed`` (the next shoes in turn when a
    shoe does not give one: no ace up for an insurance drill, no win for a payout)."""
    if not available(rules, kind):
        raise TrainingError(f"{rules.id} has no {kind.value} drill: its rules offer none")
    if kind is DrillKind.PROCEDURE:
        return make_questions(rules, kind, seed)[0]
    maker = _MAKERS[kind]
    for attempt in range(MAX_TRIES):
        made = maker(rules, random.Random(seed * 1_000_003 + attempt))
        if made is not None:
            return made(seed)
    raise TrainingError(f"no {kind.value} question in {MAX_TRIES} shoes of seed {seed}")


# --- dealing ---------------------------------------------------------------------------------

_STRATEGIES: dict[str, Strategy] = {}


class _Round:
    """A round dealt on the round controller from a shuffled shoe: one act at a time, the
    players deciding by basic strategy, the outputs kept in order."""

    def __init__(self, rules: Variant, rng: random.Random, wagers: dict[int, int]) -> None:
        cards = shoe_cards(rules.shoe.deck, rules.shoe.decks)
        rng.shuffle(cards)
        self.rules = rules
        self.controller = RoundController(rules)
        self.hands = DirectHands(self.controller, iter(cards))
        if rules.id not in _STRATEGIES:
            _STRATEGIES[rules.id] = strategy_for(rules)
        self.player = StrategyPlayer(_STRATEGIES[rules.id])
        self.outputs: list[object] = []
        c = self.controller
        for _ in range(MAX_STEPS):
            if c.state is State.BETTING:
                break
            if c.state is State.SHUFFLE:
                c.perform(Action.SHUFFLE)
            else:
                self.hands.draw()
        c.drain()  # the shoe's burn and the bets: before the drill's round
        for number, (box, cents) in enumerate(sorted(wagers.items())):
            c.perform(Action.BET, box=box, player=PLAYERS[number], amount_cents=cents)
        c.perform(Action.DEAL)
        self._keep()

    @property
    def state(self) -> State:
        return self.controller.state

    @property
    def round(self) -> RoundState:
        return self.controller.round

    def _keep(self) -> None:
        self.outputs.extend(self.controller.drain())

    def step(self) -> None:
        """One act of the dealer (a card, the reader, OK) or a player (a decision)."""
        c = self.controller
        state = c.state
        if state in CARD_STATES:
            self.hands.draw()
        elif state is State.PEEK:
            c.perform(Action.PEEK, outcome=reader_outcome(c, None))
        elif state is State.REVEAL:
            c.perform(Action.OK)
        elif state in WINDOWS or state is State.PLAYING:
            decision = self.player(c)
            try:
                if decision is None or (
                    state is not State.PLAYING and decision.action not in WINDOWS[state]
                ):
                    c.perform(Action.OK)
                else:
                    c.perform(decision.action, **decision.data)
            except ActionRefused:
                c.perform(Action.OK if state is not State.PLAYING else Action.STAND)
        else:
            raise TrainingError(f"a drill's round stopped in {state.value}")
        self._keep()

    def play_until(self, done: Callable[[_Round], bool]) -> bool:
        """Act until ``done`` or the round is over; whether ``done`` came."""
        for _ in range(MAX_STEPS):
            if done(self):
                return True
            if self.state is State.SETTLING:
                return False
            self.step()
        raise TrainingError("a drill's round did not end")

    def dealer_shown(self) -> list[Card]:
        cards = self.round.dealer.cards
        return list(cards) if self.state in DEALER_SHOWN else list(cards[:1])

    def table(self, *boxes: int) -> str:
        """The table as the dealer sees it: the dealer's cards shown, the boxes' hands."""
        shown: list[tuple[int, list[tuple[list[Card], int | None]]]] = []
        for box in boxes or sorted(self.round.boxes):
            hands: list[tuple[list[Card], int | None]] = [
                (h.cards, _stake(h)) for h in self.round.boxes[box].hands
            ]
            shown.append((box, hands))
        return drill_table(shown, self.dealer_shown())

    def prompts(self) -> list[Prompt]:
        return [o for o in self.outputs if isinstance(o, Prompt)]


Made = Callable[[int], Question]


def _one_box(rules: Variant, rng: random.Random) -> tuple[_Round, int, int]:
    box = rng.randint(1, 3)
    wager = rng.choice(WAGERS_CENTS)
    return _Round(rules, rng, {box: wager}), box, wager


def _payout(rules: Variant, rng: random.Random) -> Made | None:
    dealt, box, _ = _one_box(rules, rng)
    dealt.play_until(lambda r: False)
    entries = [o for o in dealt.outputs if isinstance(o, LedgerEntry) and o.box == box]
    paid = sum(e.amount_cents for e in entries if e.amount_cents > 0)
    if paid <= 0:
        return None
    said = [p for p in dealt.prompts() if p.code is PromptCode.PAY and p.box == box]
    table = dealt.table(box)
    told = "\n".join(told_words(p) for p in said)
    ask = drill_ask("payout", box=box)
    return lambda seed: Question(
        DrillKind.PAYOUT, rules.id, seed, AnswerForm.MONEY, table, ask, paid, told
    )


def _insurance_max(rules: Variant, rng: random.Random) -> Made | None:
    dealt, box, wager = _one_box(rules, rng)
    if not dealt.play_until(lambda r: r.state in (State.OFFERS, State.INSURANCE)):
        return None
    if dealt.controller.why_not(Action.INSURANCE) is not None:
        return None  # no box may insure (the dealer's card, a box's natural)
    state = dealt.round.boxes[box]
    why = why_not_insure(rules, state, state.controller, 10**12)  # the round's own limit
    if why is None or why.cents <= 0:
        return None
    table = dealt.table(box)
    up = table_cards(dealt.round.dealer.cards[:1])
    ask = drill_ask("insurance_max", box=box, up=up, wager=money(wager))
    told = "\n".join(told_words(p) for p in dealt.prompts() if p.code is PromptCode.OFFER_INSURANCE)
    limit = why.cents
    return lambda seed: Question(
        DrillKind.INSURANCE_MAX, rules.id, seed, AnswerForm.MONEY, table, ask, limit, told
    )


def _surrender(rules: Variant, rng: random.Random) -> Made | None:
    dealt, box, _ = _one_box(rules, rng)
    dealt.play_until(lambda r: r.state not in CARD_STATES and r.state is not State.PEEK)
    offered = dealt.state in (State.OFFERS, State.SURRENDER) and (
        dealt.controller.why_not(Action.SURRENDER) is None
    )
    table = dealt.table(box)
    told = told_words(dealt.controller.told) if dealt.controller.told is not None else ""
    ask = drill_ask("surrender", box=box)
    answer = 1 if offered else 0
    return lambda seed: Question(
        DrillKind.SURRENDER, rules.id, seed, AnswerForm.YES_NO, table, ask, answer, told
    )


def _total(rules: Variant, rng: random.Random) -> Made | None:
    dealt, box, _ = _one_box(rules, rng)
    turns: list[tuple[Prompt, str]] = []
    seen = 0

    def turn(r: _Round) -> bool:
        nonlocal seen
        new = r.prompts()[seen:]
        seen += len(new)
        for p in new:
            if p.code is PromptCode.PLAYER_TURN and p.total is not None:
                hand = [(list(p.cards), None)]
                turns.append((p, drill_table([(p.box or box, hand)], r.dealer_shown())))
        return False

    dealt.play_until(turn)
    if not turns:
        return None
    prompt, table = rng.choice(turns)
    ask = drill_ask("total", box=prompt.box)
    answer = prompt.total or 0
    told = told_words(prompt)
    return lambda seed: Question(
        DrillKind.TOTAL, rules.id, seed, AnswerForm.NUMBER, table, ask, answer, told
    )


_OFFER_CODES = frozenset(
    {PromptCode.OFFER_INSURANCE, PromptCode.OFFER_SURRENDER, PromptCode.OFFER_RESCUE}
)


def _prompt_key(p: Prompt) -> tuple[object, ...]:
    """What tells two prompts apart on the bar (a dealer's card: which one it is)."""
    count = p.count if p.say is Say.DEALER_CARD else None
    if p.code is PromptCode.DEAL:  # a card to a box: the same on the bar, whichever card
        return (p.code, p.box, p.face_down, count)
    if p.code in _OFFER_CODES:  # the bar says the offers open together
        return ("offers", tuple(sorted(p.options)), p.cards)
    return (p.code, p.say, p.box, p.hand, p.face_down, p.cards, p.total, count)


def _next_prompt(rules: Variant, rng: random.Random) -> Made | None:
    boxes = rng.sample((1, 2, 3), 2)
    dealt = _Round(rules, rng, {b: rng.choice(WAGERS_CENTS) for b in boxes})
    moments: list[tuple[Prompt, str]] = []  # each prompt on the bar, and the table before it
    seen = 0

    def keep(r: _Round) -> bool:
        nonlocal seen
        new = r.prompts()[seen:]
        seen += len(new)
        tables = r.table()
        for p in new:
            if on_the_bar(p):
                moments.append((p, tables))
        return False

    dealt.play_until(keep)
    keep(dealt)
    if len(moments) < CHOICES + 1:
        return None
    at = rng.randint(1, len(moments) - 1)
    said, table = moments[at - 1]  # the table as it was when croupier said it
    correct = moments[at][0]
    others: dict[tuple[object, ...], Prompt] = {}
    for p, _ in moments:
        key = _prompt_key(p)
        if key not in (_prompt_key(correct), _prompt_key(said)):
            others.setdefault(key, p)
    if len(others) < CHOICES - 1:
        return None
    picked = rng.sample(list(others.values()), CHOICES - 1)
    index = rng.randint(0, CHOICES - 1)
    options = [*picked[:index], correct, *picked[index:]]
    choices = tuple(told_words(p) for p in options)
    ask = drill_ask("next_prompt", said=told_words(said))
    told = told_words(correct)
    return lambda seed: Question(
        DrillKind.NEXT_PROMPT, rules.id, seed, AnswerForm.CHOICE, table, ask, index, told, choices
    )


# Holds a drill's choices are made of: one of each cause, each with its own thing to do.
_HOLD_SORTS: tuple[HoldReason, ...] = (
    HoldReason(HoldKind.DEVICE_LOST, "", device="shoe", cause=HoldCause.LINK_LOST),
    HoldReason(HoldKind.UNEXPECTED_CARD, "", cause=HoldCause.CARD_OUT_OF_TURN),
    HoldReason(HoldKind.UNREADABLE_CARD, "", cause=HoldCause.CARD_UNREADABLE),
    HoldReason(HoldKind.REDRAW, "", cause=HoldCause.REDRAW),
    HoldReason(HoldKind.UNEXPECTED_CARD, "", kept_out=True, cause=HoldCause.FOREIGN_CARD),
    HoldReason(HoldKind.LOCKUP, "shoe fault: card jam", cause=HoldCause.DEVICE_FAULT),
)


def _hold(rules: Variant, rng: random.Random) -> Made | None:
    dealt, box, _ = _one_box(rules, rng)
    acts = [rng.randint(0, 6)]

    def counted(r: _Round) -> bool:
        acts[0] -= 1
        return acts[0] < 0

    dealt.play_until(counted)
    c = dealt.controller
    sort = rng.choice(("lost", "card", "lockup"))
    try:
        if sort == "lost":
            device = rng.choice(("shoe", "peek", "panel"))
            c.perform(Hold(HoldKind.DEVICE_LOST, f"{device}: no answer", device=device))
        elif sort == "card" and dealt.state not in CARD_STATES:
            dealt.hands.draw()  # a card out of turn
        elif sort == "card":
            dealt.hands.misread_next = True
            dealt.hands.draw()
        else:
            c.perform(
                Hold(
                    HoldKind.LOCKUP,
                    "shoe fault: card jam",
                    device="shoe",
                    cause=HoldCause.DEVICE_FAULT,
                    fault="card_jam",
                )
            )
    except ActionRefused:
        return None
    if not c.hold_reasons:
        return None
    hold = c.hold_reasons[-1]
    others = [h for h in _HOLD_SORTS if h.cause is not hold.cause]
    picked = rng.sample(others, CHOICES - 1)
    index = rng.randint(0, CHOICES - 1)
    options = [*picked[:index], hold, *picked[index:]]
    choices = tuple(hold_todo(h) for h in options)
    table = dealt.table(box)
    ask = drill_ask("hold", what=hold_what(hold))
    told = hold_todo(hold)
    return lambda seed: Question(
        DrillKind.HOLD, rules.id, seed, AnswerForm.CHOICE, table, ask, index, told, choices
    )


# --- procedures: the shipped scenarios' situations, step by step ------------------------------

_PROCEDURES: dict[str, list[tuple[Question, ...]]] = {}


def _procedures(rules: Variant) -> list[tuple[Question, ...]]:
    """Each shipped scenario of the variant (its rules as shipped) that stops the table, as the
    steps a dealer takes: at each stop, what to do (the hold banner's todo, among 4); at the end
    of each round, each box's payout (the round's ledger)."""
    if rules.id not in _PROCEDURES:
        found = []
        for path in sorted(SCENARIO_PACK.glob("*.yaml")):
            scenario = load_scenario(path)
            if scenario.variant != rules.id or scenario.rules:
                continue
            steps = _scenario_steps(rules, scenario, path.stem)
            if steps:
                found.append(steps)
        _PROCEDURES[rules.id] = found
    return _PROCEDURES[rules.id]


def _scenario_steps(rules: Variant, scenario: Scenario, name: str) -> tuple[Question, ...]:
    if not isinstance(scenario.shoe, ScriptedShoe):
        return ()
    controller = RoundController(rules)
    hands = DirectHands(controller, iter(scenario.shoe.cards))
    rng = random.Random(name)
    stops: list[tuple[int, Question]] = []  # (round, step) of each stop, as it happened

    def watch(out: list[object]) -> None:
        for item in out:
            if isinstance(item, Prompt) and item.code is PromptCode.HOLD and item.hold:
                hold = item.hold
                others = [h for h in _HOLD_SORTS if h.cause is not hold.cause]
                picked = rng.sample(others, CHOICES - 1)
                index = rng.randint(0, CHOICES - 1)
                options = [*picked[:index], hold, *picked[index:]]
                choices = tuple(hold_todo(h) for h in options)
                ask = drill_ask("hold", what=hold_what(hold))
                table = _table_of(controller.round, controller.state)
                step = Question(DrillKind.PROCEDURE, rules.id, 0, AnswerForm.CHOICE, table, ask,
                                index, hold_todo(hold), choices)  # fmt: skip
                stops.append((controller.round.number, step))

    try:
        records, _ = play_rounds(controller, hands, scripted_rounds(scenario), on_output=watch)
    except (PlayError, ActionRefused):
        return ()
    if name in panel_procedures(rules):  # its supervisor's stop is handled with the panel
        handled = run_procedure(name, script_keys)
        stops = [
            (
                stop.round.number,
                Question(
                    DrillKind.PROCEDURE,
                    rules.id,
                    0,
                    AnswerForm.KEYS,
                    _table_of(stop.round, State.HOLD),
                    drill_ask("procedure_keys", what=stop.hold),
                    0,
                    panel_steps(stop.correct_steps),
                    scenario=name,
                    steps=stop.correct_steps,
                ),
            )
            for stop in handled.stops
        ]
    steps: list[Question] = []
    for record in records:
        steps += [q for number, q in stops if number == record.number]
        final = record.controller_round
        for box in sorted({e.box for e in record.ledger if e.amount_cents > 0}):
            paid = sum(e.amount_cents for e in record.ledger if e.box == box and e.amount_cents > 0)
            said = [p for p in record.prompts if p.code is PromptCode.PAY and p.box == box]
            steps.append(
                Question(
                    DrillKind.PROCEDURE,
                    rules.id,
                    0,
                    AnswerForm.MONEY,
                    _table_of(final, State.SETTLING),
                    drill_ask("payout", box=box),
                    paid,
                    "\n".join(told_words(p) for p in said),
                )
            )
    return tuple(steps)


def _table_of(r: RoundState, state: State) -> str:
    shown = r.dealer.cards if state in DEALER_SHOWN else r.dealer.cards[:1]
    boxes = [(n, [(h.cards, _stake(h)) for h in b.hands]) for n, b in sorted(r.boxes.items())]
    return drill_table(boxes, shown)


def _stake(hand: HandState) -> int | None:
    return sum(s.base_cents + s.double_cents for s in hand.stakes)


_MAKERS: dict[DrillKind, Callable[[Variant, random.Random], Made | None]] = {
    DrillKind.PAYOUT: _payout,
    DrillKind.INSURANCE_MAX: _insurance_max,
    DrillKind.SURRENDER: _surrender,
    DrillKind.TOTAL: _total,
    DrillKind.NEXT_PROMPT: _next_prompt,
    DrillKind.HOLD: _hold,
}
assert set(_MAKERS) | {DrillKind.PROCEDURE} == set(DrillKind) == set(FORMS)


def questions(rules: Variant, kind: DrillKind, count: int, seed: int) -> list[Question]:
    """``count`` questions of ``kind`` from the seeds after ``seed``."""
    return [make_question(rules, kind, seed + n) for n in range(count)]


def handle_keys(question: Question, keys: str) -> ProcedureResult | None:
    """A procedure's keys pressed on the table at its stop (None: not keys of the panel)."""
    pressed = panel_keys(keys)
    if question.form is not AnswerForm.KEYS or not pressed:
        return None
    return run_procedure(question.scenario, pressing(pressed))
