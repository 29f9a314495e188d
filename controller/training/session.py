"""A training session: a course's questions asked of a trainee, each answer timed, checked
against croupier's and recorded in the training journal.

The trainee is whatever answers (:class:`Trainee`): the terminal (``croupier train``), a test's
scripted trainee, the display's keypad. The clock is injected (``time.monotonic`` by default), so
a test says how long each answer took. An answer that is not of the question's form is not an
attempt: the trainee is told what to type and asked again, the clock running on.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from controller.game.words import key_refused, procedure_unfinished
from controller.training.course import Course
from controller.training.drills import (
    AnswerForm,
    Question,
    handle_keys,
    is_correct,
    make_questions,
    parse_answer,
)
from controller.training.journal import Attempt, TrainingJournal, question_record
from controller.training.procedure import ProcedureResult

Clock = Callable[[], float]
SEED_SPAN = 2**31
DRILL_SEEDS = 100_000  # each drill of a course draws its seeds from its own span


@dataclass(frozen=True, slots=True)
class Asked:
    """A question as it is put to the trainee: which of how many, and the time allowed."""

    question: Question
    number: int
    of: int
    time_limit_s: int


class Trainee(Protocol):
    def answer(self, asked: Asked) -> str:
        """The trainee's typed answer."""

    def unreadable(self, asked: Asked) -> None:
        """The answer was not of the question's form: say what to type."""

    def result(self, asked: Asked, attempt: Attempt, told: str) -> None:
        """How the answer went, and croupier's answer and words (``told``: shown after)."""


def new_seed() -> int:
    return secrets.randbelow(SEED_SPAN)


def plan(course: Course, seed: int) -> list[Asked]:
    """The course's questions, in its order: drill by drill, each from its own seeds."""
    asked: list[Asked] = []
    for n, drill in enumerate(course.drills):
        for k in range(drill.count):
            made = make_questions(course.rules, drill.kind, seed + n * DRILL_SEEDS + k)
            asked += [Asked(question, 0, 0, drill.time_limit_s) for question in made]
    return [Asked(a.question, i, len(asked), a.time_limit_s) for i, a in enumerate(asked, 1)]


class Session:
    """A course being answered, one question at a time: :meth:`current` is the question asked
    (its clock started when it was first shown), :meth:`answer` checks and records a typed
    answer (None: not of the question's form, asked again, the clock running on). Safe to call
    from several threads (the display's server)."""

    def __init__(
        self,
        course: Course,
        journal: TrainingJournal,
        *,
        trainee_id: str,
        seed: int | None = None,
        clock: Clock = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.course = course
        self.journal = journal
        self.trainee_id = trainee_id
        self.seed = new_seed() if seed is None else seed
        self.clock = clock
        self.now = now
        self.id = f"{now().strftime('%Y%m%dT%H%M%SZ')}-{self.seed}"
        self.asked = plan(course, self.seed)
        self.done: list[Attempt] = []
        self._marks = {d.kind: d.pass_percent for d in course.drills}
        self._started: float | None = None
        self._lock = threading.Lock()
        self.handled: ProcedureResult | None = None  # the last procedure's keys, on the table

    @property
    def finished(self) -> bool:
        return len(self.done) >= len(self.asked)

    def current(self) -> Asked | None:
        """The question to answer now (None: the course is over); its clock starts now if it
        has not."""
        with self._lock:
            if self.finished:
                return None
            if self._started is None:
                self._started = self.clock()
            return self.asked[len(self.done)]

    def told(self, q: Question) -> str:
        """What croupier said (shown after an answer); for a procedure on the panel: each key
        the table refused and why, then the correct keys."""
        handled = self.handled
        if q.form is not AnswerForm.KEYS or handled is None:
            return q.told
        lines = [
            key_refused(k.key, k.refusal) for s in handled.stops for k in s.keys if not k.accepted
        ]
        if not handled.reached:
            lines.append(procedure_unfinished(handled.why_not))
        return "\n".join([*lines, q.told])

    def answer(self, typed: str) -> Attempt | None:
        """Check and record the answer to the current question."""
        asked = self.current()
        with self._lock:
            if asked is None or self._started is None:
                return None
            q = asked.question
            value = parse_answer(q.form, typed, len(q.choices))
            if value is None:
                return None
            seconds = max(0.0, self.clock() - self._started)
            right = is_correct(q, value)
            if q.form is AnswerForm.KEYS:  # pressed on the table: the keys it refused
                handled = handle_keys(q, typed)
                assert handled is not None
                self.handled = handled
                value, right = handled.mistakes, handled.correct
            attempt = Attempt(
                session=self.id,
                trainee=self.trainee_id,
                course=self.course.id,
                variant=self.course.rules.id,
                kind=q.kind.value,
                seed=q.seed,
                question=question_record(q.table, q.ask, q.choices),
                answer=typed,
                answer_value=value,
                correct_answer=q.correct,
                form=q.form.value,
                seconds=round(seconds, 3),
                time_limit_s=asked.time_limit_s,
                pass_percent=self._marks[q.kind],
                course_pass_percent=self.course.pass_percent,
                correct=right,
                in_time=seconds <= asked.time_limit_s,
                at=self.now().isoformat(timespec="seconds"),
            )
            self.journal.record(attempt)
            self.done.append(attempt)
            self._started = None
            return attempt


def run_course(
    course: Course,
    trainee: Trainee,
    journal: TrainingJournal,
    *,
    trainee_id: str,
    seed: int | None = None,
    clock: Clock = time.monotonic,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> list[Attempt]:
    """Ask every question of ``course``; record and return each attempt."""
    session = Session(course, journal, trainee_id=trainee_id, seed=seed, clock=clock, now=now)
    while (asked := session.current()) is not None:
        attempt = session.answer(trainee.answer(asked))
        if attempt is None:
            trainee.unreadable(asked)
        else:
            trainee.result(asked, attempt, session.told(asked.question))
    return session.done
