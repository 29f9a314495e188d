"""Scenario files: read, validate and type the YAML that scripts a table session.

The file format is the contract of ``scenarios.md``. This module turns a file into a frozen
:class:`Scenario` the runner consumes, or raises :class:`ScenarioError` listing every problem
found, each with the file, the line, the key path and what is allowed::

    game.yaml:14: rounds[0].actions[2].double.amount: must be a positive amount in currency
    units with at most 2 decimals, got -5

The YAML is composed into nodes (PyYAML's safe loader) and validated node by node, so every
problem keeps its line, and amounts are converted to integer cents from the text the user wrote
(``2.5`` is 250 cents; no float ever touches money).

What is *not* checked here, because it needs the variant's rules: the variant file's contents
and the rule override keys (the rules loader does that), card inventory against the shoe, and
whether an action is legal at the moment it is played (the round controller decides that).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, TypeAlias

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from controller.game.rules import VARIANT_IDS, VARIANTS_DIR
from controller.play.errors import Problem, ScenarioError
from controller.round.spec import DECISIONS
from drivers.tbl21.cards import Card
from drivers.tbl21.errors import CardNotationError

SUPPORTED_SPECS: tuple[int, ...] = (1,)
BOXES = range(1, 8)

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (
    f"{_TAG}str",
    f"{_TAG}int",
    f"{_TAG}float",
    f"{_TAG}bool",
    f"{_TAG}null",
)
_AMOUNT_RULE = "a positive amount in currency units with at most 2 decimals"
# Numbers are read from the text as written, in plain decimal notation only (no hex, octal,
# exponents or sexagesimal), and at most _MAX_DIGITS long: a box, a seed or an amount needs no
# more, and Python refuses to convert longer digit strings.
_DIGITS = r"\d+(?:_\d+)*"
_PLAIN_INT = re.compile(rf"[-+]?{_DIGITS}")
_PLAIN_NUMBER = re.compile(rf"[-+]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})")
_MAX_DIGITS = 60
_BOOLS = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}
_VARIANT_FILE_SUFFIXES = (".toml", ".yaml", ".yml")


# --------------------------------------------------------------------------------------------
# Errors


# --------------------------------------------------------------------------------------------
# The typed scenario


def units_text(amount_cents: int) -> str:
    """Cents as currency units as a person writes them: ``1000`` -> ``10``, ``250`` -> ``2.5``."""
    units = Decimal(amount_cents).scaleb(-2)
    text = format(units, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _units_number(amount_cents: int) -> int | float:
    """Cents as a JSON number in currency units, for echoing the user's input back.

    Only for display: an amount with at most 2 decimals prints exactly as written
    (``float`` repr is the shortest round-tripping text). Money itself stays in cents.
    """
    if amount_cents % 100 == 0:
        return amount_cents // 100
    return float(units_text(amount_cents))


@dataclass(frozen=True, slots=True)
class ScriptBet:
    """A wager placed before the deal. The first bet on a box is that box's controller."""

    box: int
    player: str
    amount_cents: int


@dataclass(frozen=True, slots=True)
class ScriptAction:
    """A scripted player decision: a tagged union, one subclass per action name.

    A subclass declares its ``kind`` (the YAML key) and its fields; ``required`` and
    ``optional`` name the YAML keys it accepts (``amount`` maps to ``amount_cents``). Adding an
    action (e.g. the irregularity scripts to come) is a new subclass in ``ACTION_TYPES``.
    ``line`` is where the action was written, for messages; it takes no part in equality.
    """

    kind: ClassVar[str]
    required: ClassVar[tuple[str, ...]] = ("box",)
    optional: ClassVar[tuple[str, ...]] = ()
    table_event: ClassVar[bool] = False  # done by the dealer/supervisor/technician, not a player

    box: int | None  # None only for table events, which have no box
    line: int | None = field(default=None, kw_only=True, compare=False)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """The action as written in the file, e.g. ``{"double": {"box": 1, "amount": 10}}``.

        Amounts are in currency units (a JSON number); keys the file left out are left out.
        """
        body: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "line":
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            if f.name == "amount_cents":
                body["amount"] = _units_number(value)
            elif isinstance(value, tuple):
                body[f.name] = list(value)
            else:
                body[f.name] = value
        return {self.kind: body}


@dataclass(frozen=True, slots=True)
class ScriptInsurance(ScriptAction):
    """Insurance for one player of a box. ``player`` may be left out when the box has only one
    player (as ``double`` defaults its players); ``player_written`` says whether the file named
    the player, so that the action is reported as written."""

    kind: ClassVar[str] = "insurance"
    required: ClassVar[tuple[str, ...]] = ("box", "amount")
    optional: ClassVar[tuple[str, ...]] = ("player",)

    player: str
    amount_cents: int
    player_written: bool = field(default=True, kw_only=True, compare=False)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        written = ScriptAction.as_dict(self)
        body = written[self.kind]
        del body["player_written"]
        if not self.player_written:
            del body["player"]
        return written


