"""The software's identity: what is running, file by file, and whether it is what was installed.

A wheel's installer records every file it installs with its SHA-256 (the ``RECORD`` of the
package's ``.dist-info``, read through :mod:`importlib.metadata`). :func:`software` hashes each
of those files on disk again and names every one that differs from its record or is missing:
``croupier verify`` prints that, and a start whose files do not match refuses to deal
(:class:`SoftwareChanged`, shown to the supervisor and technician like a broken journal).

A source (editable) install has no record of its files: it is hashed from disk (every file of
the ``controller``, ``drivers`` and ``sim_hardware`` folders but Python's ``__pycache__``), and
said to be unrecorded. Nothing can be checked against it, so it is a developer's or a bench's,
never a table's: ``croupier verify`` exits 3 and says so, a start deals and journals
``"recorded": false``.

The seeded check a lab runs (``croupier verify --seed HEX``, :func:`seeded`) is an
HMAC-SHA-256 keyed by the seed's bytes over this canonical byte string, built from the same
files: for each file, in the order of the UTF-8 bytes of its path, the path as the record
writes it (relative to the folder holding the ``.dist-info``, ``/``-separated; a script
outside it starts with ``../``) in UTF-8, one zero byte, the file's length as 8 bytes
big-endian, and the file's bytes. Files are hashed as they are on disk, so a lab tool that reads
the ``RECORD`` and the files itself computes the same value (``docs/lab.md``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import controller
from controller.table.errors import TableError

DISTRIBUTION = "croupier"
PACKAGES = ("controller", "drivers", "sim_hardware")
# the config row's values a start compares with the last start's (a change is told and alerted)
WATCHED = ("software", "software_sha256", "variant_sha256", "strategy_sha256", "table_sha256")
# What each watched fingerprint is of, in the dealer's words: the dealer's notice of a change
# (controller.service) and the floor's alert (controller.floor.live) say it alike.
CHANGE_WORDS = {
    "software": "the software",
    "software_sha256": "the software",
    "variant_sha256": "the game's rules file",
    "strategy_sha256": "the strategy file",
    "table_sha256": "the table file",
}
assert set(CHANGE_WORDS) == set(WATCHED)
SOURCE_ROOT = Path(controller.__file__).resolve().parent.parent
STRATEGIES = Path(controller.__file__).resolve().parent / "defaults" / "strategies"


class SoftwareChanged(TableError):
    """The installed files are not those the package's record lists: the start deals nothing."""

    def __init__(self, identity: Software) -> None:
        self.identity = identity
        super().__init__(
            f"the software's files are not as installed: {identity.changed_words()}; "
            "nothing is dealt until the approved software is installed again"
        )


@dataclass(frozen=True, slots=True)
class InstalledFile:
    """One file of the package: its path as recorded, where it is, its SHA-256 (hex) on disk
    ("" when it cannot be read) and the SHA-256 its record gives (None: not recorded)."""

    path: str
    location: Path
    sha256: str
    recorded: str | None

    @property
    def problem(self) -> str | None:
        """What is wrong with it, in words, or None."""
        if self.recorded is None:
            return None
        if not self.sha256:
            return "missing"
        if self.sha256 != self.recorded:
            return "changed"
        return None


@dataclass(frozen=True, slots=True)
class Software:
    """What is running: the version, each file's hash, whether a record vouches for them."""

    version: str
    recorded: bool  # a wheel's record lists the files (False: a source install)
    root: Path  # the folder the paths are relative to
    files: tuple[InstalledFile, ...] = field(default_factory=tuple)

    @property
    def changed(self) -> list[InstalledFile]:
        return [f for f in self.files if f.problem is not None]

    def changed_words(self) -> str:
        return ", ".join(f"{f.path} ({f.problem})" for f in self.changed) or "none"

    @property
    def sha256(self) -> str:
        """One hash for the whole software: SHA-256 of the sorted ``<sha256>  <path>`` lines."""
        lines = "".join(f"{f.sha256}  {f.path}\n" for f in _ordered(self.files))
        return hashlib.sha256(lines.encode()).hexdigest()

    def as_row(self) -> dict[str, Any]:
        """The journal's ``software`` row: the version, the install's kind and every file."""
        return {
            "version": self.version,
            "recorded": self.recorded,
            "software_sha256": self.sha256,
            "files": {f.path: f.sha256 for f in _ordered(self.files)},
            "changed": [f.path for f in self.changed],
        }

    def summary(self) -> str:
        """One line for a person: the version, how many files, checked or not."""
        kind = (
            f"{len(self.files)} files checked against the wheel's record"
            if self.recorded
            else f"a source install: {len(self.files)} files hashed, no record to check them "
            "against (not for a live table)"
        )
        return f"croupier {self.version}, {kind}; software hash {self.sha256[:16]}"


