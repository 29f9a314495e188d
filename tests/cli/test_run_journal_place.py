"""``croupier run`` and where the journal is: a table file's relative paths are taken from the
file's folder, wherever croupier is started, and a start that would make a new, empty journal
while the table's last journal is elsewhere is refused with both paths (``--new-journal``
starts one on purpose). The real command, as a separate process, from different folders."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from controller.cli.run import EXIT_JOURNAL, EXIT_USAGE
from tests.cli.test_run_start import _start

DEMO = ("--demo", "--pace", "0", "--rounds", "1")
TABLE = 'table_id = "moved-1"\n[display]\nport = 0\n'


def _folders(tmp_path: Path, *names: str) -> list[Path]:
    made = [tmp_path / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


def test_a_table_file_run_from_another_folder_keeps_its_journal_beside_the_file(
    tmp_path: Path,
) -> None:
    home, elsewhere = _folders(tmp_path, "table", "elsewhere")
    (home / "table.toml").write_text(TABLE)
    first = _start(home, "--config", "table.toml", *DEMO)
    assert first.returncode == 0, first.stderr
    assert f"journal: {home / 'var' / 'journal.sqlite3'}" in first.stdout
    again = _start(elsewhere, "--config", os.path.relpath(home / "table.toml", elsewhere), *DEMO)
    assert again.returncode == 0, again.stderr
    assert f"journal: {home / 'var' / 'journal.sqlite3'}" in again.stdout
    played = [int(n) for n in re.findall(r"^round (\d+) over", first.stdout, re.M)]
    went_on = [int(n) for n in re.findall(r"^round (\d+) over", again.stdout, re.M)]
    assert played
    assert went_on
    assert min(went_on) > max(played), "it went on with the same journal"
    assert not (elsewhere / "var").exists(), "nothing is made in the folder croupier ran in"


def test_a_copy_that_would_start_a_new_journal_elsewhere_is_refused_naming_both(
    tmp_path: Path,
) -> None:
    home, copy = _folders(tmp_path, "table", "copy")
    (home / "table.toml").write_text(TABLE)
    (copy / "table.toml").write_text(TABLE)
    assert _start(home, "--config", "table.toml", *DEMO).returncode == 0
    old, new = home / "var" / "journal.sqlite3", copy / "var" / "journal.sqlite3"

    refused = _start(copy, "--config", "table.toml", *DEMO)
    assert refused.returncode == EXIT_JOURNAL
    assert "Traceback" not in refused.stderr
    assert refused.stderr.count("croupier run: ") == 1, refused.stderr
    assert f"table moved-1's journal is {old}" in refused.stderr
    assert f"new, empty journal at {new}" in refused.stderr
    assert "--new-journal" in refused.stderr
    assert not (copy / "var").exists(), "a refused start makes nothing"

    on_purpose = _start(copy, "--config", "table.toml", "--new-journal", *DEMO)
    assert on_purpose.returncode == 0, on_purpose.stderr
    assert new.exists()
    # the record follows the journal the table was last started with
    record = Path(os.environ["CROUPIER_STATE_DIR"]) / "tables" / "moved-1.json"
    assert json.loads(record.read_text())["journal"] == str(new)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    back = _start(home, "--config", "table.toml", *DEMO)
    assert back.returncode == 0, back.stderr  # an existing journal is never refused

    twice = _start(copy, "--config", "table.toml", "--new-journal", *DEMO)
    assert twice.returncode == EXIT_USAGE
    assert f"--new-journal: there is a journal at {new} already" in twice.stderr


def test_the_shipped_example_started_in_another_folder_is_refused_too(tmp_path: Path) -> None:
    first, second = _folders(tmp_path, "first", "second")
    assert _start(first, *DEMO).returncode == 0
    refused = _start(second, *DEMO)
    assert refused.returncode == EXIT_JOURNAL
    assert f"table table-1's journal is {first / 'var' / 'journal.sqlite3'}" in refused.stderr
    assert not (second / "var").exists()
