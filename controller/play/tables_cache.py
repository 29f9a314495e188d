"""The simulator's tables kept between runs: ``croupier simulate`` starts where the last left off.

The kernel's :class:`~controller.play.hand_graph.HandGraph` is filled as rounds need it: a
20,000-round run spends about a third of its CPU time asking the rules, the settlement and the
strategy what its hands are (issue 26). The command keeps the filled graph in
``$XDG_CACHE_HOME/croupier/simulate`` (else ``~/.cache/croupier/simulate``; the folders 0700,
the file 0600, never through a symbolic link: :mod:`controller.table.private`), one file per
key: the SHA-256 of the rules as validated (every setting, overrides included), the strategy
file's bytes, the wager, and the source of every module whose code the graph's answers come
from (the game, the round model, the play package, the card codes). A change to any of them
makes another key; a file that is not a plain file of this user, readable by others, or that
does not load as a graph of the same format is not used (the run builds its tables as before).

The results do not depend on how full the graph is when a run starts (every answer it keeps is
what the rule functions say of the node's hands, held by ``tests/simulate/test_hand_graph.py``):
``tests/simulate/test_tables_cache.py`` shows a run from the kept graph gives the same report.
The file is a pickle, read only from this user's own private file.

Beside the graphs, :func:`kept_rules` keeps the variant's rules as validated, a plain copy
(:class:`~controller.game.rule_enums.PlainVariant`, ``rules-KEY.pickle``) under the SHA-256 of
the variant file's bytes and path, the overrides, the installed pydantic's version file and the
same code digest: a run of the same
rules imports no pydantic (about a fifth of a 20,000-round run's CPU time, issue 26), and a
changed file is validated again before anything else reads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from controller.game.rule_enums import PlainSection, PlainVariant, resolve_variant_path
from controller.table.private import (
    PrivateFileError,
    check_private,
    make_folders,
    open_private,
    write_private,
)

if TYPE_CHECKING:
    from controller.game.rules import Variant
    from controller.play.hand_graph import HandGraph
    from controller.play.strategy import Strategy

__all__ = [
    "FORMAT",
    "cache_dir",
    "filled",
    "kept_rules",
    "load_graph",
    "save_graph",
    "tables_key",
]

FORMAT = 1  # the graph's pickled layout; a new layout makes new keys
_WHAT = "the simulator's tables file"
_RULES_WHAT = "the simulator's kept rules file"
# The packages and modules whose code decides what the graph keeps (the key covers their source).
_SOURCES = ("controller/game", "controller/round", "controller/play", "drivers/tbl21")
_ROOT = Path(__file__).resolve().parent.parent.parent


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "croupier" / "simulate"


def _code_digest() -> bytes:
    digest = hashlib.sha256()
    for folder in _SOURCES:
        for path in sorted((_ROOT / folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def _settings(value: object) -> object:
    """The rules' settings as JSON (a validated model's or its plain copy's the same)."""
    if isinstance(value, PlainSection) or hasattr(type(value), "model_fields"):
        return {name: _settings(item) for name, item in vars(value).items()}
    if isinstance(value, tuple):
        return [_settings(item) for item in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)  # the enums' values, the odds' fractions