def _ordered(files: Iterable[InstalledFile]) -> list[InstalledFile]:
    return sorted(files, key=lambda f: f.path.encode())


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (hex), or "" when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()


def _record_hash(value: str) -> str | None:
    """A RECORD's SHA-256 (urlsafe base64 without padding, after ``sha256=``) as hex."""
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
    except ValueError:
        return None


def installed() -> metadata.Distribution | None:
    """This installation of croupier (its ``.dist-info``), or None when it is not installed."""
    try:
        return metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def software(distribution: metadata.Distribution | None = None) -> Software:
    """The software as it is on disk now: a wheel's files against its record, or a source
    install's files hashed from disk (``distribution``: this installation's, by default)."""
    dist = distribution if distribution is not None else installed()
    recorded: list[InstalledFile] = []
    root = SOURCE_ROOT
    if dist is not None:
        root = Path(str(dist.locate_file(""))).resolve()
        for entry in dist.files or []:
            if entry.hash is None or entry.hash.mode != "sha256":
                continue  # the RECORD itself
            expected = _record_hash(entry.hash.value) or "not a SHA-256"  # never matches
            location = Path(str(dist.locate_file(entry)))
            recorded.append(InstalledFile(str(entry), location, file_sha256(location), expected))
    ours = [f for f in recorded if f.path.split("/", 1)[0] in PACKAGES]
    version = dist.version if dist is not None else controller.__version__
    if ours:
        return Software(version, True, root, tuple(recorded))
    found = tuple(
        InstalledFile(path, location, file_sha256(location), None)
        for path, location in _source_files(SOURCE_ROOT)
    )
    return Software(controller.__version__, False, SOURCE_ROOT, found)


def _source_files(root: Path) -> Iterator[tuple[str, Path]]:
    """A source tree's files of the packages (links followed), without ``__pycache__``."""
    for package in PACKAGES:
        for folder, dirs, names in os.walk(root / package, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(names):
                if name.endswith((".pyc", ".pyo")):
                    continue
                location = Path(folder) / name
                yield location.relative_to(root).as_posix(), location


def canonical(files: Iterable[InstalledFile]) -> Iterator[bytes]:
    """The canonical byte string the seeded hash covers, in pieces (the module's docstring)."""
    for f in _ordered(files):
        data = f.location.read_bytes() if f.sha256 else b""
        yield f.path.encode() + b"\0" + len(data).to_bytes(8, "big")
        yield data


def seeded(identity: Software, seed: bytes) -> str:
    """HMAC-SHA-256 of the installed files keyed by ``seed`` (hex)."""
    mac = hmac.new(seed, digestmod=hashlib.sha256)
    for piece in canonical(identity.files):
        mac.update(piece)
    return mac.hexdigest()


def rules_files(variant_path: Path, variant_id: str, table_path: Path) -> dict[str, str]:
    """The SHA-256 of the files that set the rules of play: the variant file, its strategy (the
    demo players' and the analysis's) and the table file."""
    strategy = STRATEGIES / f"{variant_id}.toml"
    return {
        "variant_sha256": file_sha256(variant_path),
        "strategy_sha256": file_sha256(strategy) if strategy.is_file() else "",
        "table_sha256": file_sha256(table_path),
    }


def check(identity: Software) -> Software:
    """``identity``, or :class:`SoftwareChanged` when a recorded file differs from its record."""
    if identity.changed:
        raise SoftwareChanged(identity)
    return identity


_last: list[tuple[tuple[tuple[str, int, int], ...], Software]] = []


def at_start() -> Software:
    """The software as a start checks it: hashed again whenever a file's size or time changed
    since the last look in this process (a process starting many tables hashes once)."""
    if _last:
        stamp, known = _last[0]
        if _stamp(f.location for f in known.files) == stamp:
            return known
    found = software()
    _last[:] = [(_stamp(f.location for f in found.files), found)]
    return found


def _stamp(locations: Iterable[Path]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for location in locations:
        try:
            st = location.stat()
        except OSError:
            out.append((str(location), -1, -1))
            continue
        out.append((str(location), st.st_size, st.st_mtime_ns))
    return tuple(out)
