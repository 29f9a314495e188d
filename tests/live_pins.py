"""The PINs of a live table in the tests' table files: ``croupier run`` without ``--demo``
refuses a table file without a supervisor and a technician PIN of its own, peppered."""

from __future__ import annotations

from pathlib import Path

from controller.table.config import hash_secret
from controller.table.pepper import Pepper
from controller.table.private import make_folders, write_private_json

LIVE_SUPERVISOR_PIN = "80246135"
LIVE_TECHNICIAN_PIN = "57319024"
# one pepper for the tests' live tables (its file is written where each test's table names it)
LIVE_PEPPER = Pepper(Path("live.pepper"), bytes(range(7, 39)))
# made once per test run (scrypt at the production cost)
LIVE_SUPERVISOR_HASH = hash_secret(LIVE_SUPERVISOR_PIN, pepper=LIVE_PEPPER)
LIVE_TECHNICIAN_HASH = hash_secret(LIVE_TECHNICIAN_PIN, pepper=LIVE_PEPPER)


def write_live_pepper(path: Path) -> Path:
    """The tests' pepper in a file of its own at ``path`` (0600, its folders 0700)."""
    make_folders(path.parent)
    write_private_json(path, {"pepper": LIVE_PEPPER.secret.hex()}, "the tests' pepper")
    return path


def live_pin_sections(folder: Path) -> str:
    """The end of a table file that has no [supervisor], [technician] or [access] section:
    both PINs and the pepper they were made with (written in ``folder``). The table file must
    then be 0600."""
    pepper = write_live_pepper(folder / "pepper" / "live.pepper")
    return (
        f'\n[supervisor]\npin_hash = "{LIVE_SUPERVISOR_HASH}"\n'
        f'\n[technician]\npin_hash = "{LIVE_TECHNICIAN_HASH}"\n'
        f'\n[access]\npepper_path = "{pepper}"\n'
    )