def tables_key(rules: Variant, strategy: Strategy, wager_cents: int) -> str:
    payload = {
        "format": FORMAT,
        "rules": _settings(rules),
        "strategy": hashlib.sha256(Path(strategy.path).read_bytes()).hexdigest(),
        "wager_cents": wager_cents,
        "code": _code_digest().hex(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _path(rules: Variant, key: str, folder: Path) -> Path:
    return folder / f"{rules.id}-{key[:32]}.pickle"


def _private_folder(folder: Path) -> bool:
    """Is ``folder`` this user's and closed to others (else nothing in it is read)?"""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & 0o077 and folder.is_dir()


def load_graph(
    rules: Variant, strategy: Strategy, wager_cents: int, key: str, folder: Path
) -> HandGraph | None:
    """The graph kept under ``key``, given these rules and strategy; None where there is none
    to use."""
    from controller.play.hand_graph import HandGraph  # noqa: PLC0415 - (a cycle otherwise)

    path = _path(rules, key, folder)
    if not _private_folder(folder):
        return None
    try:
        if not check_private(path, _WHAT, tighten=False):
            return None
        fd = open_private(path, os.O_RDONLY, _WHAT)
        with os.fdopen(fd, "rb") as file:
            state = pickle.load(file)  # noqa: S301 - this user's own 0600 file, checked above
    except (OSError, PrivateFileError, pickle.UnpicklingError, EOFError, ValueError):
        return None
    except Exception:
        return None
    if not isinstance(state, dict) or state.get("key") != key:
        return None
    graph = HandGraph.__new__(HandGraph)
    try:
        graph.__dict__.update(state["graph"])
    except (KeyError, TypeError, AttributeError):
        return None
    graph.rules, graph.strategy, graph.wager_cents = rules, strategy, wager_cents
    return graph


def filled(graph: HandGraph) -> tuple[int, ...]:
    """How much of ``graph`` is filled (it only grows): a run that changed this has more to
    keep."""
    g = graph
    sizes = [len(t) for t in (g.cards, g.settle, g._tally, g.rescues, g._against_natural)]
    sizes += [len(t) for t in (g._splits, g._signatures, g._dealer_ranks)]
    unset = [
        t.count(-1)
        for t in (g.step, g.decisions, g.surrenders, g.signature, g.doubled, g.dealer_rank)
    ]
    unset += [t.count(-1) for t in (g.tally_bits, g.dealer_category)]
    return (*sizes, g._decided, *unset)


def save_graph(graph: HandGraph, key: str, folder: Path) -> None:
    """Keep ``graph`` under ``key`` (a file that cannot be written is left as it is: the next
    run builds its tables again)."""
    state = {k: v for k, v in vars(graph).items() if k not in ("rules", "strategy")}
    data = pickle.dumps({"key": key, "graph": state}, protocol=pickle.HIGHEST_PROTOCOL)
    with contextlib.suppress(OSError):
        make_folders(folder)
        if _private_folder(folder):
            write_private(_path(graph.rules, key, folder), data, _WHAT)


def _validator() -> str:
    """The SHA-256 of the installed pydantic's ``version.py`` (found, not imported: a kept run
    imports no pydantic), so that rules validated by another pydantic are validated again
    (pydantic pins its pydantic-core to one version); empty where it cannot be found."""
    spec = importlib.util.find_spec("pydantic")
    if spec is None or spec.origin is None:
        return ""
    data = _read(Path(spec.origin).with_name("version.py"))
    return "" if data is None else hashlib.sha256(data).hexdigest()


def _rules_key(path: Path, data: bytes, overrides: Mapping[str, Any]) -> str:
    payload = {
        "format": FORMAT,
        "validator": _validator(),
        "path": str(path.absolute()),
        "file": hashlib.sha256(data).hexdigest(),
        "overrides": json.dumps(dict(overrides), sort_keys=True, default=repr),
        "code": _code_digest().hex(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (OSError, ValueError):
        return None


def _kept(path: Path, key: str, folder: Path) -> PlainVariant | None:
    if not _private_folder(folder):
        return None
    try:
        if not check_private(path, _RULES_WHAT, tighten=False):
            return None
        fd = open_private(path, os.O_RDONLY, _RULES_WHAT)
        with os.fdopen(fd, "rb") as file:
            state = pickle.load(file)  # noqa: S301 - this user's own 0600 file, checked above
    except Exception:
        return None
    if not isinstance(state, dict) or state.get("key") != key:
        return None
    rules = state.get("rules")
    return rules if isinstance(rules, PlainVariant) else None


def kept_rules(name_or_path: str, overrides: Mapping[str, Any], folder: Path) -> Variant:
    """The rules of the variant ``name_or_path`` with ``overrides``, validated: kept in
    ``folder`` as a plain copy (:func:`controller.game.rules.plain_rules`) under the SHA-256 of
    the variant file's bytes, its path, the overrides and the code's source, so that a run of
    the same rules imports no pydantic (issue 26). A changed file, other overrides or other
    code make another key, validated anew (:func:`controller.game.rules.load_variant`, whose
    refusals are the same as ever); a file that cannot be read is left to it to say so."""
    path = resolve_variant_path(name_or_path) if name_or_path.strip() else None
    data = _read(path) if path is not None else None
    key = kept = None
    if path is not None and data is not None:
        key = _rules_key(path, data, overrides)
        kept = _kept(folder / f"rules-{key[:32]}.pickle", key, folder)
    if kept is not None:
        return cast("Variant", kept)  # the same settings and views as the validated model
    from controller.game.rules import load_variant, plain_rules  # noqa: PLC0415 - a miss only

    rules = plain_rules(load_variant(name_or_path, dict(overrides) or None))
    if key is not None and path is not None and _read(path) == data:  # (unchanged meanwhile)
        state = pickle.dumps({"key": key, "rules": rules}, protocol=pickle.HIGHEST_PROTOCOL)
        with contextlib.suppress(OSError):
            make_folders(folder)
            if _private_folder(folder):
                write_private(folder / f"rules-{key[:32]}.pickle", state, _RULES_WHAT)
    return cast("Variant", rules)
