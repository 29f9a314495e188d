"""A leaked table file gives no PIN away (issue 21, point 7b): ``croupier passwd`` keys every
PIN hash with the table's pepper, a file of its own kept apart from the table file, and a live
start refuses a PIN hash without one, or without its own pepper.

The real commands, as a user runs them: ``croupier passwd`` reading the PIN on stdin, and
``croupier run`` as a separate process."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.cli.run import EXIT_USAGE
from controller.table.config import hash_secret, load_table_config, verify_secret
from controller.table.pepper import Pepper
from controller.table.private import state_folder
from tests.cli.test_run import croupier
from tests.cli.test_run_credentials import _start

SUPERVISOR_PIN = "40617283"
TECHNICIAN_PIN = "92750318"


def _table(folder: Path, extra: str = "") -> Path:
    path = folder / "table.toml"
    path.write_text('table_id = "live-7"\n[display]\nport = 0\n' + extra)
    path.chmod(0o600)
    return path


def _passwd(
    table: Path,
    role: str,
    pin: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[str, str]:
    """The pin_hash ``croupier passwd`` prints for ``role``, and what it said on stderr."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(pin + "\n"))
    assert main(["passwd", "--pin", role, "--config", str(table)]) == 0
    printed = capsys.readouterr()
    return printed.out.strip().split('"')[1], printed.err


def _with_pins(table: Path, supervisor: str, technician: str, extra: str = "") -> None:
    table.write_text(
        table.read_text()
        + f'[supervisor]\npin_hash = "{supervisor}"\n[technician]\npin_hash = "{technician}"\n'
        + extra
    )


def _table_of_passwd(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A live table file whose two PIN hashes ``croupier passwd`` made."""
    table = _table(folder)
    supervisor, _ = _passwd(table, "supervisor", SUPERVISOR_PIN, monkeypatch, capsys)
    technician, _ = _passwd(table, "technician", TECHNICIAN_PIN, monkeypatch, capsys)
    _with_pins(table, supervisor, technician)
    return table


def _refused(done: subprocess.CompletedProcess[str], table: Path) -> str:
    assert done.returncode == EXIT_USAGE, done.stderr
    assert "Traceback" not in done.stderr
    assert "display: " not in done.stdout
    assert not (table.parent / "var" / "journal.sqlite3").exists(), "a refused start writes"
    return done.stderr


def test_passwd_makes_the_tables_pepper_apart_from_the_table_file_and_keys_every_pin_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _table(tmp_path)
    first, said = _passwd(table, "supervisor", SUPERVISOR_PIN, monkeypatch, capsys)
    where = state_folder() / "peppers" / "live-7.pepper"
    assert f"made the table's PIN pepper {where}" in said
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
    assert not where.is_relative_to(tmp_path), "the pepper is kept apart from the table file"
    second, said = _passwd(table, "technician", TECHNICIAN_PIN, monkeypatch, capsys)
    assert "made the table's PIN pepper" not in said, "one pepper per table, made once"

    pepper = Pepper.load(where)
    assert pepper is not None
    for pin, made in ((SUPERVISOR_PIN, first), (TECHNICIAN_PIN, second)):
        assert made.startswith(f"scrypt+pepper${pepper.id}$16384$8$1$")
        assert verify_secret(pin, made, pepper)
        assert not verify_secret(pin, made), "without the pepper the right PIN is not proven"
        other = Pepper(where, os.urandom(32))
        assert not verify_secret(pin, made, other)
        # what a thief of the table file alone would try: scrypt of each PIN with the salt
        salt, digest = (base64.urlsafe_b64decode(part) for part in made.split("$")[-2:])
        tried = hashlib.scrypt(pin.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
        assert tried != digest
    assert pepper.secret.hex() not in first + second + table.read_text()


def test_a_live_table_whose_pins_passwd_made_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _table_of_passwd(tmp_path, monkeypatch, capsys)
    assert load_table_config(table).pepper() is not None
    with croupier("run", "--config", str(table), cwd=tmp_path) as (run, lines):
        lines.wait_for("display: ")
        assert run.stdin is not None
        run.stdin.write("q\n")
        run.stdin.flush()


def test_a_live_table_with_pin_hashes_without_a_pepper_is_refused_with_the_commands_to_remake_them(
    tmp_path: Path,
) -> None:
    table = _table(tmp_path)
    _with_pins(table, hash_secret(SUPERVISOR_PIN), hash_secret(TECHNICIAN_PIN))
    said = _refused(_start(table), table)
    assert "the supervisor and the technician PIN hash has no pepper" in said
    assert "about 13 hours of one computer" in said
    assert f"`croupier passwd --pin supervisor --config {table}`" in said
    assert f"`croupier passwd --pin technician --config {table}`" in said


def test_a_start_without_the_pepper_its_pins_were_made_with_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _table_of_passwd(tmp_path, monkeypatch, capsys)
    pepper = state_folder() / "peppers" / "live-7.pepper"
    kept = pepper.read_bytes()

    pepper.chmod(0o644)
    said = _refused(_start(table), table)
    assert f"the table's PIN pepper {pepper} may be read by others" in said
    assert f"chmod 600 {pepper}" in said

    pepper.unlink()
    said = _refused(_start(table), table)
    assert f"the PIN hashes were made with a pepper, and there is none at {pepper}" in said

    # another pepper in its place (a new one made by passwd for another PIN, say)
    Pepper.load_or_make(pepper, "live-7")
    said = _refused(_start(table), table)
    assert f"[supervisor] pin_hash was made with another pepper than {pepper}'s" in said
    assert "[technician] pin_hash was made with another pepper" in said

    pepper.write_text("not a pepper")
    said = _refused(_start(table), table)
    assert f"the table's PIN pepper {pepper} is damaged or not croupier's" in said

    pepper.write_bytes(kept)  # put back: the table starts
    pepper.chmod(0o600)
    assert load_table_config(table).pepper() is not None


def test_a_pepper_path_in_the_table_file_is_taken_from_the_table_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "keys").mkdir(mode=0o700)
    table = _table(tmp_path, '[access]\npepper_path = "keys/live-7.pepper"\n')
    monkeypatch.chdir("/")
    _passwd(table, "supervisor", SUPERVISOR_PIN, monkeypatch, capsys)
    assert Pepper.load(tmp_path / "keys" / "live-7.pepper") is not None
    assert not (state_folder() / "peppers").exists()
