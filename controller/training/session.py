"""A training session: a course's questions asked of a trainee, each answer timed, checked
against croupier's and recorded in the training journal.

The trainee is whatever answers (:class:`Trainee`): the terminal (``croupier train``), a test's
scripted trainee, the display's keypad. The clock is injected (``time.monotonic`` by default), so
a test says how long each answer took. An answer that is not of the question's form is not an
attempt: the trainee is told what to type and asked again, the clock running on.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from controller.training.course import Course
from controller.training.drills import Question, is_correct, make_question, parse_answer
from controller.training.journal import Attempt, TrainingJournal, question_record

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

    def result(self, asked: Asked, attempt: Attempt) -> None:
        """How the answer went, and croupier's answer (shown after)."""


def new_seed() -> int:
    return secrets.randbelow(SEED_SPAN)


def plan(course: Course, seed: int) -> list[Asked]:
    """The course's questions, in its order: drill by drill, each from its own seeds."""
    asked: list[Asked] = []
    for n, drill in enumerate(course.drills):
        for k in range(drill.count):
            question = make_question(course.rules, drill.kind, seed + n * DRILL_SEEDS + k)
            asked.append(Asked(question, 0, 0, drill.time_limit_s))
    return [Asked(a.question, i, len(asked), a.time_limit_s) for i, a in enumerate(asked, 1)]


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
    seed = new_seed() if seed is None else seed
    session = f"{now().strftime('%Y%m%dT%H%M%SZ')}-{seed}"
    marks = {d.kind: d.pass_percent for d in course.drills}
    done: list[Attempt] = []
    for asked in plan(course, seed):
        q = asked.question
        started = clock()
        while True:
            typed = trainee.answer(asked)
            value = parse_answer(q.form, typed, len(q.choices))
            if value is not None:
                break
            trainee.unreadable(asked)
        seconds = max(0.0, clock() - started)
        attempt = Attempt(
            session=session,
            trainee=trainee_id,
            course=course.id,
            variant=course.rules.id,
            kind=q.kind.value,
            seed=q.seed,
            question=question_record(q.table, q.ask, q.choices),
            answer=typed,
            answer_value=value,
            correct_answer=q.correct,
            form=q.form.value,
            seconds=round(seconds, 3),
            time_limit_s=asked.time_limit_s,
            pass_percent=marks[q.kind],
            course_pass_percent=course.pass_percent,
            correct=is_correct(q, value),
            in_time=seconds <= asked.time_limit_s,
            at=now().isoformat(timespec="seconds"),
        )
        journal.record(attempt)
        trainee.result(asked, attempt)
        done.append(attempt)
    return done
