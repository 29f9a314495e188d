"""``croupier floor serve | report | audit | demo | migrate | table-login | passwd``: the floor.

- ``serve --config floor.toml``: the floor page for the pit, live from PostgreSQL;
- ``report --config floor.toml [--shift T | --from T --to T] [--format text|json|csv|html]
  [--out FILE]``: per table and for the floor;
- ``audit --config floor.toml [--table ID] [--journal PATH ...]``: verify every table's chain
  in PostgreSQL, compare local journals; exit 1 on any finding;
- ``demo --tables N``: a throwaway PostgreSQL in a temporary folder, N demo tables shipping to
  it and the floor page; Ctrl-C removes it all;
- ``migrate --dsn OWNER_DSN [--password-env NAME]``: the floor's schema to the newest version;
- ``table-login TABLE_ID --dsn OWNER_DSN [--password-env NAME] [--login NAME]
  [--new-password] [--password-file FILE]``: a table's own login, bound to its table id (it
  writes, reports and reads that table only), and the ``[floor]`` section for its table file;
- ``passwd NAME``: a ``[[users]]`` entry for the floor file (the password from the terminal).

Exit status 0, 1 for a finding or a failure, 2 for a bad file or option.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import psycopg

from controller.analysis.theo import edges_apart, rate, stop_walks
from controller.cli.run import _on_signals
from controller.cli.scenario import quiet_logs
from controller.floor import retention
from controller.floor.audit import audit_table, compare_local, floor_tables
from controller.floor.cluster import FLOOR_LOGIN, Cluster, free_port
from controller.floor.config import LoadedFloor, load_floor_config
from controller.floor.errors import BadPeriod, FloorError
from controller.floor.export import write_export
from controller.floor.logins import table_login
from controller.floor.ratings import rated_sessions
from controller.floor.report import build_report
from controller.floor.report_page import render
from controller.floor.schema import migrate
from controller.floor.table_rules import rules_sha256
from controller.floor.watch import FloorWatcher
from controller.floor.web import FloorServer, period
from controller.game.errors import ConfigError, CroupierError
from controller.game.rules import VARIANT_IDS, Variant, load_variant
from controller.journal.errors import JournalUnavailable
from controller.table.config import dsn_problem, hash_secret
from controller.table.private import STATE_ENV

DEMO_PASSWORD_ENV = "CROUPIER_FLOOR_PASSWORD"  # noqa: S105 - a variable's name
MIN_PASSWORD = 10


def _fail(text: str, status: int = 1) -> int:
    print(f"croupier floor: {text}", file=sys.stderr)
    return status


def _load(path: str) -> tuple[LoadedFloor, str]:
    floor = load_floor_config(path)
    try:
        conninfo = floor.config.database.conninfo()
    except (ValueError, OSError) as exc:
        raise ConfigError(floor.source, [str(exc)]) from None
    return floor, conninfo


def _connect(conninfo: str, where: str) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(conninfo, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise FloorError(f"cannot reach the floor's database {where}: {exc}".strip()) from None


# --- serve ------------------------------------------------------------------------------------


def serve_command(args: argparse.Namespace) -> int:
    quiet_logs()
    try:
        floor, conninfo = _load(args.config)
    except ConfigError as exc:
        return _fail(str(exc), 2)
    if args.port is not None:
        floor.config = floor.config.model_copy(
            update={"server": floor.config.server.model_copy(update={"port": args.port})}
        )
    stop = threading.Event()
    restore = _on_signals(stop)
    try:

        def ready(url: str, tables: int) -> None:
            where = floor.config.database.where
            print(f"floor: {tables} table{'' if tables == 1 else 's'} on {where}", flush=True)
            print(f"floor page: {url}", flush=True)

        return _serve(floor, conninfo, stop, ready)
    except FloorError as exc:
        return _fail(str(exc))
    finally:
        restore()


EDGE_WAGER_CENTS = 1_000  # the edge is a fraction of the wager: any wager gives the same


class RemainingEdge:
    """The surveillance page's remaining-shoe edge (:data:`controller.floor.edges.EdgeOf`):
    the analysis engine on the cards left of the shoe of the rules the table journalled after
    ``out``, played by the variant's shipped strategy (as ``croupier analyze --quick``: no
    optimum; where no shipped chart validates for the rules, the chart of the shipped variant of
    their id played as is, as ``croupier analyze --set`` does), cached per rules and remaining
    composition (``cache``)."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, tuple[tuple[str, int], ...]], float] = {}
        self._lock = threading.Lock()

    def __call__(self, rules: Variant, out: tuple[str, ...]) -> float:
        from collections import Counter  # noqa: PLC0415

        from controller.analysis.engine import Analysis  # noqa: PLC0415 (numpy: lazy)
        from controller.analysis.parsheet import shipped_strategy  # noqa: PLC0415
        from controller.analysis.shoe import Shoe  # noqa: PLC0415
        from drivers.tbl21.cards import Card, shoe_cards  # noqa: PLC0415

        left = Counter(str(c) for c in shoe_cards(rules.shoe.deck, rules.shoe.decks))
        for card in out:
            if left[card] <= 0:
                raise ValueError(
                    f"the journal shows more {card} out of the shoe than {rules.shoe.decks} "
                    f"deck{'' if rules.shoe.decks == 1 else 's'} of {rules.id} hold"
                )
            left[card] -= 1
        key = (rules_sha256(rules), tuple(sorted((c, n) for c, n in left.items() if n)))
        with self._lock:
            known = self.cache.get(key)
        if known is not None:
            return known
        try:
            # (a custom variant of a shipped id: that id's chart where none validates)
            shipped = load_variant(rules.id) if rules.id in VARIANT_IDS else None
            strategy, _ = shipped_strategy(rules, shipped)
            cards = [Card.parse(c) for c, n in key[1] for _ in range(n)]
            got = Analysis(rules, Shoe.of_cards(cards), EDGE_WAGER_CENTS, strategy).house_edge()
        except (CroupierError, ValueError) as exc:
            raise ValueError(f"the analysis engine cannot work out this shoe: {exc}") from None
        with self._lock:
            self.cache[key] = got
        return got


