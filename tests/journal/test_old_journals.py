"""Journals written by software 0.1 (format 1: untyped calls, inputs without their data, no
device commands) still replay to the table that wrote them, and go on in format 2.

The journals in ``fixtures/`` were written by software 0.1 itself (``fixtures/make_format1.py``
says how); ``fixtures/format1.json`` holds what each table was when it stopped.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from controller.game.rules import load_variant
from controller.journal.journaled import JournaledTable, _normal
from controller.journal.records import to_value
from controller.journal.store import Journal
from controller.table.access import KEY_ONLY, AccessPolicy, Role
from drivers.tbl21.events import Button, ButtonPressed, DeviceRef, DeviceType
from tests.live_pins import LIVE_PEPPER
from tests.security.conftest import SUPERVISOR_HASH

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED: dict[str, dict[str, Any]] = json.loads((FIXTURES / "format1.json").read_text())
PINS = AccessPolicy(
    pins_required=True, pin_hashes={Role.SUPERVISOR: SUPERVISOR_HASH}, pepper=LIVE_PEPPER
)


def summary(table: JournaledTable) -> dict[str, Any]:
    c = table.app.controller
    return {
        "state": c.state.value,
        "round": c.round.number,
        "last_draw_no": table.app.shoe.last_draw_no,
        "cards_burned": c.table.cards_burned,
        "ledger": [to_value(e) for e in c.round.ledger],
    }


def rebuilt(name: str, path: Path) -> JournaledTable:
    expected = EXPECTED[name]
    access = PINS if name == "pins" else KEY_ONLY
    journal = Journal.open(path, table_id="T1")
    return JournaledTable.start(load_variant(expected["variant"]), journal, access=access)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_journal_of_software_0_1_replays_to_the_table_that_wrote_it(
    name: str, tmp_path: Path
) -> None:
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / f"format1-{name}.sqlite", path)
    table = rebuilt(name, path)
    assert table.recovery is not None
    assert table.recovery.effects_written == 0  # every row matched, none was missing
    assert {"variant": EXPECTED[name]["variant"], **summary(table)} == EXPECTED[name]
    assert table.journal.verify().ok
    table.journal.close()


@pytest.mark.parametrize("name", ["nz_super_bonus", "pins"])
def test_a_journal_of_software_0_1_goes_on_in_format_2_and_replays_again(
    name: str, tmp_path: Path
) -> None:
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / f"format1-{name}.sqlite", path)
    first = rebuilt(name, path)
    first.journal.append("software", {"version": "0.2.0", "journal_format": 2})
    first.devices_ready()
    # a press on the panel: in format 2 its input has data and its lights a device command
    panel = DeviceRef(DeviceType.PANEL, "test://panel")
    first.handle(ButtonPressed(device=panel, at=0.0, seq=900, button=Button.CALL, held_ms=0))
    before = summary(first)
    kinds = {r.kind for r in first.journal.iter_rows()}
    assert "device_command" in kinds
    first.journal.close()
    again = rebuilt(name, path)
    assert again.recovery is not None
    assert again.recovery.effects_written == 0
    assert summary(again) == before
    assert again.journal.verify().ok
    again.journal.close()


def test_a_journal_of_format_5_that_named_a_keyed_in_hole_card_still_replays() -> None:
    """Format 5 named every keyed-in card the supervisor confirmed, the dealer's face-down one
    too; this software does not name that one. A format-5 journal's sentence is compared
    without its card, so its replay agrees; from format 6 on the words are compared whole."""
    old = ("prompt", {"code": "resumed", "text": "Keyed-in card AS confirmed. Deal on."})
    new = (
        "prompt",
        {
            "code": "resumed",
            "text": "Keyed-in card confirmed as the dealer's face-down card. Deal on.",
        },
    )
    assert _normal(old, 5) == _normal(new, 5)
    assert _normal(old, 6) != _normal(new, 6)
    other = ("prompt", {"code": "resumed", "text": "Card AS given to the hand in play. Deal on."})
    assert _normal(other, 5) != _normal(new, 5)  # only that sentence is loosened


def test_a_hold_journalled_before_its_cause_was_typed_still_replays() -> None:
    """Format 6 journalled a hold's input with its kind and words; from format 7 on it carries
    its typed cause too (and what it names). A format-6 row is compared without those."""
    old = ("input", {"action": "hold", "data": {"kind": "device_lost", "detail": "shoe refused"}})
    new = (
        "input",
        {
            "action": "hold",
            "data": {"kind": "device_lost", "detail": "shoe refused", "cause": "device_refused"},
        },
    )
    assert _normal(old, 6) == _normal(new, 6)
    assert _normal(old, 7) != _normal(new, 7)


def test_a_prompt_journalled_before_the_bar_was_recorded_still_replays() -> None:
    """Format 7 journalled a prompt's code and line; from format 8 on a prompt that says what to
    do now also holds ``shown``, the prompt bar's words. A format-7 row is compared without."""
    old = ("prompt", {"code": "DEAL", "box": 1, "text": "deal to box 1"})
    new = ("prompt", {**old[1], "shown": "Deal a card to box 1"})
    assert _normal(old, 7) == _normal(new, 7)
    assert _normal(old, 8) != _normal(new, 8)
