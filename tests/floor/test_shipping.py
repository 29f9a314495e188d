"""A table's journal reaches the floor's PostgreSQL exactly once, in order, whatever happens to
the table or to the server, and never holds the table up."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pytest_mock import MockerFixture

from controller.display.hub import StateHub
from controller.floor.audit import audit_table, compare_local
from controller.floor.check import floor_check
from controller.floor.cluster import Cluster, free_port, wait_until_accepting
from controller.floor.shipper import Shipper
from controller.journal.errors import JournalUnavailable
from controller.journal.store import Journal, parse_ts
from controller.service.service import TableService
from controller.table.config import load_table_config
from tests.floor.conftest import (
    PASSWORD_ENV,
    as_tuple,
    demo,
    drained,
    floor_rows,
    link,
    local_rows,
    rounds_done,
    table,
    table_dsn,
    table_id,
    wait_until,
)
from tests.live_pins import live_pin_sections

REPO = Path(__file__).resolve().parents[2]


def test_every_row_arrives_exactly_once_in_order_and_the_chain_verifies(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("once")
    loaded = table(tmp_path, tid)
    with (
        TableService(loaded, actors=demo()) as service,
        Shipper(loaded.journal_path, tid, link(cluster, tid, batch_rows=37)) as shipper,
    ):
        wait_until(lambda: rounds_done(service) >= 4, "four rounds dealt")
        service.close()  # the table stops; the shipper goes on until the floor has it all
        wait_until(lambda: drained(shipper, loaded.journal_path), "the backlog drained")
        assert shipper.health().status == "connected"
        assert shipper.backlog().rows == 0
        assert shipper.batches > 1  # small batches: many of them
    mine = [as_tuple(r) for r in local_rows(loaded.journal_path)]
    assert floor_rows(cluster, tid) == mine
    with psycopg.connect(cluster.conninfo("floor")) as db:
        audit = audit_table(db, tid)
        assert audit.ok
        assert audit.rows == len(mine)
        assert audit.first_seq == 1
        assert compare_local(db, loaded.journal_path).ok


def _table_file(
    tmp: Path, tid: str, cluster: Cluster, batch_rows: int, *, dsn: str = "", live: bool = False
) -> Path:
    """A table file shipping to the floor (``dsn``: another [floor] dsn); ``live``: with PINs
    of its own, for a start without ``--demo`` (the dealer's hands on stdin)."""
    path = tmp / f"{tid}.toml"
    path.write_text(
        f'table_id = "{tid}"\nboxes = [1, 2, 3]\n\n[display]\nport = 0\n\n'
        f'[journal]\npath = "{tmp / "journal.sqlite3"}"\n\n'
        f'[logs]\naudit = "{tmp / "audit.jsonl"}"\ndebug = "{tmp / "debug.log"}"\n\n'
        f'[floor]\ndsn = "{dsn or table_dsn(cluster, tid)}"\npassword_env = "{PASSWORD_ENV}"\n'
        f"batch_rows = {batch_rows}\npoll_ms = 20\nconnect_timeout_s = 2\n"
        + (live_pin_sections(tmp) if live else "")
    )
    path.chmod(0o600)
    return path


def _run(table_file: Path, *extra: str, demo: bool = True) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "run",
            *(("--demo", "--pace", "0") if demo else ()),
            "--config",
            str(table_file),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL if demo else subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ},
    )


def _head(cluster: Cluster, tid: str) -> int:
    """The last row of table ``tid`` the floor holds (0: none)."""
    with psycopg.connect(cluster.conninfo("owner")) as db:
        row = db.execute("SELECT seq FROM croupier.tables WHERE table_id = %s", (tid,)).fetchone()
    return 0 if row is None else int(row[0])


def _ended(process: subprocess.Popen[str], stop: Callable[[], None] | None = None) -> str:
    """The table's output once it ended (status 0), stopped as ``stop`` does."""
    try:
        if stop is not None:
            stop()
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, out
    return out


