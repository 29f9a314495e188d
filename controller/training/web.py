"""A training session on the dealer's screen: the display's page style and keys, in a browser.

``croupier train --display`` serves one :class:`~controller.training.session.Session` on the
table computer (127.0.0.1 by default, through the display's own :class:`ThreadedServer` with its
Host and Origin checks):

* ``GET /``: the training page (``controller/display/static/training.html``, the display's style
  sheet and its keys' look); ``GET /static/NAME``: its files.
* ``GET /api/question``: the question to answer now (the table, what is asked, the choices, how
  to type the answer, which of how many, the time allowed), never its answer; ``{"done": true,
  "summary": {...}}`` when the course is over.
* ``POST /api/answer`` with ``{"answer": "22.50"}``: checked and recorded; the reply says how it
  went and, only now, croupier's answer and words. An answer not of the question's form is
  ``{"readable": false, "message": ...}`` and nothing is recorded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from controller.display.web import SECURITY_HEADERS, STATIC
from controller.game.prompts import money
from controller.game.words import (
    answer_form_words,
    answer_shown,
    answer_words,
    drill_name,
    drill_result,
    drill_summary_words,
    key_refused,
    session_words,
    unreadable_answer,
)
from controller.table.config import DEFAULT_CHIPS
from controller.training.drills import AnswerForm, handle_keys
from controller.training.report import trainee_report
from controller.training.session import Session
from controller.webserver import ThreadedServer

PAGE_FILES = {
    "/static/style.css": ("style.css", "text/css"),
    "/static/training.js": ("training.js", "text/javascript"),
}
MAX_ANSWER_BYTES = 1024


def question_json(session: Session, chips: Sequence[int] = DEFAULT_CHIPS) -> dict[str, Any]:
    asked = session.current()
    if asked is None:
        return {"done": True, "summary": summary(session)}
    q = asked.question
    return {
        "done": False,
        "number": asked.number,
        "of": asked.of,
        "kind": drill_name(q.kind.value),
        "time_limit_s": asked.time_limit_s,
        "table": q.table,
        "ask": q.ask,
        "choices": list(q.choices),
        "form": q.form.value,
        "how": answer_form_words("money_chips" if q.form is AnswerForm.MONEY else q.form.value),
        # an amount may be counted out in the table's chips (the display's own), largest first
        "chips": (
            [{"cents": c, "text": money(c)} for c in sorted(chips, reverse=True)]
            if q.form is AnswerForm.MONEY
            else []
        ),
    }


def summary(session: Session) -> dict[str, Any]:
    """The session's result in words: a headline and a line per drill."""
    report = trainee_report(session.trainee_id, session.done)
    if not report["sessions"]:
        return {"pass": False, "headline": "", "lines": []}
    s = report["sessions"][0]
    headline = session_words(
        s["course"], s["passed"], s["questions"], s["passed_percent"], s["pass_percent"], s["pass"]
    )
    lines = [
        drill_summary_words(d["kind"], d["passed"], d["questions"], d["pass_percent"], d["pass"])
        for d in s["drills"]
    ]
    return {"pass": s["pass"], "title": session.course.name, "headline": headline, "lines": lines}


def build_app(session: Session, chips: Sequence[int] = DEFAULT_CHIPS) -> Starlette:
    page = (STATIC / "training.html").read_bytes()
    files = {
        path: ((STATIC / name).read_bytes(), kind) for path, (name, kind) in PAGE_FILES.items()
    }

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        found = files.get(request.url.path)
        if found is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(found[0], media_type=found[1], headers=SECURITY_HEADERS)

    async def question(request: Request) -> Response:
        return JSONResponse(question_json(session, chips), headers=SECURITY_HEADERS)

    async def answer(request: Request) -> Response:
        body = await request.body()
        try:
            typed = json.loads(body)["answer"] if len(body) <= MAX_ANSWER_BYTES else None
        except (ValueError, KeyError, TypeError):
            typed = None
        if not isinstance(typed, str):
            return JSONResponse(
                {"error": 'send {"answer": "..."} as JSON'},
                status_code=400,
                headers=SECURITY_HEADERS,
            )
        asked = session.current()
        if asked is None:
            return JSONResponse({"done": True}, headers=SECURITY_HEADERS)
        q = asked.question
        attempt = await run_in_threadpool(session.answer, typed)  # a procedure plays its table
        if attempt is None:
            body_out: dict[str, Any] = {
                "readable": False,
                "message": unreadable_answer(q.form.value),
            }
        else:
            body_out = {
                "readable": True,
                "correct": attempt.correct,
                "in_time": attempt.in_time,
                "result": drill_result(
                    attempt.correct, attempt.in_time, attempt.seconds, asked.time_limit_s
                ),
                "answers": answer_shown(
                    answer_words(q.form.value, attempt.answer_value or 0, q.choices),
                    answer_words(q.form.value, q.correct, q.choices),
                ),
                "told": session.told(q),
                "done": session.finished,
            }
        return JSONResponse(body_out, headers=SECURITY_HEADERS)

    async def keys(request: Request) -> Response:
        """The keys pressed so far at a procedure's stop, tried on its table (nothing recorded):
        each key's answer in the table's words, and whether the table still holds."""
        body = await request.body()
        try:
            typed = json.loads(body)["keys"] if len(body) <= MAX_ANSWER_BYTES else None
        except (ValueError, KeyError, TypeError):
            typed = None
        asked = session.current()
        q = asked.question if asked is not None else None
        tried = (
            await run_in_threadpool(handle_keys, q, typed)
            if q is not None and isinstance(typed, str)
            else None
        )
        if tried is None:
            return JSONResponse(
                {"error": 'send {"keys": "KEY_SUP HIT"} at a procedure on the panel'},
                status_code=400,
                headers=SECURITY_HEADERS,
            )
        pressed = [k for stop in tried.stops for k in stop.keys]
        return JSONResponse(
            {
                "keys": [
                    {"key": k.key, "accepted": k.accepted,
                     "words": key_refused(k.key, k.refusal) if not k.accepted else ""}
                    for k in pressed
                ],
                "decided": any(stop.decided for stop in tried.stops),
            },
            headers=SECURITY_HEADERS,
        )  # fmt: skip

    return Starlette(
        routes=[
            Route("/", index),
            Route("/static/{name}", static),
            Route("/api/question", question),
            Route("/api/answer", answer, methods=["POST"]),
            Route("/api/keys", keys, methods=["POST"]),
            Route("/favicon.ico", lambda request: Response(status_code=204)),
        ]
    )


class TrainingServer(ThreadedServer):
    """The training page for one session, in a thread of its own."""

    def __init__(
        self,
        session: Session,
        host: str = "127.0.0.1",
        port: int = 0,
        chips: Sequence[int] = DEFAULT_CHIPS,
    ) -> None:
        super().__init__("training-web", host, port)
        self.session = session
        self.chips = tuple(chips)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> None:
        self.serve(
            build_app(self.session, self.chips),
            lifespan="off",
            ws_max_size=MAX_ANSWER_BYTES,
            ssl_certfile=None,
            ssl_keyfile=None,
        )
        if not self.wait_started():
            raise OSError(f"the training page could not start: {self.failure!r}")
