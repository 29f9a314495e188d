"""The PINs of a live table in the tests' table files: ``croupier run`` without ``--demo``
refuses a table file without a supervisor and a technician PIN of its own."""

from __future__ import annotations

from controller.table.config import hash_secret

LIVE_SUPERVISOR_PIN = "80246135"
LIVE_TECHNICIAN_PIN = "57319024"
# made once per test run (scrypt at the production cost)
LIVE_SUPERVISOR_HASH = hash_secret(LIVE_SUPERVISOR_PIN)
LIVE_TECHNICIAN_HASH = hash_secret(LIVE_TECHNICIAN_PIN)

# The two sections, for the end of a table file that has neither (the file must then be 0600).
LIVE_PIN_SECTIONS = (
    f'\n[supervisor]\npin_hash = "{LIVE_SUPERVISOR_HASH}"\n'
    f'\n[technician]\npin_hash = "{LIVE_TECHNICIAN_HASH}"\n'
)
