"""A throwaway PostgreSQL cluster in a folder: Debian's ``initdb`` and ``pg_ctl``, loopback only.

For ``croupier floor demo``, the tests and the benchmark; never a system service. The server
listens on a unix socket in the folder and, when a port is given, on 127.0.0.1 only.
PostgreSQL refuses to run as root: when croupier runs as root the cluster runs as the
``postgres`` user (Debian's package makes it), or ``nobody``.

:meth:`Cluster.create` also makes the floor's database and roles with generated passwords
(:class:`Credentials`), migrates it, and :meth:`Cluster.remove` deletes everything.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from controller.floor.errors import FloorError
from controller.floor.logins import TableLogin, login_name, table_login

DATABASE = "croupier"
ADMIN = "croupier_admin"
OWNER = "croupier_owner"
FLOOR_LOGIN = "croupier_floor_login"
START_TIMEOUT_S = 60


def find_bin(name: str) -> Path:
    """A PostgreSQL program: Debian's newest ``/usr/lib/postgresql/N/bin``, else the PATH."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    for folder in reversed(versions):
        if (folder / name).exists():
            return folder / name
    found = shutil.which(name)
    if found is None:
        raise FloorError(
            f"PostgreSQL's {name} is not installed: apt-get install -y postgresql "
            "(only the programs are used; no system service is started)"
        )
    return Path(found)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True)
class Credentials:
    """The generated passwords of a throwaway cluster's roles (``table``: of the table logins
    made by :meth:`Cluster.table_login` without a password of their own; each login is still
    bound to its one table)."""

    admin: str
    owner: str
    table: str
    floor: str


