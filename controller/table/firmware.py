"""Which device units and firmware may deal: the table file's allow list, and a unit that changed.

``devices.firmware_allow`` in the table file lists the firmware hashes (the 16 hex digits a
device reports when it identifies) approved for the table; an empty list approves any. A
device whose firmware is not on a non-empty list never deals: the table holds for it
(:data:`FIRMWARE_NOT_APPROVED`) from the moment it identifies, at a start or again after a
reboot, and that hold cannot be cleared while the device stays unapproved (a technician installs
approved firmware, or the hash is added to the list and croupier restarted; then a supervisor
clears the hold). A device that identifies as another unit (model or serial) or with other
firmware than it had in the middle of a round holds the round for a supervisor
(:data:`DEVICE_CHANGED`); between rounds that is only noted.

The list is journalled as a cause (:class:`AllowFirmware`) when a start brings another list
than the journal's last, so that a replay judges each identification as the table did then.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.holds import HoldCause, HoldReason
from controller.game.words import device_words
from drivers.tbl21.events import DeviceIdentity

FIRMWARE_NOT_APPROVED = "FIRMWARE_NOT_APPROVED"  # technical code: firmware not on the list
DEVICE_CHANGED = "DEVICE_CHANGED"  # technical code: another unit or firmware mid-round


@dataclass(frozen=True, slots=True)
class AllowFirmware:
    """From now on only these firmware hashes deal (upper case; empty: any)."""

    hashes: tuple[str, ...]

    @classmethod
    def of(cls, hashes: tuple[str, ...] | list[str]) -> AllowFirmware:
        return cls(tuple(sorted({h.upper() for h in hashes})))


def approved(allow: tuple[str, ...], identity: DeviceIdentity) -> bool:
    """The device's firmware may deal under ``allow`` (an :attr:`AllowFirmware.hashes`)."""
    return not allow or identity.fw_hash.upper() in allow


def described(identity: DeviceIdentity) -> str:
    """The unit and its firmware, as a technician reads it off the device's label."""
    return (
        f"{identity.model} serial {identity.serial}, firmware {identity.fw_version} "
        f"(hash {identity.fw_hash.upper()})"
    )


def unapproved_detail(device: str, identity: DeviceIdentity) -> str:
    """The hold for a device whose firmware is not approved (its technical code first)."""
    return (
        f"{FIRMWARE_NOT_APPROVED}: {device_words(device)} ({described(identity)}) runs "
        "firmware this table does not allow (devices.firmware_allow in the table file); a "
        "technician installs approved firmware, or adds its hash to devices.firmware_allow and "
        "restarts croupier, then a supervisor clears the hold"
    )


def unapproved_hold(hold: HoldReason, device: str) -> bool:
    """Whether ``hold`` is the unapproved-firmware hold of ``device``."""
    return hold.cause is HoldCause.FIRMWARE_NOT_APPROVED and hold.device == device


def changed(before: DeviceIdentity, now: DeviceIdentity) -> bool:
    """Another unit, or other firmware, than before."""
    return (before.model, before.serial, before.fw_hash.upper()) != (
        now.model,
        now.serial,
        now.fw_hash.upper(),
    )


def changed_detail(device: str, before: DeviceIdentity, now: DeviceIdentity, round_no: int) -> str:
    """The hold for a device that came back as another unit or with other firmware."""
    what = (
        "another unit"
        if (before.model, before.serial) != (now.model, now.serial)
        else "other firmware"
    )
    return (
        f"{DEVICE_CHANGED}: {device_words(device)} came back as {what} in the middle of round "
        f"{round_no}: was {described(before)}, now {described(now)}; supervisor verification"
    )
