"""A web app served by uvicorn on a socket of its own, in a thread of its own: the dealer's
display and the floor page both run this way (bind first, so that a taken address is an error
the caller sees at once; then serve; close stops and joins).

Every request and WebSocket is checked against the server's own names first
(:class:`HostCheck`): a Host header (or a browser's Origin) that is not one of them is refused
before the app sees it, so a page of another site cannot reach the server through DNS
rebinding (its name pointed at this machine's address).

Connections are guarded (:class:`ConnectionGuard`): a request's head and body must arrive
within :data:`REQUEST_HEAD_S` of the connection (or of the previous answer on a kept-alive
one), at most :data:`MAX_WAITING` connections may be waiting for theirs (one more pushes out
the one that waited longest, another machine's before this machine's: a slow client cannot
keep the dealer's page from loading), and at most :func:`connection_cap` may be open, well
below the process's descriptor limit. A socket that is open (the dealer's page) is never
pushed out. If the descriptors run out all the same, the listening socket sheds the waiting
connection with a spare descriptor instead of retrying accept() in a loop
(:class:`GuardedSocket`)."""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import resource
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

import h11
import structlog
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = structlog.get_logger("croupier.web")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::")  # noqa: S104 - names of the bind address, compared only


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` or ``[v6][:port]`` as (lower-case name, port); None if malformed."""
    value = value.strip().lower()
    port_text: str | None = None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                return None
            port_text = rest[1:]
    elif ":" in value:
        name, port_text = value.rsplit(":", 1)
    else:
        name = value
    name = name.rstrip(".")
    if not name:
        return None
    if port_text is None:
        return name, None
    if not port_text.isdigit() or len(port_text) > 5:
        return None
    return name, int(port_text)


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


class AllowedHosts:
    """The names a server answers to: the address it listens on (and, on loopback, localhost,
    127.0.0.1 and ::1; on every interface, any IP address of the machine, which no other site
    can be), and the names its configuration lists; each with the server's port (or none where
    the port is the scheme's default)."""

    def __init__(self, bind_host: str, port: int, names: Iterable[str], *, tls: bool) -> None:
        self.port = port
        self.scheme = "https" if tls else "http"
        bind = "127.0.0.1" if bind_host == "localhost" else bind_host
        bind_ip = _ip(bind)
        self.any_ip = bind in WILDCARDS
        listed = [n.lower().rstrip(".") for n in names]
        if self.any_ip or (bind_ip is not None and bind_ip.is_loopback):
            listed = [*LOOPBACK_NAMES, *listed]
        if not self.any_ip:
            listed.insert(0, bind)
        self.names = frozenset(n for n in listed if _ip(n) is None)
        self.ips = frozenset(ip for ip in map(_ip, listed) if ip is not None)
        self.shown = ", ".join(dict.fromkeys(listed)) + (
            " or any address of this machine" if self.any_ip else ""
        )

    def allows(self, host: str, scheme: str | None = None) -> bool:
        """Whether ``host`` (a Host header's or an Origin's ``name[:port]``) is this server."""
        split = _split_host(host)
        if split is None:
            return False
        name, port = split
        default = 443 if (scheme or self.scheme) == "https" else 80
        if (port if port is not None else default) != self.port:
            return False
        ip = _ip(name)
        if ip is None:
            return name in self.names
        return self.any_ip or ip in self.ips

    def origin_allows(self, origin: str) -> bool:
        """Whether a browser's Origin (``scheme://host[:port]``) is a page of this server."""
        parts = urlsplit(origin)
        if parts.scheme != self.scheme or parts.path or parts.query or not parts.netloc:
            return False
        return self.allows(parts.netloc, parts.scheme)


class HostCheck:
    """ASGI middleware: a request or WebSocket whose Host is not one of :class:`AllowedHosts`,
    or that a browser sent from a page whose Origin is not, is refused (HTTP 400 or 403, a
    WebSocket closed before it opens) before the app sees it."""

    def __init__(self, app: ASGIApp, hosts: AllowedHosts) -> None:
        self.app = app
        self.hosts = hosts
        self.refused = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = list(scope.get("headers") or ())
        hosts = [v for k, v in raw if k == b"host"]
        origins = [v for k, v in raw if k == b"origin"]
        host = hosts[0].decode("latin-1") if len(hosts) == 1 else ""  # one, or refused
        origin = b"null" if len(origins) > 1 else (origins[0] if origins else None)
        refusal: tuple[int, str] | None = None
        if not self.hosts.allows(host):
            refusal = (
                400,
                f"this server answers only to {self.hosts.shown} (port {self.hosts.port}); "
                "another name for it goes in the configuration's hosts list",
            )
        elif (
            origin is not None
            # a form posted from a page sent without a referrer says "null" (Chromium): the
            # Host above is this server's; a socket's Origin must name it
            and not (origin == b"null" and scope["type"] == "http")
            and not self.hosts.origin_allows(origin.decode("latin-1"))
        ):
            refusal = (403, "a page of another site may not use this server")
        if refusal is None:
            await self.app(scope, receive, send)
            return
        self.refused += 1
        if self.refused == 1 or self.refused % 1000 == 0:
            log.warning("a request for another name was refused", refused=self.refused)
        status, why = refusal
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = f"refused: {why}\n".encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


REQUEST_HEAD_S = 10.0  # a request's head (and body) must arrive within this
MAX_WAITING = 64  # connections waiting for their request at once
MAX_CONNECTIONS = 512  # open at once, sockets included (fewer under a low descriptor limit)
BACKLOG = 128  # connections the kernel holds until they are accepted
LOG_EVERY_S = 60.0  # a repeated refusal is logged once a minute at most, with its count


def connection_cap(soft_limit: int | None = None) -> int:
    """The most connections a server keeps open: half the descriptors the process may have
    (the journal, logs, devices and threads keep the rest), at most :data:`MAX_CONNECTIONS`."""
    if soft_limit is None:
        soft_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft_limit == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(8, min(MAX_CONNECTIONS, soft_limit // 2))


def raise_descriptor_limit() -> int:
    """Raise the process's soft descriptor limit to its hard one (systemd's LimitNOFILE, or the
    shell's ulimit -Hn); the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class _Throttled:
    """A warning logged the first time and then at most once per :data:`LOG_EVERY_S`, with how
    many times it happened."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.count = 0
        self._logged = -LOG_EVERY_S

    def happened(self, **fields: Any) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY_S:
            self._logged = now
            log.warning(self.event, times=self.count, **fields)


def _is_loopback(client: tuple[str, int] | None) -> bool:
    ip = _ip(client[0]) if client else None
    return ip is not None and ip.is_loopback


class ConnectionGuard:
    """The connections of one server: who is waiting for a request, and how many are open."""

    def __init__(
        self, cap: int, max_waiting: int = MAX_WAITING, head_s: float = REQUEST_HEAD_S
    ) -> None:
        self.cap = cap
        self.max_waiting = min(max_waiting, max(1, cap // 2))
        self.head_s = head_s
        self.waiting: dict[GuardedH11Protocol, float] = {}  # oldest first
        self.pushed_out = _Throttled("a slow connection was closed to make room for a new one")
        self.refused = _Throttled("a connection was refused: too many open")
        self.timed_out = _Throttled("a connection sent no complete request in time: closed")

    def admit(self, conn: GuardedH11Protocol) -> bool:
        """A new connection (False: refused, too many open)."""
        if len(conn.connections) > self.cap and not self._push_out(conn):
            self.refused.happened(open=len(conn.connections))
            return False
        self.wait(conn)
        if len(self.waiting) > self.max_waiting and not self._push_out(conn):
            self.waiting.pop(conn, None)
            self.refused.happened(waiting=len(self.waiting))
            return False
        return True

    def _push_out(self, newcomer: GuardedH11Protocol) -> bool:
        """Close the connection that has waited longest for its request (another machine's
        first; a remote newcomer never pushes out a local one); False if none may go."""
        others = [c for c in self.waiting if c is not newcomer]
        remote = [c for c in others if not c.local]
        victims = remote or (others if newcomer.local else [])
        if not victims:
            return False
        victim = victims[0]
        self.waiting.pop(victim, None)
        victim.drop()
        self.pushed_out.happened()
        return True

    def wait(self, conn: GuardedH11Protocol) -> None:
        """``conn`` waits for a request (again): its head must come within ``head_s``."""
        self.waiting.pop(conn, None)
        self.waiting[conn] = time.monotonic()
        conn.arm(self.head_s)

    def settle(self, conn: GuardedH11Protocol) -> None:
        """``conn``'s request is in (or it became a socket, or it closed)."""
        self.waiting.pop(conn, None)
        conn.disarm()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol under a :class:`ConnectionGuard` (set per server)."""

    guard: ClassVar[ConnectionGuard]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.local = _is_loopback(self.client)
        self._deadline: asyncio.TimerHandle | None = None
        if not self.guard.admit(self):
            self.drop()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.settle(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.guard.settle(self)  # an open socket is never pushed out
        super().handle_websocket_upgrade(event)

    def _follow(self) -> None:
        """Waiting (again) for a request's head or body, or past it."""
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            self.guard.settle(self)
        elif self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            if self not in self.guard.waiting:
                self.guard.wait(self)
        else:
            self.guard.settle(self)

    def arm(self, seconds: float) -> None:
        self.disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self in self.guard.waiting:
            self.guard.settle(self)
            self.guard.timed_out.happened()
            self.drop()

    def drop(self) -> None:
        self.disarm()
        if not self.transport.is_closing():
            self.transport.abort()


def guarded_protocol(guard: ConnectionGuard) -> type[GuardedH11Protocol]:
    return type("GuardedH11", (GuardedH11Protocol,), {"guard": guard})


class QuietWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, but a text message that is not UTF-8 closes the socket
    (1007, as before) with a warning once a minute, not a traceback per message."""

    invalid = _Throttled("a socket sent a text message that is not UTF-8: closed (1007)")

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                self.invalid.happened()
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()


class GuardedSocket(socket.socket):
    """A listening socket whose accept() never leaves the event loop spinning when the process
    is out of descriptors: it closes a spare descriptor it keeps, takes the waiting connection
    and closes it at once (refused, logged once a minute), and takes the spare back; if even
    that fails, it says EMFILE once and then nothing for a second (asyncio stops reading it for
    that second)."""

    def arm(self) -> None:
        self._spare: int | None = os.open(os.devnull, os.O_RDONLY)
        self._quiet_until = 0.0
        self.shed = _Throttled("out of file descriptors: a new connection was refused")

    def accept(self) -> tuple[socket.socket, Any]:
        if time.monotonic() < self._quiet_until:
            raise BlockingIOError(errno.EAGAIN, "resting after running out of descriptors")
        try:
            return super().accept()
        except OSError as exc:
            if exc.errno not in (errno.EMFILE, errno.ENFILE):
                raise
            if not self._shed():
                self._quiet_until = time.monotonic() + 1.0
                raise
            raise BlockingIOError(errno.EAGAIN, "the connection was refused") from None

    def _shed(self) -> bool:
        if self._spare is None:
            return False
        os.close(self._spare)
        self._spare = None
        shed = False
        try:
            fd, _ = self._accept()  # type: ignore[attr-defined]
            os.close(fd)
            shed = True
        except OSError:
            pass
        try:
            self._spare = os.open(os.devnull, os.O_RDONLY)
        except OSError:
            self._spare = None
        if shed:
            self.shed.happened()
        return shed

    def close(self) -> None:
        spare, self._spare = getattr(self, "_spare", None), None
        if spare is not None:
            os.close(spare)
        super().close()


class ThreadedServer:
    """One uvicorn server in a daemon thread named ``name``, on ``host``:``port`` (0: any
    free port; :attr:`port` is the bound one after :meth:`bind`)."""

    def __init__(self, name: str, host: str, port: int) -> None:
        self.name = name
        self.host = host
        self.port = port
        self.failure: BaseException | None = None  # why the server stopped, if it did
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: GuardedSocket | None = None
        self.guard: ConnectionGuard | None = None
        self.allowed: AllowedHosts | None = None  # the names it answers to, once serving

    @property
    def bound(self) -> bool:
        return self._socket is not None

    def bind(self) -> None:
        """Take the address (an OSError when it is taken), serving nothing yet."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so, and without it
        # Nagle holds a small message for the client's delayed ACK (tens of milliseconds).
        sock = GuardedSocket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.arm()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1" if self.host == "localhost" else self.host, self.port))
            sock.listen(BACKLOG)
        except OSError:
            sock.close()
            raise
        self._socket = sock
        self.port = sock.getsockname()[1]

    def serve(
        self,
        app: Any,
        *,
        lifespan: Literal["on", "off"],
        ws_max_size: int,
        ssl_certfile: str | None,
        ssl_keyfile: str | None,
        hosts: Iterable[str] = (),
    ) -> None:
        """Serve ``app`` on the bound socket (binding first if nobody did) in the thread, to
        requests for this server's own names and ``hosts`` (:class:`HostCheck`)."""
        if self._socket is None:
            self.bind()
        self.allowed = AllowedHosts(self.host, self.port, hosts, tls=ssl_certfile is not None)
        self.guard = ConnectionGuard(connection_cap(raise_descriptor_limit()))
        config = uvicorn.Config(
            HostCheck(app, self.allowed),
            log_config=None,
            log_level="warning",
            access_log=False,
            ws=QuietWebSocket,
            http=guarded_protocol(self.guard),
            # no proxy stands before croupier: a client's X-Forwarded-For or Forwarded is not
            # its address (uvicorn trusts them from 127.0.0.1 by default, so that a local
            # client could name any address to the per-source limits and the attempts log)
            proxy_headers=False,
            backlog=BACKLOG,
            timeout_keep_alive=5,
            loop="asyncio",
            lifespan=lifespan,
            timeout_graceful_shutdown=2,
            ws_ping_interval=None,
            ws_max_size=ws_max_size,  # messages are small: refuse floods early
            ssl_certfile=ssl_certfile,
            ssl_keyfile=ssl_keyfile,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        assert self._server is not None
        assert self._socket is not None
        try:
            self._server.run(sockets=[self._socket])
        except BaseException as exc:  # SystemExit from uvicorn's startup, or a bug
            self.failure = exc
            log.error("a web server stopped", server=self.name, error=repr(exc))

    def wait_started(self, timeout: float = 10.0) -> bool:
        """Whether the server accepts connections (polled; False if it failed or timed out)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._server is not None and self._server.started:
                return True
            if self._thread is None or not self._thread.is_alive():
                return False
            time.sleep(0.01)
        return False

    def close(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
