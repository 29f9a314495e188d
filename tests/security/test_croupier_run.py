"""The table of ``croupier run`` (the table service with its devices and display): it takes the
table file's PINs, and the hole card is not in what it sends the panel before the reveal."""

from __future__ import annotations

from controller.round.inputs import Bet, BurnCard, Void
from controller.service.service import Command, CommandReply, Pin, Press
from drivers.tbl21.events import Button
from tests.display.conftest import WAIT_S, Table, running_table, table_config

from .conftest import SUPERVISOR_HASH, SUPERVISOR_PIN

# burn, box 1 9H 3D against the dealer's 7C; then the 8S comes out when no card is due
NZ_ROUND = "2C 9H 7C 3D 8S 4S 5S 6S"


def _submit(table: Table, command: Command) -> CommandReply:
    return table.service.submit(command).result(WAIT_S)


def _to_the_card_nobody_asked_for(table: Table) -> None:
    table.draw()
    table.wait_for(lambda s: s["state"] == "betting", "bets open")
    assert _submit(table, Bet(1, "ann", 1000)).accepted
    assert _submit(table, Press(Button.DEAL)).accepted
    for _ in range(4):
        table.draw()
    table.wait_for(lambda s: s["holding"], "the hold for the card nobody asked for")


def test_the_table_of_croupier_run_takes_the_pins_of_its_table_file() -> None:
    loaded = table_config("nz-pontoon", supervisor={"pin_hash": SUPERVISOR_HASH})
    with running_table(loaded, NZ_ROUND) as table:
        _to_the_card_nobody_asked_for(table)
        assert _submit(table, BurnCard()) == CommandReply(
            False, "needs the supervisor key (turn the key switch to SUP)"
        )
        table.panel.turn_key("SUP")
        table.wait_for(lambda s: s["access"]["pin_pad"], "the PIN pad")
        refused = _submit(table, BurnCard())
        assert not refused.accepted
        assert refused.reason.startswith("enter the supervisor PIN")
        assert not _submit(table, Pin("11112222")).accepted
        assert _submit(table, Pin(SUPERVISOR_PIN)).accepted
        state = table.wait_for(lambda s: s["access"]["signed_in"] == "supervisor", "sign-in")
        assert state["access"]["decisions"] == ["assign", "burn", "void"]
        assert _submit(table, BurnCard()).accepted
        table.wait_for(lambda s: s["state"] == "playing", "play again")


def test_without_a_pin_in_the_table_file_croupier_run_refuses_the_role_saying_how_to_set_one() -> (
    None
):
    with running_table(table_config("nz-pontoon"), NZ_ROUND) as table:
        _to_the_card_nobody_asked_for(table)
        table.panel.turn_key("SUP")
        table.wait_for(lambda s: s["access"]["pin_pad"], "the PIN pad")
        assert table.state()["access"]["pin_set"] == {"supervisor": False, "technician": False}
        for reply in (_submit(table, Void()), _submit(table, Pin(SUPERVISOR_PIN))):
            assert not reply.accepted
            assert "`croupier passwd --pin supervisor`" in reply.reason
        assert table.state()["holding"]


# PA: burn, box 1 T 8, the dealer's ace up (peek) and the 5 of diamonds in the hole
PA_ROUND = "3C TC AS 8H 5D 2H 4S 6S"
HOLE = "5D"


def test_the_hole_card_is_not_in_what_the_table_sends_the_panel_before_the_reveal() -> None:
    with running_table(table_config("pa-blackjack"), PA_ROUND) as table:
        checked: list[str] = []

        def check(step: str) -> None:
            sent = [f"{f.kind} {f.payload}" for f in table.panel.received]
            assert any(s.startswith("L ") for s in sent), "the panel was sent no lamps"
            shown = table.panel.render()
            assert HOLE not in " ".join(sent), f"the hole card was sent to the panel at {step}"
            assert HOLE not in shown, f"the panel shows the hole card at {step}"
            checked.append(step)

        table.draw()
        table.wait_for(lambda s: s["state"] == "betting", "bets open")
        assert _submit(table, Bet(1, "ann", 1000)).accepted
        assert _submit(table, Press(Button.DEAL)).accepted
        for _ in range(4):
            table.draw()
        table.wait_for(lambda s: s["state"] == "insurance", "the insurance window")
        check("insurance")
        assert _submit(table, Press(Button.OK)).accepted
        table.wait_for(lambda s: s["state"] == "surrender", "the surrender window")
        check("surrender")
        assert _submit(table, Press(Button.OK)).accepted
        table.wait_for(lambda s: s["state"] == "peek", "the peek")
        table.reader.insert_hole_card(HOLE)
        table.wait_for(lambda s: s["state"] == "playing", "play")
        table.reader.remove_hole_card()
        check("playing")
        assert _submit(table, Press(Button.STAND)).accepted
        table.wait_for(lambda s: s["state"] == "reveal", "the reveal prompt")
        check("reveal prompt")
        assert _submit(table, Press(Button.OK)).accepted
        table.wait_for(lambda s: s["dealer"]["face_down"] == 0, "the reveal")
        assert checked == ["insurance", "surrender", "playing", "reveal prompt"]
