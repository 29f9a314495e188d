"""TBL-21's fault codes (protocol.md, "Fault codes"): one table, each code with its name and the
severity a device raises it at. 0xA0-0xAF are the host's own (never sent by a device)."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Severity(StrEnum):
    INFO = "I"
    WARNING = "W"  # the round may continue after a prompt
    LOCKUP = "L"  # the round holds until a supervisor (or a technician) clears it


class FaultCode(IntEnum):
    CARD_UNREADABLE = 0x10
    DOUBLE_FEED = 0x11
    CARD_PUSHBACK = 0x12
    CARD_UNEXPECTED = 0x13
    CARD_OVER_INVENTORY = 0x14
    DRAW_OUT_OF_PHASE = 0x15
    SHOE_EMPTY_MID_ROUND = 0x20
    OPTICS_DIRTY = 0x30
    LAMP_FAIL = 0x31
    LID_OPEN = 0x40  # a warning; a lockup while dealing (the shoe decides)
    CASE_TAMPER = 0x41
    COMM_HOST_TIMEOUT = 0x50
    QUEUE_OVERFLOW = 0x51
    MEMORY_CRC_FAIL = 0x60
    FW_SIGNATURE_FAIL = 0x61
    BUTTON_STUCK = 0x70
    PEEK_MISMATCH = 0xA1  # the host's: the reader's answer and the turned-over card differ
    COMM_LOST = 0xA2  # the host's: the link to a device was lost


SEVERITY: dict[FaultCode, Severity] = {
    FaultCode.CARD_UNREADABLE: Severity.WARNING,
    FaultCode.DOUBLE_FEED: Severity.WARNING,
    FaultCode.CARD_PUSHBACK: Severity.LOCKUP,
    FaultCode.CARD_UNEXPECTED: Severity.LOCKUP,
    FaultCode.CARD_OVER_INVENTORY: Severity.LOCKUP,
    FaultCode.DRAW_OUT_OF_PHASE: Severity.WARNING,
    FaultCode.SHOE_EMPTY_MID_ROUND: Severity.WARNING,
    FaultCode.OPTICS_DIRTY: Severity.WARNING,
    FaultCode.LAMP_FAIL: Severity.LOCKUP,
    FaultCode.LID_OPEN: Severity.WARNING,
    FaultCode.CASE_TAMPER: Severity.LOCKUP,
    FaultCode.COMM_HOST_TIMEOUT: Severity.WARNING,
    FaultCode.QUEUE_OVERFLOW: Severity.LOCKUP,
    FaultCode.MEMORY_CRC_FAIL: Severity.LOCKUP,
    FaultCode.FW_SIGNATURE_FAIL: Severity.LOCKUP,
    FaultCode.BUTTON_STUCK: Severity.WARNING,
}


def fault_name(code: int) -> str:
    """``CARD_UNREADABLE`` for 0x10; ``FAULT_0x99`` for a code the protocol does not name."""
    try:
        return FaultCode(code).name
    except ValueError:
        return f"FAULT_0x{code:02X}"
