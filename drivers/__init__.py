"""TBL-21 serial drivers: framing, transport and one driver per device type.

Layers, bottom up (each usable and tested on its own):

- :mod:`drivers.tbl21.framing` -- pure ``encode``/``decode`` of frames and :class:`FrameDecoder`
  (the 50 ms stale-partial rule, timed from a partial frame's last byte).
- :mod:`drivers.transport` -- :class:`SerialTransport`: any pyserial URL, opened exclusively;
  pyserial/OS errors become :mod:`drivers.errors`; reconnect with capped back-off; a read waits
  as long as asked and another thread can end it at once (``wake()``).
- :mod:`drivers.link` -- :class:`Link`, the sans-IO protocol core: ACK, duplicate suppression
  by (boot_count, SEQ), in-order acceptance, retries, the 500 ms poll, link loss and
  recovery, identification and refusal of a wrong device. Bytes and ``now`` in; bytes and
  events out; ``next_deadline()`` says when its next timer is due.
- :mod:`drivers.tbl21.payloads` -- strict parsers from payload text to typed events
  (:mod:`drivers.tbl21.events`).
- :mod:`drivers.device` -- :class:`DeviceDriver`: one thread per device owns a transport and
  a link, sleeps until bytes arrive or the link's next timer is due, delivers events to ONE
  shared ``queue.Queue`` and takes commands from any thread (each returns a
  ``concurrent.futures.Future`` and wakes the device's thread). :mod:`drivers.shoe`,
  :mod:`drivers.peek` and :mod:`drivers.panel` add the device commands;
  :func:`drivers.table.open_table` opens all three onto one queue.
- :mod:`drivers.watch` -- ``croupier watch``: print the events of connected devices.

Typical use by the round controller::

    from drivers.table import open_table

    with open_table(shoe_url, peek_url, panel_url) as table:
        table.shoe.lock_gate()
        table.panel.set_led(Button.HIT, LedMode.BLINK, LedColour.GREEN)
        while True:
            event = table.events.get()  # CardDrawn, PeekResult, ButtonPressed, LinkLost, ...

Drivers never call game code; the controller is the only consumer of the queue.
"""
