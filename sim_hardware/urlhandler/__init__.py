"""pyserial URL handlers of the emulator (``sim://``); see ``sim_hardware.register_url_handler``."""
