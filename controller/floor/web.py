"""The floor page's server (``croupier floor serve``): Starlette on uvicorn, in a thread.

Everything is read-only and needs a signed-in name (:mod:`controller.floor.signin`):

* ``GET /login``, ``POST /login`` (form: name, password), ``POST /logout``;
* ``GET /``: the floor page; ``WS /ws``: ``{"type": "floor", ...}`` with every table at
  first, then the tables that changed and all alerts, as the watcher publishes them;
* ``GET /api/floor``: the same as JSON; ``GET /api/tables/{id}/rounds``: the table's last
  rounds; ``GET /api/tables/{id}/rounds/{n}``: one round's bets, cards, settlements and
  overrides (the round in play as far as it has gone);
* ``POST /api/alerts/ack`` (JSON: table_id, kind, text, since): the signed-in name acknowledges
  an alert that is raised now; journalled on the floor (``croupier.ack_alert``, migration 0005);
* ``GET /surveillance``, ``GET /api/surveillance`` (``?shift=`` or ``?from=&to=`` as the
  report): the rated sessions judged for advantage play (:mod:`.surveillance`), for a user of
  the surveillance role only (a pit user is refused, 403); ``GET /api/me``: who is signed in
  and whether they have that role (the floor page links to the surveillance page only then);
* ``GET /report`` (``?shift=2026-11-29T14:00`` or ``?from=...&to=...``; the current shift by
  default), ``/report.csv``, ``/report.json``;
* ``GET /api/ratings`` (the same period): the rated sessions that sat down in it, each with its
  rating (book theo, skill theo, decision cost: docs/floor.md, Ratings and theo). The ratings
  are worked out above the floor (the analysis values each decision), by the ``rater`` the
  server is given, on a thread of its own: never on the event loop. The report page and JSON
  show them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

import psycopg
import structlog
from psycopg_pool import AsyncConnectionPool
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.floor.chain import ROW_COLUMNS, row_from_values
from controller.floor.config import LoadedFloor, Server
from controller.floor.edges import EdgeJob, EdgeJobs, EdgeOf
from controller.floor.errors import BadPeriod
from controller.floor.ratings import RATING_COLUMNS, Rating, SessionPlay, rated_query, sessions_in
from controller.floor.report import assemble, report_queries
from controller.floor.report_page import render
from controller.floor.rounds import clock, round_detail, round_summaries
from controller.floor.shifts import Shifts
from controller.floor.signin import FloorSignIn, Lockouts
from controller.floor.surveillance import (
    as_json,
    judge_all,
    render_edge_page,
    render_surveillance_page,
    session_rounds,
    surveillance_query,
)
from controller.floor.watch import FloorHub
from controller.webserver import ThreadedServer

log = structlog.get_logger("croupier.floor.web")

STATIC = Path(__file__).resolve().parent / "static"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
COOKIE = "croupier_floor"
# what rates sessions (controller.analysis.theo.rate, given by the command line: the analysis
# sits above the floor)
Rater = Callable[[list[SessionPlay]], list[Rating]]
ROUNDS_SHOWN = 50


def period(query: dict[str, str], shifts: Shifts, now: datetime) -> tuple[datetime, datetime]:
    """The report's period from ``shift=`` or ``from=``/``to=`` (ISO times; naive ones are the
    casino's time), the current shift by default."""
    try:
        if "shift" in query:
            return shifts.starting_at(datetime.fromisoformat(query["shift"]))
        if "from" in query or "to" in query:
            if not ("from" in query and "to" in query):
                raise BadPeriod("give both from= and to= (ISO times such as 2026-11-29T14:00)")
            start, end = (datetime.fromisoformat(query[k]) for k in ("from", "to"))
            start, end = (
                t.replace(tzinfo=shifts.zone) if t.tzinfo is None else t for t in (start, end)
            )
            if end <= start:
                raise BadPeriod("to= must be after from=")
            return start, end
    except BadPeriod:
        raise
    except ValueError as exc:
        raise BadPeriod(str(exc)) from None
    return shifts.current(now)


def _files() -> dict[str, tuple[bytes, str]]:
    return {
        f"/static/{p.name}": (p.read_bytes(), _TYPES[p.suffix])
        for p in STATIC.iterdir()
        if p.suffix in _TYPES
    }


