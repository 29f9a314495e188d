"""``croupier train``: a training session in the terminal, and ``croupier train report``.

``croupier train [--variant V] [--drill NAME|--course FILE] [--trainee ID]`` asks the variant's
shipped course (``controller/defaults/courses/V.toml``), a course file, or ``--count``
questions of one drill; each question is shown with the table as the dealer sees it, the
answer typed, timed and checked, and croupier's answer shown after. Every attempt goes to the
training journal: ``--journal PATH``, a training table's (``--config FILE`` with
``[training]``), or ``training.sqlite3`` in croupier's state folder. A live table's file (no
``[training]``) is refused: a live table never trains.

``croupier train report [--trainee ID | --all] [--json] [--out DIR]`` prints a trainee's
scores, or every trainee's side by side; ``--out`` writes them as JSON and an HTML page with
plots.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from controller.cli.scenario import quiet_logs
from controller.game.errors import ConfigError
from controller.game.rules import load_variant
from controller.game.words import (
    answer_form_words,
    answer_words,
    croupier_answer,
    croupier_said,
    drill_name,
    drill_result,
    drill_summary_words,
    question_head,
    session_words,
    unreadable_answer,
)
from controller.table.config import DEFAULT_CHIPS, load_table_config
from controller.table.private import state_folder
from controller.training.course import Course, drill_course, load_course, shipped_course
from controller.training.drills import AnswerForm, DrillKind
from controller.training.errors import TrainingError
from controller.training.journal import Attempt, TrainingJournal, each_trainee
from controller.training.report import (
    instructor_page,
    instructor_view,
    trainee_page,
    trainee_report,
    write_page,
)
from controller.training.session import Asked, Session, run_course
from controller.training.web import TrainingServer

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
TRAINEE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
DEFAULT_VARIANT = "nz-pontoon"
POLL_S = 0.2


def _fail(text: str) -> int:
    print(f"croupier train: {text}", file=sys.stderr)
    return EXIT_USAGE


def _where(args: argparse.Namespace) -> tuple[Path, str | None]:
    """The training journal and the table's variant (None: no table file); a training table's
    display port becomes the training page's (unless --port names one)."""
    if args.config is None:
        named = args.journal or state_folder() / "training.sqlite3"
        return named, None
    table = load_table_config(args.config)
    trained = table.training_journal_path
    if trained is None:
        raise TrainingError(
            f"{table.source} is a live table's file (no [training]): a live table never "
            "trains, so its journal holds only real play; give a training table's file "
            "(with a [training] section) or no --config"
        )
    if not getattr(args, "port", None):
        args.port = table.config.display.port  # the table's screen shows the training page
    args.chips = table.config.display.chips  # and counts out payouts in the table's chips
    return (args.journal or trained), table.rules.id


def _course(args: argparse.Namespace, variant: str) -> Course:
    if args.course is not None:
        return load_course(args.course)
    if args.drill is not None:
        rules = load_variant(variant)
        kind = DrillKind(args.drill)
        shipped = shipped_course(rules.id)
        limits = [d.time_limit_s for d in shipped.drills if d.kind is kind]
        return drill_course(rules, kind, args.count, limits[0] if limits else 30)
    return shipped_course(load_variant(variant).id)


class TerminalTrainee:
    """Questions on stdout, answers typed on stdin."""

    def answer(self, asked: Asked) -> str:
        q = asked.question
        print("\n" + question_head(q.kind.value, asked.number, asked.of, asked.time_limit_s))
        print(q.table)
        print(q.ask)
        for n, choice in enumerate(q.choices, 1):
            print(f"  {n}. {choice}")
        line = input(f"({answer_form_words(q.form.value)}) > ")
        return line

    def unreadable(self, asked: Asked) -> None:
        print(unreadable_answer(asked.question.form.value))

    def result(self, asked: Asked, attempt: Attempt, told: str) -> None:
        q = asked.question
        print(drill_result(attempt.correct, attempt.in_time, attempt.seconds, asked.time_limit_s))
        if q.form is AnswerForm.KEYS:  # the keys the table refused, then the correct keys
            print(told)
            return
        if not attempt.correct:
            print(croupier_answer(answer_words(q.form.value, q.correct, q.choices)))
        if told:
            print(croupier_said(told))


