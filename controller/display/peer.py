"""Which local account a loopback connection comes from: the dealer's screen is a browser of the
table's dealer accounts, not any program of any user on the table's computer.

A connection from 127.0.0.1 proves only that its program runs on this computer: any local
account (``nobody``, a guest, a compromised service) could open the dealer's socket, bet and
press keys. On Linux the kernel lists every TCP socket of this network namespace with the user
id that made it (``/proc/net/tcp`` and ``/proc/net/tcp6``: local address, remote address, uid);
the client's end of a loopback connection is the line whose local address is the client's
address and port and whose remote address is the server's. The display takes the dealer only
from the accounts the table file allows (``[display] dealer_users``, and croupier's own).

When the kernel's list cannot be read, or the connection is not in it (closed meanwhile), the
answer is None: nobody is taken for the dealer (the check fails closed).
"""

from __future__ import annotations

import ipaddress
import pwd
import sys
from collections.abc import Iterable
from pathlib import Path

TCP_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_MAX_TABLE_BYTES = 64 * 1024 * 1024  # a few hundred thousand sockets: more is not the kernel's

Address = tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]


def _address(field: str) -> Address | None:
    """``0100007F:1F90`` (the kernel's words in host order, then the port) as (address, port)."""
    host, _, port = field.partition(":")
    try:
        raw = bytes.fromhex(host)
        number = int(port, 16)
    except ValueError:
        return None
    if len(raw) not in (4, 16):
        return None
    words = b"".join(
        int.from_bytes(raw[i : i + 4], "big").to_bytes(4, sys.byteorder)
        for i in range(0, len(raw), 4)
    )
    address = ipaddress.ip_address(words)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped, number
    return address, number


def _normal(host: str, port: int) -> Address | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped, port
    return address, port


def uid_in(lines: Iterable[str], client: Address, server: Address) -> int | None:
    """The uid on the line of ``lines`` (a kernel TCP table) whose socket is ``client``'s end of
    its connection to ``server``."""
    for line in lines:
        fields = line.split()
        if len(fields) < 8 or fields[0] == "sl":
            continue
        if _address(fields[1]) != client or _address(fields[2]) != server:
            continue
        try:
            return int(fields[7])
        except ValueError:
            return None
    return None


def peer_uid(
    client: tuple[str, int] | None,
    server: tuple[str, int] | None,
    tables: Iterable[Path] = TCP_TABLES,
) -> int | None:
    """The user id of the local program at ``client`` connected to ``server`` (None: not
    known, so not trusted)."""
    if client is None or server is None:
        return None
    ends = _normal(*client), _normal(*server)
    if ends[0] is None or ends[1] is None:
        return None
    for table in tables:
        try:
            with table.open("r", encoding="ascii", errors="replace") as file:
                found = uid_in(_bounded(file), ends[0], ends[1])
        except OSError:
            continue
        if found is not None:
            return found
    return None


def _bounded(lines: Iterable[str]) -> Iterable[str]:
    read = 0
    for line in lines:
        read += len(line)
        if read > _MAX_TABLE_BYTES:
            return
        yield line


def account_name(uid: int) -> str:
    """``name (uid N)``, or ``uid N`` for an id with no account."""
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"