def build_app(
    hub: FloorHub,
    conninfo: str,
    signin: FloorSignIn,
    shifts: Shifts,
    signing: Executor | None = None,
    edges: EdgeJobs | None = None,
    rater: Rater | None = None,
    rating: Executor | None = None,
) -> Starlette:
    """The floor page's app; sign-ins (scrypt, the lockouts in PostgreSQL) run on ``signing``
    (one thread: they queue rather than take every core), never on the event loop; so do the
    ratings (``rater``, on ``rating``; without a rater the page shows no ratings)."""
    # The page's reads run on the server's own event loop (psycopg's async pool): no thread.
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        conninfo,
        min_size=3,
        max_size=3,
        open=False,
        name="croupier-floor-web",
        kwargs={"autocommit": True, "application_name": "croupier-floor-web"},
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await pool.open(wait=True, timeout=10)
        try:
            yield
        finally:
            await pool.close()

    files = _files()
    floor_page = files.pop("/static/floor.html")
    login_page = files.pop("/static/login.html")

    def source(conn: HTTPConnection) -> str:
        return conn.client.host if conn.client else "?"

    def who(conn: HTTPConnection) -> str | None:
        return signin.who(conn.cookies.get(COOKIE))

    def denied() -> Response:
        return JSONResponse(
            {"error": "sign in first: /login"}, status_code=401, headers=SECURITY_HEADERS
        )

    async def index(request: Request) -> Response:
        if who(request) is None:
            return RedirectResponse("/login", status_code=303, headers=SECURITY_HEADERS)
        return Response(floor_page[0], media_type=floor_page[1], headers=SECURITY_HEADERS)

    async def login(request: Request) -> Response:
        if request.method == "GET":
            return Response(login_page[0], media_type=login_page[1], headers=SECURITY_HEADERS)
        body = (await request.body())[:4096].decode("utf-8", errors="replace")
        form = {k: v[0] for k, v in parse_qs(body).items()}
        # scrypt and the lockouts' PostgreSQL, off the event loop: the page goes on meanwhile
        outcome = await asyncio.get_running_loop().run_in_executor(
            signing,
            partial(
                signin.attempt, form.get("name", ""), form.get("password", ""), source(request)
            ),
        )
        if not outcome.accepted:
            # the name stays as typed; the password is asked for again
            name = html.escape(form.get("name", "")[:40], quote=True)
            page = (
                login_page[0]
                .replace(b"<!--problem-->", f'<p id="problem">{_escape(outcome.text)}</p>'.encode())
                .replace(b'value="" autofocus', f'value="{name}"'.encode())
                .replace(b"data-focus", b"autofocus")
            )
            return Response(
                page, status_code=403, media_type=login_page[1], headers=SECURITY_HEADERS
            )
        reply = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
        assert outcome.token is not None
        reply.set_cookie(
            COOKIE,
            outcome.token,
            max_age=int(signin.session_s),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return reply

    async def logout(request: Request) -> Response:
        signin.sign_out(request.cookies.get(COOKIE), source(request))
        reply = RedirectResponse("/login", status_code=303, headers=SECURITY_HEADERS)
        reply.delete_cookie(COOKIE)
        return reply

    async def static(request: Request) -> Response:
        found = files.get(request.url.path)
        if found is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(found[0], media_type=found[1], headers=SECURITY_HEADERS)

    async def api_floor(request: Request) -> Response:
        if who(request) is None:
            return denied()
        _, state = hub.since(-1)
        state["signed_in"] = signin.signed_in()
        return JSONResponse(state, headers=SECURITY_HEADERS)

    async def read_rows(sql: str, args: tuple[Any, ...]) -> list[Any]:
        async with pool.connection() as db:
            found = await (await db.execute(sql, args)).fetchall()
        return [row_from_values(v) for v in found]

    async def rounds(request: Request) -> Response:
        if who(request) is None:
            return denied()
        table_id = request.path_params["table_id"]
        rows = await read_rows(
            f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows WHERE table_id = %s "  # noqa: S608
            "AND kind IN ('round_start', 'round_end', 'supervisor') AND round_id IN ("
            "SELECT DISTINCT round_id FROM croupier.journal_rows WHERE table_id = %s "
            "AND kind = 'round_start' ORDER BY round_id DESC LIMIT %s) ORDER BY seq",
            (table_id, table_id, ROUNDS_SHOWN),
        )
        return JSONResponse(
            {"table_id": table_id, "rounds": round_summaries(rows, shifts.zone)},
            headers=SECURITY_HEADERS,
        )

    async def one_round(request: Request) -> Response:
        if who(request) is None:
            return denied()
        table_id = request.path_params["table_id"]
        number = request.path_params["number"]
        rows = await read_rows(
            f"SELECT {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608
            "WHERE table_id = %s AND round_id = %s ORDER BY seq",
            (table_id, number),
        )
        if not rows:
            return JSONResponse(
                {"error": f"table {table_id} has no round {number} on the floor"},
                status_code=404,
                headers=SECURITY_HEADERS,
            )
        return JSONResponse(
            {"table_id": table_id, **round_detail(rows, shifts.zone)}, headers=SECURITY_HEADERS
        )

    def refused(status: int, text: str) -> Response:
        return JSONResponse({"error": text}, status_code=status, headers=SECURITY_HEADERS)

    async def ack(request: Request) -> Response:
        name = who(request)
        if name is None:
            return denied()
        if not _same_origin(request):
            return refused(403, "an acknowledgement comes from the floor page itself")
        try:
            body = json.loads((await request.body())[:8192])
            wanted = {k: str(body[k]) for k in ("table_id", "kind", "text", "since")}
        except (ValueError, KeyError, TypeError):
            return refused(400, "send the alert's table_id, kind, text and since as JSON")
        _, state = hub.since(-1)
        raised = [a for a in state["alerts"] if all(str(a.get(k)) == v for k, v in wanted.items())]
        if not raised:
            return refused(409, "that alert is no longer raised")
        if raised[0].get("acked"):
            done = raised[0]["acked"]
            return refused(409, f"{done['by']} acknowledged it already at {done['time']}")
        try:
            async with pool.connection() as db:
                found = await (
                    await db.execute(
                        "SELECT croupier.ack_alert(%s, %s, %s, %s, %s)",
                        (wanted["table_id"], wanted["kind"], wanted["text"], wanted["since"], name),
                    )
                ).fetchone()
        except psycopg.errors.UndefinedFunction:
            return refused(
                503,
                "the floor's database is older than this page: its owner runs "
                "`croupier floor migrate`",
            )
        except psycopg.Error as exc:
            return refused(503, f"the acknowledgement was not recorded: {exc}".strip())
        log.info("alert acknowledged", by=name, **wanted)
        at = found[0] if found is not None else None
        return JSONResponse(
            {"acked": {"by": name, "at": at.isoformat() if at is not None else None}},
            headers=SECURITY_HEADERS,
        )

    async def ratings_of(start: datetime, end: datetime) -> list[Rating] | None:
        if rater is None:
            return None
        sql, args = rated_query(start, end)
        async with pool.connection() as db:
            found = await (await db.execute(sql, args)).fetchall()
        sessions = sessions_in([row_from_values(v) for v in found], start, end)
        if not sessions:
            return []
        return await asyncio.get_running_loop().run_in_executor(rating, rater, sessions)

    async def ratings(request: Request) -> Response:
        if who(request) is None:
            return denied()
        query = dict(request.query_params)
        try:
            start, end = period(query, shifts, datetime.now(shifts.zone))
        except BadPeriod as exc:
            return refused(400, f"bad period: {exc}")
        made = await ratings_of(start, end)
        if made is None:
            return refused(503, "this floor server rates no play (it was started without ratings)")
        zone = shifts.zone
        return JSONResponse(
            {
                "start": start.isoformat(),
                "end": end.isoformat(),
                "columns": [{"key": k, "words": w} for k, w in RATING_COLUMNS],
                "ratings": [
                    {
                        **r.as_json(),
                        "shown": r.shown()
                        | {
                            "start": clock(r.play.start, zone) or "",
                            "end": clock(r.play.end, zone) or "seated",
                        },
                    }
                    for r in made
                ],
            },
            headers=SECURITY_HEADERS,
        )

    async def report(request: Request) -> Response:
        if who(request) is None:
            if request.url.path == "/report":
                return RedirectResponse("/login", status_code=303, headers=SECURITY_HEADERS)
            return denied()
        query = dict(request.query_params)
        try:
            start, end = period(query, shifts, datetime.now(shifts.zone))
        except BadPeriod as exc:
            return PlainTextResponse(f"bad report period: {exc}", status_code=400)

        found = []
        async with pool.connection() as db:
            for sql, args in report_queries(start, end):
                found.append(await (await db.execute(sql, args)).fetchall())
        made = assemble(start, end, found)
        path = request.url.path
        if not path.endswith(".csv"):
            made.ratings = await ratings_of(start, end) or []
        if path.endswith(".json"):
            return JSONResponse(made.as_json(), headers=SECURITY_HEADERS)
        if path.endswith(".csv"):
            return Response(
                made.csv(), media_type="text/csv; charset=utf-8", headers=SECURITY_HEADERS
            )
        page = render(made, query=urlencode(query))
        return Response(page, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    async def surveillance(request: Request) -> Response:
        name = signin.watches(request.cookies.get(COOKIE))
        page = request.url.path == "/surveillance"
        if name is None:
            if who(request) is None:
                if page:
                    return RedirectResponse("/login", status_code=303, headers=SECURITY_HEADERS)
                return denied()
            return refused(403, "the surveillance page is for the surveillance role only")
        try:
            start, end = period(dict(request.query_params), shifts, datetime.now(shifts.zone))
        except BadPeriod as exc:
            return PlainTextResponse(f"bad period: {exc}", status_code=400)
        sql, args = surveillance_query(start, end)
        found, shoes = judge_all(await read_rows(sql, args), start)
        log.info("surveillance page read", by=name, sessions=len(found), shoes=len(shoes))
        if not page:
            return JSONResponse(as_json(found, start, end, shoes), headers=SECURITY_HEADERS)
        return Response(
            render_surveillance_page(
                found, start, end, name, shoes, list(request.query_params.multi_items())
            ),
            media_type="text/html; charset=utf-8",
            headers=SECURITY_HEADERS,
        )

    async def edge(request: Request) -> Response:
        """A session's remaining-shoe edge per round: started on the first ask (on the edge
        jobs' own thread), its progress or result on every ask after."""
        name = signin.watches(request.cookies.get(COOKIE))
        page = request.url.path == "/surveillance/edge"
        if name is None:
            if who(request) is None:
                if page:
                    return RedirectResponse("/login", status_code=303, headers=SECURITY_HEADERS)
                return denied()
            return refused(403, "the surveillance page is for the surveillance role only")
        if edges is None:
            return refused(404, "this floor server works out no remaining-shoe edges")
        query = dict(request.query_params)
        session = query.pop("session", "")
        if not session:
            return PlainTextResponse("give the session: ?session=ID", status_code=400)
        try:
            start, end = period(query, shifts, datetime.now(shifts.zone))
        except BadPeriod as exc:
            return PlainTextResponse(f"bad period: {exc}", status_code=400)
        sql, args = surveillance_query(start, end)
        variant, rounds = session_rounds(await read_rows(sql, args), start, session)
        job: EdgeJob | None = edges.ask(session, variant, rounds) if rounds else None
        log.info("remaining shoe edge asked", by=name, session=session, rounds=len(rounds))
        if not page:
            if job is None:
                return refused(404, f"no rated session {session!r} in the period")
            return JSONResponse(job.as_json(), headers=SECURITY_HEADERS)
        return Response(
            render_edge_page(job, session, name),
            media_type="text/html; charset=utf-8",
            headers=SECURITY_HEADERS,
        )

    async def whoami(request: Request) -> Response:
        name = who(request)
        if name is None:
            return denied()
        watches = signin.watches(request.cookies.get(COOKIE)) is not None
        return JSONResponse({"name": name, "surveillance": watches}, headers=SECURITY_HEADERS)

    async def ws_endpoint(ws: WebSocket) -> None:
        name = who(ws)
        origin = ws.headers.get("origin")
        if name is None or (origin is not None and not _same_origin(ws)):
            await ws.close(code=1008, reason="sign in first")
            return
        await ws.accept()
        sender = asyncio.create_task(_send(ws, hub, signin))
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    return Starlette(
        lifespan=lifespan,
        routes=[
            Route("/", index),
            Route("/login", login, methods=["GET", "POST"]),
            Route("/logout", logout, methods=["POST"]),
            Route("/static/{name}", static),
            Route("/api/floor", api_floor),
            Route("/api/tables/{table_id}/rounds", rounds),
            Route("/api/tables/{table_id}/rounds/{number:int}", one_round),
            Route("/api/alerts/ack", ack, methods=["POST"]),
            Route("/api/ratings", ratings),
            Route("/report", report),
            Route("/report.csv", report),
            Route("/report.json", report),
            Route("/surveillance", surveillance),
            Route("/api/surveillance", surveillance),
            Route("/surveillance/edge", edge),
            Route("/api/surveillance/edge", edge),
            Route("/api/me", whoami),
            Route("/favicon.ico", favicon),
            WebSocketRoute("/ws", ws_endpoint),
        ],
    )


def _same_origin(conn: HTTPConnection) -> bool:
    """The request's Origin names this server (a page of another site cannot act here)."""
    origin = conn.headers.get("origin")
    return origin is not None and origin.split("://", 1)[-1] == conn.headers.get("host")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _send(ws: WebSocket, hub: FloorHub, signin: FloorSignIn) -> None:
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def listener() -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(wake.set)

    hub.subscribe(listener)
    seen = -1
    try:
        while True:
            wake.clear()
            version, update = hub.since(seen)
            if version != seen:
                update["full"] = seen == -1
                update["signed_in"] = signin.signed_in()
                update["sent_at"] = time.time()
                seen = version
                await ws.send_text(json.dumps({"type": "floor", **update}))
            await wake.wait()
    finally:
        hub.unsubscribe(listener)


class RatingThread(Executor):
    """The ratings' one thread (an analysis walk can take a minute: never the event loop's).

    A daemon: a walk under way when the server stops is left behind, not waited for (it
    changes nothing; its work is lost), so that stopping the floor never waits for a minute;
    an idle thread ends at once."""

    STOP_WAIT_S = 1.0

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name="floor-ratings", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((future, partial(fn, *args, **kwargs)))
        return future

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, call = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:
                future.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:  # the ratings not begun yet are not begun at all
            with contextlib.suppress(queue.Empty):
                while True:
                    job = self._jobs.get_nowait()
                    if job is not None:
                        job[0].cancel()
        self._jobs.put(None)
        if wait and self._thread.is_alive():
            self._thread.join(self.STOP_WAIT_S)


class FloorServer(ThreadedServer):
    """The floor page's server in a thread of its own; ``start()`` binds (errors raise here)."""

    def __init__(
        self,
        floor: LoadedFloor,
        hub: FloorHub,
        conninfo: str,
        rater: Rater | None = None,
        edge_of: EdgeOf | None = None,
    ) -> None:
        config = floor.config
        super().__init__("floor-web", config.server.host, config.server.port)
        self.server_config: Server = config.server
        self.hub = hub
        self.conninfo = conninfo
        self.lockouts = Lockouts(conninfo, connect_timeout_s=config.database.connect_timeout_s)
        self.signin = FloorSignIn(
            {u.name: u.secret_hash for u in config.users},
            lockouts=self.lockouts,
            max_wrong=config.access.max_wrong,
            max_wrong_per_source=config.access.max_wrong_per_source,
            lockout_s=config.access.lockout_seconds,
            session_s=config.access.session_hours * 3600,
            log_path=floor.path(config.access.attempts_log),
            surveillance=frozenset(u.name for u in config.users if u.role == "surveillance"),
        )
        self.shifts = config.shifts.shifts()
        self.signing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-signin")
        # the remaining shoe's edge (the analysis engine, given by the command line), if any
        self.edges = None if edge_of is None else EdgeJobs(edge_of)
        self.rater = rater
        self.rating = RatingThread()

    @property
    def url(self) -> str:
        host = self.server_config.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "localhost") else host  # noqa: S104
        scheme = "https" if self.server_config.tls_certfile else "http"
        return f"{scheme}://{shown}:{self.port}/"

    def close(self) -> None:
        super().close()
        self.signing.shutdown(wait=True)
        if self.edges is not None:
            self.edges.close()
        self.rating.shutdown(cancel_futures=True)
        self.lockouts.close()

    def start(self) -> None:
        self.signing.submit(self.lockouts.connect).result()  # the thread and connection now
        self.rating.start()  # the ratings' thread now, with the server's
        self.serve(
            build_app(
                self.hub,
                self.conninfo,
                self.signin,
                self.shifts,
                self.signing,
                rater=self.rater,
                rating=self.rating,
                edges=self.edges,
            ),
            lifespan="on",
            ws_max_size=16 * 1024,
            ssl_certfile=self.server_config.tls_certfile,
            ssl_keyfile=self.server_config.tls_keyfile,
            hosts=self.server_config.hosts,  # a Host or Origin of another name: refused
        )
