"""The table service: the one owner loop and the wiring of devices, journal and display."""
