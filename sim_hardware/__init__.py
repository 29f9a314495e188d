"""Emulated TBL-21 devices: shoe, hole-card reader and button panel.

Sans-IO device cores (``on_bytes(data, now)`` / ``tick(now)``), fault injection as data
(:mod:`sim_hardware.faults`), and two runners: in-process under a ``sim://<name>`` pyserial
URL (:func:`serve`) and on a real pseudo-terminal (:class:`PtyRunner`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivers.tbl21.events import DeviceState
    from drivers.tbl21.faults import Severity
    from sim_hardware.cardlist import parse_card_list, read_card_file
    from sim_hardware.device import DeviceCore, Flag, firmware_hash
    from sim_hardware.errors import (
        CardListError,
        DeviceNameInUseError,
        ShoeEmptyError,
        SimActionError,
        SimConfigError,
        SimError,
    )
    from sim_hardware.inprocess import InProcessRunner, register_url_handler, serve
    from sim_hardware.live import live_devices
    from sim_hardware.panel import BUTTONS, EmulatedPanel, Led
    from sim_hardware.peek import EmulatedPeekReader
    from sim_hardware.pty_runner import PtyRunner
    from sim_hardware.shoe import Draw, EmulatedShoe

# Each name the package offers, by the module that defines it. A name is imported the first
# time it is asked for, so that importing one small module of the package (the emulator's
# options, for the ``croupier`` command line's help) does not load every device.
_HOMES = {
    "DeviceState": "drivers.tbl21.events",
    "Severity": "drivers.tbl21.faults",
    "parse_card_list": "sim_hardware.cardlist",
    "read_card_file": "sim_hardware.cardlist",
    "DeviceCore": "sim_hardware.device",
    "Flag": "sim_hardware.device",
    "firmware_hash": "sim_hardware.device",
    "CardListError": "sim_hardware.errors",
    "DeviceNameInUseError": "sim_hardware.errors",
    "ShoeEmptyError": "sim_hardware.errors",
    "SimActionError": "sim_hardware.errors",
    "SimConfigError": "sim_hardware.errors",
    "SimError": "sim_hardware.errors",
    "InProcessRunner": "sim_hardware.inprocess",
    "register_url_handler": "sim_hardware.inprocess",
    "serve": "sim_hardware.inprocess",
    "live_devices": "sim_hardware.live",
    "BUTTONS": "sim_hardware.panel",
    "EmulatedPanel": "sim_hardware.panel",
    "Led": "sim_hardware.panel",
    "EmulatedPeekReader": "sim_hardware.peek",
    "PtyRunner": "sim_hardware.pty_runner",
    "Draw": "sim_hardware.shoe",
    "EmulatedShoe": "sim_hardware.shoe",
}

__all__ = [
    "BUTTONS",
    "CardListError",
    "DeviceCore",
    "DeviceNameInUseError",
    "DeviceState",
    "Draw",
    "EmulatedPanel",
    "EmulatedPeekReader",
    "EmulatedShoe",
    "Flag",
    "InProcessRunner",
    "Led",
    "PtyRunner",
    "Severity",
    "ShoeEmptyError",
    "SimActionError",
    "SimConfigError",
    "SimError",
    "firmware_hash",
    "live_devices",
    "parse_card_list",
    "read_card_file",
    "register_url_handler",
    "serve",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found from now on without this function
    return value