def _serve(
    floor: LoadedFloor,
    conninfo: str,
    stop: threading.Event,
    ready: Any,
    warm: Sequence[str] = (),
) -> int:
    """Serve the floor page until ``stop``; ``warm``: the variants whose theo edges are worked
    out at once (in the ratings' thread), so that the first rating does not wait for them."""
    config = floor.config
    watcher = FloorWatcher(conninfo, config.shifts.shifts(), config.alerts.watch())
    try:
        watcher.start()
    except psycopg.Error as exc:
        raise FloorError(
            f"cannot watch the floor's database {config.database.where}: {exc}".strip()
        ) from None
    # the server lives long: a variant's edges are walked in a child process (its memory goes
    # with it), then read from the cache
    server = FloorServer(
        floor,
        watcher.hub,
        conninfo,
        rater=partial(rate, edges_of=edges_apart),
        edge_of=RemainingEdge(),
    )
    for variant in warm:
        server.rating.submit(edges_apart, load_variant(variant))
    try:
        try:
            server.start()
        except OSError as exc:
            raise FloorError(
                f"cannot serve the floor page on {config.server.host}:{server.port}: "
                f"{exc.strerror or exc} (set [server] port or use --port)"
            ) from None
        except psycopg.Error as exc:
            raise FloorError(f"cannot open the floor's database pool: {exc}") from None
        if not server.wait_started():
            raise FloorError("the floor page did not start")
        ready(server.url, len(watcher.views))
        while not stop.is_set():
            stop.wait(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        stop_walks()  # a variant's edges still being walked for the ratings
        watcher.close()
    print("floor page stopped", flush=True)
    return 0


# --- report -----------------------------------------------------------------------------------


def report_command(args: argparse.Namespace) -> int:
    quiet_logs()
    try:
        floor, conninfo = _load(args.config)
    except ConfigError as exc:
        return _fail(str(exc), 2)
    shifts = floor.config.shifts.shifts()
    query = {k: v for k, v in (("shift", args.shift), ("from", args.start), ("to", args.end)) if v}
    if "shift" in query and len(query) > 1:
        return _fail("give --shift or --from/--to, not both", 2)
    try:
        start, end = period(query, shifts, datetime.now(UTC))
    except BadPeriod as exc:
        return _fail(f"bad period: {exc}", 2)
    try:
        with _connect(conninfo, floor.config.database.where) as db:
            made = build_report(db, start, end)
            if not args.no_ratings:
                made.ratings = rate(rated_sessions(db, start, end))
    except FloorError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"the report's query failed: {exc}")
    render_as: dict[str, Callable[[], str]] = {
        "text": lambda: made.text() + "\n",
        "json": lambda: json.dumps(made.as_json(), indent=2) + "\n",
        "csv": made.csv,
        "html": lambda: render(made),
    }
    text = render_as[args.format]()
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as exc:
            return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
        print(f"report written to {args.out}")
    else:
        sys.stdout.write(text)
    return 0


