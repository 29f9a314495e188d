"""TBL-21, the wire contract of our devices: card notation, framing, payloads, typed events,
fault codes, buttons and device types. It imports nothing of ours; the drivers, the emulated
devices and the controller all build on it."""
