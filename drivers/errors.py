"""Errors of the drivers package, shaped by the lifecycle of a device link.

``DeviceError`` is the base. Each error names the port (the pyserial URL it was opened with) and
says what to do. pyserial and OS errors are translated at the boundary (``transport``) with
``raise ... from`` so the original cause stays in the traceback.

- opening a port: :class:`PortOpenError`
- reading or writing an open port: :class:`PortIOError`
- a device that does not answer in time: :class:`DeviceTimeoutError` (and :class:`LinkDownError`
  for a command refused because the link is down)
- a device that answers wrongly: :class:`ProtocolError`, :class:`WrongDeviceError`,
  :class:`CommandRejectedError`
- a bad argument from our own caller: :class:`CommandError` (also a ``ValueError``); nothing is
  sent when it is raised.
"""

from __future__ import annotations


class DeviceError(Exception):
    """Base of every error the drivers raise on purpose. ``url`` names the port ("" if none)."""

    def __init__(self, message: str, *, url: str = "") -> None:
        self.url = url
        super().__init__(message)


class DriverConfigError(DeviceError, ValueError):
    """A driver was configured with a value it cannot use (baud rate, timeout...)."""


class CommandError(DeviceError, ValueError):
    """A command was called with an argument the protocol does not allow; nothing was sent."""


class PortOpenError(DeviceError):
    """The port could not be opened (missing, busy, no permission, unknown URL scheme)."""


class PortIOError(DeviceError):
    """Reading or writing an open port failed: the port is gone or broken."""


class DeviceTimeoutError(DeviceError):
    """The device did not answer a command after every retry."""


class LinkDownError(DeviceTimeoutError):
    """A command was refused or abandoned because the link to the device is down."""


class ProtocolError(DeviceError):
    """The device sent something the protocol does not allow (malformed payload, bad field)."""


class WrongDeviceError(ProtocolError):
    """The device on the port identified itself as another device type."""


class CommandRejectedError(DeviceError):
    """The device answered a command with ``n`` (NAK). ``reason`` is the device's reason."""

    def __init__(self, message: str, *, url: str = "", reason: str = "") -> None:
        self.reason = reason
        super().__init__(message, url=url)
