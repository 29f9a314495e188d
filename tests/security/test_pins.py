"""Supervisor and technician PINs on a journaled table: sign-in, wrong PINs and the lockout,
sign-out, the journal (never a PIN) and a restart that replays it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from controller.game.holds import HoldKind
from controller.round.spec import Action, State
from controller.table.access import KEY_ONLY, Role
from controller.table.app import decision
from drivers.tbl21.events import Button, KeyPosition

from .conftest import (
    LOCKOUT_S,
    START,
    SUPERVISOR_HASH,
    SUPERVISOR_PIN,
    TECHNICIAN_PIN,
    Clock,
    PinTable,
    pins,
)

WRONG = "90817263"
PIN_PAD = {"OK_", "CAN", "CAL", *(f"D{n}_" for n in range(10))}


def state(t: PinTable) -> State:
    return t.app.controller.state


def _round(t: PinTable) -> tuple[Any, ...]:
    """What a supervisor decision would change."""
    c = t.app.controller
    return (
        c.state,
        [(h.kind, h.detail, h.card) for h in c.hold_reasons],
        c.table.cards_burned,
        [list(h.cards) for b in c.round.boxes.values() for h in b.hands],
        list(c.round.ledger),
    )


def _access_rows(t: PinTable) -> list[dict[str, Any]]:
    return [r.payload for r in t.journal.iter_rows(kinds=["access"])]


def _attempt_rows(t: PinTable) -> list[dict[str, Any]]:
    calls = [r.payload for r in t.journal.iter_rows(kinds=["call"])]
    return [p for p in calls if p.get("type") == "PinAttempt"]


def test_five_wrong_pins_lock_the_role_for_the_configured_time_and_a_right_pin_is_then_refused(
    tmp_path: Path,
) -> None:
    clock = Clock()
    t = PinTable(tmp_path / "j.sqlite3", pins(clock))
    t.card("8S")  # nobody asked for it: the table holds for the supervisor
    t.key(KeyPosition.SUPERVISOR)
    for n in range(1, 5):
        clock.now += 1
        event = t.pin(WRONG)
        assert (event.event, event.wrong_in_a_row) == ("wrong_pin", n)
        assert f"{5 - n} more in a row lock the supervisor PIN for 2 min" in event.text
    clock.now = START
    locked = t.pin(WRONG)
    assert locked.event == "locked"
    assert locked.locked_until == START + LOCKOUT_S
    assert locked.text == (
        "the supervisor PIN is locked until 08:02:00 UTC (2 min) after 5 wrong PINs in a row"
    )

    clock.now = START + LOCKOUT_S - 1
    refused = t.pin(SUPERVISOR_PIN)  # the right PIN, and still refused
    assert refused.event == "refused"
    assert refused.text.startswith("the supervisor PIN is locked until 08:02:00 UTC (another 1 s)")
    assert t.app.access.signin.role is None
    before = _round(t)
    t.press(Button.HIT)
    assert not t.last_input().accepted
    assert t.table.answer(decision(Action.BURN_CARD)).reason.endswith(
        "; wrong PINs locked it until 08:02:00 UTC"
    )
    assert _round(t) == before

    clock.now = START + LOCKOUT_S  # the lockout is over
    assert t.pin(SUPERVISOR_PIN).event == "signed_in"
    t.press(Button.HIT)  # the card nobody asked for goes to box 1
    assert state(t) is State.PLAYING
    overrides = [r.payload for r in t.journal.iter_rows(kinds=["supervisor"])]
    assert [(o["action"], o["by"]) for o in overrides] == [
        ("assign_card", "sue (supervisor, key and PIN)")
    ]
    t.close()


def test_only_wrong_pins_in_a_row_count_toward_the_lockout(tmp_path: Path) -> None:
    clock = Clock()
    t = PinTable(tmp_path / "j.sqlite3", pins(clock, max_wrong_pins=3))
    t.key(KeyPosition.SUPERVISOR)
    assert [t.pin(WRONG).wrong_in_a_row for _ in range(2)] == [1, 2]
    assert t.pin(SUPERVISOR_PIN).event == "signed_in"
    t.key(KeyPosition.RUN)
    t.key(KeyPosition.SUPERVISOR)
    assert [t.pin(WRONG).event for _ in range(3)] == ["wrong_pin", "wrong_pin", "locked"]
    t.close()


@pytest.fixture
def default_logging() -> Iterator[None]:
    """structlog's defaults for one test (other tests' CLI runs quiet it to WARNING)."""
    saved = structlog.get_config()
    structlog.reset_defaults()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("default_logging")
def test_every_attempt_right_or_wrong_and_every_sign_out_is_journalled_without_the_pin(
    tmp_path: Path,
) -> None:
    clock = Clock()
    with capture_logs() as logs:
        t = PinTable(tmp_path / "j.sqlite3", pins(clock))
        t.card("8S")
        t.key(KeyPosition.SUPERVISOR)
        t.press(Button.HIT)  # refused on the PIN pad (logged at INFO: the check proves something)
        t.pin(WRONG)
        t.pin(SUPERVISOR_PIN)
        t.key(KeyPosition.RUN)
        t.key(KeyPosition.SUPERVISOR)
        assert t.table.answer(t.app.access.check_pin(WRONG, source="display")).event == "wrong_pin"
        assert (
            t.table.answer(t.app.access.check_pin(SUPERVISOR_PIN, source="display")).event
            == "signed_in"
        )
        t.key(KeyPosition.TECHNICIAN)  # the supervisor's key leaves SUP
        t.pin(SUPERVISOR_PIN)  # the supervisor's PIN is not the technician's

    attempts = _attempt_rows(t)
    assert [(a["role"], a["result"], a["source"]) for a in attempts] == [
        ("supervisor", "wrong", "panel"),
        ("supervisor", "right", "panel"),
        ("supervisor", "wrong", "display"),
        ("supervisor", "right", "display"),
        ("technician", "wrong", "panel"),
    ]
    assert all(a["at"] == START for a in attempts)
    assert [(a["event"], a["role"]) for a in _access_rows(t)] == [
        ("policy", None),  # the table's first start requires PINs
        ("wrong_pin", "supervisor"),
        ("signed_in", "supervisor"),
        ("signed_out", "supervisor"),
        ("wrong_pin", "supervisor"),
        ("signed_in", "supervisor"),
        ("signed_out", "supervisor"),
        ("wrong_pin", "technician"),
    ]
    rows = list(t.journal.iter_rows())
    for secret in (SUPERVISOR_PIN, WRONG, SUPERVISOR_HASH.split("$")[-2]):
        assert not [r.seq for r in rows if secret in r.payload_json], secret
    # and no digit of a PIN as a key press
    presses = [r.payload for r in rows if r.kind == "device_event"]
    digits = {f"D{n}_" for n in range(10)}
    assert not [p for p in presses if p.get("button") in digits]
    loud = [e for e in logs if e.get("log_level") in ("info", "warning", "error", "critical")]
    assert loud, "nothing logged at INFO: the check would prove nothing"
    assert not [e for e in loud if SUPERVISOR_PIN in repr(e) or WRONG in repr(e)]
    t.close()


def test_a_supervisor_decision_without_the_pin_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    t = PinTable(tmp_path / "j.sqlite3", pins(Clock()))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    before = _round(t)
    assert {b.value for b in t.app.lit} == PIN_PAD  # the panel is a PIN pad
    t.press(Button.HIT)
    assert t.last_input().reason == (
        "enter the supervisor PIN first: the digits 0-9, then OK (CANCEL clears)"
    )
    t.press(Button.OK)  # no digits yet: no attempt
    assert t.last_input().reason == "key in the supervisor PIN digits first, then OK"
    t.press(Button.DEAL, held=True)  # the void key does nothing either
    for action in (Action.ASSIGN_CARD, Action.BURN_CARD, Action.VOID, Action.CLEAR_LOCKUP):
        result = t.table.answer(decision(action, by="somebody"))
        assert not result.accepted
        assert result.reason.startswith("enter the supervisor PIN: the digits 0-9 then OK on")
    assert _round(t) == before
    assert list(t.journal.iter_rows(kinds=["supervisor"])) == []
    assert _attempt_rows(t) == []
    t.close()


def test_turning_the_key_away_signs_the_role_out(tmp_path: Path) -> None:
    t = PinTable(tmp_path / "j.sqlite3", pins(Clock()))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    assert t.pin(SUPERVISOR_PIN).event == "signed_in"
    assert t.app.supervisor_choices() == ["assign", "burn", "void"]
    t.key(KeyPosition.RUN)
    assert t.app.access.signin.role is None
    assert _access_rows(t)[-1]["text"] == "supervisor sue signed out: the key turned to RUN"
    t.key(KeyPosition.SUPERVISOR)  # back at SUP: the PIN again
    assert t.app.access.pin_pad_role() is Role.SUPERVISOR
    assert t.app.supervisor_choices() == []
    assert not t.table.answer(decision(Action.BURN_CARD)).accepted
    assert state(t) is State.HOLD
    t.close()


def test_a_lockout_survives_a_restart_that_replays_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    clock = Clock()
    t = PinTable(path, pins(clock))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    for _ in range(5):
        t.pin(WRONG)
    assert not t.table.answer(decision(Action.VOID)).accepted  # refused while locked
    t.close()

    clock.now += 60
    again = PinTable(path, pins(clock), deal=False)  # rebuilt by replaying the journal
    assert again.table.recovery is not None
    assert again.app.access.signin.locks[Role.SUPERVISOR].locked_until == START + LOCKOUT_S
    refused = again.pin(SUPERVISOR_PIN)
    assert refused.text.startswith(
        "the supervisor PIN is locked until 08:02:00 UTC (another 1 min)"
    )
    again.close()

    clock.now = START + LOCKOUT_S  # after the lockout the replay still gives the same refusals
    after = PinTable(path, pins(clock), deal=False)
    assert after.app.access.signin.locks[Role.SUPERVISOR].locked_until == START + LOCKOUT_S
    assert after.pin(SUPERVISOR_PIN).event == "signed_in"
    after.close()


def test_a_restart_signs_out_whoever_was_signed_in_and_replays_to_the_same_state(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    clock = Clock()
    t = PinTable(path, pins(clock))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    t.pin(WRONG)
    t.pin(SUPERVISOR_PIN)
    t.close()

    again = PinTable(path, pins(clock), deal=False)
    assert again.app.access.signin.role is None
    assert _access_rows(again)[-1]["text"] == "supervisor sue signed out: the table restarted"
    assert not again.table.answer(decision(Action.BURN_CARD)).accepted
    again.close()
    third = PinTable(path, pins(clock), deal=False)  # the sign-out replays like the rest
    assert third.app.access.signin.role is None
    assert third.app.controller.hold_reasons[0].kind is HoldKind.UNEXPECTED_CARD
    assert third.pin(SUPERVISOR_PIN).event == "signed_in"
    third.close()


def test_a_role_without_a_pin_in_the_table_file_decides_nothing_and_is_told_how_to_set_one(
    tmp_path: Path,
) -> None:
    t = PinTable(tmp_path / "j.sqlite3", pins(Clock(), supervisor=None))
    t.card("8S")
    t.key(KeyPosition.SUPERVISOR)
    hint = (
        "no supervisor PIN is set for this table: make one with "
        "`croupier passwd --pin supervisor` and put the line it prints under [supervisor] "
        "in the table file"
    )
    assert t.pin("12345678").text == hint
    assert t.table.answer(decision(Action.BURN_CARD)).reason == hint
    assert state(t) is State.HOLD
    t.close()


def test_a_technician_clears_a_hardware_lockup_but_nothing_that_moves_money_or_decides_cards(
    tmp_path: Path,
) -> None:
    t = PinTable(tmp_path / "j.sqlite3", pins(Clock()))
    t.key(KeyPosition.TECHNICIAN)
    assert t.pin(TECHNICIAN_PIN).event == "signed_in"
    t.fault(0x31)  # LAMP_FAIL: the shoe locks up
    assert state(t) is State.HOLD
    assert t.app.supervisor_choices() == ["clear_lockup"]
    void = t.table.answer(decision(Action.VOID))
    assert void.reason == (
        "a technician may clear only a device's hardware lockup; void needs the supervisor "
        "(key at SUP and the supervisor PIN)"
    )
    t.press(Button.OK)
    assert state(t) is State.PLAYING
    overrides = [r.payload for r in t.journal.iter_rows(kinds=["supervisor"])]
    assert [(o["action"], o["by"]) for o in overrides] == [
        ("clear_lockup", "tom (technician, key and PIN)")
    ]

    t.fault(0x13)  # CARD_UNEXPECTED: which cards count is the supervisor's to decide
    t.press(Button.OK)
    assert t.last_input().reason == "with the technician key, OK_ decides nothing now"
    assert not t.table.answer(decision(Action.CLEAR_LOCKUP)).accepted
    assert state(t) is State.HOLD
    t.key(KeyPosition.SUPERVISOR)
    t.pin(SUPERVISOR_PIN)
    t.press(Button.OK)
    assert state(t) is State.PLAYING
    t.close()


def test_a_journal_from_before_pins_replays_as_it_was_and_pins_are_required_from_then_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    before = PinTable(path, KEY_ONLY)  # a table of the key alone (as before PINs)
    before.card("8S")
    before.key(KeyPosition.SUPERVISOR)
    before.press(Button.CANCEL)  # burnt by the key alone
    before.key(KeyPosition.RUN)
    assert state(before) is State.PLAYING
    before.close()

    clock = Clock()
    after = PinTable(path, pins(clock), deal=False)  # replays without a mismatch
    assert after.app.controller.table.cards_burned == 2
    policy = [p for p in _calls(after) if p.get("type") == "RequirePins"]
    assert policy == [{"type": "RequirePins", "required": True}]
    after.card("4H")  # nobody asked for it either
    after.key(KeyPosition.SUPERVISOR)
    after.press(Button.CANCEL)
    assert state(after) is State.HOLD  # the key alone no longer burns it
    after.pin(SUPERVISOR_PIN)
    after.press(Button.CANCEL)
    assert state(after) is State.PLAYING
    after.close()
    again = PinTable(path, pins(clock), deal=False)
    assert [p for p in _calls(again) if p.get("type") == "RequirePins"] == policy
    assert again.app.controller.table.cards_burned == 3
    again.close()


def _calls(t: PinTable) -> list[dict[str, Any]]:
    return [r.payload for r in t.journal.iter_rows(kinds=["call"])]