@dataclass(frozen=True, slots=True)
class ScriptSurrender(ScriptAction):
    kind: ClassVar[str] = "surrender"


@dataclass(frozen=True, slots=True)
class ScriptHit(ScriptAction):
    kind: ClassVar[str] = "hit"


@dataclass(frozen=True, slots=True)
class ScriptStand(ScriptAction):
    kind: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True)
class ScriptDouble(ScriptAction):
    """Double down. ``amount_cents`` None: the full original wager; ``players`` None: everyone
    on the box joins."""

    kind: ClassVar[str] = "double"
    optional: ClassVar[tuple[str, ...]] = ("amount", "players")

    amount_cents: int | None = None
    players: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ScriptSplit(ScriptAction):
    kind: ClassVar[str] = "split"


@dataclass(frozen=True, slots=True)
class ScriptRescue(ScriptAction):
    kind: ClassVar[str] = "rescue"
    required: ClassVar[tuple[str, ...]] = ("box", "player")

    player: str


SUPERVISOR_DECISIONS: tuple[str, ...] = tuple(DECISIONS)
READER_ANSWERS: tuple[str, ...] = ("lie", "unreadable", "no_card")
DEVICES: tuple[str, ...] = ("shoe", "peek", "panel")


@dataclass(frozen=True, slots=True)
class ScriptCardOutOfTurn(ScriptAction):
    """The dealer pulls a card from the shoe when no card is due (an irregularity)."""

    kind: ClassVar[str] = "card_out_of_turn"
    required: ClassVar[tuple[str, ...]] = ()
    table_event: ClassVar[bool] = True

    box: int | None = None


@dataclass(frozen=True, slots=True)
class ScriptSupervisor(ScriptAction):
    """A supervisor's decision at the key switch: assign / burn an unexpected card, void the
    round, confirm a keyed-in card or clear a lockup."""

    kind: ClassVar[str] = "supervisor"
    required: ClassVar[tuple[str, ...]] = ("decision",)
    table_event: ClassVar[bool] = True

    box: int | None = None

    decision: str = ""


@dataclass(frozen=True, slots=True)
class ScriptKeyCard(ScriptAction):
    """The dealer keys in a card the shoe could not read."""

    kind: ClassVar[str] = "key_card"
    required: ClassVar[tuple[str, ...]] = ("card",)
    table_event: ClassVar[bool] = True

    box: int | None = None

    card: str = ""


@dataclass(frozen=True, slots=True)
class ScriptUnreadableCard(ScriptAction):
    """The dealer pulls the next card and the shoe cannot read it (fault 0x10); the dealer keys
    it in (``key_card``) and a supervisor confirms it."""

    kind: ClassVar[str] = "unreadable_card"
    required: ClassVar[tuple[str, ...]] = ()
    table_event: ClassVar[bool] = True

    box: int | None = None


@dataclass(frozen=True, slots=True)
class ScriptReaderAnswer(ScriptAction):
    """The hole-card reader's next answer: ``lie`` (the opposite of the truth), ``unreadable``
    (U) or ``no_card`` (E)."""

    kind: ClassVar[str] = "reader"
    required: ClassVar[tuple[str, ...]] = ("answer",)
    table_event: ClassVar[bool] = True

    box: int | None = None
    answer: str = ""


@dataclass(frozen=True, slots=True)
class ScriptUnplug(ScriptAction):
    """A device's cable is pulled: the table holds until it is back."""

    kind: ClassVar[str] = "unplug"
    required: ClassVar[tuple[str, ...]] = ("device",)
    table_event: ClassVar[bool] = True

    box: int | None = None

    device: str = ""


@dataclass(frozen=True, slots=True)
class ScriptReplug(ScriptAction):
    """The device's cable is plugged back in."""

    kind: ClassVar[str] = "replug"
    required: ClassVar[tuple[str, ...]] = ("device",)
    table_event: ClassVar[bool] = True

    box: int | None = None

    device: str = ""


ACTION_TYPES: Mapping[str, type[ScriptAction]] = MappingProxyType(
    {
        cls.kind: cls
        for cls in (
            ScriptInsurance,
            ScriptSurrender,
            ScriptHit,
            ScriptStand,
            ScriptDouble,
            ScriptSplit,
            ScriptRescue,
            ScriptCardOutOfTurn,
            ScriptSupervisor,
            ScriptKeyCard,
            ScriptUnreadableCard,
            ScriptReaderAnswer,
            ScriptUnplug,
            ScriptReplug,
        )
    }
)