# --- audit ------------------------------------------------------------------------------------


def audit_command(args: argparse.Namespace) -> int:
    quiet_logs()
    try:
        floor, conninfo = _load(args.config)
    except ConfigError as exc:
        return _fail(str(exc), 2)
    if args.action == "export":
        return _export(args, floor, conninfo)
    for path in args.journal:
        if not path.exists():
            return _fail(f"there is no journal at {path}", 2)
    findings = 0
    try:
        with _connect(conninfo, floor.config.database.where) as db:
            wanted = args.table or floor_tables(db)
            for table_id in wanted:
                result = audit_table(db, table_id)
                print(("ok    " if result.ok and result.rows else "FAIL  ") + result.describe())
                findings += not result.ok or result.rows == 0
            for path in args.journal:
                compared = compare_local(db, path)
                print(("ok    " if compared.ok else "FAIL  ") + compared.describe())
                findings += not compared.ok
    except FloorError as exc:
        return _fail(str(exc))
    except JournalUnavailable as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"the audit's query failed: {exc}")
    print(
        f"\n{findings} finding{'' if findings == 1 else 's'}"
        + (": keep the rows for investigation and call surveillance" if findings else "")
    )
    return 1 if findings else 0


def _export(args: argparse.Namespace, floor: LoadedFloor, conninfo: str) -> int:
    """``floor audit export``: one table's rows of a period, with their chain, to a file."""
    missing = [
        option
        for option, value in (("--from", args.start), ("--to", args.end), ("--out", args.out))
        if value is None
    ]
    if len(args.table) != 1 or missing:
        what = ", ".join(([] if len(args.table) == 1 else ["one --table"]) + missing)
        return _fail(f"floor audit export needs {what}", 2)
    if args.end <= args.start:
        return _fail(f"--to {args.end:%Y-%m-%d %H:%M} is not after --from", 2)
    if args.journal:
        return _fail("floor audit export exports the floor's rows: leave out --journal", 2)
    out: Path = args.out
    temp = out.with_name(f".{out.name}.tmp")
    try:
        with (
            _connect(conninfo, floor.config.database.where) as db,
            temp.open("w", encoding="utf-8") as handle,
        ):
            os.chmod(temp, 0o600)
            rows = write_export(db, args.table[0], args.start, args.end, handle)
        temp.replace(out)
    except FloorError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"the export's query failed: {exc}")
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror or exc}", 2)
    finally:
        temp.unlink(missing_ok=True)
    print(
        f"{rows:,} rows of table {args.table[0]} written to {out}; check it with: "
        f"croupier audit verify --export {out}"
    )
    return 0


