"""Emulated TBL-21 devices: shoe, hole-card reader and button panel.

Sans-IO device cores (``on_bytes(data, now)`` / ``tick(now)``), fault injection as data
(:mod:`sim_hardware.faults`), and two runners: in-process under a ``sim://<name>`` pyserial
URL (:func:`serve`) and on a real pseudo-terminal (:class:`PtyRunner`).
"""

from __future__ import annotations

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
