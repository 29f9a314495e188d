"""A shoe that restarts with its draw number at 0, a device swapped for another unit or other
firmware in the middle of a round, firmware the table file does not allow, and a card more than
the shoe's decks hold: through ``croupier run`` in a subprocess, its devices emulated on ptys
(issue 21, points 1 to 3).

A draw number that does not follow on after a reboot is no resend: the table holds for a
supervisor and every card from then on waits for the supervisor's decision (none is dropped as
"seen before", none is dealt by itself). A unit or firmware that changed mid-round holds for a
supervisor; a device whose firmware is not on the table file's ``devices.firmware_allow`` never
deals, and its hold cannot be cleared while it stays unapproved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, firmware_hash
from tests.faults.harness import (
    WAIT_S,
    Dealer,
    HarnessError,
    JournalRow,
    Rig,
    read_journal,
    supervisor_sign_in,
    supervisor_sign_out,
)

EMULATED_FW = tuple(
    firmware_hash(device.model, "1.0.0")
    for device in (EmulatedShoe, EmulatedPeekReader, EmulatedPanel)
)  # what the emulated devices of the rig report


class _Checked(Exception):
    """Raised by a phase hook once the test has seen what it came for (ends the round)."""


def wait_rows(
    rig: Rig, check: Callable[[list[JournalRow]], bool], what: str, timeout: float = WAIT_S
) -> list[JournalRow]:
    """The journal once ``check`` holds for its rows."""
    deadline = time.monotonic() + timeout
    while True:
        rows = read_journal(rig.journal_path)
        if check(rows):
            return rows
        if time.monotonic() > deadline:
            raise HarnessError(f"the journal did not show: {what}")
        time.sleep(0.05)


def identified(rows: list[JournalRow], role: str) -> list[JournalRow]:
    return [
        r
        for r in rows
        if r.kind == "device_event"
        and r.payload.get("type") == "DeviceIdentified"
        and r.payload["device"]["type"] == role
    ]


def dealt_after(rows: list[JournalRow], seq: int) -> list[str]:
    """The cards the round took after row ``seq`` (not those it held for a decision): each
    accepted card input whose state change leaves no hold."""
    dealt: list[str] = []
    card: str | None = None
    for r in rows:
        if r.seq <= seq:
            continue
        if r.kind == "input" and r.payload.get("action") == "card" and r.payload.get("accepted"):
            card = r.payload["data"]["card"]
        elif r.kind == "state" and r.payload["action"] == "card" and card is not None:
            if r.payload["dest"] != "hold":
                dealt.append(card)
            card = None
    return dealt


def told(state: dict[str, Any]) -> tuple[str, str]:
    """What the dealer reads first (the first hold): what happened, and what to do."""
    instruction = state["instruction"]
    return tuple(  # type: ignore[return-value]
        "".join(p.get("text", "") for p in instruction[key]) for key in ("parts", "detail")
    )


def box(state: dict[str, Any], number: int) -> dict[str, Any]:
    return next(b for b in state["boxes"] if b["number"] == number)


def holds_left(count: int) -> Callable[[dict[str, Any]], bool]:
    return lambda state: len(state["holds"]) == count


def press(rig: Rig, key: str, check: Callable[[dict[str, Any]], bool], what: str) -> None:
    mark = rig.state_count()
    rig.panel.tap(key)
    rig.wait_for(check, what, since=mark)


def test_a_shoe_that_restarts_with_its_draw_number_at_0_holds_the_round_and_loses_no_card(
    tmp_path: Path,
) -> None:
    with Rig(tmp_path) as rig:
        dealer = Dealer(rig)
        reboot_seq = 0

        def on_phase(d: Dealer, phase: str) -> None:
            nonlocal reboot_seq
            if phase != "players":
                return
            rig.quiesce()
            # The shoe restarts and forgets its draw number (7 cards are out: burn, 6 dealt).
            rig.shoe.reboot("PON", forget_draw_no=True)
            rows = wait_rows(
                rig, lambda rows: len(identified(rows, "shoe")) >= 2, "the shoe identified again"
            )
            reboot_seq = identified(rows, "shoe")[-1].seq
            d.tap("STD")  # box 1 stands on 18
            d.tap("HIT")  # box 2 (11) takes a card
            for _ in range(8):  # 9C for box 2, then 7 more the dealer draws, unaware
                drawn = rig.shoe.draw()
                assert drawn.draw_no <= 8
                rig.quiesce()
            state = rig.wait_for(lambda s: len(s["holds"]) == 9, "the hold and 8 cards waiting")
            said, todo = told(state)
            assert said == "Stop: the shoe restarted and lost its count of the cards drawn"
            assert "the supervisor" in todo
            assert "gives each card to its hand, burns it, or voids the round" in todo
            assert [b["what"][0]["text"] for b in state["hold_banners"]] == [
                "a card came out when none was due: "
            ] * 8  # each card waits for the supervisor's decision
            rows = read_journal(rig.journal_path)
            assert dealt_after(rows, reboot_seq) == []  # not one card dealt by itself
            assert box(state, 2)["hands"][0]["cards"] == ["5D", "6S"]
            assert "seen before" not in str([r.payload for r in rows if r.seq > reboot_seq])
            # The supervisor decides: clear the hold, give the first card (9C) to box 2 (it is
            # the card box 2 got), burn the other seven.
            supervisor_sign_in(rig.panel)
            rig.wait_for(lambda s: s["access"]["signed_in"] == "supervisor", "the supervisor in")
            press(rig, "OK_", lambda s: not any("DRAW_RESET" in h for h in s["holds"]), "cleared")
            press(rig, "HIT", lambda s: len(box(s, 2)["hands"][0]["cards"]) == 3, "assigned")
            for left in range(6, -1, -1):
                press(rig, "CAN", holds_left(left), f"{left} left")
            supervisor_sign_out(rig.panel)
            state = rig.wait_for(lambda s: not s["holding"], "play goes on")
            assert box(state, 2)["hands"][0]["cards"] == ["5D", "6S", "9C"]

        dealer.play_round(on_phase)
        assert reboot_seq
        rows = read_journal(rig.journal_path)
        assert dealt_after(rows, reboot_seq)[:1] == ["8H"]  # the dealer's next, from the shoe
        supervisor = [r.payload for r in rows if r.kind == "supervisor" and r.seq > reboot_seq]
        assert [s["action"] for s in supervisor] == ["clear_lockup", "assign_card"] + [
            "burn_card"
        ] * 7


def test_a_shoe_swapped_mid_round_for_another_unit_with_other_firmware_holds_the_round(
    tmp_path: Path,
) -> None:
    with Rig(tmp_path) as rig:
        dealer = Dealer(rig)

        def on_phase(d: Dealer, phase: str) -> None:
            if phase != "players":
                return
            rig.quiesce()
            rig.shoe.swap_unit("SIM-S-0666", "6.6.6")
            state = rig.wait_for(lambda s: s["holding"], "a hold for the swapped shoe")
            said, todo = told(state)
            assert said == "Stop: the shoe came back as another unit or with other firmware"
            assert "the supervisor" in todo
            assert any(
                "DEVICE_CHANGED" in h and "SIM-S-0001" in h and "SIM-S-0666" in h and "6.6.6" in h
                for h in state["holds"]
            )
            raise _Checked

        with pytest.raises(_Checked):
            dealer.play_round(on_phase)
        rows = read_journal(rig.journal_path)
        assert any(
            r.kind == "prompt" and "DEVICE_CHANGED" in r.payload.get("text", "") for r in rows
        )


def test_croupier_run_holds_for_a_device_whose_firmware_the_table_file_does_not_allow(
    tmp_path: Path,
) -> None:
    shoe_fw, _peek_fw, panel_fw = EMULATED_FW
    with Rig(tmp_path, firmware_allow=(shoe_fw, panel_fw)) as rig:  # not the reader's
        state = rig.wait_for(lambda s: s["holding"], "a hold for the reader's firmware")
        said, todo = told(state)
        assert said == "Stop: the hole-card reader runs firmware this table does not allow: no deal"
        assert "SIM-P-0001" in todo
        assert "devices.firmware_allow" in todo
        details = {d["role"]: d["detail"] for d in state["devices"]}  # the device strip
        assert details["peek"].startswith("firmware not approved")
        assert details["shoe"] == details["panel"] == ""
        # no deal: no bet is taken, and the supervisor cannot clear the hold
        assert not rig.bet(1, "ann", 1000).get("accepted")
        supervisor_sign_in(rig.panel)
        state = rig.wait_for(lambda s: s["access"]["signed_in"] == "supervisor", "signed in")
        assert "OK_" not in state["lit"]
        assert "clear_lockup" not in state["access"]["decisions"]
        answer = rig.send({"type": "supervisor", "decision": "clear_lockup"})
        assert not answer.get("accepted")
        assert "still runs firmware this table does not allow" in str(answer)
        state = rig.state
        assert state["holding"]
        rows = read_journal(rig.journal_path)
        calls = [r.payload for r in rows if r.kind == "call"]
        assert {
            "type": "AllowFirmware",
            "hashes": sorted(h.upper() for h in (shoe_fw, panel_fw)),
        } in calls


def test_croupier_run_holds_mid_round_when_a_device_comes_back_with_firmware_not_allowed(
    tmp_path: Path,
) -> None:
    with Rig(tmp_path, firmware_allow=EMULATED_FW) as rig:
        dealer = Dealer(rig)

        def on_phase(d: Dealer, phase: str) -> None:
            if phase != "players":
                return
            rig.quiesce()
            rig.shoe.swap_unit("SIM-S-0001", "6.6.6")  # the same unit, other firmware
            state = rig.wait_for(
                lambda s: any("FIRMWARE_NOT_APPROVED" in h for h in s["holds"]),
                "a hold for the shoe's firmware",
            )
            assert [h.split(":")[0] for h in state["holds"]] == [
                "DEVICE_CHANGED",
                "FIRMWARE_NOT_APPROVED",
            ]
            supervisor_sign_in(rig.panel)
            rig.wait_for(lambda s: s["access"]["signed_in"] == "supervisor", "the supervisor in")
            press(rig, "OK_", lambda s: len(s["holds"]) == 1, "the change checked")
            # the firmware hold stays: OK_ is dark, and a press says why
            state = rig.wait_for(lambda s: "OK_" not in s["lit"], "OK_ dark")
            press(rig, "OK_", lambda s: bool((s["last_input"] or {}).get("reason")), "refused")
            state = rig.state
            assert state["holding"]
            assert state["last_input"]["accepted"] is False
            assert "firmware this table does not allow" in state["last_input"]["reason"]
            assert "a technician installs approved firmware" in state["last_input"]["reason"]
            raise _Checked

        with pytest.raises(_Checked):
            dealer.play_round(on_phase)


def test_croupier_run_keeps_a_seventh_ace_of_spades_from_six_decks_out_of_the_round(
    tmp_path: Path,
) -> None:
    # The shoe believes it holds 8 decks, so it raises no fault of its own: the table counts.
    cards = "AS AS AS AS AS AS AS 5H 9C 2S KD QS JH 3C 4D 7C 8H 9D TS JC QD KH 4S 3H 7D"
    with Rig(tmp_path, cards=cards, shoe_decks=8) as rig:
        dealer = Dealer(rig)

        def on_phase(d: Dealer, phase: str) -> None:
            if phase != "dealing":
                return
            for _ in range(5):  # box 1, box 2, the dealer's ace, box 1, box 2: aces 2 to 6
                d.draw()
            state = d.draw()  # the hole card: a seventh ace of spades
            state = rig.wait_for(lambda s: s["holding"], "a hold for the card over the count")
            said, todo = told(state)
            assert said == "Stop: one card more than this game's shoe holds came out: "
            assert state["instruction"]["parts"][-1] == {"card": "AS"}
            assert "burns it or voids the round" in todo
            assert state["dealer"]["face_down"] == 0  # not dealt
            supervisor_sign_in(rig.panel)
            rig.wait_for(lambda s: s["access"]["signed_in"] == "supervisor", "the supervisor in")
            assert "assign" not in rig.state["access"]["decisions"]
            press(rig, "CAN", lambda s: not s["holding"], "burned")
            supervisor_sign_out(rig.panel)
            state = d.draw()  # 5H, the hole card after all
            assert state["dealer"]["face_down"] == 1
            raise _Checked

        with pytest.raises(_Checked):
            dealer.play_round(on_phase)
        rows = read_journal(rig.journal_path)
        assert [r.payload["action"] for r in rows if r.kind == "supervisor"] == ["burn_card"]
