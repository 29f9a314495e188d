"""Why the round refuses a move, as values: a code and its typed fields (issue 23).

The round's checks (``why_not_hit`` and the others, the offers' rules of the moment, "not
possible while ...") return a :class:`WhyNot`, never words; :func:`controller.game.words.
refusal_words` is the one place that says it to the dealer (the display's refusal line, the
terminal, the journal's ``reason``, the scenario report).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from controller.game.holds import HoldKind
from drivers.tbl21.cards import Card


class Why(StrEnum):
    """What stops a move (the fields a code uses are named beside it)."""

    NOT_NOW = "not_now"  # action, state: the move is not declared in this state
    HAND_FINISHED = "hand_finished"
    SECOND_CARD_OWED = "second_card_owed"
    ONE_CARD_AFTER_DOUBLE = "one_card_after_double"
    HAS_21 = "has_21"
    STAND_MINIMUM = "stand_minimum"  # number: the total a stand needs
    NO_DOUBLE = "no_double"  # game: the variant's id
    DOUBLE_TIMES = "double_times"  # number: the doubles a hand may take
    DOUBLE_CARDS = "double_cards"  # low, high (0: no upper limit), number: the hand's cards
    DOUBLE_TOTAL = "double_total"  # number: the highest total a double on 3+ cards may have
    DOUBLE_ON_TOTALS = "double_on_totals"  # totals: those a double may have; number: the hand's
    NO_DOUBLE_AFTER_SPLIT = "no_double_after_split"
    SPLIT_ACES_NO_DOUBLE = "split_aces_no_double"
    NO_PLAYER_JOINS = "no_player_joins"
    CONTROLLER_MUST_JOIN = "controller_must_join"  # player
    NO_WAGER_ON_BOX = "no_wager_on_box"  # player, box
    DOUBLE_ORIGINAL_ONLY = "double_original_only"  # cents: the original wager
    DOUBLE_OVER_WAGER = "double_over_wager"  # cents: the double asked, player
    DOUBLE_UNDER_INCREMENT = "double_under_increment"  # cents: the table increment
    NO_SPLIT = "no_split"  # game
    SPLIT_NEEDS_PAIR = "split_needs_pair"
    NOT_A_PAIR = "not_a_pair"  # cards, match: what must match ("rank", "value")
    MAX_HANDS = "max_hands"  # number
    ACES_SPLIT_ONCE = "aces_split_once"
    NO_RESCUE = "no_rescue"  # game
    NO_STAKE_ON_HAND = "no_stake_on_hand"  # player
    NOT_IN_DOUBLE = "not_in_double"  # player
    ALREADY_RESCUED = "already_rescued"  # player
    BUST_NO_RESCUE = "bust_no_rescue"
    NATURAL_NO_INSURANCE = "natural_no_insurance"
    ALREADY_INSURED = "already_insured"  # player, box
    INSURANCE_LIMIT = "insurance_limit"  # cents: the most insurance the wager allows
    ALREADY_SURRENDERED = "already_surrendered"  # box
    NATURAL_NO_SURRENDER = "natural_no_surrender"
    SURRENDER_FIRST_TWO = "surrender_first_two"
    OFFERED_ONLY_AGAINST = "offered_only_against"  # action ("insurance", "surrender"), ranks
    NO_BOX_CAN = "no_box_can"  # action: what no box may do now
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOTHING_TO_ACKNOWLEDGE = "nothing_to_acknowledge"  # state
    NO_BETS = "no_bets"
    BETS_ON_TABLE = "bets_on_table"
    BOX_OUT_OF_RANGE = "box_out_of_range"  # box: the box asked, number: the table's boxes
    BET_NEEDS_PLAYER = "bet_needs_player"
    BET_NOT_POSITIVE = "bet_not_positive"  # cents: the amount asked
    BET_INCREMENT = "bet_increment"  # cents: the table increment
    ALREADY_WAGERED = "already_wagered"  # player, box
    BOX_FULL = "box_full"  # box, number: the wagers a box takes, game
    NO_HAND_IN_PLAY = "no_hand_in_play"
    NOT_IN_PLAY = "not_in_play"  # box: the box asked, in_play, hand (0: the box alone)
    HOLD_FROM_CARD = "hold_from_card"  # kind
    NO_HOLD_TO_CLEAR = "no_hold_to_clear"  # kind
    HOLD_NEEDS_SUPERVISOR = "hold_needs_supervisor"  # kind
    NOTHING_WAITING = "nothing_waiting"  # kind
    NO_HAND_FOR_CARD = "no_hand_for_card"
    CARD_NOT_IN_SHOE = "card_not_in_shoe"  # detail: the hold's record of the card
    NOT_KEYED_YET = "not_keyed_yet"
    NOTHING_TO_VOID = "nothing_to_void"
    BOX_MISSING = "box_missing"
    NO_BET_ON_BOX = "no_bet_on_box"  # box
    AMOUNT_MISSING = "amount_missing"


class WhyNot(NamedTuple):
    """A refusal as values; :func:`controller.game.words.refusal_words` says it. (A named tuple:
    a value, and cheap to make, since the strategies ask the checks on every hand; a frozen
    dataclass took four times as long.)"""

    code: Why
    action: str = ""  # an action's value ("hit", "assign_card"), or an offer's name
    state: str = ""  # a state's value ("betting")
    game: str = ""  # a variant's id
    player: str = ""
    box: int = 0
    number: int = 0
    low: int = 0
    high: int = 0
    cents: int = 0
    cards: tuple[Card, ...] = ()
    ranks: tuple[str, ...] = ()
    totals: tuple[int, ...] = ()  # hand totals (the totals a double may have)
    match: str = ""
    in_play: int = 0  # the box in play
    hand: int = 0  # the hand in play (1 for the first)
    kind: HoldKind | None = None  # a hold's kind
    detail: str = ""  # a hold's record (the technician's words, carried as they are)