@dataclass(frozen=True, slots=True)
class ScriptedShoe:
    """The shoe delivers exactly these cards, in order, burn cards included."""

    cards: tuple[Card, ...]
    cut: int | None = None  # the cut card comes out after this many cards


@dataclass(frozen=True, slots=True)
class SeededShoe:
    """A seeded shuffle of the variant's shoe."""

    seed: int
    cut: int | None = None


ShoeSpec: TypeAlias = ScriptedShoe | SeededShoe
RuleScalar: TypeAlias = int | Decimal | bool | str
RuleValue: TypeAlias = RuleScalar | tuple[RuleScalar, ...]


@dataclass(frozen=True, slots=True)
class RoundScript:
    bets: tuple[ScriptBet, ...]
    actions: tuple[ScriptAction, ...]


@dataclass(frozen=True, slots=True)
class Scenario:
    """A validated scenario.

    ``variant`` is the text of the ``variant`` key: a variant id, or the path as written.
    ``variant_path`` is the resolved variant file when the key named a file, else ``None``.
    ``rules`` holds the overrides unvalidated (the rules loader checks the keys), flattened to
    dotted keys: ``rules: {dealer: {hits_soft_17: false}}`` and
    ``rules: {dealer.hits_soft_17: false}`` both give ``{"dealer.hits_soft_17": False}``. Values
    are scalars or tuples of scalars; numbers with a fraction are ``Decimal`` from their text,
    never float.
    ``lines`` maps each key path of the file (``rules.dealer.hits_soft_17``,
    ``rounds[0].bets[1]``) to its line, so later stages can point at the file too.
    """

    spec: int
    variant: str
    variant_path: Path | None
    rules: Mapping[str, RuleValue]
    shoe: ShoeSpec
    rounds: tuple[RoundScript, ...]
    source: str
    lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}), compare=False)

    def line_of(self, path: str) -> int | None:
        """The line of a key path, or ``None`` if the file has no such key."""
        return self.lines.get(path)

    def where(self, path: str) -> str:
        """``FILE:LINE: path`` (``FILE: path`` for an unknown path), to start a message."""
        line = self.line_of(path)
        return f"{self.source}:{line}: {path}" if line is not None else f"{self.source}: {path}"


# --------------------------------------------------------------------------------------------
# Loading


def load_scenario(path: str | Path, *, variants_dir: Path = VARIANTS_DIR) -> Scenario:
    """Read and validate a scenario file. Raises :class:`ScenarioError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScenarioError(
            [Problem(str(path), None, "", f"cannot read the file: {reason}")]
        ) from exc
    return parse_scenario(text, str(path), base_dir=path.parent, variants_dir=variants_dir)


def parse_scenario(
    text: str,
    source_name: str,
    *,
    base_dir: str | Path | None = None,
    variants_dir: Path = VARIANTS_DIR,
) -> Scenario:
    """Validate scenario YAML ``text``; ``source_name`` names it in messages.

    A variant given as a path is resolved against ``base_dir`` (default: the directory of
    ``source_name``); a variant id is one of :func:`known_variant_ids` of ``variants_dir``.
    Raises :class:`ScenarioError` with every problem found.
    """
    base = Path(base_dir) if base_dir is not None else Path(source_name).parent
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:
        raise ScenarioError([_reader_problem(source_name, text, exc)]) from exc
    try:
        try:
            root = loader.get_single_node()
        except yaml.reader.ReaderError as exc:
            raise ScenarioError([_reader_problem(source_name, text, exc)]) from exc
        except yaml.MarkedYAMLError as exc:
            raise ScenarioError([_yaml_problem(source_name, exc)]) from exc
        except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML parse error is marked
            raise ScenarioError([Problem(source_name, None, "", f"not valid YAML: {exc}")]) from exc
        reader = _Reader(source_name, loader, base, variants_dir)
        scenario = reader.scenario(root)
    finally:
        loader.dispose()
    if reader.problems or scenario is None:
        problems = reader.problems or [Problem(source_name, 1, "", "not a scenario")]
        raise ScenarioError(sorted(problems, key=lambda p: (p.line or 0, p.column or 0)))
    return scenario


def _reader_problem(source: str, text: str, exc: yaml.reader.ReaderError) -> Problem:
    """A character YAML does not allow (a control character, say), located by its offset."""
    before = text[: exc.position]
    line = before.count("\n") + 1
    column = exc.position - (before.rfind("\n") + 1) + 1
    char: int | str = exc.character
    code = char if isinstance(char, int) else ord(char[:1] or "\0")
    return Problem(
        source,
        line,
        "",
        f"not valid YAML: character U+{code:04X} is not allowed in a YAML file",
        column=column,
    )


def _yaml_problem(source: str, exc: yaml.MarkedYAMLError) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    what = " ".join(p for p in (exc.context, exc.problem) if p)
    return Problem(
        source,
        mark.line + 1 if mark else None,
        "",
        f"not valid YAML: {what}",
        column=mark.column + 1 if mark else None,
    )


def _index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(node: Node) -> str:
    """How a value appears in 'got ...': as written, with what YAML made of it when unexpected."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    assert isinstance(node, ScalarNode)
    if node.tag == _NULL:
        return "nothing" if node.value in ("", "~") else f"{node.value} (read as nothing/null)"
    text = node.value if len(node.value) <= 40 else node.value[:37] + "..."
    if node.tag == _STR:
        return repr(text)
    if node.tag == _BOOL:
        return f"{text} (read as true/false)"
    return str(text)