# --- migrate, passwd --------------------------------------------------------------------------


def _owner_conninfo(args: argparse.Namespace) -> str:
    """``--dsn`` with the password from ``--password-env``; FloorError (never echoing the
    string, which may hold a secret) when it is not a connection string or holds a password."""
    problem = dsn_problem(args.dsn)
    if problem is not None and problem[0].startswith("is not"):
        raise FloorError(f"--dsn {problem[0]}; {problem[1]}")
    if problem is not None:
        raise FloorError(
            f"--dsn {problem[0].split(':')[0]}, which any user of this computer can read on a "
            "command line; take it out and name --password-env NAME, the environment variable "
            "with the owner's password"
        )
    if not args.password_env:
        return str(args.dsn)
    secret = os.environ.get(args.password_env)
    if not secret:
        raise FloorError(f"the environment variable {args.password_env} is not set")
    return psycopg.conninfo.make_conninfo(args.dsn, password=secret)


def migrate_command(args: argparse.Namespace) -> int:
    try:
        conninfo = _owner_conninfo(args)
    except FloorError as exc:
        return _fail(str(exc), 2)
    try:
        revision = migrate(conninfo)
    except FloorError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"cannot migrate: {exc}")
    print(f"the floor's database is at revision {revision}")
    return 0


def prune_command(args: argparse.Namespace) -> int:
    """``floor prune``: the months older than the retention, dropped by the owner."""
    try:
        floor, _ = _load(args.config)
        conninfo = _owner_conninfo(args)
    except ConfigError as exc:
        return _fail(str(exc), 2)
    except FloorError as exc:
        return _fail(str(exc), 2)
    years = floor.config.retention.years
    before = retention.cutoff(years)
    try:
        with _connect(conninfo, "the floor's database (as its owner)") as db:
            months = retention.old_months(db, before)
            if not months:
                print(f"nothing to drop: no month is older than {years} years ({before:%Y-%m-%d})")
                return 0
            names = ", ".join(f"{m.start:%Y-%m} ({m.rows:,} rows)" for m in months)
            if args.dry_run:
                print(f"would drop {len(months)} months older than {years} years: {names}")
                return 0
            rows = retention.drop_months(db, months)
    except FloorError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"cannot prune: {exc}")
    print(f"dropped {len(months)} months older than {years} years ({rows:,} rows): {names}")
    return 0


def table_login_command(args: argparse.Namespace) -> int:
    try:
        conninfo = _owner_conninfo(args)
    except FloorError as exc:
        return _fail(str(exc), 2)
    out: Path | None = args.password_file
    if out is not None and (out.exists() or out.is_symlink()):
        return _fail(f"{out} exists already: name a new file for the password", 2)
    try:
        made = table_login(
            conninfo, args.table_id, login=args.login, new_password=args.new_password
        )
    except FloorError as exc:
        return _fail(str(exc))
    except psycopg.Error as exc:
        return _fail(f"cannot make the login: {exc}")
    parts = {
        k: v
        for k, v in psycopg.conninfo.conninfo_to_dict(args.dsn).items()
        if k not in ("user", "password")
    }
    dsn = psycopg.conninfo.make_conninfo("", **{**parts, "user": made.login})
    print(
        f"table {made.table_id} writes the floor as the login {made.login}"
        + (" (a new login)" if made.made else "")
    )
    if made.was is not None:
        print(f"the login {made.was} no longer writes table {made.table_id}")
    where = f'password_env = "{DEMO_PASSWORD_ENV}"'
    if made.password is not None and out is not None:
        try:
            _write_secret(out, made.password)
        except OSError as exc:
            print(f"the password is: {made.password}")
            return _fail(f"cannot write {out}: {exc.strerror or exc}; the password is above")
        where = f'password_file = "{out}"'
    print(f"# in table {made.table_id}'s table file")
    print(f'[floor]\ndsn = "{dsn}"\n{where}')
    if made.password is None:
        print("# the login keeps its password (--new-password gives it a new one)")
    elif out is None:
        print(f"# its password, shown once: give it to the table's croupier in {DEMO_PASSWORD_ENV}")
        print(made.password)
    else:
        print(f"# its password is in {out} (mode 600): keep it beside the table file")
    return 0


