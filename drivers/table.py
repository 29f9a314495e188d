"""The three devices of one table, opened together onto one event queue."""

from __future__ import annotations

import queue
from dataclasses import dataclass, field

from drivers.device import DeviceDriver, EventSink
from drivers.errors import CommandError, DeviceError
from drivers.panel import PanelDriver
from drivers.peek import PeekDriver
from drivers.shoe import ShoeDriver
from drivers.tbl21.closing import Closing
from drivers.tbl21.events import DeviceEvent, FrameEvent
from drivers.transport import DEFAULT_BAUD


@dataclass
class TableDevices(Closing):
    """The shoe, the hole-card reader and the panel, sharing ``events``. Close when done."""

    shoe: ShoeDriver
    peek: PeekDriver
    panel: PanelDriver
    events: EventSink = field(default_factory=queue.Queue)

    @property
    def drivers(self) -> tuple[DeviceDriver, ...]:
        return (self.shoe, self.peek, self.panel)

    def confirm(self, event: FrameEvent) -> None:
        """Confirm mode: hand ``event`` back to the driver it came from once journaled."""
        for driver in self.drivers:
            if driver.ref == event.device:
                driver.confirm(event)
                return
        raise CommandError(f"no driver of this table is on {event.device}")

    def decline(self, event: FrameEvent) -> None:
        """Confirm mode: ``event`` could not be journaled; its driver takes it again when the
        device resends it."""
        for driver in self.drivers:
            if driver.ref == event.device:
                driver.decline(event)
                return
        raise CommandError(f"no driver of this table is on {event.device}")

    def close(self) -> None:
        for driver in self.drivers:
            driver.close()


def open_table(
    shoe_url: str,
    peek_url: str,
    panel_url: str,
    *,
    events: EventSink | None = None,
    baudrate: int = DEFAULT_BAUD,
    confirm_events: bool = False,
    resume: dict[str, tuple[int, int]] | None = None,
) -> TableDevices:
    """Open and start the three drivers. If one port cannot be opened, the others are closed
    again and the :class:`~drivers.errors.PortOpenError` is raised. ``confirm_events``: see
    :class:`~drivers.device.DeviceDriver` (the controller then calls ``driver.confirm(event)``
    once it has journaled each event; :meth:`TableDevices.confirm` picks the driver).
    ``resume``: per role (``"shoe"``, ``"peek"``, ``"panel"``) the ``(boot, seq)`` of the last
    event the controller journaled, so that a resend of it after a restart is not applied again."""
    sink: queue.Queue[DeviceEvent] = events if events is not None else queue.Queue()
    started: list[DeviceDriver] = []
    try:
        at = resume or {}
        shoe = ShoeDriver(
            shoe_url, sink, baudrate=baudrate, confirm_events=confirm_events, resume=at.get("shoe")
        )
        peek = PeekDriver(
            peek_url, sink, baudrate=baudrate, confirm_events=confirm_events, resume=at.get("peek")
        )
        panel = PanelDriver(
            panel_url,
            sink,
            baudrate=baudrate,
            confirm_events=confirm_events,
            resume=at.get("panel"),
        )
        drivers: tuple[DeviceDriver, ...] = (shoe, peek, panel)
        for driver in drivers:
            driver.start()
            started.append(driver)
    except DeviceError:
        for opened in started:
            opened.close()
        raise
    return TableDevices(shoe, peek, panel, sink)
