"""The web servers' listening socket when the process is out of descriptors (issue 21.10):
asyncio's accept() of a plain socket logs "socket.accept() out of system resource" and retries
in a loop (tens of thousands of lines in a minute). :class:`GuardedSocket` sheds the waiting
connection with its spare descriptor instead: nothing is logged per connection, the loop does
not spin, and connections are taken again once descriptors are free."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import asyncio, json, os, resource, socket, sys, time
    import structlog
    from controller.webserver import GuardedSocket

    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))

    errors = []
    accepted = []

    class Quiet(asyncio.Protocol):
        def connection_made(self, transport):
            accepted.append(1)
            self.transport = transport

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda loop, context: errors.append(context["message"]))
        sock = GuardedSocket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.arm()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        server = await loop.create_server(Quiet, sock=sock, backlog=128)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        used = len(os.listdir("/proc/self/fd"))
        resource.setrlimit(resource.RLIMIT_NOFILE, (used + 4, hard))  # a few to spare
        print(sock.getsockname()[1], flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)  # the test has connected
        cpu = time.process_time()
        await asyncio.sleep(2.0)
        busy = (time.process_time() - cpu) / 2.0
        first = len(accepted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        print(json.dumps({"accepted": first, "busy": busy, "errors": len(errors),
                          "shed": sock.shed.count}), flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)  # the test connected again
        await asyncio.sleep(0.5)
        print(json.dumps({"accepted": len(accepted) - first}), flush=True)
        server.close()

    asyncio.run(main())
    """
)


def test_a_server_out_of_descriptors_sheds_connections_without_spinning_or_logging_each() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdin is not None
        assert child.stdout is not None
        port = int(child.stdout.readline())
        clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(40)]
        time.sleep(0.5)
        child.stdin.write("\n")
        child.stdin.flush()
        starved = json.loads(child.stdout.readline())
        later = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(3)]
        child.stdin.write("\n")
        child.stdin.flush()
        again = json.loads(child.stdout.readline())
        for sock in clients + later:
            sock.close()
        child.stdin.close()
        assert child.wait(10) == 0
        assert child.stderr is not None
        logged = child.stderr.read()
    assert logged.count("out of file descriptors: a new connection was refused") == 1, logged
    assert starved["accepted"] <= 5  # what the descriptors left allowed
    assert starved["shed"] >= 30  # the others were refused at once, one by one
    assert starved["errors"] <= 2  # not an "out of system resource" per attempt
    assert starved["busy"] < 0.3, starved  # the loop slept
    assert again["accepted"] == 3  # descriptors free again: connections are taken
