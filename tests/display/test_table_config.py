"""config/table.toml: validated like the variants, secrets only as salted hashes."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.game.errors import ConfigError
from controller.service.devices import emulated_roles
from controller.table.config import DEFAULT_CONFIG, hash_secret, load_table_config, verify_secret
from controller.table.pepper import Pepper


def test_the_shipped_table_file_is_valid_and_runs_everything_emulated_on_this_machine() -> None:
    table = load_table_config(DEFAULT_CONFIG)
    assert emulated_roles(table.config.devices.urls) == {"shoe", "peek", "panel"}
    assert table.config.display.loopback
    assert (table.config.display.host, table.config.display.port) == ("127.0.0.1", 8321)
    assert table.rules.id == "nz-pontoon"
    assert table.config.display.chips == (100_000, 50_000, 10_000, 2_500, 500, 100, 50)
    assert table.journal_path == Path.cwd() / "var" / "journal.sqlite3"


def _problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_table_config(path)
    assert str(path) in str(refused.value)
    return refused.value.problems


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tabel_id = 'x'", 'tabel_id = "x": unknown key (did you mean table_id?); allowed here: a'),
        (
            "[display]\nport = '80'",
            'display.port = "80": must be a whole number from 0 to 65535, w',
        ),
        ("[display]\nport = 70000", "display.port = 70000: must be a whole number from 0 to 65535"),
        (
            "[display]\nhots = '1.2.3.4'",
            'display.hots = "1.2.3.4": unknown key (did you mean hosts?)',
        ),
        ("[display]\nhost = 'pit.example'", 'display.host = "pit.example": must be an IP'),
        ("[limits]\nmin_cents = 5000\nmax_cents = 1000", "max_cents 1000 is below min_cents"),
        ("[limits]\nincrement_cents = 50", "increment_cents = 50: must be a multiple of"),
        ("boxes = [1, 8]", "boxes[1] = 8: must be a whole number from 1 to 7"),
        ("boxes = []", "boxes = []: at least one box must be in use"),
        (
            "variant = 'nz-poontoon'",
            "variant = \"nz-poontoon\": no variant has the id 'nz-poontoon'",
        ),
        ("[devices]\nshoe = 'COM3'", "devices.shoe = \"COM3\": must be 'emulated'"),
        ("[supervisor]\npin_hash = '246810'", "never the plain password or token"),
        ("[technician]\npin_hash = 'x'", 'technician.pin_hash = "x": must be a salted hash'),
        ("[supervisor]\npassword_hash = 'scrypt$'", "make one with `croupier passwd --pin super"),
        (
            "[access]\nmax_wrong_pins = 0",
            "access.max_wrong_pins = 0: must be a whole number from 1",
        ),
        (
            "[access]\nlockout_seconds = '5m'",
            'access.lockout_seconds = "5m": must be a whole numbe',
        ),
        ("[access]\nlockout_secs = 60", "access.lockout_secs = 60: unknown key (did you mean lo"),
        ("[display]\nview_token_hash = 'scrypt$2$1$1$AA==$AA=='", "scrypt cost too low"),
        ("[display]\ntls_certfile = 'a.crt'", "tls_certfile and tls_keyfile go together"),
        ("[display]\nchips = []", "display.chips = []: at least one chip denomination, in cents"),
        ("[display]\nchips = [500, 100, 500]", "display.chips = [500, 100, 500]: [500] listed twi"),
        ("[display]\nchips = [0, 500]", "display.chips[0] = 0: must be a whole number above 0"),
        ("[display]\nchips = [2.5]", "display.chips[0] = 2.5: must be a whole number above 0"),
        ("[display]\nchips = '5,25'", 'display.chips = "5,25": must be a list, each a whole numbe'),
        ("[display]\nchips = [1,2,3,4,5,6,7,8,9,10,11,12,13]", "13 denominations: at most 12"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, text: str, problem: str
) -> None:
    problems = _problems(tmp_path, text)
    assert any(problem in p for p in problems), problems


def test_a_non_loopback_address_needs_tls_or_an_explicit_override(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "[display]\nhost = '0.0.0.0'")
    assert "give tls_certfile and tls_keyfile, or set allow_insecure_remote = true" in problems[0]
    path = tmp_path / "ok.toml"
    path.write_text("[display]\nhost = '0.0.0.0'\nallow_insecure_remote = true\n")
    assert not load_table_config(path).config.display.loopback
    path.write_text("[display]\nhost = '10.0.0.5'\ntls_certfile = 'c'\ntls_keyfile = 'k'\n")
    assert load_table_config(path).config.display.tls


def test_a_secret_is_kept_as_a_salted_hash_that_only_its_secret_matches() -> None:
    first, second = hash_secret("correct horse"), hash_secret("correct horse")
    assert first != second  # a new salt every time
    assert "correct horse" not in first
    assert verify_secret("correct horse", first)
    assert verify_secret("correct horse", second)
    assert not verify_secret("correct hors", first)
    assert not verify_secret("", first)
    assert not verify_secret("correct horse", "correct horse")


def test_passwd_prints_a_hash_line_for_the_table_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("24681012\n"))
    assert main(["passwd", "--pin", "technician"]) == 0
    printed = capsys.readouterr()
    line = printed.out.strip()
    assert line.startswith('pin_hash = "scrypt+pepper$')
    assert "under [technician]" in printed.err
    pepper = Pepper.load(load_table_config().pepper_path)
    assert pepper is not None
    assert verify_secret("24681012", line.split('"')[1], pepper)

    for bad in ("12345", "1234567890123", "24681x"):
        monkeypatch.setattr(sys, "stdin", io.StringIO(f"{bad}\n"))
        assert main(["passwd"]) == 2
        assert "a PIN is 6 to 12 of the digits 0-9" in capsys.readouterr().err

    assert main(["passwd", "--token"]) == 0
    token_line, hash_line = capsys.readouterr().out.strip().splitlines()
    token = token_line.rsplit(" ", 1)[1]
    assert verify_secret(token, hash_line.split('"')[1])
