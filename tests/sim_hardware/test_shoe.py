"""The emulated shoe: card order, draws, cut card, inventory, gate and new shoe."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.tbl21.cards import Card, Rank
from sim_hardware import (
    CardListError,
    EmulatedPanel,
    EmulatedShoe,
    ShoeEmptyError,
    SimConfigError,
    firmware_hash,
)
from sim_hardware.testing import FakeHost


def booted(shoe: EmulatedShoe) -> FakeHost:
    host = FakeHost(shoe)
    host.boot()
    return host


def drawn_cards(shoe: EmulatedShoe, count: int) -> list[Card]:
    cards = []
    for _ in range(count):
        card = shoe.draw().card
        assert card is not None
        cards.append(card)
    return cards


def test_the_same_seed_deals_the_same_shoe() -> None:
    first = EmulatedShoe(decks=6, seed=1234).cards_left
    again = EmulatedShoe(decks=6, seed=1234).cards_left
    assert first == again


def test_different_seeds_deal_different_shoes() -> None:
    assert EmulatedShoe(decks=6, seed=1).cards_left != EmulatedShoe(decks=6, seed=2).cards_left


def test_a_seeded_shoe_holds_exactly_the_decks_it_was_given() -> None:
    shoe = EmulatedShoe(decks=2, seed=5)
    assert len(shoe.cards_left) == 104
    assert all(count == 2 for count in _counts(shoe.cards_left).values())


def test_a_spanish_shoe_has_no_tens() -> None:
    shoe = EmulatedShoe(decks=6, deck_type="48", seed=9)
    assert len(shoe.cards_left) == 288
    assert not [c for c in shoe.cards_left if c.rank is Rank.TEN]


def test_an_explicit_card_list_is_dealt_in_its_order() -> None:
    shoe = EmulatedShoe(cards=["9D", "AS", Card.parse("KH")], decks=1)
    assert [str(c) for c in drawn_cards(shoe, 3)] == ["9D", "AS", "KH"]


def test_a_card_list_string_may_use_commas_new_lines_and_comments() -> None:
    shoe = EmulatedShoe(cards="9D, AS  # the dealer's ace\nKH")
    assert [str(c) for c in shoe.cards_left] == ["9D", "AS", "KH"]


def test_a_bad_card_in_the_list_is_named_with_its_position() -> None:
    with pytest.raises(CardListError, match=r"card 3 '1H': rank '1' .*write ten as 'T'"):
        EmulatedShoe(cards="AS KH 1H")


def test_a_bad_card_in_a_file_names_the_file_and_the_position(tmp_path: Path) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text("AS KH\n7C 7X\n")
    with pytest.raises(CardListError, match=r"shoe.txt: card 4 '7X': suit 'X'"):
        EmulatedShoe.from_file(path)


def test_a_card_file_is_read_in_order(tmp_path: Path) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text("# a short shoe\nAS KH\n7C\n")
    shoe = EmulatedShoe.from_file(path, decks=1)
    assert [str(c) for c in shoe.cards_left] == ["AS", "KH", "7C"]


def test_a_missing_card_file_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(CardListError, match=r"nope.txt: cannot read the card list"):
        EmulatedShoe.from_file(tmp_path / "nope.txt")


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"decks": 0}, "decks must be 1..8"),
        ({"deck_type": 36}, "deck_type must be 52 or 48"),
        ({"cards": "AS KH", "cut": 5}, "cut must be 1..2"),
        ({"cards": ""}, "no cards"),
    ],
)
def test_impossible_shoe_settings_are_refused(kwargs: dict[str, object], says: str) -> None:
    with pytest.raises(SimConfigError, match=says):
        EmulatedShoe(**kwargs)  # type: ignore[arg-type]


def test_a_draw_sends_the_card_with_draw_number_remaining_and_quality() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = booted(shoe)
    shoe.draw()
    [card] = host.advance(0.01)
    rank_suit, draw_no, remaining, quality = card.fields
    assert (card.kind, rank_suit, draw_no, remaining) == ("c", "AS", "0001", "0002")
    assert 0 <= int(quality) <= 99
    assert len(quality) == 2


def test_status_reports_draw_number_remaining_and_gate() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = booted(shoe)
    shoe.draw()
    host.advance(0.01)
    assert host.command("Q").fields[4:] == ["0001", "0002", "U"]


def test_the_physical_cut_card_is_reported_after_the_card_before_it() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C 2D", decks=1, cut=2)
    host = booted(shoe)
    for _ in range(3):
        shoe.draw()
    host.advance(0.05)
    assert [(f.kind, f.payload[:7]) for f in host.events() if f.kind in "cx"] == [
        ("c", "AS;0001"),
        ("c", "KH;0002"),
        ("x", "0002;P"),
        ("c", "7C;0003"),
    ]


def test_new_shoe_with_a_cut_index_reports_a_virtual_cut() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C 2D", decks=1, cut=3)
    host = booted(shoe)
    host.command("L", "1;52;1")
    shoe.draw()
    host.advance(0.05)
    assert [f.payload for f in host.events("x")] == ["0001;V"]


def test_the_last_card_is_followed_by_empty_and_a_further_draw_is_refused() -> None:
    shoe = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(shoe)
    shoe.draw()
    shoe.draw()
    host.advance(0.05)
    assert [(f.kind, f.payload) for f in host.events() if f.kind == "e"] == [("e", "0002")]
    with pytest.raises(ShoeEmptyError, match="empty after draw 2"):
        shoe.draw()


def test_new_shoe_command_reloads_and_reports_the_cards_detected() -> None:
    shoe = EmulatedShoe(decks=1, seed=3)
    host = booted(shoe)
    drawn_cards(shoe, 5)
    host.advance(0.05)
    frames = host.send("L", "2;48;0")
    assert [(f.kind, f.payload) for f in frames if f.kind in "sl"][1] == ("l", "96")
    assert shoe.draw_no == 0
    assert shoe.remaining == 96
    assert not [c for c in shoe.cards_left if c.rank is Rank.TEN]


def test_new_shoe_loads_the_prepared_order_first() -> None:
    shoe = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(shoe)
    shoe.prepare_next_shoe("2C 3C 4C")
    host.command("L", "1;52;0")
    assert [str(c) for c in shoe.cards_left] == ["2C", "3C", "4C"]


@pytest.mark.parametrize("payload", ["", "1;52", "x;52;0", "9;52;0", "1;36;0", "1;52;99"])
def test_a_bad_new_shoe_command_gets_a_nak_and_changes_nothing(payload: str) -> None:
    shoe = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(shoe)
    reply = host.command("L", payload)
    assert (reply.kind, reply.payload) == ("n", "BAD_ARG")
    assert [str(c) for c in shoe.cards_left] == ["AS", "KH"]


def test_a_card_drawn_through_a_locked_gate_is_sent_then_fault_0x15() -> None:
    shoe = EmulatedShoe(cards="AS KH", decks=1)
    host = booted(shoe)
    locked = host.command("G", "L")
    assert locked.fields[-1] == "L"
    assert int(locked.fields[1], 16) & (1 << 6)
    shoe.draw()
    host.advance(0.05)
    assert [(f.kind, f.payload[:9]) for f in host.events() if f.kind in "cf"] == [
        ("c", "AS;0001;0"),
        ("f", "15;W;R;DR"),
    ]
    host.command("G", "U")
    host.advance(0.05)
    assert host.events("f")[-1].payload == "15;W;C;DRAW_OUT_OF_PHASE"


def test_a_ten_in_a_spanish_shoe_raises_card_unexpected() -> None:
    shoe = EmulatedShoe(cards="AS TH", decks=1, deck_type=48)
    host = booted(shoe)
    drawn_cards(shoe, 2)
    host.advance(0.05)
    assert [f.payload for f in host.events("f")] == ["13;L;R;CARD_UNEXPECTED TH"]


def test_more_copies_of_a_card_than_decks_raises_over_inventory() -> None:
    shoe = EmulatedShoe(cards="AS 7D AS", decks=1)
    host = booted(shoe)
    drawn_cards(shoe, 3)
    host.advance(0.05)
    assert [f.payload for f in host.events("f")] == ["14;L;R;CARD_OVER_INVENTORY AS"]
    assert host.command("Q").fields[0] == "FAULT"


def test_a_lockup_stays_until_cleared() -> None:
    shoe = EmulatedShoe(cards="AS 7D AS", decks=1)
    host = booted(shoe)
    drawn_cards(shoe, 3)
    shoe.clear_fault(0x14)
    host.advance(0.05)
    assert host.events("f")[-1].payload == "14;L;C;CARD_OVER_INVENTORY"
    assert host.command("Q").fields[0] == "IDLE"


def test_the_gate_is_locked_while_disabled() -> None:
    shoe = EmulatedShoe()
    host = booted(shoe)
    assert host.command("D").fields[-1] == "L"
    assert host.command("E").fields[-1] == "U"


def _counts(cards: list[Card]) -> dict[Card, int]:
    counts: dict[Card, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def test_a_reboot_that_forgets_the_draw_number_starts_it_at_0_and_keeps_the_cards() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C 2D", decks=1, cut=3)
    host = booted(shoe)
    shoe.draw()
    shoe.draw()
    host.advance(0.05)
    shoe.reboot("PON", forget_draw_no=True)
    host.advance(0.05)
    assert shoe.draw_no == 0
    drawn = shoe.draw()
    assert (drawn.draw_no, str(drawn.card)) == (1, "7C")
    host.advance(0.05)
    # the cut card stays where it is among the cards: after 7C, now draw 1
    assert [(f.kind, f.payload[:7]) for f in host.events() if f.kind in "cxp"][-3:] == [
        ("p", "2;PON"),
        ("c", "7C;0001"),
        ("x", "0001;P"),
    ]


def test_a_reboot_keeps_the_draw_number_unless_told_to_forget_it() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    booted(shoe)
    shoe.draw()
    shoe.reboot("WDT")
    assert shoe.draw().draw_no == 2


def test_only_a_shoe_can_forget_its_draw_number() -> None:
    with pytest.raises(SimConfigError, match="needs a shoe"):
        EmulatedPanel().reboot("PON", forget_draw_no=True)


def test_a_swapped_unit_powers_up_as_itself() -> None:
    shoe = EmulatedShoe(cards="AS KH 7C", decks=1)
    host = booted(shoe)
    shoe.swap_unit("SIM-S-0666", "6.6.6")
    host.advance(0.05)
    model, serial, version, fw_hash, boot = host.command("I").fields[:5]
    assert (serial, version, boot) == ("SIM-S-0666", "6.6.6", "2")
    assert fw_hash == firmware_hash(model, "6.6.6")
    assert fw_hash != firmware_hash(model, "1.0.0")
