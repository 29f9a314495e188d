"""The floor page's sign-in lockouts live in PostgreSQL, per name and per source address (issue
21, point 12): a name locked by wrong passwords is still locked after ``croupier floor serve``
restarts, and wrong passwords for many names from one address lock that address, through a
restart too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import psycopg

from controller.floor.cluster import FLOOR_LOGIN, Cluster
from controller.table.config import hash_secret
from tests.floor.conftest import FLOOR_PASSWORD_ENV, table_id

PASSWORD = "right-password-for-tests"


def _floor_file(tmp: Path, cluster: Cluster, user: str, **access: int) -> Path:
    settings = "".join(f"{key} = {value}\n" for key, value in access.items())
    path = tmp / "floor.toml"
    path.write_text(
        f'[database]\ndsn = "{cluster.dsn(FLOOR_LOGIN)}"\npassword_env = "{FLOOR_PASSWORD_ENV}"\n'
        f"[server]\nport = 0\n"
        f'[access]\nattempts_log = "{tmp / "attempts.jsonl"}"\n{settings}'
        f'[[users]]\nname = "{user}"\nsecret_hash = "{hash_secret(PASSWORD)}"\n'
    )
    return path


@contextmanager
def _serving(floor_file: Path) -> Iterator[str]:
    """A real ``croupier floor serve``; its page's address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "floor", "serve", "--config", str(floor_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ},
    )
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line)
            if line.startswith("floor page: "):
                yield line.removeprefix("floor page: ").strip()
                break
        else:
            raise AssertionError(f"floor serve did not start: {''.join(seen)}")
    finally:
        process.terminate()
        process.wait(timeout=20)
        if process.stdout is not None:
            process.stdout.close()


def _sign_in(
    url: str, name: str, password: str, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    body = urlencode({"name": name, "password": password}).encode()
    request = urllib.request.Request(f"{url}login", data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode()


def _forget_this_address(cluster: Cluster) -> None:
    with psycopg.connect(cluster.conninfo("owner")) as db:
        db.execute("DELETE FROM croupier.signin_failures WHERE kind = 'source'")


def _results(tmp: Path) -> list[str]:
    lines = (tmp / "attempts.jsonl").read_text().splitlines()
    return [json.loads(line)["result"] for line in lines]


def test_a_locked_name_stays_locked_after_floor_serve_restarts(
    cluster: Cluster, tmp_path: Path
) -> None:
    user = table_id("pit")
    floor_file = _floor_file(tmp_path, cluster, user, max_wrong=3, lockout_seconds=600)
    with _serving(floor_file) as url:
        for _ in range(2):
            status, text = _sign_in(url, user, "a-wrong-guess")
            assert status == 403
            assert "wrong name or password" in text
        status, text = _sign_in(url, user, "a-wrong-guess")
        assert status == 403
        assert f"{user} is locked for 600 s" in text
    with _serving(floor_file) as url:  # a new process: it knows nothing in memory
        status, text = _sign_in(url, user, PASSWORD)
        assert status == 403
        assert f"{user} is locked for" in text
    assert _results(tmp_path) == ["wrong", "wrong", "wrong_then_locked", "locked"]
    assert PASSWORD not in (tmp_path / "attempts.jsonl").read_text()


def test_wrong_passwords_for_many_names_from_one_address_lock_that_address(
    cluster: Cluster, tmp_path: Path
) -> None:
    user = table_id("pit")
    floor_file = _floor_file(
        tmp_path, cluster, user, max_wrong=5, max_wrong_per_source=4, lockout_seconds=600
    )
    _forget_this_address(cluster)  # the other tests' wrong passwords came from here too
    try:
        with _serving(floor_file) as url:
            _sign_in(url, user, PASSWORD)  # signs in: a right password does not unlock anything
            for n in range(3):
                assert _sign_in(url, f"guess-{n}-{user}", "a-wrong-guess")[0] == 403
            status, text = _sign_in(url, f"guess-3-{user}", "a-wrong-guess")
            assert status == 403
            assert "too many from here" in text
        with _serving(floor_file) as url:  # restarted: the address is still locked
            status, text = _sign_in(url, user, PASSWORD)  # even with the right password
            assert status == 403
            assert "too many wrong passwords from here" in text
        results = _results(tmp_path)
        assert results == [
            "signed_in",
            "wrong",
            "wrong",
            "wrong",
            "wrong_then_source_locked",
            "source_locked",
        ]
    finally:  # the address is this machine's: unlock it for the tests after this one
        _forget_this_address(cluster)


def test_a_forwarded_for_header_does_not_make_wrong_passwords_come_from_elsewhere(
    cluster: Cluster, tmp_path: Path
) -> None:
    """A client on this machine naming another address in X-Forwarded-For (or Forwarded) is
    still counted at its own address: the server trusts no proxy's header (before, uvicorn
    took X-Forwarded-For from 127.0.0.1 by default, so each guess came "from" a new address
    and the attempts log named addresses that never connected)."""
    user = table_id("pit")
    floor_file = _floor_file(
        tmp_path, cluster, user, max_wrong=5, max_wrong_per_source=3, lockout_seconds=600
    )
    _forget_this_address(cluster)
    try:
        with _serving(floor_file) as url:
            for n in range(2):
                forged = {"X-Forwarded-For": f"10.9.9.{n}", "Forwarded": f"for=10.8.8.{n}"}
                assert _sign_in(url, f"guess-{n}-{user}", "a-wrong-guess", forged)[0] == 403
            status, text = _sign_in(
                url, f"guess-2-{user}", "a-wrong-guess", {"X-Forwarded-For": "10.9.9.2"}
            )
            assert status == 403
            assert "too many from here" in text
        lines = (tmp_path / "attempts.jsonl").read_text().splitlines()
        assert {json.loads(line)["source"] for line in lines} == {"127.0.0.1"}
    finally:
        _forget_this_address(cluster)
