"""The dealer display's web server: Starlette on uvicorn, in its own thread.

Routes:

* ``GET /``: the dealer's page (only for a browser on this machine: a loopback client).
* ``GET /view?token=T``: the pit's page, read-only (no keys, no forms), for a pit supervisor's
  screen; the token is checked against ``display.view_token_hash`` (scrypt, in a thread, a few
  wrong tokens per source address a minute: :class:`ViewAccess`). A wrong token, or a table
  without one (the view is off), gets a page that says so.
* ``GET /api/state``: the table state as JSON (the dealer's cards as the table shows them: the
  hole card is withheld until it is turned over). Loopback, or ``?token=``.
* ``WS /ws`` (``?token=`` for the read-only view): ``{"type": "hello", "role": ...}`` (the
  dealer's with the panel's keys as the page lays them out, :data:`KEYS`), then a
  ``{"type": "state", "state": {...}}`` after every change (the text the hub encoded once for
  every client); the dealer's page sends ``press``,
  ``bet``, ``pin``, ``supervisor`` and ``key_card`` messages
  (:mod:`controller.display.messages`), each answered with ``result`` or ``error``. A viewer's
  actions are refused, a sign-in too. ``{"type": "recall"}`` is answered with the last rounds
  read from the journal (:mod:`controller.display.recall`): on the pit's view, and on the
  dealer's screen only with a supervisor signed in.

A table stopped for a supervisor at start (``halted=``, :mod:`controller.service.halt`) has no
round: the state is :func:`~controller.display.halted.halted_state`, and the page's ``pin`` and
``halted`` messages go to the :class:`~controller.service.halt.Halted`, everything else is
refused.

The server never touches the table: it reads the state its :class:`~controller.display.hub.StateHub`
built on the table owner's thread, and queues commands to the owner (:meth:`TableService.submit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import ipaddress
import json
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import structlog
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.display.errors import BadMessage
from controller.display.halted import halted_state
from controller.display.hub import StateHub
from controller.display.messages import (
    MAX_MESSAGE_BYTES,
    command_of,
    decode_message,
    message_id,
)
from controller.display.peer import account_name, peer_uid
from controller.display.recall import read_recall, recall_refusal
from controller.display.words import KEY_GROUPS, say
from controller.service.halt import HaltChoice, Halted
from controller.service.service import CommandReply, TableService
from controller.table.config import Display, verify_secret
from controller.webserver import ThreadedServer

log = structlog.get_logger("croupier.display")

STATIC = Path(__file__).resolve().parent / "static"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
DEALER, VIEWER = "dealer", "viewer"
COMMAND_TIMEOUT_S = 10.0
# Every socket hears from the table at least this often (a state, or a heartbeat when nothing
# changed); the hello says so, and a screen that hears nothing for 2.5 times as long shows that
# it has lost the table.
HEARTBEAT_S = 2.0
HEARTBEAT = json.dumps({"type": "heartbeat"})
MAX_VIEWER_SOCKETS = 32  # the pit's read-only sockets open at once


# The panel's keys as the dealer's page lays them out (sent in the hello message).
KEYS = [
    {"group": group, "keys": [{"key": b.value, "label": label} for b, label in keys]}
    for group, keys in KEY_GROUPS
]
REFUSED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>croupier - {title}</title><link rel="stylesheet" href="/static/style.css"></head>
<body class="refused-page"><main><h1>{title}</h1><p>{text}</p></main></body></html>
"""


def refused_page(title: str, text: str) -> Response:
    """A plain page that says why nothing is shown, and what to do (403)."""
    body = REFUSED_PAGE.format(title=html.escape(title), text=html.escape(text))
    return Response(body, status_code=403, media_type=_TYPES[".html"], headers=SECURITY_HEADERS)


def _static_files() -> dict[str, tuple[bytes, str]]:
    return {
        f"/static/{p.name}": (p.read_bytes(), _TYPES[p.suffix])
        for p in STATIC.iterdir()
        if p.suffix in _TYPES
    }


