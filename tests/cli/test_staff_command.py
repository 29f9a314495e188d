"""``croupier staff add|remove|list``: the table's people with their own staff numbers and
PINs, in a staff file of croupier's alone; never a PIN printed or kept."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from controller.cli.doctor import credentials_check
from controller.cli.main import main
from controller.table.config import load_table_config
from controller.table.staff import table_staff

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "table.toml"


def _croupier(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str, stdin: str = ""
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_staff_add_list_and_remove_keep_each_pin_as_a_peppered_hash_in_a_private_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table_file = tmp_path / "table.toml"
    shutil.copy(SHIPPED, table_file)
    os.chmod(table_file, 0o600)
    cfg = ("--config", str(table_file))
    status, out, _ = _croupier(monkeypatch, capsys, "staff", "list", *cfg)
    assert status == 0
    assert "nobody is on the staff of table table-1" in out
    add = ("staff", "add", "1001", "--role", "supervisor", "--name", "Ana Ruiz", *cfg)
    status, out, err = _croupier(monkeypatch, capsys, *add, stdin="61803398\n")
    assert status == 0, err
    assert out.startswith("Ana Ruiz (supervisor 1001) added in ")
    assert "made the table's PIN pepper" in err
    status, _, err = _croupier(monkeypatch, capsys, *add[:5], "--name", "x", *cfg, stdin="12\n")
    assert (status, err.strip()) == (
        2,
        "croupier staff: a PIN is 6 to 12 of the digits 0-9 (the panel's digit keys)",
    )
    dealer = ("staff", "add", "2001", "--role", "dealer", "--name", "Bo Chen", *cfg)
    assert _croupier(monkeypatch, capsys, *dealer, stdin="27182818\n")[0] == 0
    status, out, _ = _croupier(monkeypatch, capsys, "staff", "list", *cfg)
    assert out.splitlines()[1:] == [
        "      2001  dealer      Bo Chen",
        "      1001  supervisor  Ana Ruiz",
    ]
    table = load_table_config(table_file)
    check = credentials_check(table)  # a supervisor on the staff file stands for the role's PIN
    assert not check.ok
    assert check.detail.startswith("no technician PIN: a live table needs both")
    path = table.staff_path
    assert path.stat().st_mode & 0o777 == 0o600
    assert "61803398" not in path.read_text()
    staff = table_staff(table)
    assert staff.check("supervisor", "1001", "61803398") is not None
    assert staff.check("supervisor", "1001", "27182818") is None
    status, out, _ = _croupier(monkeypatch, capsys, "staff", "remove", "1001", *cfg)
    assert (status, out.strip()) == (0, f"Ana Ruiz (supervisor 1001) removed from {path}")
    status, _, err = _croupier(monkeypatch, capsys, "staff", "remove", "1001", *cfg)
    assert (status, err.strip()) == (
        1,
        "croupier staff: nobody has staff number 1001 at this table",
    )
    assert [p.id for p in table_staff(table)] == ["2001"]
