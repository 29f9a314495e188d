"""``croupier run``'s logs stay bounded: rotated at the table file's sizes, and a line the
process repeats a thousand times a second (descriptors exhausted: "accept() out of system
resource") is written a few times and summed up, not 44,190 times in 40 s."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from tests.faults.harness import croupier_command

WAIT_S = 60.0
DEMO = ("--demo", "--pace", "0", "--port", "0")


def test_the_table_files_log_sizes_rotate_the_debug_log_into_private_files(
    tmp_path: Path,
) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[logs]\ndebug_max_bytes = 65536\ndebug_backups = 2\n")
    done = subprocess.run(
        [*croupier_command(), "run", "--config", str(config), *DEMO, "--rounds", "3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "var" / "log"
    files = sorted(p.name for p in folder.glob("debug.log*"))
    assert files == ["debug.log", "debug.log.1", "debug.log.2"]
    for name in files:
        info = (folder / name).stat()
        assert info.st_size <= 65536
        assert stat.S_IMODE(info.st_mode) == 0o600
