"""croupier train in a terminal: the trainee reads questions, not the emulated devices' log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_a_procedure_drill_in_the_terminal_prints_no_device_log_lines(tmp_path: Path) -> None:
    journal = tmp_path / "training.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "train", "--variant", "nz-pontoon",
         "--drill", "procedure", "--count", "1", "--trainee", "ann", "--seed", "3",
         "--journal", str(journal)],
        input="1\n" * 20, capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False,
    )  # fmt: skip
    shown = done.stdout + done.stderr
    assert "[info" not in shown, shown[:2000]
    assert "port opened" not in shown, shown[:2000]
    assert journal.exists(), shown[:2000]
