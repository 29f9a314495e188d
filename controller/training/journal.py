"""The training journal: every attempt of every trainee, in a SQLite file of its own (0600).

It is never a table's live journal: the file says what it is (a ``training`` row in its
``about`` table), a file without it (a live journal, anything else) is refused before anything
is written, and a training table's file may not name its live journal's file
(:mod:`controller.table.config`). A live journal is likewise never given an attempt: the live
journal's code never sees this module.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from controller.table.private import (
    PrivateFileError,
    check_private,
    make_folders,
    open_private,
)
from controller.training.errors import TrainingError

KIND = "croupier-training"
FORMAT = 1
SIDE_FILES = ("-wal", "-shm", "-journal")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT NOT NULL,
    trainee TEXT NOT NULL,
    course TEXT NOT NULL,
    variant TEXT NOT NULL,
    kind TEXT NOT NULL,
    seed INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    answer_value INTEGER,
    correct_answer INTEGER NOT NULL,
    form TEXT NOT NULL,
    seconds REAL NOT NULL,
    time_limit_s INTEGER NOT NULL,
    pass_percent INTEGER NOT NULL,
    course_pass_percent INTEGER NOT NULL,
    correct INTEGER NOT NULL,
    in_time INTEGER NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_trainee ON attempts (trainee, n);
"""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One answer: the question (its words, as JSON), what was typed and what it was read as,
    croupier's answer, the time it took and whether it passed."""

    session: str
    trainee: str
    course: str
    variant: str
    kind: str
    seed: int
    question: str
    answer: str
    answer_value: int | None
    correct_answer: int
    form: str
    seconds: float
    time_limit_s: int
    pass_percent: int  # the drill's mark
    course_pass_percent: int  # the course's mark
    correct: bool
    in_time: bool
    at: str

    @property
    def passed(self) -> bool:
        return self.correct and self.in_time


# The columns are the attempt's own fields (never anything typed).
_COLUMNS = tuple(Attempt.__dataclass_fields__)
_INSERT = (
    f"INSERT INTO attempts ({', '.join(_COLUMNS)}) "  # noqa: S608
    f"VALUES ({', '.join('?' for _ in _COLUMNS)})"
)
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM attempts"  # noqa: S608


class TrainingJournal:
    """The attempts, appended; read back by trainee. ``with TrainingJournal(path) as j: ...``"""

    def __init__(self, path: Path) -> None:
        self.path = path
        _make_private(path)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._claim()
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                self._db.close()
            raise TrainingError(
                f"{path}: not a training journal ({exc}): name another file for the training "
                "journal"
            ) from None

    def _claim(self) -> None:
        """Make a new file a training journal; refuse a file that is something else."""
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        if tables and "about" not in tables:
            self._db.close()
            raise TrainingError(
                f"{self.path}: this file is not a training journal (a table's live journal, "
                "or another program's file): training never writes there; name a file of its "
                "own ([training] journal, or --journal)"
            )
        self._db.executescript(_SCHEMA)
        about = dict(self._db.execute("SELECT key, value FROM about").fetchall())
        if not about:
            self._db.execute(
                "INSERT INTO about VALUES ('kind', ?), ('format', ?)", (KIND, str(FORMAT))
            )
        elif about.get("kind") != KIND:
            self._db.close()
            raise TrainingError(f"{self.path}: this file is not a training journal")
        elif about.get("format") != str(FORMAT):
            self._db.close()
            raise TrainingError(
                f"{self.path}: a training journal of format {about.get('format')}, and this "
                f"croupier reads format {FORMAT}: use the croupier that wrote it"
            )

    def record(self, attempt: Attempt) -> None:
        self._db.execute(_INSERT, tuple(asdict(attempt).values()))

    def attempts(self, trainee: str | None = None) -> list[Attempt]:
        """Every attempt in order (of one trainee, when named)."""
        query = _SELECT
        args: tuple[str, ...] = ()
        if trainee is not None:
            query += " WHERE trainee = ?"
            args = (trainee,)
        rows = self._db.execute(query + " ORDER BY n", args).fetchall()
        return [_attempt(row) for row in rows]

    def trainees(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT DISTINCT trainee FROM attempts ORDER BY 1")]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TrainingJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _attempt(row: tuple[object, ...]) -> Attempt:
    values = dict(zip(Attempt.__dataclass_fields__, row, strict=True))
    values["correct"] = bool(values["correct"])
    values["in_time"] = bool(values["in_time"])
    return Attempt(**values)  # type: ignore[arg-type]


def question_record(table: str, ask: str, choices: tuple[str, ...]) -> str:
    """A question as the journal keeps it (JSON of its words)."""
    return json.dumps({"table": table, "ask": ask, "choices": list(choices)}, ensure_ascii=False)


def _make_private(path: Path) -> None:
    """Folders 0700, the file and SQLite's side files plain files of ours, a new file 0600
    (before SQLite makes it, so that its -wal and -shm are 0600 too)."""
    try:
        make_folders(path.parent if str(path.parent) else Path())
        for suffix in SIDE_FILES:
            check_private(path.with_name(path.name + suffix), "the training journal's file")
        if not check_private(path, "the training journal"):
            with contextlib.suppress(FileExistsError):
                os.close(open_private(path, os.O_RDWR, "the training journal", new=True))
    except PrivateFileError as exc:
        raise TrainingError(f"{path}: {exc}") from None


def each_trainee(journal: TrainingJournal) -> Iterator[tuple[str, list[Attempt]]]:
    for trainee in journal.trainees():
        yield trainee, journal.attempts(trainee)