def _a_round_in(journal: Path) -> bool:
    try:
        return any(r.kind == "round_end" for r in local_rows(journal))
    except JournalUnavailable:  # not made yet, or made but not set up yet
        return False


def _sigterm(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)


def _quit(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.write("q\n")
    process.stdin.flush()


@pytest.mark.parametrize("how", ["SIGTERM", "q"])
def test_a_clean_stop_ships_its_last_rows_and_says_so(
    cluster: Cluster, tmp_path: Path, how: str
) -> None:
    tid = table_id("stop")
    live = how == "q"  # q: the dealer's hands on stdin, a table with PINs of its own
    table_file = _table_file(tmp_path, tid, cluster, batch_rows=500, live=live)
    process = _run(table_file, demo=not live)
    wait_until(lambda: _head(cluster, tid) > 0, "the first rows on the floor")
    out = _ended(process, partial(_sigterm if how == "SIGTERM" else _quit, process))
    journal = tmp_path / "journal.sqlite3"
    last = local_rows(journal)[-1]
    assert last.kind == "stop"
    assert f"floor: every row shipped to the floor (up to row {last.seq:,})" in out
    assert _head(cluster, tid) == last.seq
    with psycopg.connect(cluster.conninfo("floor")) as db:
        compared = compare_local(db, journal)
    assert compared.ok
    assert compared.not_shipped == 0, compared.describe()
    settings = load_table_config(table_file).config.floor
    assert settings is not None
    assert floor_check(journal, tid, settings).detail.endswith(f"up to date (row {last.seq:,})")


def test_a_clean_stop_that_cannot_reach_the_floor_says_what_waits_in_the_journal(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("nofloor")
    nobody = f"host=127.0.0.1 port={free_port()} dbname=croupier user=table_{tid}"
    table_file = _table_file(tmp_path, tid, cluster, batch_rows=500, dsn=nobody)
    process = _run(table_file)
    journal = tmp_path / "journal.sqlite3"
    wait_until(partial(_a_round_in, journal), "a round dealt")
    asked = time.monotonic()
    out = _ended(process, partial(_sigterm, process))
    assert time.monotonic() - asked < 30  # bounded: it does not wait for the floor forever
    assert "warning: floor: the floor was not reached before the stop (floor unreachable (" in out
    assert "the journal's rows wait there and ship at the next start" in out


def test_a_table_killed_with_a_batch_in_flight_restarts_without_gap_or_duplicate(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("kill")
    table_file = _table_file(tmp_path, tid, cluster, batch_rows=50)
    first = _run(table_file)
    try:
        with psycopg.connect(cluster.conninfo("owner")) as db:

            def shipped() -> int:
                row = db.execute(
                    "SELECT seq FROM croupier.tables WHERE table_id = %s", (tid,)
                ).fetchone()
                db.commit()
                return 0 if row is None else int(row[0])

            wait_until(lambda: shipped() >= 200, "the first rows on the floor")
            # Hold the table's head: its next batch is written, then waits in the trigger.
            db.execute("SELECT 1 FROM croupier.tables WHERE table_id = %s FOR UPDATE", (tid,))
            with psycopg.connect(cluster.conninfo("admin")) as watch:

                def waiting() -> bool:
                    found = watch.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
                        "AND wait_event_type = 'Lock' "
                        "AND query LIKE '%%INSERT INTO croupier.journal_rows%%'",
                        (f"croupier-shipper {tid}",),
                    ).fetchone()
                    watch.commit()
                    return found is not None and int(found[0]) == 1

                wait_until(waiting, "a batch in flight, waiting on the floor")
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=10)
                held_before = shipped()
            db.rollback()  # the killed batch's transaction dies with its connection
            wait_until_accepting(cluster.conninfo("owner"))
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        assert first.stdout is not None
        first.stdout.close()
    _ended(_run(table_file, "--rounds", "3"))
    journal = tmp_path / "journal.sqlite3"
    mine = [as_tuple(r) for r in local_rows(journal)]
    wait_until(lambda: len(floor_rows(cluster, tid)) >= held_before, "rows again")
    with psycopg.connect(cluster.conninfo("floor")) as db:
        compared = compare_local(db, journal)
    # the restarted table stops cleanly after its rounds, and ships all it wrote first
    assert compared.ok, compared.describe()
    assert compared.not_shipped == 0, compared.describe()
    on_floor = floor_rows(cluster, tid)
    assert on_floor == mine
    assert [r[0] for r in on_floor] == list(range(1, len(on_floor) + 1))
    assert len(on_floor) > held_before


def test_the_table_deals_on_while_postgresql_is_down_and_the_backlog_drains(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("down")
    loaded = table(tmp_path, tid)
    settings = link(cluster, tid, batch_rows=200, connect_timeout_s=2)
    with (
        TableService(loaded, actors=demo(pace_s=0.002)) as service,
        Shipper(loaded.journal_path, tid, settings) as shipper,
    ):
        wait_until(lambda: rounds_done(service) >= 2, "two rounds with the floor up")
        wait_until(lambda: shipper.backlog().rows == 0, "shipping caught up")
        cluster.stop("fast")
        try:
            before = rounds_done(service)
            down_since = time.time()
            wait_until(lambda: shipper.health().status == "lost", "the shipper sees it lost")
            last_shipped = shipper.backlog().shipped_seq
            assert last_shipped is not None

            def rounds_behind() -> int:
                """Whole rounds among the rows the shipper counts behind the floor."""
                upto = shipper.backlog().local_seq
                return sum(
                    1
                    for r in local_rows(loaded.journal_path)
                    if r.kind == "round_end" and last_shipped < r.seq <= upto
                )

            wait_until(lambda: rounds_done(service) >= before + 3, "three rounds dealt down")
            wait_until(lambda: rounds_behind() >= 3, "three rounds counted behind")
            behind = shipper.backlog()
            # Nothing reached the floor while it was down, and every row written since is
            # counted behind (how many rows a round takes varies with the cards).
            assert behind.shipped_seq == last_shipped
            assert behind.rows == behind.local_seq - last_shipped > 0
            assert "rows behind" in shipper.health().detail
        finally:
            cluster.start()
        wait_until(lambda: shipper.health().status == "connected", "reconnected")
        service.close()
        wait_until(lambda: drained(shipper, loaded.journal_path), "the backlog drained")
    rows = local_rows(loaded.journal_path)
    assert floor_rows(cluster, tid) == [as_tuple(r) for r in rows]
    # The table never waited for the server: while it was down, every card drawn was answered
    # by the table's next row as quickly as ever (a wait on PostgreSQL would be seconds).
    gaps = [
        (parse_ts(b.ts) - parse_ts(a.ts)).total_seconds()
        for a, b in itertools.pairwise(rows)
        if a.kind == "device_event"
        and a.payload.get("type") == "CardDrawn"
        and parse_ts(a.ts).timestamp() > down_since
    ]
    assert len(gaps) > 10
    assert max(gaps) < 1.0


def test_a_second_journal_with_the_same_table_id_is_refused(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("twin")
    one = table(tmp_path / "one", tid)
    two = table(tmp_path / "two", tid)
    with TableService(one, actors=demo()) as service:
        wait_until(lambda: rounds_done(service) >= 1, "a round at the first table")
    with TableService(two, actors=demo(seed=9)) as service:
        wait_until(lambda: rounds_done(service) >= 2, "rounds at the second table")
    with Shipper(one.journal_path, tid, link(cluster, tid)) as first:
        wait_until(lambda: drained(first, one.journal_path), "the first table shipped")
    with (
        Shipper(two.journal_path, tid, link(cluster, tid)) as second,
        psycopg.connect(cluster.conninfo("floor"), autocommit=True) as db,
    ):
        wait_until(lambda: second.health().status == "refused", "the twin refused")
        assert "another journal ships as table" in second.health().detail

        def floor_told() -> bool:
            found = db.execute(
                "SELECT status, problem FROM croupier.shippers WHERE table_id = %s", (tid,)
            ).fetchone()
            return found is not None and found[0] == "refused" and "another journal" in found[1]

        wait_until(floor_told, "the floor told why the twin does not ship")
    assert floor_rows(cluster, tid) == [as_tuple(r) for r in local_rows(one.journal_path)]


def _at_least(service: TableService, rounds: int) -> bool:
    return rounds_done(service) >= rounds


def test_two_journals_shipping_as_one_table_at_once_leave_the_floor_with_one_chain(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("race")
    one = table(tmp_path / "one", tid)
    two = table(tmp_path / "two", tid)
    for loaded, seed in ((one, 3), (two, 4)):
        with TableService(loaded, actors=demo(seed=seed)) as service:
            wait_until(partial(_at_least, service, 2), "two rounds")
    with (
        Shipper(one.journal_path, tid, link(cluster, tid, batch_rows=20)) as a,
        Shipper(two.journal_path, tid, link(cluster, tid, batch_rows=20)) as b,
    ):
        wait_until(
            lambda: {a.health().status, b.health().status} == {"connected", "refused"},
            "one ships, the other is refused",
        )
        winner = one if a.health().status == "connected" else two
    on_floor = floor_rows(cluster, tid)
    assert on_floor == [as_tuple(r) for r in local_rows(winner.journal_path)][: len(on_floor)]
    with psycopg.connect(cluster.conninfo("floor")) as db:
        assert audit_table(db, tid).ok


def test_a_missing_password_is_shown_as_refused_with_what_to_do(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("nopw")
    loaded = table(tmp_path, tid)
    Journal.open(loaded.journal_path, table_id=tid).close()
    settings = link(cluster, tid).model_copy(
        update={"password_env": "CROUPIER_TEST_UNSET_PASSWORD"}
    )
    with Shipper(loaded.journal_path, tid, settings) as shipper:
        wait_until(lambda: shipper.health().status == "refused", "refused")
        assert "CROUPIER_TEST_UNSET_PASSWORD" in shipper.health().detail
        assert shipper.health().role == "floor"


def test_the_shipping_shows_on_the_dealers_device_strip_as_it_goes(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("strip")
    loaded = table(tmp_path, tid)
    shipper = Shipper(loaded.journal_path, tid, link(cluster, tid))
    service = TableService(loaded, actors=demo(pace_s=0.01), monitors=[shipper])
    hub = StateHub.attach(service)
    with service:

        def floor_device() -> dict[str, Any]:
            found = [d for d in hub.state().get("devices", []) if d["role"] == "floor"]
            return found[0] if found else {}

        wait_until(lambda: floor_device().get("status") == "connected", "the floor link shown")
        wait_until(lambda: rounds_done(service) >= 2, "two rounds dealt")
        # the backlog as rows (and the oldest's age), or up to date at the journal's row
        wait_until(
            lambda: any(w in floor_device().get("detail", "") for w in ("behind", "up to date")),
            "the backlog shown",
        )
        assert hub.state()["devices_lost"] == []
    assert shipper.health().status == "connected"  # the service closed it with the table


def test_a_row_written_while_the_journals_files_look_unchanged_is_still_shipped(
    cluster: Cluster, tmp_path: Path, mocker: MockerFixture
) -> None:
    """The file system's change times move in coarse ticks and a restarted WAL is rewritten at
    the same size: a journal whose size and change time say nothing new is read again within
    ``LOOK_S`` all the same (the disk's stamps frozen on demand here)."""
    tid = table_id("frozen")
    loaded = table(tmp_path, tid)
    mocker.patch.object(Shipper, "_files", return_value=((4096, 1), (8192, 1)))
    with (
        TableService(loaded, actors=demo()) as service,
        Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper,
    ):
        wait_until(lambda: rounds_done(service) >= 2, "two rounds dealt")
        service.close()
        wait_until(lambda: drained(shipper, loaded.journal_path), "every row shipped", 10.0)
    assert floor_rows(cluster, tid) == [as_tuple(r) for r in local_rows(loaded.journal_path)]