def known_variant_ids(variants_dir: Path = VARIANTS_DIR) -> tuple[str, ...]:
    """The four built-in ids, then any other ``<id>.toml`` an operator put in ``variants_dir``."""
    extra = sorted(p.stem for p in variants_dir.glob("*.toml") if p.stem not in VARIANT_IDS)
    return (*VARIANT_IDS, *extra)


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Reader:
    """Walks the composed YAML nodes, collecting problems and building the typed scenario."""

    def __init__(
        self, source: str, loader: yaml.SafeLoader, base_dir: Path, variants_dir: Path
    ) -> None:
        self.source = source
        self.loader = loader
        self.base_dir = base_dir
        self.variants_dir = variants_dir
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}

    # -- plumbing ---------------------------------------------------------------------------

    def mark(self, node: Node, path: str) -> None:
        self.lines[path] = node.start_mark.line + 1

    def fail(self, node: Node, path: str, message: str, allowed: Sequence[str] = ()) -> None:
        mark = node.start_mark
        self.problems.append(
            Problem(self.source, mark.line + 1, path, message, tuple(allowed), mark.column + 1)
        )

    def mapping(
        self,
        node: Node,
        path: str,
        required: Sequence[str],
        optional: Sequence[str] = (),
        what: str = "a mapping",
    ) -> dict[str, Node] | None:
        """The known keys of a mapping node; unknown, duplicate and missing keys are problems."""
        allowed = (*required, *optional)
        if not isinstance(node, MappingNode):
            self.fail(
                node, path, f"must be {what} with keys {', '.join(allowed)}, got {_shown(node)}"
            )
            return None
        pairs = self.pairs(node, path)
        if pairs is None:
            return None
        found: dict[str, Node] = {}
        suggested: set[str] = set()
        for key_node, value_node in pairs:
            if not (isinstance(key_node, ScalarNode) and key_node.tag == _STR):
                self.fail(key_node, path, f"keys must be names, got {_shown(key_node)}", allowed)
                continue
            key = key_node.value
            if key in allowed:
                found[key] = value_node
                self.mark(key_node, _key(path, key))
            else:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                suggested.update(close)
                self.fail(
                    key_node,
                    _key(path, key),
                    f"unknown key {key!r}{_did_you_mean(key, allowed)}",
                    allowed,
                )
        for key in required:
            if key not in found and key not in suggested:
                self.fail(node, _key(path, key), "required key is missing")
        return found

    def pairs(self, node: MappingNode, path: str) -> list[tuple[Node, Node]] | None:
        """The key/value pairs of a mapping, one per key.

        A key written twice is a problem; keys brought in by a YAML merge (``<<: *anchor``) are
        overridden by the keys written beside it, as YAML specifies.
        """
        written: set[object] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != f"{_TAG}merge":
                written_key = (key_node.tag, key_node.value)
                if written_key in written:
                    self.fail(key_node, _key(path, key_node.value), "key is given twice")
                written.add(written_key)
        try:
            self.loader.flatten_mapping(node)
        except yaml.MarkedYAMLError as exc:
            self.problems.append(_yaml_problem(self.source, exc))
            return None
        unique: dict[object, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            ident: object = (
                (key_node.tag, key_node.value) if isinstance(key_node, ScalarNode) else id(key_node)
            )
            unique[ident] = (key_node, value_node)
        return list(unique.values())

    def sequence(self, node: Node, path: str, what: str) -> list[Node] | None:
        if not isinstance(node, SequenceNode):
            self.fail(node, path, f"must be a list of {what}, got {_shown(node)}")
            return None
        for i, item in enumerate(node.value):
            self.mark(item, _index(path, i))
        return list(node.value)

    # -- values -----------------------------------------------------------------------------

    def integer(self, node: Node, path: str, rule: str, ok: Callable[[int], bool]) -> int | None:
        value = _int_of(node)
        if value is not None and ok(value):
            return value
        self.fail(node, path, f"must be {rule}, got {_shown(node)}")
        return None

    def box(self, node: Node, path: str) -> int | None:
        return self.integer(node, path, "a box number from 1 to 7", lambda b: b in BOXES)

    def name(self, node: Node, path: str) -> str | None:
        if isinstance(node, ScalarNode) and node.tag == _STR and node.value.strip():
            value: str = node.value
            if value != value.strip():
                self.fail(
                    node, path, f"a player name must not start or end with spaces, got {value!r}"
                )
                return None
            return value
        hint = ""
        if isinstance(node, ScalarNode) and node.tag != _STR and node.value:
            hint = f"; if that is the name, quote it: '{node.value}'"
        self.fail(node, path, f"must be a player name (text), got {_shown(node)}{hint}")
        return None

    def amount(self, node: Node, path: str) -> int | None:
        """Currency units as written -> integer cents, exactly (Decimal on the YAML text)."""
        units = _decimal_of(node)
        if units is not None:
            cents = _exact_cents(units)
            if cents is not None and cents > 0:
                return cents
        self.fail(node, path, f"must be {_AMOUNT_RULE}, got {_shown(node)}")
        return None

    # -- the file ---------------------------------------------------------------------------

    def scenario(self, root: Node | None) -> Scenario | None:
        if root is None:
            self.problems.append(
                Problem(
                    self.source,
                    1,
                    "",
                    "the file is empty; a scenario needs spec, variant, shoe and rounds",
                )
            )
            return None
        keys = self.mapping(
            root, "", ("spec", "variant", "shoe", "rounds"), ("rules",), what="a scenario mapping"
        )
        if keys is None:
            return None
        spec = self.spec(keys["spec"]) if "spec" in keys else None
        variant = self.variant(keys["variant"]) if "variant" in keys else None
        rules = self.rules(keys["rules"]) if "rules" in keys else {}
        shoe = self.shoe(keys["shoe"]) if "shoe" in keys else None
        rounds = self.rounds(keys["rounds"]) if "rounds" in keys else None
        if spec is None or variant is None or rules is None or shoe is None or rounds is None:
            return None
        return Scenario(
            spec=spec,
            variant=variant[0],
            variant_path=variant[1],
            rules=MappingProxyType(rules),
            shoe=shoe,
            rounds=rounds,
            source=self.source,
            lines=MappingProxyType(self.lines),
        )

    def spec(self, node: Node) -> int | None:
        value = _int_of(node)
        if value in SUPPORTED_SPECS:
            return value
        if isinstance(node, ScalarNode) and node.tag == _INT:
            message = f"unsupported spec version {_shown(node)}"
        else:
            message = f"must be the spec version number, got {_shown(node)}"
        self.fail(node, "spec", message, [str(s) for s in SUPPORTED_SPECS])
        return None

    def variant(self, node: Node) -> tuple[str, Path | None] | None:
        ids = known_variant_ids(self.variants_dir)
        if not (isinstance(node, ScalarNode) and node.tag == _STR and node.value):
            self.fail(
                node,
                "variant",
                f"must be a variant id or a path to a variant file, got {_shown(node)}",
                ids,
            )
            return None
        text: str = node.value
        if text in ids:
            return text, None
        looks_like_path = "/" in text or "\\" in text or text.endswith(_VARIANT_FILE_SUFFIXES)
        if not looks_like_path:
            self.fail(
                node,
                "variant",
                f"unknown variant {text!r}{_did_you_mean(text, ids)}; "
                "give a variant id or a path to a variant file",
                ids,
            )
            return None
        resolved = (self.base_dir / text).resolve()
        if not resolved.is_file():
            self.fail(node, "variant", f"variant file {text!r} not found (looked for {resolved})")
            return None
        return text, resolved

    def rules(self, node: Node) -> dict[str, RuleValue] | None:
        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return {}
        if not isinstance(node, MappingNode):
            self.fail(
                node,
                "rules",
                f"must be a mapping of rule overrides (name: value), got {_shown(node)}",
            )
            return None
        rules: dict[str, RuleValue] = {}
        ok = self.rule_entries(node, "", rules, (id(node),))
        return rules if ok else None

    def rule_entries(
        self, node: MappingNode, prefix: str, rules: dict[str, RuleValue], seen: tuple[int, ...]
    ) -> bool:
        """Collect ``node``'s overrides into ``rules`` under dotted keys; False on a problem."""
        pairs = self.pairs(node, _key("rules", prefix))
        if pairs is None:
            return False
        ok = True
        for key_node, value_node in pairs:
            if not (isinstance(key_node, ScalarNode) and key_node.tag == _STR and key_node.value):
                self.fail(
                    key_node,
                    _key("rules", prefix),
                    f"rule names must be text, got {_shown(key_node)}",
                )
                ok = False
                continue
            name = _key(prefix, key_node.value)
            path = _key("rules", name)
            self.mark(key_node, path)
            if isinstance(value_node, MappingNode):
                if id(value_node) in seen:
                    self.fail(value_node, path, "a rule section cannot contain itself")
                    ok = False
                elif not self.rule_entries(value_node, name, rules, (*seen, id(value_node))):
                    ok = False
                continue
            if name in rules:
                self.fail(key_node, path, f"rule {name!r} is given twice")
                ok = False
                continue
            value = self.rule_value(value_node, path)
            if value is None:
                ok = False
            else:
                rules[name] = value
        return ok

    def rule_value(self, node: Node, path: str) -> RuleValue | None:
        if isinstance(node, SequenceNode):
            items = [self.rule_scalar(item, _index(path, i)) for i, item in enumerate(node.value)]
            if any(item is None for item in items):
                return None
            return tuple(item for item in items if item is not None)
        return self.rule_scalar(node, path)

    def rule_scalar(self, node: Node, path: str) -> RuleScalar | None:
        if isinstance(node, ScalarNode):
            value: RuleScalar | None = None
            if node.tag == _INT:
                value = _int_of(node)
            elif node.tag == _FLOAT:
                value = _decimal_of(node)
            elif node.tag == _BOOL:
                value = _BOOLS.get(node.value.lower())
            elif node.tag == _STR:
                value = str(node.value)
            if value is not None:
                return value
        self.fail(
            node,
            path,
            f"must be a number, true/false, text or a list of those, got {_shown(node)}",
        )
        return None

    def shoe(self, node: Node) -> ShoeSpec | None:
        if isinstance(node, SequenceNode):
            cards = self.shoe_cards(node, "shoe")
            return None if cards is None else ScriptedShoe(cards)
        if isinstance(node, MappingNode):
            keys = self.mapping(node, "shoe", (), ("seed", "cards", "cut"))
            if keys is None:
                return None
            if ("seed" in keys) == ("cards" in keys):
                self.fail(
                    node,
                    "shoe",
                    "give either seed or cards (not both, not neither)",
                    ("seed", "cards", "cut"),
                )
                return None
            cut = None
            if "cut" in keys:
                cut = self.integer(
                    keys["cut"], "shoe.cut", "a whole number of cards, 1 or more", lambda n: n >= 1
                )
                if cut is None:
                    return None
            if "seed" in keys:
                seed = self.integer(keys["seed"], "shoe.seed", "a whole number", lambda _: True)
                return None if seed is None else SeededShoe(seed, cut)
            cards_node = keys["cards"]
            if not isinstance(cards_node, SequenceNode):
                self.fail(
                    cards_node,
                    "shoe.cards",
                    f"must be a list of cards like [2C, AS, KH], got {_shown(cards_node)}",
                )
                return None
            cards = self.shoe_cards(cards_node, "shoe.cards")
            if cards is None:
                return None
            if cut is not None and cut > len(cards):
                self.fail(
                    keys["cut"],
                    "shoe.cut",
                    f"the cut card must come within the {len(cards)} scripted cards",
                )
                return None
            return ScriptedShoe(cards, cut)
        self.fail(
            node,
            "shoe",
            "must be a list of cards like [2C, AS, KH], {seed: 7} or {cards: [...], cut: 20}, "
            f"got {_shown(node)}",
        )
        return None

    def shoe_cards(self, node: SequenceNode, path: str) -> tuple[Card, ...] | None:
        if not node.value:
            self.fail(node, path, "a scripted shoe must hold at least one card")
            return None
        cards: list[Card] = []
        for i, card_node in enumerate(node.value):
            self.mark(card_node, _index(path, i))
            card = self.card(card_node, _index(path, i))
            if card is not None:
                cards.append(card)
        return tuple(cards) if len(cards) == len(node.value) else None

    def card(self, node: Node, path: str) -> Card | None:
        if not (isinstance(node, ScalarNode) and node.tag == _STR):
            self.fail(
                node, path, f"a card must be written as text like 'AS' or 'TH', got {_shown(node)}"
            )
            return None
        try:
            return Card.parse(node.value)
        except CardNotationError as exc:
            self.fail(node, path, str(exc))
            return None

    def rounds(self, node: Node) -> tuple[RoundScript, ...] | None:
        items = self.sequence(node, "rounds", "rounds, each with bets and actions")
        if items is None:
            return None
        if not items:
            self.fail(node, "rounds", "a scenario needs at least one round")
            return None
        rounds = [self.round(item, _index("rounds", i)) for i, item in enumerate(items)]
        if any(r is None for r in rounds):
            return None
        return tuple(r for r in rounds if r is not None)

    def round(self, node: Node, path: str) -> RoundScript | None:
        keys = self.mapping(node, path, ("bets",), ("actions",), what="a round")
        if keys is None:
            return None
        bets = self.bets(keys["bets"], _key(path, "bets")) if "bets" in keys else None
        actions: tuple[ScriptAction, ...] | None = ()
        if "actions" in keys:
            actions = self.actions(keys["actions"], _key(path, "actions"), bets)
        if bets is None or actions is None:
            return None
        return RoundScript(bets, actions)

    def bets(self, node: Node, path: str) -> tuple[ScriptBet, ...] | None:
        items = self.sequence(node, path, "bets like {box: 1, player: ann, amount: 10}")
        if items is None:
            return None
        if not items:
            self.fail(node, path, "a round needs at least one bet")
            return None
        bets: list[ScriptBet] = []
        seen: set[tuple[int, str]] = set()
        ok = True
        for i, item in enumerate(items):
            item_path = _index(path, i)
            keys = self.mapping(item, item_path, ("box", "player", "amount"), what="a bet")
            if keys is None:
                ok = False
                continue
            box = self.box(keys["box"], _key(item_path, "box")) if "box" in keys else None
            player = (
                self.name(keys["player"], _key(item_path, "player")) if "player" in keys else None
            )
            amount = (
                self.amount(keys["amount"], _key(item_path, "amount")) if "amount" in keys else None
            )
            if box is None or player is None or amount is None:
                ok = False
                continue
            if (box, player) in seen:
                self.fail(
                    item,
                    item_path,
                    f"player {player!r} already has a bet on box {box} in this round",
                )
                ok = False
                continue
            seen.add((box, player))
            bets.append(ScriptBet(box, player, amount))
        return tuple(bets) if ok else None

    def actions(
        self, node: Node, path: str, bets: tuple[ScriptBet, ...] | None
    ) -> tuple[ScriptAction, ...] | None:
        items = self.sequence(node, path, "actions like {hit: {box: 1}}")
        if items is None:
            return None
        actions = [self.action(item, _index(path, i), bets) for i, item in enumerate(items)]
        if any(a is None for a in actions):
            return None
        return tuple(a for a in actions if a is not None)

    def action(
        self, node: Node, path: str, bets: tuple[ScriptBet, ...] | None
    ) -> ScriptAction | None:
        kinds = tuple(ACTION_TYPES)
        if isinstance(node, ScalarNode) and node.tag == _STR and node.value in ACTION_TYPES:
            self.fail(
                node,
                path,
                f"write the action with its box, like `{node.value}: {{box: 1}}`, "
                f"got {_shown(node)}",
            )
            return None
        if not isinstance(node, MappingNode) or len(node.value) != 1:
            got = f"{len(node.value)} keys" if isinstance(node, MappingNode) else _shown(node)
            self.fail(
                node,
                path,
                "an action must be a mapping with one key, the action name, "
                f"like `hit: {{box: 1}}`; got {got}",
                kinds,
            )
            return None
        key_node, body = node.value[0]
        if not (isinstance(key_node, ScalarNode) and key_node.tag == _STR):
            self.fail(
                key_node, path, f"the action name must be text, got {_shown(key_node)}", kinds
            )
            return None
        kind = key_node.value
        cls = ACTION_TYPES.get(kind)
        if cls is None:
            self.fail(
                key_node,
                _key(path, kind),
                f"unknown action {kind!r}{_did_you_mean(kind, kinds)}",
                kinds,
            )
            return None
        path = _key(path, kind)
        keys = self.mapping(body, path, cls.required, cls.optional, what=f"the {kind} details")
        if keys is None or any(k not in keys for k in cls.required):
            return None
        values: dict[str, Any] = {}
        for key, value_node in keys.items():
            value = self.action_field(key, value_node, _key(path, key))
            if value is None:
                return None
            values["amount_cents" if key == "amount" else key] = value
        if cls is ScriptInsurance and "player" not in values:
            player = self.only_player(body, keys, path, values["box"], bets)
            if player is None:
                return None
            values |= {"player": player, "player_written": False}
        action = cls(**values, line=key_node.start_mark.line + 1)
        if bets is not None:
            self.cross_check(action, keys, path, bets)
        return action

    def action_field(self, key: str, node: Node, path: str) -> object | None:
        if key == "box":
            return self.box(node, path)
        if key == "player":
            return self.name(node, path)
        if key == "amount":
            return self.amount(node, path)
        if key == "players":
            return self.player_list(node, path)
        if key == "decision":
            return self.choice(node, path, "supervisor decision", SUPERVISOR_DECISIONS)
        if key == "device":
            return self.choice(node, path, "device", DEVICES)
        if key == "answer":
            return self.choice(node, path, "reader answer", READER_ANSWERS)
        if key == "card":
            card = self.card(node, path)
            return None if card is None else str(card)
        raise AssertionError(f"no parser for action field {key!r}")  # pragma: no cover

    def choice(self, node: Node, path: str, what: str, allowed: tuple[str, ...]) -> str | None:
        if isinstance(node, ScalarNode) and node.tag == _STR and node.value in allowed:
            return str(node.value)
        got = node.value if isinstance(node, ScalarNode) else _shown(node)
        self.fail(node, path, f"unknown {what} {got!r}{_did_you_mean(str(got), allowed)}", allowed)
        return None

    def player_list(self, node: Node, path: str) -> tuple[str, ...] | None:
        items = self.sequence(node, path, "player names")
        if items is None:
            return None
        if not items:
            self.fail(
                node, path, "must name at least one player (leave it out for everyone on the box)"
            )
            return None
        names = [self.name(item, _index(path, i)) for i, item in enumerate(items)]
        if any(n is None for n in names):
            return None
        result = tuple(n for n in names if n is not None)
        for i, name in enumerate(result):
            if name in result[:i]:
                self.fail(items[i], _index(path, i), f"player {name!r} is named twice")
                return None
        return result

    def only_player(
        self,
        body: Node,
        keys: dict[str, Node],
        path: str,
        box: int,
        bets: tuple[ScriptBet, ...] | None,
    ) -> str | None:
        """The player an action that names none is for: the box's only player. A box with
        several players is a problem naming the box and its players."""
        if bets is None or not self.box_has_bets(keys, path, box, bets):
            return None
        on_box = [b.player for b in bets if b.box == box]
        if len(on_box) == 1:
            return on_box[0]
        self.fail(
            body,
            _key(path, "player"),
            f"box {box} has {len(on_box)} players ({', '.join(on_box)}): say which one this is "
            f"for, like `player: {on_box[0]}`",
            on_box,
        )
        return None

    def box_has_bets(
        self, keys: dict[str, Node], path: str, box: int, bets: tuple[ScriptBet, ...]
    ) -> bool:
        boxes = sorted({b.box for b in bets})
        if box in boxes:
            return True
        self.fail(
            keys["box"],
            _key(path, "box"),
            f"box {box} has no bet in this round",
            [str(b) for b in boxes],
        )
        return False

    def cross_check(
        self, action: ScriptAction, keys: dict[str, Node], path: str, bets: tuple[ScriptBet, ...]
    ) -> None:
        """The box must have a bet this round and named players must have bet on it."""
        if action.box is None or not self.box_has_bets(keys, path, action.box, bets):
            return
        on_box = [b.player for b in bets if b.box == action.box]
        for key, name_node, name in self._named_players(action, keys):
            if name not in on_box:
                self.fail(
                    name_node,
                    _key(path, key),
                    f"player {name!r} has no bet on box {action.box} in this round"
                    f"{_did_you_mean(name, on_box)}",
                    on_box,
                )

    @staticmethod
    def _named_players(
        action: ScriptAction, keys: dict[str, Node]
    ) -> Iterator[tuple[str, Node, str]]:
        player = getattr(action, "player", None)
        if isinstance(player, str) and "player" in keys:  # a defaulted player is on the box
            yield "player", keys["player"], player
        players = getattr(action, "players", None)
        if isinstance(players, tuple):
            players_node = keys["players"]
            assert isinstance(players_node, SequenceNode)
            for i, name in enumerate(players):
                yield f"players[{i}]", players_node.value[i], name


def _int_of(node: Node) -> int | None:
    """A YAML integer written in plain decimal digits, else None."""
    if (
        isinstance(node, ScalarNode)
        and node.tag == _INT
        and len(node.value) <= _MAX_DIGITS
        and _PLAIN_INT.fullmatch(node.value)
    ):
        return int(node.value)
    return None


def _decimal_of(node: Node) -> Decimal | None:
    """A YAML number written in plain decimal notation, exactly, else None."""
    if (
        isinstance(node, ScalarNode)
        and node.tag in (_INT, _FLOAT)
        and len(node.value) <= _MAX_DIGITS
        and _PLAIN_NUMBER.fullmatch(node.value)
    ):
        return Decimal(node.value.replace("_", ""))
    return None


def _exact_cents(units: Decimal) -> int | None:
    """``units`` in cents if it has at most 2 decimals, exactly (no context rounding)."""
    if not units.is_finite():
        return None
    sign, digits, exponent = units.as_tuple()
    assert isinstance(exponent, int)
    magnitude = int("".join(map(str, digits)) or "0")
    shift = exponent + 2
    if shift >= 0:
        cents: int = magnitude * 10**shift
    else:
        scale: int = 10 ** (-shift)
        if magnitude % scale:
            return None
        cents = magnitude // scale
    return -cents if sign else cents
