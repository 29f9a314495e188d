"""The training session on the dealer's screen (issue 27): a shipped course answered on the
keypad in Chromium at 1024x600, the answer never on the page before it is given, croupier's
answer shown after, and the session's score exact."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.display.chips import breakdown
from controller.game.rules import load_variant
from controller.table.config import DEFAULT_CHIPS
from controller.training.course import drill_course, shipped_course
from controller.training.drills import AnswerForm, DrillKind, Question
from controller.training.journal import TrainingJournal
from controller.training.session import Session
from controller.training.web import TrainingServer
from tests.display.conftest import WAIT_S, screenshot


class Ticks:
    """A clock that moves one second each time it is read: every answer takes 1 s."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Session, TrainingServer]]:
    with TrainingJournal(tmp_path / "training.sqlite3") as journal:
        session = Session(
            shipped_course("uk-pontoon"), journal, trainee_id="kim", seed=5, clock=Ticks()
        )
        server = TrainingServer(session)
        server.start()
        try:
            yield session, server
        finally:
            server.close()


@pytest.fixture
def small(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    context.set_default_timeout(WAIT_S * 1000)
    try:
        yield context.new_page()
    finally:
        context.close()


def keys_for(q: Question, wrong: bool) -> list[str]:
    value = q.correct + (1 if wrong else 0)
    if q.form is AnswerForm.MONEY:
        return [*f"{value // 100}.{value % 100:02d}", "ENTER"]
    if q.form is AnswerForm.NUMBER:
        return [*str(value), "ENTER"]
    if q.form is AnswerForm.YES_NO:
        return ["NO" if q.correct else "YES"] if wrong else ["YES" if q.correct else "NO"]
    return [str((value % len(q.choices)) + 1)]


def test_a_shipped_course_is_answered_on_the_keypad_at_1024x600(
    served: tuple[Session, TrainingServer], small: Any
) -> None:
    session, server = served
    small.goto(server.url)
    wrong = {1, 12}  # the second payout and the third total: known wrong answers
    for n, asked in enumerate(session.asked):
        q = asked.question
        small.locator("#training-count", has_text=re.compile(rf"^{n + 1} / ")).wait_for()
        shown = json.loads(urllib.request.urlopen(server.url + "api/question").read())
        assert "correct" not in shown
        assert "told" not in shown
        assert small.locator("#training-result").is_hidden()
        if n == 0:
            screenshot(small, "training-question", "display-training-question")
        if n == 0:  # the first payout counted out in chips, largest first (the table's)
            assert q.form is AnswerForm.MONEY
            chips, rest = breakdown(q.correct, DEFAULT_CHIPS)
            assert rest == 0
            assert sum(count for _, count in chips) > 1  # several chips, added up
            for cents, count in chips:
                for _ in range(count):
                    small.locator(f"#training-chips button[data-cents='{cents}']").click()
            typed = small.locator("#training-typed").inner_text()
            assert typed == f"{q.correct // 100}.{q.correct % 100:02d}"
            screenshot(small, "training-chips", "display-training-chips")
            small.locator("#training-keypad button[data-key='ENTER']").click()
        else:
            for key in keys_for(q, n in wrong):
                small.locator(f"#training-keypad button[data-key='{key}']").click()
        small.locator("#training-result").wait_for(state="visible")
        verdict = small.locator("#training-verdict").inner_text()
        assert verdict.startswith("Wrong" if n in wrong else "Right")
        if n == 1:
            said = small.locator("#training-croupier").inner_text()
            assert said.startswith("Yours: $")
            assert "croupier: $" in said
            screenshot(small, "training-answered", "display-training-answered")
        small.locator("#training-next").click()
    small.locator("#training-summary").wait_for(state="visible")
    screenshot(small, "training-summary", "display-training-summary")
    summary = small.locator("#training-summary").inner_text()
    assert "23 of 25 passed" in summary
    assert "FAIL" in summary
    assert [a.correct for a in session.done].count(False) == 2
    assert all(a.seconds == 1.0 for a in session.done)


def test_a_procedure_is_handled_on_the_panels_keys_at_1024x600(tmp_path: Path, small: Any) -> None:
    """A card out of turn handled with the panel's keys: a key the table refuses (HIT while it
    holds) shows the table's words at once and is a mistake; the supervisor's key and HIT
    assign the card; the correct steps and the refusal shown after."""
    course = drill_course(load_variant("nz-pontoon"), DrillKind.PROCEDURE, 1, 60)
    with TrainingJournal(tmp_path / "training.sqlite3") as journal:
        session = Session(course, journal, trainee_id="kim", seed=3, clock=Ticks())
        assert session.asked[0].question.form is AnswerForm.KEYS
        server = TrainingServer(session)
        server.start()
        try:
            small.goto(server.url)
            pad = small.locator("#training-keypad")
            for n, code in enumerate(["HIT", "KEY_SUP", "HIT", "KEY_RUN"], 1):
                pad.locator(f"button[data-key='{code}']").click()
                small.locator(f"#training-keypad[data-answered='{n}']").wait_for()
                if n == 1:
                    refused = small.locator("#training-refused").inner_text()
                    assert refused == "HIT refused: hit is not possible while the table is on hold"
                    screenshot(small, "training-panel", "display-training-panel")
            assert small.locator("#training-typed").inner_text() == "HIT · KEY SUP · HIT · KEY RUN"
            pad.locator("button[data-key='DONE']").click()
            small.locator("#training-result").wait_for(state="visible")
            assert small.locator("#training-verdict").inner_text().startswith("Wrong")
            said = small.locator("#training-croupier").inner_text()
            assert said == "Yours: 1 key refused · croupier: no key refused"
            told = small.locator("#training-told").inner_text()
            assert told.splitlines() == [
                "HIT refused: hit is not possible while the table is on hold",
                "Keys: key to SUP, HIT, key to RUN.",
            ]
            screenshot(small, "training-panel-answered", "display-training-panel-answered")
        finally:
            server.close()
    (attempt,) = session.done[:1]
    assert (attempt.answer, attempt.answer_value, attempt.correct) == (
        "HIT KEY_SUP HIT KEY_RUN", 1, False,
    )  # fmt: skip
