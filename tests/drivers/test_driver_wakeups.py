"""The driver's thread sleeps until bytes arrive or the link's next timer is due, and is woken at
once by a command or by close.

Real ptys (the production path: ``select`` on the port and a wake-up pipe) and, where it matters,
the in-process ``sim://`` port (woken through its ``cancel_read``). Counts, not times, show that
an idle driver does not spin; the sleeping cases stretch the link's timers to a minute, so a
driver that were not woken would visibly hang past the generous waits used here.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

import pytest

import drivers.device as device_module
from drivers.device import DeviceDriver
from drivers.link import LinkConfig
from drivers.shoe import ShoeDriver
from drivers.tbl21.events import DeviceEvent, DeviceStatusReport, LinkLost
from drivers.transport import Backoff
from sim_hardware import EmulatedShoe, InProcessRunner, PtyRunner, serve

WAIT_S = 5.0
SLEEPY = LinkConfig(poll_interval=60.0)  # nothing due for a minute once the device is up


@pytest.fixture(params=["pty", "sim"])
def shoe_port(request: pytest.FixtureRequest) -> Iterator[str]:
    shoe = EmulatedShoe(seed=5)
    runner: PtyRunner | InProcessRunner
    if request.param == "pty":
        runner = PtyRunner(shoe, name="wake-shoe")
        yield runner.port
    else:
        runner = serve(shoe, "wake-shoe")
        yield runner.url
    runner.close()


@pytest.fixture
def sleepy_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a timer due, the thread would sleep a minute (not the usual one second)."""
    monkeypatch.setattr(device_module, "MAX_IDLE_WAIT_S", 60.0)


def settled(driver: DeviceDriver) -> DeviceDriver:
    """Identified, its time sync answered, the power-up chatter over."""
    driver.wait_identified(WAIT_S)
    driver.poll().result(WAIT_S)
    return driver


def test_an_idle_driver_on_a_pty_reads_a_few_times_a_second_not_every_few_milliseconds() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with (
        PtyRunner(EmulatedShoe(seed=5), name="idle-shoe") as runner,
        ShoeDriver(runner.port, events) as driver,
    ):
        settled(driver)
        reads, polls = driver.reads, driver.stats.commands_sent
        time.sleep(1.0)
        reads, polls = driver.reads - reads, driver.stats.commands_sent - polls
    # A poll every 500 ms and its reply: about 4 reads. A reader waking every 10 ms made 100.
    assert reads <= 25
    assert polls >= 1, "the link is still supervised while idle"


@pytest.mark.usefixtures("sleepy_thread")
def test_a_command_wakes_a_driver_sleeping_until_its_next_poll(shoe_port: str) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with ShoeDriver(shoe_port, events, link_config=SLEEPY) as driver:
        settled(driver)
        reads = driver.reads
        status = driver.lock_gate().result(WAIT_S)
        assert isinstance(status, DeviceStatusReport)
        assert status.specific[-1] == "L"
        assert driver.reads - reads <= 10, "woken for the command, not by a timer spinning"


@pytest.mark.usefixtures("sleepy_thread")
def test_close_stops_a_driver_sleeping_until_its_next_poll(shoe_port: str) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    driver = settled(ShoeDriver(shoe_port, events, link_config=SLEEPY).start())
    driver.close(timeout=WAIT_S)
    assert not driver.running, "close woke the thread; it did not sleep out its minute"


def test_close_ends_the_back_off_wait_of_a_driver_whose_device_is_unplugged() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    shoe = EmulatedShoe(seed=5)
    with PtyRunner(shoe, name="gone-shoe") as runner:
        driver = settled(
            ShoeDriver(runner.port, events, backoff=Backoff(initial=60.0, cap=60.0)).start()
        )
        shoe.unplug()
        end = time.monotonic() + WAIT_S
        while not any(isinstance(e, LinkLost) for e in _drain(events)):
            assert time.monotonic() < end, "the unplug was not noticed"
            time.sleep(0.01)
        driver.close(timeout=WAIT_S)
        assert not driver.running, "close ended the minute-long back-off at once"


def _drain(events: queue.Queue[DeviceEvent]) -> list[DeviceEvent]:
    got = []
    while True:
        try:
            got.append(events.get_nowait())
        except queue.Empty:
            return got
