"""The wiring of a table's three devices: URLs in, drivers on one event sink out.

Each device is a pyserial URL. ``"emulated"`` in a table file is short for ``sim://<role>``, and
``sim://shoe?seed=7``-style URLs (:mod:`sim_hardware.urls`) ask for an emulated device made in
this process: it is made here (a restarted table's devices boot again after the journal's boot
count, its shoe already drawn to where the journal left it), served under a name of this table's
own, and opened through the production drivers like any other port. Any other URL (a serial
port, ``/dev/pts/N`` of ``croupier emulate``, ``socket://...``, the ``sim://<name>`` of a device
a test serves itself) is opened as it is. ``croupier run``, ``croupier doctor`` and the scenario
runner all open their devices here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field

from controller.game.errors import ConfigError
from controller.game.rules import Variant
from controller.table.config import EMULATED
from drivers.device import EventSink
from drivers.table import TableDevices, open_table
from sim_hardware import DeviceCore, SimConfigError, serve
from sim_hardware.urls import ShoeMakeUp, make_device, parse_device_url

ROLES = ("shoe", "peek", "panel")
_served_ids = itertools.count()


def device_urls(configured: Mapping[str, str]) -> dict[str, str]:
    """The table file's devices as URLs (``"emulated"`` is ``sim://<role>``)."""
    return {role: f"sim://{role}" if url == EMULATED else url for role, url in configured.items()}


def check_device_urls(configured: Mapping[str, str], source: str) -> None:
    """Refuse a ``sim://`` URL with a wrong option, or an emulated device of the wrong kind,
    before anything is opened (file, key, value, what is allowed)."""
    problems: list[str] = []
    for role, url in device_urls(configured).items():
        try:
            spec = parse_device_url(url)
        except SimConfigError as exc:
            problems.append(f"devices.{role} = {configured[role]!r}: {exc}")
            continue
        if spec is not None and spec.role != role:
            problems.append(
                f"devices.{role} = {url!r}: that is an emulated {spec.role}; "
                f"use sim://{role} (or 'emulated')"
            )
    if problems:
        raise ConfigError(source, problems)


def shoe_make_up(rules: Variant) -> ShoeMakeUp:
    """The shoe the variant deals from, with its cut card."""
    cards = rules.shoe.decks * rules.shoe.deck.size
    return ShoeMakeUp(rules.shoe.decks, rules.shoe.deck, cards - rules.shoe.cut_card_reserve)


@dataclass
class OpenedDevices:
    """The drivers of the three devices, and the emulated ones among them by role."""

    drivers: TableDevices
    emulated: dict[str, DeviceCore] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)  # what was opened, by role


def open_devices(
    stack: ExitStack,
    configured: Mapping[str, str],
    rules: Variant,
    *,
    name: str,
    events: EventSink | None = None,
    baudrate: int = 115_200,
    confirm_events: bool = False,
    resume: Mapping[str, tuple[int, int]] | None = None,
    drawn: int = 0,
) -> OpenedDevices:
    """Make and serve the emulated devices among ``configured``, open all three drivers (closed
    with ``stack``). ``resume``: per role the journal's last ``(boot, seq)`` (an emulated device
    boots once more; the drivers do not apply a resend again); ``drawn``: the shoe's last draw
    number in the journal."""
    points = dict(resume or {})
    urls = device_urls(configured)
    emulated: dict[str, DeviceCore] = {}
    run = next(_served_ids)
    for role in ROLES:
        spec = parse_device_url(urls[role])
        if spec is None:
            continue
        boot = points[role][0] + 1 if role in points else 1
        device = make_device(
            spec, shoe_make_up(rules), boot_count=boot, drawn=drawn if role == "shoe" else 0
        )
        runner = stack.enter_context(serve(device, f"{name}-{run}-{role}"))
        emulated[role] = device
        urls[role] = runner.url
    drivers = stack.enter_context(
        open_table(
            urls["shoe"],
            urls["peek"],
            urls["panel"],
            events=events,
            baudrate=baudrate,
            confirm_events=confirm_events,
            resume=points,
        )
    )
    return OpenedDevices(drivers, emulated, urls)


def emulated_roles(configured: Mapping[str, str]) -> set[str]:
    """The roles whose device the table file asks to be emulated in this process."""
    return {
        role for role, url in device_urls(configured).items() if parse_device_url(url) is not None
    }


def shown_urls(configured: Mapping[str, str]) -> dict[str, str]:
    """What the dealer and the journal are shown of each device: ``"emulated"`` for one made in
    this process (its URL may list a scripted shoe's cards, the hole card among them)."""
    emulated = emulated_roles(configured)
    return {role: EMULATED if role in emulated else url for role, url in configured.items()}
