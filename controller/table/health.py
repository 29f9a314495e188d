"""Device health: what the table owner knows of each device's link, from the drivers' events.

Shown on the display's device strip and in ``/api/state``. Besides the three devices, a
*monitor* (something that runs beside the table, such as the shipping of the journal to the
floor) reports its own health in the same shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.table.firmware import approved
from drivers.tbl21.events import (
    DeviceEvent,
    DeviceIdentified,
    DeviceRefused,
    FaultCleared,
    FaultRaised,
    LinkLost,
    LinkRestored,
)


@dataclass
class DeviceHealth:
    """One device's (or monitor's) link as the dealer sees it."""

    role: str
    url: str
    status: str = "connecting"  # connecting, connected, lost or refused
    faults: dict[str, str] = field(default_factory=dict)  # name -> severity
    identity: str = ""
    detail: str = ""
    firmware_allow: tuple[str, ...] = ()  # the table file's list (upper case; empty: any)

    def observe(self, event: DeviceEvent) -> None:
        """Update from one of the device's events (the others change nothing)."""
        if isinstance(event, DeviceIdentified):
            self.status = "connected"
            self.identity = f"{event.model} {event.serial} fw {event.fw_version}"
            self.detail = (
                ""
                if approved(self.firmware_allow, event.identity)
                else f"firmware not approved (hash {event.fw_hash.upper()})"
            )
        elif isinstance(event, LinkLost):
            self.status = "lost"
            self.detail = event.reason
        elif isinstance(event, LinkRestored):
            self.status = "connected"
            self.detail = ""
        elif isinstance(event, DeviceRefused):
            self.status = "refused"
            self.detail = event.reason
        elif isinstance(event, FaultRaised):
            self.faults[event.name] = event.severity.name.lower()
        elif isinstance(event, FaultCleared):
            self.faults.pop(event.name, None)

    def as_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "url": self.url,
            "status": self.status,
            "faults": [f"{name} ({sev})" for name, sev in sorted(self.faults.items())],
            "identity": self.identity,
            "detail": self.detail,
        }