def _write_secret(path: Path, secret: str) -> None:
    """A new file only croupier's user can read (never through a symlink, never truncating)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secret + "\n")


def passwd_command(args: argparse.Namespace) -> int:
    name = args.name
    if not (
        name[:1].isalnum() and all(c.isalnum() or c in "_.-" for c in name) and len(name) <= 40
    ):
        return _fail("a name is 1-40 letters, digits, _ . or -, starting with a letter or digit", 2)
    if sys.stdin.isatty():
        first = getpass.getpass(f"password for {name} (at least {MIN_PASSWORD} characters): ")
        if getpass.getpass("again: ") != first:
            return _fail("the two entries differ")
    else:
        first = sys.stdin.readline().rstrip("\n")
    if len(first) < MIN_PASSWORD:
        return _fail(f"a password is at least {MIN_PASSWORD} characters", 2)
    print("# in the floor file")
    print(f'[[users]]\nname = "{name}"\nsecret_hash = "{hash_secret(first)}"')
    return 0


# --- demo -------------------------------------------------------------------------------------


def demo_command(args: argparse.Namespace) -> int:
    quiet_logs()
    if not 1 <= args.tables <= 50:
        return _fail(f"--tables must be 1-50, got {args.tables}", 2)
    if not 0 <= args.pace <= 10:
        return _fail(f"--pace must be 0-10 seconds, got {args.pace}", 2)
    stop = threading.Event()
    restore = _on_signals(stop)
    folder = Path(tempfile.mkdtemp(prefix="croupier-floor-demo-"))
    cluster = Cluster(port=free_port())
    tables: list[subprocess.Popen[bytes]] = []
    try:
        print(f"floor demo: PostgreSQL in {cluster.base} (127.0.0.1:{cluster.port})", flush=True)
        cluster.create()
        journals: list[Path] = []
        # The demo's tables keep their state (where each table id's journal is) in the demo's
        # folder: a throwaway table leaves nothing in the user's, and the next demo's demo-1,
        # with a journal elsewhere, is not refused as a table whose journal moved.
        env = {**os.environ, STATE_ENV: str(folder / "state")}
        for n in range(1, args.tables + 1):
            own = cluster.table_login(f"demo-{n}", password=secrets.token_urlsafe(18))
            secret = folder / f"table-{n}-floor.secret"
            _write_secret(secret, own.password or "")
            table_file = _demo_table_file(folder, n, cluster, own.login, secret)
            journals.append(folder / f"journal-{n}.sqlite3")
            log = (folder / f"table-{n}.out").open("wb")
            tables.append(
                subprocess.Popen(  # noqa: S603 - this croupier, our own arguments
                    [
                        sys.executable,
                        "-m",
                        "controller.cli",
                        "run",
                        "--demo",
                        "--config",
                        str(table_file),
                        "--pace",
                        str(args.pace),
                        "--seed",
                        str(n),
                        *_demo_counter_args(n),
                        "--rated",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    cwd=folder,
                    env=env,
                )
            )
            log.close()
        password = f"pit-{os.urandom(6).hex()}"
        watch_password = f"watch-{os.urandom(6).hex()}"
        # The floor role's password in a file only this user may read (the folder is 0700
        # too), named by the floor file: the report and audit lines printed below work as they
        # are, with no secret on a command line (which every user of the computer can read).
        floor_secret = folder / "floor-db.secret"
        _write_secret(floor_secret, cluster.credentials.floor)
        floor_file = folder / "floor.toml"
        floor_file.write_text(
            f'[database]\ndsn = "{cluster.dsn(FLOOR_LOGIN, tcp=True)}"\n'
            f'password_file = "{floor_secret}"\n\n'
            f"[server]\nport = {args.port}\n\n"
            f'[access]\nattempts_log = "{folder / "floor-access.jsonl"}"\n\n'
            f'[[users]]\nname = "pit"\nsecret_hash = "{hash_secret(password)}"\n\n'
            f'[[users]]\nname = "watch"\nsecret_hash = "{hash_secret(watch_password)}"\n'
            'role = "surveillance"\n\n'
            "[alerts]\nrecheck_minutes = 1\n"
        )
        floor, conninfo = _load(str(floor_file))

        def ready(url: str, _shipped: int) -> None:  # the demo's tables have not shipped yet
            tables_ = f"{args.tables} demo table" + ("" if args.tables == 1 else "s")
            print(f"{tables_} dealing (logs in {folder})", flush=True)
            print(f"floor page: {url}  (sign in as pit, password {password})", flush=True)
            print(
                f"surveillance: {url}surveillance  (sign in as watch, password "
                f"{watch_password}; demo-1's box 3 is a card counter)",
                flush=True,
            )
            print(
                f"floor file: {floor_file} (its database password: {floor_secret}, mode 600)",
                flush=True,
            )
            report = _demo_command("report", floor_file)
            print(f"report: {report} --no-ratings", flush=True)
            print(
                f"ratings: {report}  (the rated players' theo; the first time, up to a minute "
                "per variant while its edges are worked out, then cached; the floor page's "
                "ratings button too)",
                flush=True,
            )
            print(f"audit: {_demo_command('audit', floor_file, journals)}", flush=True)
            print("Ctrl-C stops the tables and removes the database and every file", flush=True)

        variants = sorted({_demo_variant(n) for n in range(1, args.tables + 1)})
        return _serve(floor, conninfo, stop, ready, warm=variants)
    except (FloorError, ConfigError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 0
    finally:
        for process in tables:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in tables:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        cluster.remove()
        shutil.rmtree(folder, ignore_errors=True)
        restore()
        print("floor demo removed: tables stopped, database and files deleted", flush=True)


def _demo_counter_args(n: int) -> list[str]:
    """The demo's card counter (controller/play/counter.py) sits at the first table only."""
    return ["--demo-counter"] if n == 1 else []


