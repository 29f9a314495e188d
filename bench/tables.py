"""A table on ptys for the benchmarks: ``croupier run``'s wiring, its devices on real ptys.

The emulated shoe, hole-card reader and panel each sit on a real pseudo-terminal
(:class:`~sim_hardware.PtyRunner`); :class:`~controller.service.service.TableService` opens them
like USB serial adapters, with a journal in a temporary folder. Everything is closed (and the
folder removed) with the given stack.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from pathlib import Path

from controller.game.rules import Variant
from controller.service.devices import ROLES
from controller.service.service import TableService
from controller.table.access import KEY_ONLY
from controller.table.config import LoadedTable, TableConfig
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, PtyRunner


def pty_table(
    stack: ExitStack,
    rules: Variant,
    shoe: EmulatedShoe,
    *,
    boxes: int = 3,
    journal_dir: str | None = None,
    integrity: bool = True,
) -> tuple[TableService, list[PtyRunner]]:
    """The service (not started: open it, or start its owner thread) and the three runners.
    ``journal_dir``: where the journal's temporary folder is made (``/dev/shm`` leaves the
    disk's ``fsync`` out of a measurement); the system's temporary folder by default."""
    runners = [
        stack.enter_context(PtyRunner(device, name=name))
        for name, device in zip(ROLES, (shoe, EmulatedPeekReader(), EmulatedPanel()), strict=True)
    ]
    folder = Path(
        stack.enter_context(tempfile.TemporaryDirectory(prefix="croupier-bench-", dir=journal_dir))
    )
    config = TableConfig.model_validate(
        {
            "table_id": "bench",
            "variant": rules.id,
            "boxes": list(range(1, boxes + 1)),
            "devices": {role: r.port for role, r in zip(ROLES, runners, strict=True)},
            "journal": {"path": str(folder / "journal.sqlite3")},
            "integrity": {"enabled": integrity},  # the live check of the journal and files
        }
    )
    service = TableService(LoadedTable(config, rules, "<bench>", folder), access=KEY_ONLY)
    stack.callback(service.close)
    return service, runners