def _loopback(host: str | None) -> bool:  # (a promise of this computer, not of an account)
    if host is None:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class ViewAccess:
    """Who may see and who may act: the dealer at this machine, or a viewer with the token.

    A token is checked (scrypt, tens of milliseconds on purpose) in a thread of its own, one at
    a time, never on the server's event loop, which keeps serving the dealer's socket meanwhile.
    Each source address may have :data:`MAX_WRONG` tokens checked per :data:`WINDOW_S`; after
    that its tokens are refused unchecked until the window is over (a token already found right
    is still recognised: by its SHA-256, no scrypt). With :data:`MAX_WAITING` checks already
    waiting, another is refused unchecked (the table is busy)."""

    MAX_WRONG = 5
    WINDOW_S = 60.0
    MAX_WAITING = 8
    MAX_SOURCES = 4096

    def __init__(
        self,
        token_hash: str | None,
        clock: Callable[[], float] = time.monotonic,
        dealer_uids: frozenset[int] | None = None,
    ) -> None:
        self.token_hash = token_hash
        # the accounts whose loopback connections are the dealer's (croupier's own by default)
        self.dealer_uids = dealer_uids if dealer_uids is not None else frozenset({os.getuid()})
        self.clock = clock
        self.hashed = 0  # scrypt checks run so far
        self._good: set[str] = set()  # sha256 of tokens already checked (scrypt is slow)
        # a source's checks in its window: (window start, checks that were not right)
        self._sources: dict[str, tuple[float, int]] = {}
        self._waiting = 0
        self._lock = asyncio.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="display-token")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def role(self, conn: HTTPConnection) -> str | None:
        token = conn.query_params.get("token")
        if token is not None:
            return VIEWER if await self._token_ok(token, _source(conn)) else None
        return DEALER if await self.dealer_account(conn) is None else None

    async def dealer_account(self, conn: HTTPConnection) -> str | None:
        """Why ``conn`` is not the dealer's screen (None: it is): not from this computer, or
        from a local account other than the table's dealer accounts (:mod:`.peer`)."""
        client = conn.client.host if conn.client else None
        if not _loopback(client):
            return "not on the table's own computer"
        server = conn.scope.get("server")
        uid = await asyncio.to_thread(
            peer_uid,
            (conn.client.host, conn.client.port) if conn.client else None,
            (str(server[0]), int(server[1])) if server else None,
        )
        if uid is None:
            return "from a program whose account could not be told (the dealer is not guessed)"
        if uid not in self.dealer_uids:
            return (
                f"from the account {account_name(uid)}, which is not one of the table's dealer "
                "accounts ([display] dealer_users in the table file)"
            )
        return None

    def refusal(self, conn: HTTPConnection) -> str:
        """Why ``conn`` may not see the table (a wrong token, a view that is off, no token)."""
        if "token" not in conn.query_params:
            return (
                "the table state is for the dealer's screen on this machine (a browser of the "
                "table's dealer accounts), or /api/state?token=... (the pit view)"
            )
        if self.token_hash is None:
            return (
                "the pit view is off at this table: the table file has no view token "
                "([display] view_token_hash; make one with croupier passwd --token)"
            )
        wait = self._locked_for(_source(conn))
        if wait is not None:
            return (
                f"too many wrong view tokens from this address: try again in {wait} s "
                "with the right address (ask the table's administrator)"
            )
        return "wrong view token: ask the table's administrator for the right address"

    def _locked_for(self, source: str) -> int | None:
        """Seconds until ``source`` may have a token checked again (None: it may now)."""
        start, wrong = self._sources.get(source, (0.0, 0))
        left = start + self.WINDOW_S - self.clock()
        if wrong < self.MAX_WRONG or left <= 0:
            return None
        return max(1, int(left + 0.999))

    def _count(self, source: str) -> bool:
        """Count a check for ``source`` now; False if its window's checks are used up."""
        now = self.clock()
        start, wrong = self._sources.get(source, (now, 0))
        if now - start >= self.WINDOW_S:
            start, wrong = now, 0
        if wrong >= self.MAX_WRONG:
            return False
        if source not in self._sources and len(self._sources) >= self.MAX_SOURCES:
            self._forget(now)
        self._sources[source] = (start, wrong + 1)
        return True

    def _forget(self, now: float) -> None:
        old = [s for s, (start, _) in self._sources.items() if now - start >= self.WINDOW_S]
        for source in old or list(self._sources)[: self.MAX_SOURCES // 4]:
            del self._sources[source]

    async def _token_ok(self, token: str, source: str) -> bool:
        if self.token_hash is None or not token or len(token) > 200:
            return False
        key = hashlib.sha256(token.encode()).hexdigest()
        if key in self._good:
            return True
        if self._waiting >= self.MAX_WAITING or not self._count(source):
            return False
        self._waiting += 1
        try:
            async with self._lock:  # one check at a time, in the pool's one thread
                if key in self._good:
                    right = True
                else:
                    self.hashed += 1
                    loop = asyncio.get_running_loop()
                    right = await loop.run_in_executor(
                        self._pool, verify_secret, token, self.token_hash
                    )
        finally:
            self._waiting -= 1
        if right:
            self._good.add(key)
            start, wrong = self._sources.get(source, (self.clock(), 1))
            self._sources[source] = (start, max(0, wrong - 1))  # a right token is not wrong
        return right


def _source(conn: HTTPConnection) -> str:
    """The address a token check is counted against (an IPv6 client by its /64)."""
    host = conn.client.host if conn.client else "?"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def build_app(
    service: TableService,
    hub: StateHub,
    access: ViewAccess,
    halted: Callable[[], Halted | None] = lambda: None,
) -> Starlette:
    files = _static_files()
    dealer_page = files.pop("/static/index.html")
    pit_page = files.pop("/static/view.html")

    def forbidden(text: str) -> Response:
        return PlainTextResponse(text, status_code=403, headers=SECURITY_HEADERS)

    async def index(request: Request) -> Response:
        if "token" in request.query_params:
            why: str | None = "opened with a view token, which is the pit's"
        else:
            why = await access.dealer_account(request)
        if why is not None:
            return refused_page(
                "This screen is the dealer's",
                "The dealer screen opens only on the table's own computer, in a browser of the "
                f"table's dealer accounts (this one is {why}). From another machine, the pit's "
                "read-only view is /view?token=... with the table's view token.",
            )
        return Response(dealer_page[0], media_type=dealer_page[1], headers=SECURITY_HEADERS)

    async def view(request: Request) -> Response:
        if access.token_hash is None:
            return refused_page(
                "The pit view is off at this table",
                "The table file has no view token ([display] view_token_hash), so no "
                "read-only view is served. The table's administrator makes one with "
                "`croupier passwd --token` and restarts the table.",
            )
        if await access.role(request) != VIEWER:
            given = "token" in request.query_params
            return refused_page(
                "Wrong view token" if given else "This view needs its token",
                (
                    "The token in the address is not this table's view token. "
                    if given
                    else "Open /view?token=... with the table's view token. "
                )
                + "Ask the table's administrator for the right address; nothing of the "
                "table is shown without it.",
            )
        return Response(pit_page[0], media_type=pit_page[1], headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        found = files.get(request.url.path)
        if found is None:
            return PlainTextResponse("not found", status_code=404)
        return Response(found[0], media_type=found[1], headers=SECURITY_HEADERS)

    async def api_state(request: Request) -> Response:
        if await access.role(request) is None:
            return forbidden(access.refusal(request))
        _, state = hub.latest()
        return JSONResponse(state, headers=SECURITY_HEADERS)

    viewers = [0]  # the pit's sockets open now (the dealer's are never limited)

    async def recall(ws: WebSocket, role: str, msg_id: int | None) -> None:
        """The last rounds from the journal (:mod:`.recall`): for the pit's view, or the
        dealer's screen with a supervisor signed in; read in a worker thread."""
        if role == DEALER:
            why = recall_refusal(hub.state())
            if why is not None:
                await _error(ws, msg_id, why)
                return
        found = await asyncio.to_thread(
            read_recall, service.table.journal_path, service.config.display.recall_rounds
        )
        await ws.send_json({"type": "recall", "id": msg_id, **found})

    async def ws_endpoint(ws: WebSocket) -> None:
        role = await access.role(ws)
        # (a Host or a browser's Origin that is not this server's: refused before, HostCheck)
        if role is None:
            await ws.close(code=1008, reason=f"not allowed: {access.refusal(ws)}"[:120])
            return
        if role == VIEWER and viewers[0] >= MAX_VIEWER_SOCKETS:
            await ws.accept()  # (so that the page is told why: "try again later")
            await ws.close(code=1013, reason="too many pit views open: try again later")
            return
        if role == VIEWER:
            viewers[0] += 1
        try:
            await _serve_socket(ws, role)
        finally:
            if role == VIEWER:
                viewers[0] -= 1

    async def _serve_socket(ws: WebSocket, role: str) -> None:
        await ws.accept()
        hello = {
            "type": "hello",
            "role": role,
            "heartbeat_s": HEARTBEAT_S,
            **({"keys": KEYS} if role == DEALER else {}),
        }
        await ws.send_json(hello)
        sender = asyncio.create_task(_send_states(ws, hub))
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    await _error(ws, None, "send text frames with JSON messages")
                    continue
                await _handle(ws, service, halted(), role, text, recall)
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/view", view),
            Route("/static/{name}", static),
            Route("/api/state", api_state),
            Route("/favicon.ico", lambda request: Response(status_code=204)),
            WebSocketRoute("/ws", ws_endpoint),
        ]
    )