def _demo_command(command: str, floor_file: Path, journals: Sequence[Path] = ()) -> str:
    """A ``croupier floor`` command line for the demo's floor file, ready to paste: the program
    as it was started (``.venv/bin/croupier``, or this Python with ``-m controller.cli``)."""
    started = Path(sys.argv[0])
    if started.name == "croupier" and started.exists():
        program = shlex.quote(str(started))
    else:
        program = f"{shlex.quote(sys.executable)} -m controller.cli"
    words = ["floor", command, "--config", str(floor_file)]
    for journal in journals:
        words += ["--journal", str(journal)]
    return f"{program} {shlex.join(words)}"


def _demo_variant(n: int) -> str:
    """The variant demo table ``n`` deals (each in turn)."""
    return VARIANT_IDS[(n - 1) % len(VARIANT_IDS)]


def _demo_table_file(folder: Path, n: int, cluster: Cluster, login: str, secret: Path) -> Path:
    variant = _demo_variant(n)
    path = folder / f"table-{n}.toml"
    path.write_text(
        f'table_id = "demo-{n}"\nvariant = "{variant}"\nboxes = [1, 2, 3]\n\n'
        f"[display]\nport = 0\n\n"
        f'[journal]\npath = "{folder / f"journal-{n}.sqlite3"}"\n\n'
        f'[logs]\naudit = "{folder / f"audit-{n}.jsonl"}"\n'
        f'debug = "{folder / f"debug-{n}.log"}"\n\n'
        f'[floor]\ndsn = "{cluster.dsn(login, tcp=True)}"\n'
        f'password_file = "{secret}"\n'
    )
    return path
