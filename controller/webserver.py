"""A web app served by uvicorn on a socket of its own, in a thread of its own: the dealer's
display and the floor page both run this way (bind first, so that a taken address is an error
the caller sees at once; then serve; close stops and joins).

Every request and WebSocket is checked against the server's own names first
(:class:`HostCheck`): a Host header (or a browser's Origin) that is not one of them is refused
before the app sees it, so a page of another site cannot reach the server through DNS
rebinding (its name pointed at this machine's address)."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any, Literal
from urllib.parse import urlsplit

import structlog
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

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
        headers = dict(scope.get("headers") or ())
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin")
        refusal: tuple[int, str] | None = None
        if not self.hosts.allows(host):
            refusal = (
                400,
                f"this server answers only to {self.hosts.shown} (port {self.hosts.port}); "
                "another name for it goes in the configuration's hosts list",
            )
        elif origin is not None and not self.hosts.origin_allows(origin.decode("latin-1")):
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
        self._socket: socket.socket | None = None
        self.allowed: AllowedHosts | None = None  # the names it answers to, once serving

    @property
    def bound(self) -> bool:
        return self._socket is not None

    def bind(self) -> None:
        """Take the address (an OSError when it is taken), serving nothing yet."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so, and without it
        # Nagle holds a small message for the client's delayed ACK (tens of milliseconds).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1" if self.host == "localhost" else self.host, self.port))
            sock.listen(64)
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
        config = uvicorn.Config(
            HostCheck(app, self.allowed),
            log_config=None,
            log_level="warning",
            access_log=False,
            ws="websockets-sansio",
            http="h11",
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