async def _error(ws: WebSocket, msg_id: int | None, text: str) -> None:
    await ws.send_json({"type": "error", "id": msg_id, "error": text})


async def _handle(
    ws: WebSocket,
    service: TableService,
    halted: Halted | None,
    role: str,
    text: str,
    recall: Callable[[WebSocket, str, int | None], Awaitable[None]] | None = None,
) -> None:
    try:  # too long, not JSON, too deep or not an object: said so, from the pit's view too
        data = decode_message(text)
    except BadMessage as exc:
        await _error(ws, None, str(exc))
        return
    msg_id = message_id(data)
    if data.get("type") == "recall" and recall is not None:  # (reads; the pit's view may)
        await recall(ws, role, msg_id)
        return
    if role != DEALER:
        await _error(ws, msg_id, "this is the read-only view: it cannot act on the table")
        return
    try:
        command, msg_id = command_of(data)
    except BadMessage as exc:
        await _error(ws, msg_id, str(exc))
        return
    future: Future[CommandReply]
    if halted is not None:
        future = halted.submit(command)
    elif isinstance(command, HaltChoice):
        await _error(ws, msg_id, "the table is running: it is not stopped for a supervisor")
        return
    else:
        future = service.submit(command)
    try:
        reply = await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)
    except TimeoutError:
        await _error(ws, msg_id, "the table did not answer in time")
        return
    await ws.send_json(
        {"type": "result", "id": msg_id, "accepted": reply.accepted, "reason": say(reply.reason)}
    )


