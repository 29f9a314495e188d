"""A web app served by uvicorn on a socket of its own, in a thread of its own: the dealer's
display and the floor page both run this way (bind first, so that a taken address is an error
the caller sees at once; then serve; close stops and joins)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Literal

import structlog
import uvicorn

log = structlog.get_logger("croupier.web")


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
    ) -> None:
        """Serve ``app`` on the bound socket (binding first if nobody did) in the thread."""
        if self._socket is None:
            self.bind()
        config = uvicorn.Config(
            app,
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
