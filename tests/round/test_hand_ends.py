"""Why a hand is over is a code (issue 23): end_of_hand gives a HandEnd, the round keeps it on
the hand, and only the words module says it (the screen's status beside the total, the
analysis' "hand ends: ..." counts), in the words it had when it was a string."""

from __future__ import annotations

from controller.game.hands import HandEnd
from controller.game.rules import Variant, load_variant
from controller.game.words import hand_end_words, hand_status
from controller.round.model import HandState, StakeState, end_of_hand
from drivers.tbl21.cards import Card


def hand(codes: str, *, doubles: int = 0, split_aces: bool = False) -> HandState:
    return HandState(
        [Card.parse(c) for c in codes.split()],
        [StakeState("p", 1000, 1000 * doubles)],
        from_split=split_aces,
        split_aces=split_aces,
        doubles=doubles,
    )


def with_hands(rules: Variant, **changes: object) -> Variant:
    return rules.model_copy(update={"hands": rules.hands.model_copy(update=changes)})


def test_each_way_a_hand_ends_by_itself_is_its_code() -> None:
    pa = load_variant("pa-blackjack")
    nz = load_variant("nz-pontoon")
    assert end_of_hand(pa, hand("KH 9D 5C")) is HandEnd.BUST
    assert end_of_hand(pa, hand("AS KD")) is HandEnd.NATURAL
    assert end_of_hand(pa, hand("7S 7D 7C")) is HandEnd.TWENTY_ONE
    assert end_of_hand(pa, hand("AS 5D", split_aces=True)) is HandEnd.SPLIT_ACES
    assert end_of_hand(nz, hand("5S 6D 2C", doubles=1)) is HandEnd.ONE_AFTER_DOUBLE
    limited = with_hands(pa, max_cards=5)
    assert end_of_hand(limited, hand("2S 2D 3C 2H 4S")) is HandEnd.CARD_LIMIT
    assert end_of_hand(pa, hand("2S 2D 3C 2H 4S")) is None
    assert end_of_hand(pa, hand("9S")) is None


def test_a_hand_end_reads_as_it_did_when_it_was_a_word() -> None:
    rules = with_hands(load_variant("pa-blackjack"), max_cards=5)
    said = {end: hand_end_words(end, rules) for end in HandEnd}
    assert said == {
        HandEnd.BUST: "bust",
        HandEnd.NATURAL: "natural",
        HandEnd.TWENTY_ONE: "21",
        HandEnd.SPLIT_ACES: "split aces take one card",
        HandEnd.ONE_AFTER_DOUBLE: "one card after a double",
        HandEnd.CARD_LIMIT: "5 cards",
        HandEnd.STAND: "stand",
        HandEnd.RESCUED: "rescue",
    }


def test_the_screen_writes_beside_the_total_only_what_the_total_does_not_say() -> None:
    """As the page did when it compared the words: not a stand, a bust or a 21."""
    rules = with_hands(load_variant("pa-blackjack"), max_cards=5)
    assert hand_status(None, rules) == ""
    assert hand_status(HandEnd.STAND, rules) == ""
    assert hand_status(HandEnd.BUST, rules) == ""
    assert hand_status(HandEnd.TWENTY_ONE, rules) == ""
    assert hand_status(HandEnd.NATURAL, rules) == "natural"
    assert hand_status(HandEnd.CARD_LIMIT, rules) == "5 cards"
    assert hand_status(HandEnd.ONE_AFTER_DOUBLE, rules) == "one card after a double"
