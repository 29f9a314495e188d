"""Supervisors and technicians as persons: each signs in with their own staff number and PIN
(the staff file, controller.table.staff), so the journal names who voided, burned or cleared;
a role nobody of the staff file has keeps the table file's shared PIN."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from controller.display.halted import halted_state
from controller.journal.errors import RecoveryMismatch
from controller.journal.journaled import JournaledTable
from controller.round.spec import Action
from controller.service.halt import Halted, Problem
from controller.service.service import Pin
from controller.table.access import AccessEvent
from controller.table.app import decision
from controller.table.config import hash_secret
from controller.table.keypad import DIGIT_KEYS
from controller.table.staff import Person, Staff, StaffError, load_staff, save_staff
from drivers.tbl21.events import Button, KeyPosition
from tests.live_pins import LIVE_PEPPER

from .conftest import SUPERVISOR_PIN, Clock, PinTable, pins

ANA_PIN = "61803398"
BO_PIN = "27182818"
STAFF = Staff(
    {
        "1001": Person("1001", "supervisor", "Ana Ruiz", hash_secret(ANA_PIN, pepper=LIVE_PEPPER)),
        "2001": Person("2001", "dealer", "Bo Chen", hash_secret(BO_PIN, pepper=LIVE_PEPPER)),
    },
    LIVE_PEPPER,
)


def staffed(clock: Clock) -> Any:
    return dataclasses.replace(pins(clock), staff=STAFF)


def _rows(t: PinTable, kind: str) -> list[dict[str, Any]]:
    return [r.payload for r in t.journal.iter_rows(kinds=[kind])]


def _key_staff_number(t: PinTable, number: str) -> None:
    for digit in number:
        t.press(DIGIT_KEYS[int(digit)])
    t.press(Button.OK)


def _pin(t: Any, pin: str, staff_id: str = "") -> AccessEvent:
    """A PIN (and the staff number keyed with it) on the display, as the service gives it."""
    table: JournaledTable = t.table
    return table.answer(table.app.access.check_pin(pin, source="display", staff_id=staff_id))


def test_a_supervisor_signs_in_by_staff_number_and_pin_and_the_journal_names_who_voided(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    clock = Clock()
    t = PinTable(path, staffed(clock))
    t.card("8S")  # nobody asked for it: the table holds
    t.key(KeyPosition.SUPERVISOR)
    shared = _pin(t, SUPERVISOR_PIN)  # the role's shared PIN signs nobody in now
    assert not shared.accepted
    assert "key your staff number, then your PIN" in shared.text
    t.press(Button.HIT)  # on the panel: the staff number first
    assert t.last_input().reason.startswith("key your staff number first: the digits 0-9")
    _key_staff_number(t, "1001")
    signed = t.pin(ANA_PIN)
    assert signed.text == "supervisor Ana Ruiz (1001) signed in until the key leaves SUP"
    assert t.table.answer(decision(Action.BURN_CARD)).accepted
    assert t.table.answer(decision(Action.VOID)).accepted
    overrides = _rows(t, "supervisor")
    assert [(o["action"], o["by"]) for o in overrides] == [
        ("burn_card", "Ana Ruiz (supervisor 1001, key and PIN)"),
        ("void", "Ana Ruiz (supervisor 1001, key and PIN)"),
    ]
    attempts = [p for p in _rows(t, "call") if p.get("type") == "PinAttempt"]
    assert [(a["result"], a["staff_id"], a["name"]) for a in attempts] == [
        ("need_staff", "", "sue"),
        ("right", "1001", "Ana Ruiz"),
    ]
    text = "".join(r.payload_json for r in t.journal.iter_rows())
    assert ANA_PIN not in text
    assert SUPERVISOR_PIN not in text
    before = (t.app.controller.state, t.app.controller.round.number)
    t.close()

    again = PinTable(path, staffed(clock), deal=False)  # the staff number's keys replay too
    assert (again.app.controller.state, again.app.controller.round.number) == before
    again.close()


def test_a_wrong_pin_or_unknown_staff_number_counts_toward_the_lockout_and_never_journals_it(
    tmp_path: Path,
) -> None:
    clock = Clock()
    t = PinTable(tmp_path / "j.sqlite3", staffed(clock))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    wrong = _pin(t, BO_PIN, staff_id="1001")
    assert wrong.text.startswith("wrong staff number or supervisor PIN: 4 more in a row lock")
    typo = _pin(t, ANA_PIN, staff_id="61803398")  # the PIN keyed as the number
    assert typo.wrong_in_a_row == 2
    dealer = _pin(t, BO_PIN, staff_id="2001")  # a dealer is no supervisor
    assert dealer.event == "wrong_pin"
    attempts = [p for p in _rows(t, "call") if p.get("type") == "PinAttempt"]
    assert [a["staff_id"] for a in attempts] == ["1001", "unknown", "unknown"]
    assert ANA_PIN not in "".join(r.payload_json for r in t.journal.iter_rows())
    assert _pin(t, ANA_PIN, staff_id="1001").event == "signed_in"
    t.close()


def test_a_role_nobody_on_the_staff_has_keeps_the_shared_pin_and_refuses_a_staff_number(
    tmp_path: Path,
) -> None:
    clock = Clock()
    t = PinTable(tmp_path / "j.sqlite3", pins(clock))  # no staff file: as before
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    refused = _pin(t, SUPERVISOR_PIN, staff_id="1001")
    assert "sign in with the table's supervisor PIN alone" in refused.text
    assert t.pin(SUPERVISOR_PIN).text == "supervisor sue signed in until the key leaves SUP"
    assert t.table.answer(decision(Action.VOID)).accepted
    assert _rows(t, "supervisor")[-1]["by"] == "sue (supervisor, key and PIN)"
    t.close()


def test_the_staff_file_is_refused_with_each_bad_line_and_when_others_may_read_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "staff" / "T1.staff"
    save_staff(path, STAFF, "T1")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert {p.id for p in load_staff(path, LIVE_PEPPER)} == {"1001", "2001"}
    good = path.read_text()
    path.write_text(
        good
        + "12x dealer nohash Carl\n"
        + f"1001 croupier {STAFF.people['1001'].pin_hash} Ana Again\n"
    )
    with pytest.raises(StaffError) as bad:
        load_staff(path, LIVE_PEPPER)
    assert bad.value.problems == [
        "line 5: staff number '12x' must be 1 to 8 of the digits 0-9",
        "line 5: the PIN hash is not one `croupier staff add` makes (a salted scrypt hash "
        "keyed with the table's pepper): add the person again",
        "line 6: role 'croupier' is none of dealer, supervisor, technician",
        "line 6: staff number 1001 is on line 4 already: one person per staff number",
    ]
    path.write_text(good)
    path.chmod(0o644)
    with pytest.raises(StaffError, match=r"chmod 600"):
        load_staff(path, LIVE_PEPPER)


def test_at_a_table_stopped_for_a_supervisor_the_supervisor_signs_in_by_staff_number(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    problem = Problem.of(RecoveryMismatch(3, ("note", {"device": "shoe"}), None), path)
    halted = Halted(problem, path, staffed(Clock()))
    try:
        assert halted_state(halted, _table())["halted"]["by_person"] is True
        refused = halted.submit(Pin(ANA_PIN)).result(10)
        assert not refused.accepted
        assert "key your staff number, then your PIN" in refused.reason
        assert halted.submit(Pin(ANA_PIN, "1001")).result(10).accepted
        assert halted.signed_in == "Ana Ruiz (supervisor 1001)"
    finally:
        halted.close()


def _table() -> Any:
    from tests.display.conftest import table_config  # noqa: PLC0415

    return table_config()
