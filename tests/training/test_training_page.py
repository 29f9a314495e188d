"""The training page's API: the question never carries its answer; an answer is checked,
recorded and only then answered with croupier's; a bad request is refused."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.game.rules import load_variant
from controller.training.course import drill_course
from controller.training.drills import DrillKind
from controller.training.journal import TrainingJournal
from controller.training.session import Session
from controller.training.web import TrainingServer, question_json


class Client:
    """Requests to the training page's server, as the page makes them."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str) -> tuple[int, Any]:
        return self._send(urllib.request.Request(self.url + path))

    def post(self, path: str, body: bytes) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        return self._send(urllib.request.Request(self.url + path, body, headers, method="POST"))

    def answer(self, value: object) -> Any:
        return self.post("api/answer", json.dumps({"answer": value}).encode())[1]

    def _send(self, request: urllib.request.Request) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as refused:
            return refused.code, None


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[Client, Session]]:
    course = drill_course(load_variant("nz-pontoon"), DrillKind.TOTAL, 2, 5)
    with TrainingJournal(tmp_path / "t.sqlite3") as journal:
        session = Session(course, journal, trainee_id="kim", seed=3)
        server = TrainingServer(session)
        server.start()
        try:
            yield Client(server.url), session
        finally:
            server.close()


def test_the_question_never_carries_its_answer(client: tuple[Client, Session]) -> None:
    c, session = client
    _, shown = c.get("api/question")
    assert shown["number"] == 1
    assert shown["form"] == "number"
    assert str(session.asked[0].question.correct) not in str({"x": shown.get("choices")})
    assert not {"correct", "told", "croupier", "answers"} & set(shown)


def test_an_answer_is_checked_recorded_and_answered_with_croupiers(
    client: tuple[Client, Session],
) -> None:
    c, session = client
    c.get("api/question")
    assert c.answer("abc")["readable"] is False
    assert session.done == []
    right = str(session.asked[0].question.correct)
    reply = c.answer(right)
    assert reply["correct"] is True
    assert reply["answers"].endswith(f"croupier: {right}")
    assert [a.answer for a in session.journal.attempts("kim")] == [right]
    c.answer("0")
    _, done = c.get("api/question")
    assert done["done"] is True
    assert done["summary"]["headline"].startswith("drill-total: 1 of 2")


def test_a_request_that_is_not_an_answer_is_refused(client: tuple[Client, Session]) -> None:
    c, session = client
    assert c.post("api/answer", b"not json")[0] == 400
    assert c.post("api/answer", json.dumps({"answer": 17}).encode())[0] == 400
    assert c.get("api/answer")[0] == 405
    assert session.done == []


def test_a_payout_may_be_counted_out_in_the_tables_chips(tmp_path: Path) -> None:
    """A money question offers the table's chips, largest first (the display's own values);
    a question of another form offers none."""
    nz = load_variant("nz-pontoon")
    with TrainingJournal(tmp_path / "t.sqlite3") as journal:
        paid = Session(drill_course(nz, DrillKind.PAYOUT, 1, 30), journal, trainee_id="a", seed=1)
        shown = question_json(paid, (500, 50, 2500))
        assert [c["cents"] for c in shown["chips"]] == [2500, 500, 50]
        assert [c["text"] for c in shown["chips"]] == ["$25", "$5", "$0.50"]
        assert "count it out in chips" in shown["how"]
        total = Session(drill_course(nz, DrillKind.TOTAL, 1, 5), journal, trainee_id="a", seed=1)
        assert question_json(total, (500,))["chips"] == []
