"""The emulated hole-card reader: Y/N/U/E only, and told to lie or fail."""

from __future__ import annotations

import pytest

from sim_hardware import EmulatedPeekReader, SimActionError
from sim_hardware.faults import PeekAnswer, PeekMode
from sim_hardware.testing import FakeHost


def peek(reader: EmulatedPeekReader, up: str) -> str:
    host = FakeHost(reader)
    host.boot()
    frames = host.send("K", up)
    [result] = [f for f in frames if f.kind == "k"]
    answer, quality = result.fields
    assert len(quality) == 2
    return answer


@pytest.mark.parametrize(
    ("up", "hole", "answer"),
    [
        ("A", "KS", "Y"),
        ("A", "TD", "Y"),
        ("A", "9H", "N"),
        ("A", "AC", "N"),
        ("T", "AC", "Y"),
        ("T", "KS", "N"),
        ("T", "5D", "N"),
    ],
)
def test_peek_answers_blackjack_or_not_from_the_real_hole_card(
    up: str, hole: str, answer: str
) -> None:
    assert peek(EmulatedPeekReader(hole_card=hole), up) == answer


def test_peek_without_a_hole_card_answers_no_card() -> None:
    assert peek(EmulatedPeekReader(), "A") == "E"


def test_a_lying_reader_answers_the_opposite() -> None:
    reader = EmulatedPeekReader(hole_card="KS", faults=[PeekAnswer(PeekMode.LIE)])
    assert peek(reader, "A") == "N"


def test_a_reader_told_to_fail_answers_unreadable_once_then_honestly() -> None:
    reader = EmulatedPeekReader(hole_card="KS")
    reader.set_answer_mode(PeekMode.UNREADABLE, count=1)
    host = FakeHost(reader)
    host.boot()
    host.send("K", "A")
    host.send("K", "A")
    assert [f.fields[0] for f in host.events("k")] == ["U", "Y"]


def test_a_reader_told_to_report_no_card_does_so_even_with_a_card() -> None:
    reader = EmulatedPeekReader(hole_card="KS", faults=[PeekAnswer(PeekMode.NO_CARD, None)])
    assert peek(reader, "A") == "E"


def test_the_reader_never_sends_the_rank() -> None:
    reader = EmulatedPeekReader(hole_card="KS")
    host = FakeHost(reader)
    host.boot()
    host.send("K", "A")
    host.command("Q")
    host.command("I")
    assert "KS" not in bytes(host.raw).decode("ascii", "replace")


def test_inserting_and_removing_the_card_sends_card_sensed_events_and_the_flag() -> None:
    reader = EmulatedPeekReader()
    host = FakeHost(reader)
    host.boot()
    reader.insert_hole_card("7H")
    host.advance(0.01)
    present = host.command("Q")
    assert reader.remove_hole_card().rank.value == "7"
    host.advance(0.01)
    assert [f.payload for f in host.events("h")] == ["I", "R"]
    assert int(present.fields[1], 16) & (1 << 7)
    assert present.fields[4:] == ["Y", "-"]


def test_a_second_hole_card_cannot_be_inserted() -> None:
    reader = EmulatedPeekReader(hole_card="7H")
    with pytest.raises(SimActionError, match=r"already in the reader \(7H\)"):
        reader.insert_hole_card("8H")


def test_removing_from_an_empty_reader_is_refused() -> None:
    with pytest.raises(SimActionError, match="no hole card"):
        EmulatedPeekReader().remove_hole_card()


@pytest.mark.parametrize("payload", ["", "K", "AT"])
def test_a_bad_arm_gets_a_nak(payload: str) -> None:
    host = FakeHost(EmulatedPeekReader(hole_card="KS"))
    host.boot()
    reply = host.command("K", payload)
    assert (reply.kind, reply.payload) == ("n", "BAD_ARG")


def test_a_disabled_reader_refuses_to_peek() -> None:
    host = FakeHost(EmulatedPeekReader(hole_card="KS"))
    host.boot()
    host.command("D")
    reply = host.command("K", "A")
    assert (reply.kind, reply.payload) == ("n", "DISABLED")
