"""The table file's [floor] section and the floor file: every mistake refused with the key, the
value and what to do, and a password never kept in (or echoed from) a file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.floor.config import floor_from_mapping
from controller.game.errors import ConfigError
from controller.table.config import table_from_mapping


def _refused(floor: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as caught:
        table_from_mapping({"floor": floor}, "table.toml", Path.cwd())
    return str(caught.value)


def test_a_password_in_the_dsn_is_refused_without_being_echoed() -> None:
    for dsn in ("host=db user=t password=hunter2-secret", "postgresql://t:hunter2-secret@db/x"):
        text = _refused({"dsn": dsn})
        assert "floor.dsn" in text
        assert "password_env" in text
        assert "hunter2-secret" not in text


def test_a_dsn_that_is_not_a_connection_string_is_refused() -> None:
    assert "is not a PostgreSQL connection string" in _refused({"dsn": "host= = ="})


def test_a_password_file_others_may_read_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "floor.secret"
    secret.write_text("pw\n")
    secret.chmod(0o640)
    assert "chmod 600" in _refused({"dsn": "host=db", "password_file": str(secret)})
    secret.chmod(0o600)
    loaded = table_from_mapping(
        {"floor": {"dsn": "host=db user=t", "password_file": str(secret)}}, "t", Path.cwd()
    )
    assert loaded.config.floor is not None
    assert "password=pw" in loaded.config.floor.conninfo()
    assert loaded.config.floor.where == "postgresql://t@db/t"


def test_a_missing_password_file_and_a_bad_variable_name_are_refused(tmp_path: Path) -> None:
    assert "cannot be read" in _refused({"dsn": "h", "password_file": str(tmp_path / "no")})
    assert "environment variable" in _refused({"dsn": "host=db", "password_env": "lower-case"})
    secret = tmp_path / "s"
    secret.write_text("pw")
    secret.chmod(0o600)
    assert "not both" in _refused(
        {"dsn": "host=db", "password_env": "A", "password_file": str(secret)}
    )


def test_an_unset_password_variable_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CROUPIER_TEST_NOT_SET", raising=False)
    loaded = table_from_mapping(
        {"floor": {"dsn": "host=db", "password_env": "CROUPIER_TEST_NOT_SET"}}, "t", Path.cwd()
    )
    assert loaded.config.floor is not None
    with pytest.raises(ValueError, match="CROUPIER_TEST_NOT_SET"):
        loaded.config.floor.conninfo()
    monkeypatch.setenv("CROUPIER_TEST_NOT_SET", "s3")
    assert "password=s3" in loaded.config.floor.conninfo()


def test_an_unknown_floor_key_names_the_allowed_ones() -> None:
    text = _refused({"dsn": "host=db", "batch": 5})
    assert "floor.batch" in text
    assert "batch_rows" in text


def test_a_floor_file_without_users_or_with_a_bad_shift_is_refused() -> None:
    base = {"database": {"dsn": "host=db"}}
    with pytest.raises(ConfigError, match="nobody may sign in"):
        floor_from_mapping(base, "floor.toml", Path.cwd())
    user = {"name": "pat", "secret_hash": "plain-text"}
    with pytest.raises(ConfigError, match="salted hash"):
        floor_from_mapping({**base, "users": [user]}, "floor.toml", Path.cwd())
    with pytest.raises(ConfigError, match=r"shifts\.starts"):
        floor_from_mapping({**base, "shifts": {"starts": ["25:00"]}}, "floor.toml", Path.cwd())
    with pytest.raises(ConfigError, match="time zone"):
        floor_from_mapping({**base, "shifts": {"timezone": "Mars/Base"}}, "floor.toml", Path.cwd())
    with pytest.raises(ConfigError, match="reachable from other machines"):
        floor_from_mapping({**base, "server": {"host": "0.0.0.0"}}, "floor.toml", Path.cwd())


def test_floor_commands_with_bad_options_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.main import main  # noqa: PLC0415

    assert main(["floor", "report", "--config", str(tmp_path / "none.toml")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["floor", "demo", "--tables", "0"]) == 2
    assert "--tables must be 1-50" in capsys.readouterr().err
    assert main(["floor", "audit", "--config", os.devnull]) == 2


SECRET = "hunter2-very-secret"  # a DSN's secret that must never be echoed
SECRET_DSNS = [
    f"host=db user=t password={SECRET}",
    f"postgresql://t:{SECRET}@db/x",
    f"host=db user=t sslpassword={SECRET}",
    f"postgresql://t@db/x?sslpassword={SECRET}",
    f"host=db password={SECRET} not-a-pair",  # cannot be read: nothing of it is shown
    f"postgresql://t:{SECRET}@[db/x",
    f"password='{SECRET}",
]


def _croupier(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
        env={**os.environ, "CROUPIER_TEST_SET": "x"},
    )


@pytest.mark.parametrize("dsn", SECRET_DSNS)
def test_a_dsn_with_a_secret_is_refused_by_the_real_commands_which_never_echo_it(
    tmp_path: Path, dsn: str
) -> None:
    quoted = dsn.replace("'", "\\u0027")
    (tmp_path / "table.toml").write_text(
        f'table_id = "t1"\n[floor]\ndsn = "{quoted}"\npassword_env = "CROUPIER_TEST_SET"\n'
    )
    (tmp_path / "floor.toml").write_text(
        f'[database]\ndsn = "{quoted}"\npassword_env = "CROUPIER_TEST_SET"\n'
        '[[users]]\nname = "pat"\nsecret_hash = "scrypt$16384$8$1$AAECAwQFBgcICQoLDA0ODw==$'
        'fR7H4sqJInOWpd6c5IR9Y75NRWNMIRL5XQFIV2IyB38="\n'
    )
    readable = "not-a-pair" not in dsn and "[" not in dsn and "'" not in dsn
    for args, key, instead in (
        (("doctor", "--config", "table.toml"), "floor.dsn", "password_env"),
        (("run", "--demo", "--config", "table.toml"), "floor.dsn", "password_env"),
        (("floor", "serve", "--config", "floor.toml"), "database.dsn", "password_env"),
        (("floor", "migrate", "--dsn", dsn), "--dsn", "--password-env"),
        (("floor", "table-login", "t1", "--dsn", dsn), "--dsn", "--password-env"),
    ):
        done = _croupier(*args, cwd=tmp_path)
        shown = done.stdout + done.stderr
        assert SECRET not in shown, args
        assert "Traceback" not in shown, args
        assert done.returncode == 2, (args, shown)
        assert key in shown, (args, shown)
        if readable:
            assert instead in shown, (args, shown)
            assert "password" in shown or "sslpassword" in shown
        else:
            assert "is not a PostgreSQL connection string" in shown, (args, shown)


def test_a_passfile_named_in_the_dsn_must_be_croupiers_own_and_private(tmp_path: Path) -> None:
    passfile = tmp_path / "pgpass"
    passfile.write_text("db:5432:*:t:pw\n")
    passfile.chmod(0o644)
    text = _refused({"dsn": f"host=db user=t passfile={passfile}"})
    assert "floor.dsn" in text
    assert "chmod 600" in text
    passfile.chmod(0o600)
    loaded = table_from_mapping(
        {"floor": {"dsn": f"host=db user=t passfile={passfile}"}}, "t", Path.cwd()
    )
    assert loaded.config.floor is not None
