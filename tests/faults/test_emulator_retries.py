"""The emulated devices carry out a command the host retries once, even when a poll or another
command came between the lost reply and the retry (the soak run found a shoe loading a second
new shoe mid-round this way: the host's "new shoe" retried after a dropped reply, a poll in
between)."""

from __future__ import annotations

from sim_hardware import EmulatedShoe
from sim_hardware.testing import FakeHost


def test_a_retried_command_after_a_poll_is_answered_again_but_carried_out_once() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = FakeHost(shoe)
    host.boot()
    first = host.send("L", "1;52;0", seq=9)  # its reply is lost on the way...
    host.command("Q", seq=10)  # ...the host polls meanwhile...
    host.command("G", "L", seq=11)  # ...and sends another command...
    again = host.send("L", "1;52;0", seq=9)  # ...then retries the new shoe
    assert [f.kind for f in again] == ["s"]
    assert again[0] == first[0]
    assert len(host.events("l")) == 1


def test_the_same_seq_long_after_is_a_new_command() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = FakeHost(shoe)
    host.boot()
    host.send("L", "1;52;0", seq=9)
    host.advance(3.0, step=0.5)  # past the repeat window: SEQ 9 is a new command (wrapped)
    host.send("L", "1;52;0", seq=9)
    assert len(host.events("l")) == 2
