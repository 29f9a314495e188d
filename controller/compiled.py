"""Which modules run compiled: a compiled module is loaded only while its source is the one it
was compiled from.

The build (``setup.py``) compiles the modules of :data:`COMPILED` (the simulator's kernel) with
Cython from their unchanged source and lists them in ``compiled-modules.json`` beside this file,
each with the SHA-256 of its source.
Python's own import would prefer the compiled file to the source whatever the source says; this
finder, first on ``sys.meta_path``, decides instead, for those modules only, when one is first
imported:

* the compiled file, when the manifest names it, the file is there and the source's SHA-256 is
  the manifest's;
* the source otherwise: an edited source in a checkout installed with ``pip install -e`` (the
  compiled copy is stale until the next install), a compiled file missing or built for another
  Python, an install that could not compile, or ``CROUPIER_PURE=1`` in the environment (to run
  or measure the reference).

Both run the same program (the compiled module is the source, compiled); ``tests/simulate``
hold the two to the same figures. :func:`status` says what was chosen and why (the last line of
``croupier simulate``'s report).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final

__all__ = ["Choice", "choose", "install", "status"]

# the modules the build compiles (setup.py's COMPILED; a test holds the two equal)
COMPILED: Final = ("controller.play.kernel",)
MANIFEST: Final = "compiled-modules.json"
PURE_ENV: Final = "CROUPIER_PURE"
_ROOT: Final = Path(__file__).resolve().parent  # the controller package


@dataclass(frozen=True)
class Choice:
    """What a module runs as: ``path`` (the compiled file or the source) and why."""

    module: str
    compiled: bool
    path: Path
    reason: str


def _manifest(root: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        name: entry
        for name, entry in data.items()
        if isinstance(entry, dict)
        and isinstance(entry.get("file"), str)
        and isinstance(entry.get("source_sha256"), str)
    }


def _pure() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def choose(
    module: str, entry: dict[str, str] | None, root: Path, *, pure: bool = False
) -> Choice | None:
    """The file ``module`` (``controller.x.y``, listed in the manifest with ``entry``, or not
    listed: None) is loaded from, under the package folder ``root``; None if its source is not
    there either."""
    parts = module.split(".")[1:]
    source = root.joinpath(*parts).with_suffix(".py")
    if not source.is_file():
        return None
    if pure:
        return Choice(module, False, source, f"{PURE_ENV} is set")
    if entry is None:
        return Choice(
            module,
            False,
            source,
            "the install could not compile it (no C compiler or Python headers)",
        )
    name = entry["file"]
    if not name or Path(name).name != name or not source.with_name(name).is_file():
        return Choice(module, False, source, "its compiled file is missing")
    if not name.endswith(str(sysconfig.get_config_var("EXT_SUFFIX"))):  # (the build's name)
        return Choice(module, False, source, "it was compiled for another Python")
    if hashlib.sha256(source.read_bytes()).hexdigest() != entry["source_sha256"]:
        return Choice(
            module, False, source, "its source changed after it was compiled (install again)"
        )
    return Choice(module, True, source.with_name(name), "compiled from this source")


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, root: Path, manifest: dict[str, dict[str, str]] | None, pure: bool) -> None:
        self.root = root
        self._manifest = manifest  # (None: read when a compiled module is first asked for)
        self.pure = pure
        self.chosen: dict[str, Choice] = {}

    @property
    def manifest(self) -> dict[str, dict[str, str]]:
        if self._manifest is None:
            self._manifest = _manifest(self.root)
        return self._manifest

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        entry = self.manifest.get(fullname)
        choice = choose(fullname, entry, self.root, pure=self.pure)
        if choice is None:
            return None
        self.chosen[fullname] = choice
        return importlib.util.spec_from_file_location(fullname, choice.path)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once); the manifest is read only when a
    command imports a compiled module (a table's start never does)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(_ROOT, None, _pure()))


def status() -> list[Choice]:
    """Each module the build compiles: what it runs as (imported now or, if not yet, would)."""
    finder = next((f for f in sys.meta_path if isinstance(f, _Finder)), None)
    manifest = finder.manifest if finder is not None else _manifest(_ROOT)
    out = []
    for name in COMPILED:
        choice = finder.chosen.get(name) if finder is not None else None
        if choice is None:
            choice = choose(name, manifest.get(name), _ROOT, pure=_pure())
        if choice is not None:
            out.append(choice)
    return out
