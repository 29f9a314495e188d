"""A small real disk for the tests of what croupier does when it is full: a 2 MB tmpfs mounted
for one test (root only: skipped otherwise), and :func:`fill` to leave it no byte."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs mounted for the test (root only)."""
    where = tmp_path / "small"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> None:
    """Write zeros to ``disk/filler`` until the disk has no byte left."""
    with (disk / "filler").open("wb", buffering=0) as out:
        for block in (b"\0" * 4096, b"\0"):
            with pytest.raises(OSError, match="No space left") as full:
                _write_for_ever(out, block)
            assert full.value.errno == errno.ENOSPC


def _write_for_ever(out: BinaryIO, block: bytes) -> None:
    while True:
        out.write(block)
