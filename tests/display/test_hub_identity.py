"""The display's identity of a start (the technician's view) is worked out once per start, not
at every publication of the display state."""

from __future__ import annotations

from pathlib import Path

from controller.display.hub import StateHub, identity_json
from controller.service.service import Acknowledge, TableService
from controller.table.config import table_from_mapping


def test_the_identity_is_worked_out_once_and_every_publication_carries_it(
    tmp_path: Path,
) -> None:
    loaded = table_from_mapping(
        {"table_id": "t-hub", "display": {"port": 0},
         "journal": {"path": str(tmp_path / "journal.sqlite3")}},
        "<test>",
        tmp_path,
    )  # fmt: skip
    service = TableService(loaded)
    hub = StateHub.attach(service)
    service.open()
    try:
        version, first = hub.latest()
        assert first["identity"] == identity_json(service)
        assert first["identity"]["software_sha256"] == service.software.sha256  # type: ignore[union-attr]
        assert not service.execute(Acknowledge(999)).accepted  # a pass that publishes again
        later, again = hub.latest()
        assert later > version
        assert again["identity"] is first["identity"]  # the same words, not made again
    finally:
        service.close()
