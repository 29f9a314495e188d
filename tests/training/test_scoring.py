"""A session's scores: a scripted trainee with known wrong and slow answers gets the exact score,
every attempt in the training journal, the report and the instructor's view from it."""

from __future__ import annotations

import json
from pathlib import Path

from controller.game.rules import load_variant
from controller.training.course import drill_course, shipped_course
from controller.training.drills import AnswerForm, DrillKind, Question
from controller.training.journal import Attempt, TrainingJournal
from controller.training.report import (
    instructor_page,
    instructor_view,
    trainee_page,
    trainee_report,
)
from controller.training.session import Asked, run_course


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def right_answer(q: Question) -> str:
    """croupier's answer, typed as a trainee types it."""
    if q.form is AnswerForm.MONEY:
        return f"{q.correct // 100}.{q.correct % 100:02d}"
    if q.form is AnswerForm.YES_NO:
        return "y" if q.correct else "n"
    if q.form is AnswerForm.CHOICE:
        return str(q.correct + 1)
    if q.form is AnswerForm.KEYS:  # the script's own keys, pressed on the table
        return " ".join(q.steps)
    return str(q.correct)


class ScriptedTrainee:
    """Answers every payout a cent short (wrong), every total right but in 6 s (its limit is
    5 s), every other question right in 2 s; types one unreadable answer first."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.unreadables = 0
        self.typed_junk = False

    def answer(self, asked: Asked) -> str:
        q = asked.question
        if not self.typed_junk:
            self.typed_junk = True
            return "what?"
        self.clock.now += 6.0 if q.kind is DrillKind.TOTAL else 2.0
        if q.kind is DrillKind.PAYOUT:
            return f"{(q.correct - 1) / 100:.2f}"
        return right_answer(q)

    def unreadable(self, asked: Asked) -> None:
        self.unreadables += 1

    def result(self, asked: Asked, attempt: Attempt, told: str) -> None:
        pass


def _session(tmp_path: Path, trainee: str = "ann") -> tuple[list[Attempt], ScriptedTrainee]:
    clock = Clock()
    scripted = ScriptedTrainee(clock)
    with TrainingJournal(tmp_path / "training.sqlite3") as journal:
        done = run_course(
            shipped_course("nz-pontoon"), scripted, journal, trainee_id=trainee, seed=42,
            clock=clock,
        )  # fmt: skip
    return done, scripted


def test_a_scripted_trainee_with_known_wrong_and_slow_answers_gets_the_exact_score(
    tmp_path: Path,
) -> None:
    done, scripted = _session(tmp_path)
    assert scripted.unreadables == 1  # asked again, not an attempt
    report = trainee_report("ann", done)
    # nz-pontoon's course: 10 payouts (all wrong), 5 totals (right, too slow), 5 insurance,
    # 5 surrender, 5 next prompt, 3 holds, 4 procedures of 5 steps (all right in time)
    assert (report["questions"], report["right"], report["in_time"], report["passed"]) == (
        38, 28, 33, 23,
    )  # fmt: skip
    assert report["accuracy_percent"] == 73.7
    assert report["passed_percent"] == 60.5
    kinds = {k["kind"]: (k["passed"], k["questions"]) for k in report["by_kind"]}
    assert kinds == {
        "payout": (0, 10), "total": (0, 5), "insurance_max": (5, 5), "surrender": (5, 5),
        "next_prompt": (5, 5), "hold": (3, 3), "procedure": (5, 5),
    }  # fmt: skip
    assert report["weakest"] == ["total", "payout"]  # none passed; totals the slower
    (session,) = report["sessions"]
    assert session["pass"] is False
    verdicts = {d["kind"]: d["pass"] for d in session["drills"]}
    assert verdicts == {
        "payout": False, "total": False, "insurance_max": True, "surrender": True,
        "next_prompt": True, "hold": True, "procedure": True,
    }  # fmt: skip
    mean = round((10 * 2 + 5 * 6 + 23 * 2) / 38, 2)
    assert report["mean_seconds"] == mean


def test_every_attempt_is_in_the_training_journal_as_it_was_answered(tmp_path: Path) -> None:
    done, _ = _session(tmp_path)
    with TrainingJournal(tmp_path / "training.sqlite3") as journal:
        kept = journal.attempts("ann")
    assert kept == done
    first = kept[0]
    assert first.kind == "payout"
    assert first.correct is False
    assert first.answer_value == first.correct_answer - 1
    assert json.loads(first.question)["ask"].startswith("The round is over")
    assert (tmp_path / "training.sqlite3").stat().st_mode & 0o777 == 0o600


def test_a_course_passed_by_right_answers_in_time_passes(tmp_path: Path) -> None:
    clock = Clock()

    class Right(ScriptedTrainee):
        def answer(self, asked: Asked) -> str:
            self.clock.now += 1.0
            return right_answer(asked.question)

    with TrainingJournal(tmp_path / "t.sqlite3") as journal:
        done = run_course(shipped_course("uk-pontoon"), Right(clock), journal,
                          trainee_id="bo", seed=7, clock=clock)  # fmt: skip
    report = trainee_report("bo", done)
    assert report["passed"] == report["questions"] == 25
    assert report["sessions"][0]["pass"] is True
    assert report["courses"] == {"uk-pontoon-school": {"sessions": 1, "passed": True}}


def test_the_report_page_and_the_instructors_view_show_each_trainee(tmp_path: Path) -> None:
    done, _ = _session(tmp_path, "ann")
    report = trainee_report("ann", done)
    page = trainee_page(report, done)
    assert "Training report: ann" in page
    assert page.count("<svg") == 2
    view = instructor_view([report, trainee_report("bo", [])])
    assert [t["trainee"] for t in view["trainees"]] == ["ann", "bo"]
    assert view["trainees"][0]["last_session_pass"] is False
    assert "<td>ann</td>" in instructor_page(view)


def test_a_procedure_on_the_panel_is_scored_by_the_keys_the_table_refused(tmp_path: Path) -> None:
    """A procedure drill: a first stop handled with one refused key (wrong), the next with the
    script's own keys (right); the journal keeps the keys and how many were refused."""
    clock = Clock()
    course = drill_course(load_variant("nz-pontoon"), DrillKind.PROCEDURE, 2, 60)

    class Panel(ScriptedTrainee):
        def answer(self, asked: Asked) -> str:
            self.clock.now += 3.0
            q = asked.question
            if q.form is AnswerForm.KEYS and not self.typed_junk:
                self.typed_junk = True
                return "OK_ " + right_answer(q)  # OK_ is dark while the table holds
            return right_answer(q)

    with TrainingJournal(tmp_path / "t.sqlite3") as journal:
        done = run_course(course, Panel(clock), journal, trainee_id="lu", seed=3, clock=clock)
        kept = journal.attempts("lu")
    keyed = [(a.answer, a.answer_value, a.correct) for a in kept if a.form == "keys"]
    assert keyed == [
        ("OK_ KEY_SUP HIT KEY_RUN", 1, False),
        ("KEY_SUP CAN KEY_RUN", 0, True),
    ]
    assert [a.correct for a in done if a.form == "money"] == [True, True]
