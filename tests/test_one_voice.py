"""One voice (issue 23): the dealer's sentences about the round are made in one module,
controller/game/words.py, from typed prompts and holds, and no code decides anything by reading
words back.

An AST check over controller/: outside the words module, a prompt is never built with words (a
string or an f-string given to ``Prompt(...)`` or the round's ``_prompt(...)``), and a hold's
``detail`` or a prompt's rendered words (``line(...)``, ``shown(...)``, ``plain(bar(...))``) are
never compared, searched or cut up (``==``, ``in``, ``startswith``, ``partition``...).

A refusal is typed too: outside the words module, the round's refusal (``Refusal(...)``) and the
table's (``EntryError``, ``InputError``, a refused ``InputResult``, ``PeopleEvent``,
``AccessEvent`` or the gaming day's ``DayEvent``) are never given words, and a
refusal check (a function named ``why_not*``, ``_none_left``, the table's ``why_dark``,
``refusal``, ``pin_pad_refusal``, ``lockup_refusal``) never returns words: they give a
:class:`~controller.game.refusals.WhyNot`, which ``refusal_words`` says.
"""

from __future__ import annotations

import ast
from pathlib import Path

from controller.game.holds import HoldKind
from controller.game.refusals import Why, WhyNot
from controller.game.told import Tell, Told
from controller.game.words import STATE_WORDS, call_words, refusal_words
from controller.round.spec import State

ROOT = Path(__file__).resolve().parents[1] / "controller"
WORDS = ROOT / "game" / "words.py"
# What reading words back looks like: a comparison, or one of these methods on the words.
STRING_READS = frozenset(
    {"startswith", "endswith", "partition", "rpartition", "split", "rsplit", "find", "index"}
    | {"rfind", "count", "replace", "removeprefix", "removesuffix"}
)
RENDERED = frozenset({"line", "shown", "plain", "bar", "hold_text", "prompt_json"})
BUILDERS = frozenset({"Prompt", "_prompt"})
REFUSERS = frozenset({"Refusal", "WhyNot", "EntryError", "InputError"})
# The table's checks that say why a key, an entry or a decision is refused (besides why_not*).
TABLE_CHECKS = frozenset({"why_dark", "refusal", "pin_pad_refusal", "lockup_refusal"})