def run(args: argparse.Namespace) -> int:
    quiet_logs()  # the questions are the output: the emulated devices' chatter stays out of it
    if not TRAINEE_ID.match(args.trainee):
        return _fail(
            f"--trainee {args.trainee!r}: give 1 to 40 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    try:
        path, table_variant = _where(args)
        course = _course(args, args.variant or table_variant or DEFAULT_VARIANT)
        if table_variant is not None and course.rules.id != table_variant:
            raise TrainingError(
                f"the course {course.id} is for {course.rules.id} and the table deals "
                f"{table_variant}: give a course of the table's game"
            )
        journal = TrainingJournal(path)
    except (ConfigError, TrainingError) as exc:
        return _fail(str(exc))
    print(f"{course.name}: {course.questions} questions for {args.trainee}; "
          f"answers recorded in {path}")  # fmt: skip
    with journal:
        try:
            if args.display:
                done = _on_the_display(args, course, journal)
            else:
                done = run_course(course, TerminalTrainee(), journal, trainee_id=args.trainee,
                                  seed=args.seed)  # fmt: skip
        except (EOFError, KeyboardInterrupt):
            print("\nStopped: the answers given so far are recorded.")
            return EXIT_FAILED
        except OSError as exc:
            return _fail(f"the training page cannot start: {exc}")
    session = trainee_report(args.trainee, done)["sessions"][0]
    s = session
    print("\n" + session_words(s["course"], s["passed"], s["questions"], s["passed_percent"],
                              s["pass_percent"], s["pass"]))  # fmt: skip
    for d in session["drills"]:
        print("  " + drill_summary_words(d["kind"], d["passed"], d["questions"],
                                         d["pass_percent"], d["pass"]))  # fmt: skip
    return EXIT_PASSED if session["pass"] else EXIT_FAILED


def _on_the_display(
    args: argparse.Namespace, course: Course, journal: TrainingJournal
) -> list[Attempt]:
    """Serve the session on the training page until it is answered (Ctrl-C stops it)."""
    session = Session(course, journal, trainee_id=args.trainee, seed=args.seed)
    server = TrainingServer(session, port=args.port, chips=getattr(args, "chips", DEFAULT_CHIPS))
    server.start()
    try:
        print(f"Open {server.url} in the dealer screen's browser; Ctrl-C stops.", flush=True)
        while not session.finished:
            time.sleep(POLL_S)
        time.sleep(POLL_S * 5)  # the page asks for its summary
    finally:
        server.close()
    return session.done


def report(args: argparse.Namespace) -> int:
    try:
        path, _ = _where(args)
        if not path.exists():
            return _fail(f"no training journal at {path}: nobody has trained there yet")
        with TrainingJournal(path) as journal:
            reports = [
                (trainee_report(t, a), a)
                for t, a in each_trainee(journal)
                if args.all or t == (args.report_trainee or t)
            ]
    except (ConfigError, TrainingError) as exc:
        return _fail(str(exc))
    if not args.all:
        wanted = args.report_trainee
        if wanted is None and len(reports) > 1:
            names = ", ".join(r["trainee"] for r, _ in reports)
            return _fail(f"several trainees ({names}): name one with --trainee, or --all")
        if not reports:
            return _fail(f"no attempts of {wanted!r} in {path}")
    if args.all:
        view = instructor_view([r for r, _ in reports])
        data, page, name = view, instructor_page(view), "trainees"
    else:
        one, attempts = reports[0]
        data, page, name = one, trainee_page(one, attempts), one["trainee"]
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            write_page(args.out / f"{name}.html", page)
            write_page(args.out / f"{name}.json", json.dumps(data, indent=2))
        except OSError as exc:
            return _fail(f"cannot write the report in {args.out}: {exc}")
        print(f"wrote {args.out / (name + '.json')} and {args.out / (name + '.html')}")
    if args.json:
        print(json.dumps(data, indent=2))
    elif args.out is None:
        _print_summary(data, all_trainees=args.all)
    return EXIT_PASSED


def _print_summary(data: dict[str, Any], *, all_trainees: bool) -> None:
    rows: list[dict[str, Any]] = data["trainees"] if all_trainees else [data]
    for r in rows:
        weakest = ", ".join(drill_name(k) for k in r["weakest"]) or "none"
        print(f"{r['trainee']}: {r['questions']} questions, {r['accuracy_percent']} % right, "
              f"{r['passed_percent']} % passed, {r['mean_seconds']} s an answer; "
              f"weakest: {weakest}")  # fmt: skip
        if all_trainees:
            passed = ", ".join(r["courses_passed"]) or "none"
            print(f"  {r['sessions']} sessions; courses passed: {passed}")
            continue
        for s in r["sessions"]:
            print(f"  {s['at']} {s['course']}: {s['passed_percent']} % "
                  f"{'pass' if s['pass'] else 'fail'}")  # fmt: skip