async def _send_states(ws: WebSocket, hub: StateHub) -> None:
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def listener() -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(wake.set)

    hub.subscribe(listener)
    seen = -1
    try:
        while True:
            wake.clear()
            version, message = hub.message()
            if version != seen:
                seen = version
                await ws.send_text(message)  # encoded once, on the owner's thread
            try:
                await asyncio.wait_for(wake.wait(), HEARTBEAT_S)
            except TimeoutError:
                # Nothing new: say the table is still here, so that a screen which hears
                # nothing for longer knows it has lost the table (a hung or stopped process
                # keeps its sockets open).
                await ws.send_text(HEARTBEAT)
    finally:
        hub.unsubscribe(listener)


class DisplayServer(ThreadedServer):
    """The web server in a thread of its own. ``start()`` binds (errors raise here)."""

    def __init__(
        self, service: TableService, display: Display, halted: Halted | None = None
    ) -> None:
        super().__init__("display-web", display.host, display.port)
        self.service = service
        self.halted: Halted | None = None
        self.display = display
        self.access = ViewAccess(display.view_token_hash, dealer_uids=display.dealer_uids())
        self.hub = StateHub.attach(service)  # (a service that never opens never publishes)
        if halted is not None:
            self.halt(halted)

    def halt(self, halted: Halted) -> None:
        """Serve a table stopped for a supervisor (before :meth:`start`): the halted state,
        published again after every supervisor's command, and the commands go to ``halted``."""
        self.halted = halted
        hub, table = self.hub, self.service.table

        def publish() -> None:
            hub.publish(halted_state(halted, table))

        halted.on_change = publish
        publish()

    def resume(self) -> None:
        """The supervisor let the table start (a void): the table's own commands and states from
        now on (the service publishes its state once it has opened)."""
        halted, self.halted = self.halted, None
        if halted is not None:
            halted.on_change = lambda: None

    @property
    def scheme(self) -> str:
        return "https" if self.display.tls else "http"

    @property
    def url(self) -> str:
        host = self.display.host
        shown = f"[{host}]" if ":" in host else host
        if host in ("0.0.0.0", "::"):  # noqa: S104 - only a name for the printed address
            shown = "127.0.0.1"
        return f"{self.scheme}://{shown}:{self.port}/"

    def start(self) -> None:
        """Bind (unless :meth:`bind` did) and serve in a thread of its own."""
        self.serve(
            build_app(self.service, self.hub, self.access, lambda: self.halted),
            lifespan="off",
            # a message is a few dozen bytes: one over MAX_MESSAGE_BYTES is answered "too long",
            # one over four times that closes the socket (1009) before it is read whole
            ws_max_size=4 * MAX_MESSAGE_BYTES,
            ssl_certfile=self.display.tls_certfile,
            ssl_keyfile=self.display.tls_keyfile,
            hosts=self.display.hosts,
        )

    def close(self) -> None:
        super().close()
        self.access.close()

    def bind(self) -> None:
        """Take the display's address (an OSError when it is taken), serving nothing yet: a
        start checks it before the table writes its first row."""
        super().bind()
        if not self.display.loopback and not self.display.tls:
            log.warning(
                "the display is served without TLS on a non-loopback address",
                host=self.host,
                port=self.port,
                override="display.allow_insecure_remote",
            )
