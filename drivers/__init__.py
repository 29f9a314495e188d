"""TBL-21 serial drivers: framing, transport and one driver per device type."""