def _is_words(node: ast.expr | None) -> bool:
    """Whether ``node`` is a sentence made here: a string, an f-string, or strings joined."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return _is_words(node.left) or _is_words(node.right)
    if isinstance(node, ast.BoolOp):
        return any(_is_words(v) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _is_words(node.body) or _is_words(node.orelse)
    return False


def _refusal_checks(tree: ast.AST, table: bool) -> list[ast.FunctionDef]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and (
            node.name.lstrip("_").startswith("why_not")
            or node.name == "_none_left"
            or (table and node.name in TABLE_CHECKS)
        )
    ]


def _words_of(node: ast.expr, holds: bool) -> bool:
    """Whether ``node`` is a hold's or a prompt's words."""
    if isinstance(node, ast.Attribute) and node.attr == "detail":
        return holds  # (other things have a detail too: a device's health, a doctor's check)
    if isinstance(node, ast.Subscript):
        return _words_of(node.value, holds)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return name in RENDERED or any(_words_of(a, holds) for a in node.args)
    return False


# The outputs that say what became of a move: where ``accepted`` and their words are given.
REFUSED_OUTPUTS = {
    "InputResult": (1, "reason"),
    "PeopleEvent": (1, "text"),
    "AccessEvent": (2, "text"),
    "DayEvent": (1, "text"),
    "CommandReply": (0, "reason"),  # the service's answer to a command (controller.service)
}


def _refused_with_words(call: ast.Call, name: str) -> bool:
    """``InputResult(action, False, <words>, ...)``, ``PeopleEvent(event, False, <words>)``,
    ``AccessEvent(role, event, False, <words>)``, ``DayEvent(event, False, <words>, ...)``: a
    refusal whose words were made here."""
    at, words_name = REFUSED_OUTPUTS[name]
    args = call.args
    given = {k.arg: k.value for k in call.keywords}
    accepted = args[at] if len(args) > at else given.get("accepted")
    reason = args[at + 1] if len(args) > at + 1 else given.get(words_name)
    refused = isinstance(accepted, ast.Constant) and accepted.value is False
    return refused and _is_words(reason)


def _event_words(call: ast.Call, name: str) -> ast.expr | None:
    """The words given to a ``PeopleEvent``, ``AccessEvent`` or ``DayEvent`` (None: none)."""
    at = REFUSED_OUTPUTS[name][0] + 1
    given = {k.arg: k.value for k in call.keywords}
    return call.args[at] if len(call.args) > at else given.get(REFUSED_OUTPUTS[name][1])


def _events_with_words(tree: ast.AST) -> list[int]:
    """Where a people, access or gaming-day event (accepted or not) is given words made here:
    a string or f-string, directly or through a name the same function set to one (what the
    words module's ``call_words``, ``day_words`` and ``refusal_words`` make instead)."""
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        made = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and _is_words(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name not in REFUSED_OUTPUTS or name in ("InputResult", "CommandReply"):
                continue
            if _refused_with_words(node, name):
                continue  # (a refusal given words: said as such)
            words = _event_words(node, name)
            if _is_words(words) or (isinstance(words, ast.Name) and words.id in made):
                found.append(node.lineno)
    return sorted(set(found))


def problems(source: str, where: str, table: bool = True) -> list[str]:
    """What in ``source`` builds a prompt from words or reads a hold's or a prompt's words
    (``table``: a module of the table layer, whose checks named as in TABLE_CHECKS say why a
    move is refused; elsewhere a "refusal" is another thing, the web server's answer to a
    browser without the view token)."""
    tree = ast.parse(source)
    holds = any(name in source for name in ("HoldReason", "hold_reasons", "HoldKind"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_words_of(side, holds) for side in (node.left, *node.comparators)):
                found.append(f"{where}:{node.lineno}: compares words")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if (
                isinstance(func, ast.Attribute)
                and name in STRING_READS
                and _words_of(func.value, holds)
            ):
                found.append(f"{where}:{node.lineno}: reads words with {name}()")
            if name in BUILDERS:
                given = [*node.args, *(k.value for k in node.keywords)]
                if any(
                    isinstance(a, ast.JoinedStr)
                    or (isinstance(a, ast.Constant) and isinstance(a.value, str))
                    for a in given
                ):
                    found.append(f"{where}:{node.lineno}: a prompt built from words")
            if name in REFUSERS and any(_is_words(a) for a in node.args):
                found.append(f"{where}:{node.lineno}: a refusal built from words")
            if name in REFUSED_OUTPUTS and _refused_with_words(node, name):
                found.append(f"{where}:{node.lineno}: a refused input given words")
    for lineno in _events_with_words(tree):
        found.append(f"{where}:{lineno}: an event given words")
    for check in _refusal_checks(tree, table):
        for node in ast.walk(check):
            if isinstance(node, ast.Return) and _is_words(node.value):
                found.append(f"{where}:{node.lineno}: a refusal check returns words")
    return found


def test_no_module_but_the_words_module_makes_a_prompts_words_or_reads_them_back() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == WORDS:
            continue
        table = path.parent == ROOT / "table"
        found += problems(path.read_text(), str(path.relative_to(ROOT.parent)), table)
    assert found == []


def test_the_check_sees_words_read_back_and_prompts_made_of_words() -> None:
    """The check above fails on what this issue removed (so it is not a check that cannot fail)."""
    removed = """
from controller.game.holds import HoldReason
def refused(hold: HoldReason) -> bool:
    return hold.detail.endswith("refused")
def foreign(hold: HoldReason) -> bool:
    return "cannot be in this game's shoe" in hold.detail
def again(peek) -> bool:
    return "again" in line(peek)
def told(self, box: int) -> None:
    self._prompt(PromptCode.DEAL, f"deal to box {box}", box=box)
"""
    assert [p.split(": ", 1)[1] for p in problems(removed, "x")] == [
        "reads words with endswith()",
        "compares words",
        "compares words",
        "a prompt built from words",
    ]
    typed = """
from controller.game.holds import HoldCause, HoldReason
def refused(hold: HoldReason) -> bool:
    return hold.cause is HoldCause.DEVICE_REFUSED
"""
    assert problems(typed, "x") == []


def test_the_check_sees_refusals_made_of_words() -> None:
    """What this issue typed (the round's refusals) fails the check when made of words again."""
    removed = """
def why_not_stand(rules, hand):
    if hand.finished:
        return "that hand has finished"
    return f"stand needs {rules.hands.stand_minimum} or five cards"
def _undo_last(self, move):
    raise Refusal("nothing to undo since the last card or payment")
def _insurance(self, move):
    raise Refusal("insurance is offered only against " + rank_words(self.up))
def _none_left(what, reasons):
    return f"no box can {what} now"
"""
    assert [p.split(": ", 1)[1] for p in problems(removed, "x")] == [
        "a refusal built from words",
        "a refusal built from words",
        "a refusal check returns words",
        "a refusal check returns words",
        "a refusal check returns words",
    ]
    typed = """
def why_not_stand(rules, hand):
    if hand.finished:
        return WhyNot(Why.HAND_FINISHED)
    return None
def _undo_last(self, move):
    raise Refusal(WhyNot(Why.NOTHING_TO_UNDO))
"""
    assert problems(typed, "x") == []


def test_every_state_and_refusal_has_its_words() -> None:
    """The words module says every state a refusal can name and every refusal code."""
    assert set(STATE_WORDS) == {state.value for state in State}
    said = {refusal_words(WhyNot(why, kind=HoldKind.LOCKUP, state="betting")) for why in Why}
    assert all(said)
    assert len(said) == len(Why)  # no two codes say the same


def test_the_check_sees_the_tables_refusals_made_of_words() -> None:
    """What issue 23 typed in the table layer (the panel's dark keys, its entries, the data of
    an input, the role on the key, the PIN pad, the dealer's sign-in lockout, the gaming day's
    steps) fails the check when made of words again."""
    removed = """
def why_dark(button, controller, wagers_per_box):
    if button in BOX_KEYS:
        return f"box {BOX_KEYS.index(button) + 1} has no bet this round"
    return f"that key does nothing {state_words(controller.state.value)}"
def input_for(self, action, controller):
    raise EntryError(f"box {self.box} has no WAGER {position}: {held} wagers on it")
def _int(data, key):
    raise InputError(f"{key} is missing")
def refusal(self, action, holds):
    return "needs the supervisor key (turn the key switch to SUP)"
def pin_pad_refusal(self, button):
    return f"key in the {role.value} PIN digits first, then OK"
def lockup_refusal(self):
    return f"{device_words(label)} still runs firmware this table does not allow"
def _request_shuffle(self, keys):
    self._push(InputResult(Action.SHUFFLE, False, "bets are on the table: settle them", keys))
def _supervisor_key(self, button):
    reason = f"with the {role.value} key, {button.value} decides nothing now"
    self._push(InputResult(None, accepted=False, reason=f"{button.value} decides nothing"))
def apply(self, call, boxes):
    return self, [PeopleEvent("refused", False, "no dealer is signed in")]
def wrong(self, label, wrong):
    return [AccessEvent(label, "wrong_pin", False, f"wrong {label} PIN ({wrong} in a row)")]
def _sign_in(self, call):
    return self, [PeopleEvent("refused", False, f"dealer sign-in is locked until {when(t)}")]
def _refused(self, call, day):
    return self, [DayEvent("refused", False, "count the chips first", day, call.by)]
"""
    assert [p.split(": ", 1)[1] for p in problems(removed, "x")] == [
        "a refusal built from words",
        "a refusal built from words",
        "a refused input given words",
        "a refused input given words",
        "a refused input given words",
        "a refused input given words",
        "a refused input given words",
        "a refused input given words",
        "a refusal check returns words",
        "a refusal check returns words",
        "a refusal check returns words",
        "a refusal check returns words",
        "a refusal check returns words",
    ]
    typed = """
def why_dark(button, controller, wagers_per_box):
    return WhyNot(Why.KEY_DOES_NOTHING, state=controller.state.value)
def _int(data, key):
    raise InputError(WhyNot(Why.FIELD_MISSING, name=key))
def _request_shuffle(self, keys):
    self._push(_refused(Action.SHUFFLE, WhyNot(Why.BETS_ON_TABLE), keys))
    self._push(InputResult(Action.SHUFFLE, True, "new shoe requested", keys))
def apply(self, call, boxes):
    return self, [_refused(WhyNot(Why.NO_DEALER_SIGNED_IN))]
def _refused(self, call, day):
    return self, [refused_day(WhyNot(Why.DAY_NO_CHIPS), day, call.by, call.at)]
"""
    assert problems(typed, "x") == []


def test_the_check_sees_accepted_table_events_made_of_words() -> None:
    """What issue 23 typed last (the accepted access and people events' words, made in the
    table layer until then) fails the check when made of words again: directly, or through a
    name set to words first."""
    removed = """
def apply(self, attempt):
    return [AccessEvent(label, "signed_in", True, f"{person} signed in until the key leaves {key}")]
def require_pins(self, required):
    text = (
        "supervisor and technician decisions need the key and that role's PIN"
        if required
        else "supervisor and technician decisions need the key alone"
    )
    events.append(AccessEvent(None, "policy", True, text))
def _out(self, at, how):
    return PeopleEvent("dealer_out", True, f"dealer {self.dealer_name} ({self.dealer_id}) {how}")
def walk_away(self, call, seat):
    text = f"player card {seat.card} ({seat.player}) left box {call.box}: session over"
    return PeopleEvent("walk_away", True, text, call.box, card=seat.card)
def bet(self, box, player, seat):
    return PeopleEvent("bet", True, text=f"box {box}: {player}'s bet is in session {seat}")
def key(self, button):
    return [DayEvent("key", True, f"panel key {button} works", day, self.panel_by)]
"""
    assert [p.split(": ", 1)[1] for p in problems(removed, "x")] == ["an event given words"] * 6
    typed = """
def apply(self, attempt):
    told = Told(Tell.SIGNED_IN, label, self.name, self.staff_id, key)
    return [AccessEvent(label, "signed_in", True, call_words(told))]
def walk_away(self, call, seat):
    text = call_words(Told(Tell.WALK_AWAY, box=call.box, card=seat.card, player=seat.player))
    return PeopleEvent("walk_away", True, text, call.box, card=seat.card)
def key(self, button):
    text = day_words("key", key=BUTTON_WORDS[button], left=left)
    return [DayEvent("key", True, text, day, self.panel_by)]
"""
    assert problems(typed, "x") == []


def test_every_accepted_event_has_its_words() -> None:
    """The words module says every code of an accepted call, each its own way, and as the
    journal's rows said them before they were typed."""
    said = {call_words(Told(tell, "supervisor", "Ann", "1001", "SUP")) for tell in Tell}
    assert len(said) == len(Tell)
    ann = Told(Tell.SIGNED_IN, "supervisor", "Ann Lee", "1001", "SUP")
    assert call_words(ann) == "supervisor Ann Lee (1001) signed in until the key leaves SUP"
    shared = Told(Tell.SIGNED_OUT, "supervisor", "supervisor", reason="the table restarted")
    assert call_words(shared) == "supervisor signed out: the table restarted"
    bo = Told(Tell.DEALER_HANDED_OVER, name="Bo Chen", staff_id="2001", player="Cy Dee")
    assert call_words(bo) == "dealer Bo Chen (2001) handed over to Cy Dee"
    sit = Told(Tell.SIT_DOWN, box=2, card="400123", player="Ann")
    assert call_words(sit) == "player card 400123 (Ann) sits at box 2: rated from now on"


def test_the_check_sees_the_services_refusals_made_of_words() -> None:
    """The service's refused commands (the journal down, the table stopped, no such notice) are
    typed too: the check fails on the replies it made of words."""
    removed = """
def _command(self, command):
    if applied is None or applied.result is None:
        why = self.journaled.unavailable
        if isinstance(command, Pin):
            return CommandReply(False, why or "journal unavailable")
        return CommandReply(accepted=False, reason=f"there is no notice {command.notice}")
"""
    assert [p.split(": ", 1)[1] for p in problems(removed, "x")] == [
        "a refused input given words"
    ] * 2
    typed = """
def _command(self, command):
    if applied is None or applied.result is None:
        trouble = self.journaled.unavailable or ""
        return _refused(WhyNot(Why.JOURNAL_UNAVAILABLE, detail=trouble))
    return CommandReply(True, "")
"""
    assert problems(typed, "x") == []