class Cluster:
    """One PostgreSQL server whose data, socket and log live in ``base``."""

    def __init__(
        self,
        base: Path | None = None,
        *,
        port: int | None = None,
        durable: bool = True,
        max_connections: int = 300,
    ) -> None:
        # Its own folder under the system's temporary folder by default: when croupier runs as
        # root, the server's user must be able to reach it (a test's 0700 folder it cannot).
        self.base = base if base is not None else Path(tempfile.mkdtemp(prefix="croupier-pg-"))
        self.data = self.base / "data"
        self.socket_dir = self.base / "socket"
        self.log = self.base / "postgres.log"
        self.port = port if port is not None else free_port()
        self.tcp = port is not None
        self.durable = durable  # fsync on (the benchmark, the demo); off is for tests only
        self.max_connections = max_connections  # one per table, the floor page's, a few spare
        self.credentials = Credentials(*(secrets.token_urlsafe(18) for _ in range(4)))
        self._user = _unprivileged_user()

    # --- connection strings ----------------------------------------------------------------------

    def dsn(self, user: str, *, dbname: str = DATABASE, tcp: bool | None = None) -> str:
        """A libpq connection string without the password (the socket, or loopback TCP)."""
        use_tcp = self.tcp if tcp is None else tcp
        host = "127.0.0.1" if use_tcp else str(self.socket_dir)
        return psycopg.conninfo.make_conninfo(
            host=host, port=self.port, dbname=dbname, user=user, connect_timeout=5
        )

    def conninfo(self, role: str, *, dbname: str = DATABASE) -> str:
        """The connection string of ``role`` ("admin", "owner", "floor") with its password."""
        user = {"admin": ADMIN, "owner": OWNER, "floor": FLOOR_LOGIN}[role]
        password = getattr(self.credentials, role)
        return psycopg.conninfo.make_conninfo(self.dsn(user, dbname=dbname), password=password)

    def table_login(self, table_id: str, password: str | None = None) -> TableLogin:
        """Make ``table_id``'s own login (``table_<id>``, bound to it) if it has none yet, with
        ``password`` (the cluster's table password by default)."""
        with psycopg.connect(self.conninfo("owner")) as db:
            found = db.execute(
                "SELECT login FROM croupier.table_logins WHERE table_id = %s", (table_id,)
            ).fetchone()
        if found is not None and found[0] == login_name(table_id) and password is None:
            return TableLogin(table_id, str(found[0]), self.credentials.table, False, None)
        return table_login(
            self.conninfo("owner"),
            table_id,
            password=password or self.credentials.table,
            new_password=True,
        )

    def table_conninfo(self, table_id: str, password: str | None = None) -> str:
        """The connection string of ``table_id``'s own login (made if need be) with its
        password."""
        made = self.table_login(table_id, password)
        return psycopg.conninfo.make_conninfo(self.dsn(made.login), password=made.password)

    # --- life cycle -------------------------------------------------------------------------------

    def init(self) -> None:
        """initdb into ``base/data`` (scram-sha-256 for every connection)."""
        self.base.mkdir(parents=True, exist_ok=True)
        os.chmod(self.base, 0o711)  # noqa: S103 - the server's user reaches its own folders
        self.socket_dir.mkdir(exist_ok=True)
        self.data.mkdir(mode=0o700, exist_ok=True)
        pwfile = self.base / "admin.pw"
        pwfile.write_text(self.credentials.admin + "\n")
        for path in (self.socket_dir, self.data, pwfile):
            self._own(path)
        self.log.touch()
        self._own(self.log)
        try:
            self._run(
                [
                    str(find_bin("initdb")),
                    "-D",
                    str(self.data),
                    "-U",
                    ADMIN,
                    f"--pwfile={pwfile}",
                    "--auth=scram-sha-256",
                    "--encoding=UTF8",
                    "--locale=C",
                ]
            )
        finally:
            pwfile.unlink(missing_ok=True)
        listen = "127.0.0.1" if self.tcp else ""
        settings = {
            "listen_addresses": f"'{listen}'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.socket_dir}'",
            "max_connections": str(self.max_connections),
            "shared_buffers": "128MB",
            "logging_collector": "off",
            "log_min_messages": "warning",
            "fsync": "on" if self.durable else "off",
            "synchronous_commit": "on" if self.durable else "off",
            "full_page_writes": "on" if self.durable else "off",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n# croupier: a throwaway cluster\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def start(self) -> None:
        self._run(
            [
                str(find_bin("pg_ctl")),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-w",
                "-t",
                str(START_TIMEOUT_S),
                "start",
            ]
        )

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(
                [str(find_bin("pg_ctl")), "-D", str(self.data), "-m", mode, "-w", "stop"],
                check=False,
            )

    @property
    def running(self) -> bool:
        done = self._run(
            [str(find_bin("pg_ctl")), "-D", str(self.data), "status"], check=False, quiet=True
        )
        return done.returncode == 0

    def create(self) -> None:
        """initdb, start, and make the floor's database, roles and schema."""
        self.init()
        self.start()
        self.bootstrap()

    def bootstrap(self, revision: str = "head") -> None:
        """The owner with its database, the schema (migrations), and the floor view's login
        (each table's own login is made by :meth:`table_login`)."""
        from controller.floor.schema import FLOOR_ROLE, migrate  # noqa: PLC0415

        with psycopg.connect(self.conninfo("admin", dbname="postgres"), autocommit=True) as db:
            db.execute(
                sql.SQL("CREATE ROLE {} LOGIN CREATEROLE PASSWORD {}").format(
                    sql.Identifier(OWNER), sql.Literal(self.credentials.owner)
                )
            )
            db.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(DATABASE), sql.Identifier(OWNER)
                )
            )
        migrate(self.conninfo("owner"), revision)
        with psycopg.connect(self.conninfo("owner"), autocommit=True) as db:
            db.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
                    sql.Identifier(FLOOR_LOGIN),
                    sql.Literal(self.credentials.floor),
                    sql.Identifier(FLOOR_ROLE),
                )
            )

    def remove(self) -> None:
        """Stop the server (immediately) and delete the folder."""
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

    # --- helpers ----------------------------------------------------------------------------------

    def _own(self, path: Path) -> None:
        if self._user is not None:
            os.chown(path, self._user.pw_uid, self._user.pw_gid)

    def _run(
        self, argv: list[str], *, check: bool = True, quiet: bool = False
    ) -> subprocess.CompletedProcess[str]:
        user = self._user
        done = subprocess.run(  # noqa: S603 - our own argv of PostgreSQL's programs
            argv,
            capture_output=True,
            text=True,
            check=False,
            user=user.pw_uid if user is not None else None,
            group=user.pw_gid if user is not None else None,
            extra_groups=[] if user is not None else None,
            cwd=self.base,
            timeout=START_TIMEOUT_S + 30,
        )
        if check and done.returncode != 0:
            tail = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise FloorError(
                f"{Path(argv[0]).name} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()}"
                + (f"\n{tail}" if tail and not quiet else "")
            )
        return done


def _unprivileged_user() -> pwd.struct_passwd | None:
    """Who runs the server when croupier runs as root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise FloorError("running as root, and there is no postgres or nobody user to run PostgreSQL")


def wait_until_accepting(conninfo: str, timeout_s: float = 10.0) -> None:
    """Block until a connection with ``conninfo`` succeeds (after a restart)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with psycopg.connect(conninfo, connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
