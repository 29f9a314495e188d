"""Reading a configuration file (a variant, a table file, a strategy): the bytes, or a
:class:`ConfigError` that says what the path is instead of a file croupier can read.

A folder, a FIFO or a device given where a file belongs, a file croupier may not read, or one far
larger than any configuration: each is refused with the path and what to do, never a traceback
(a FIFO is never opened, so a start cannot hang on one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.game.errors import ConfigError

# far above any table, variant or strategy file (the largest shipped is a few KB)
MAX_CONFIG_BYTES = 1 << 20


def read_config_file(path: Path, what: str = "file", missing: str = "no such file") -> bytes:
    """The contents of the configuration file at ``path``; ``what`` names it in a message
    ("variant file"), ``missing`` is the problem when nothing is there."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ConfigError(str(path), [missing]) from None
    except PermissionError:
        raise ConfigError(
            str(path),
            [f"croupier may not reach this {what}: a folder on its path is closed to its user"],
        ) from None
    except OSError as exc:
        raise ConfigError(
            str(path), [f"cannot look at this {what}: {exc.strerror or exc}"]
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise ConfigError(str(path), [f"this is a folder, not a {what}: name the file in it"])
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            str(path),
            [f"this is not a regular file (a pipe, socket or device): give a {what} instead"],
        )
    if info.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(
            str(path),
            [f"{info.st_size:,} bytes is too large for a {what} (at most {MAX_CONFIG_BYTES:,})"],
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except PermissionError:
        raise ConfigError(
            str(path), [f"croupier may not read this {what}: give its user read access"]
        ) from None
    except OSError as exc:
        raise ConfigError(str(path), [f"cannot open this {what}: {exc.strerror or exc}"]) from None
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            str(path), [f"too large for a {what} (at most {MAX_CONFIG_BYTES:,} bytes)"]
        )
    return data
