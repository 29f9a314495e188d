"""Emulated TBL-21 devices: shoe, hole-card reader and button panel."""
