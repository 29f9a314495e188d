"""Why the round or the table refuses a move, as values: a code and its typed fields (issue 23).

The round's checks (``why_not_hit`` and the others, the offers' rules of the moment, "not
possible while ...") return a :class:`WhyNot`, never words; :func:`controller.game.words.
refusal_words` is the one place that says it to the dealer (the display's refusal line, the
terminal, the journal's ``reason`` and ``why``, the scenario report). The table's own refusals
are codes of the same set: a key the panel has dark, keys that make no decision, data that
makes no input, a decision the role on the key may not take (``controller.table``).
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
    # The table's own refusals (issue 23): keys the panel has dark, keys that make no decision,
    # data that makes no input, a decision the role on the key may not take.
    KEY_DECISION_NOT_TAKEN = "key_decision_not_taken"  # state
    KEY_BOX_NOT_NOW = "key_box_not_now"  # state
    KEY_WAGER_NOT_NOW = "key_wager_not_now"  # state
    KEY_WAGERS_AT_TABLE = "key_wagers_at_table"  # number: the wagers a box takes here
    KEY_AMOUNT_NOT_NOW = "key_amount_not_now"  # state
    KEY_DOES_NOTHING = "key_does_nothing"  # state
    ENTRY_NEEDS_BOX = "entry_needs_box"  # action; key: the dark key that cleared the entry
    ENTRY_NO_WAGER = "entry_no_wager"  # box, number: the wager position keyed, held: on the box
    KEY_DECIDES_NOTHING = "key_decides_nothing"  # role, key: the key's code
    FIRMWARE_NOT_ALLOWED = "firmware_not_allowed"  # device, detail: the firmware as identified
    NEEDS_SUPERVISOR_KEY = "needs_supervisor_key"
    ROLE_CLEARS_LOCKUP_ONLY = "role_clears_lockup_only"  # role, action: the decision's name
    NO_PIN_SET = "no_pin_set"  # role
    SIGN_IN_FIRST = "sign_in_first"  # role, key: its key position, until: wrong PINs' lock
    ENTER_PIN_FIRST = "enter_pin_first"  # role, key, until
    PIN_PAD_STAFF_DIGITS = "pin_pad_staff_digits"
    PIN_PAD_STAFF_OK = "pin_pad_staff_ok"
    PIN_PAD_PIN_DIGITS = "pin_pad_pin_digits"  # role
    PIN_PAD_PIN_OK = "pin_pad_pin_ok"  # role
    # Data that makes no input (controller.round.inputs.parse_input): ``got`` is the value
    # given, as Python writes it (repr).
    BAD_HOLD_CAUSE = "bad_hold_cause"  # got
    BAD_HOLD_KIND = "bad_hold_kind"  # got
    BAD_PEEK_RESULT = "bad_peek_result"  # got
    FIELD_MISSING = "field_missing"  # name: the field
    NOT_WHOLE_NUMBER = "not_whole_number"  # name, got
    NOT_A_CARD = "not_a_card"  # action: what wanted a card ("card", "key_card", "hold"), got
    # The table's limits (controller.table.bets) and its journal.
    BOX_NOT_IN_USE = "box_not_in_use"  # box, boxes: those in use
    BET_OUTSIDE_LIMITS = "bet_outside_limits"  # low, high: the limits in cents; cents: the bet
    BET_STEPS = "bet_steps"  # cents: the table increment
    BETS_CLOSED = "bets_closed"
    JOURNAL_CANNOT_WRITE = "journal_cannot_write"  # detail: the journal's trouble, as it said it
    # A PIN attempt (controller.table.access, AccessControl's apply): ``by_staff`` when a staff
    # number was given with it (then "staff number or ... PIN").
    ACCESS_NO_KEY = "access_no_key"
    ACCESS_NOT_NEEDED = "access_not_needed"
    ACCESS_ALREADY = "access_already"  # role
    ACCESS_NEED_STAFF = "access_need_staff"  # role
    ACCESS_NO_STAFF = "access_no_staff"  # role
    PIN_LOCKED = "pin_locked"  # role, until, seconds: left of the lock, number: wrong PINs
    WRONG_PIN = "wrong_pin"  # role, by_staff, number: more in a row lock it, seconds: the lock
    WRONG_PINS_IN_A_ROW = "wrong_pins_in_a_row"  # role, by_staff, number: wrong in a row
    PIN_LOCKED_NOW = "pin_locked_now"  # role, until, seconds: the lock, number: wrong in a row
    # The people at the table (controller.table.people): a dealer's sign-in, a seat.
    NO_DEALER_SIGNED_IN = "no_dealer_signed_in"
    NO_DEALERS_ON_STAFF = "no_dealers_on_staff"
    JOURNAL_UNAVAILABLE = "journal_unavailable"  # detail: the journal's trouble, as it said it
    NOT_RECORDED = "not_recorded"  # key: the key not applied; detail: the journal's trouble
    NOTICE_NOT_RECORDED = "notice_not_recorded"  # detail: the journal's trouble
    NO_SUCH_NOTICE = "no_such_notice"  # number: the notice's id
    TABLE_NOT_RUNNING = "table_not_running"
    TABLE_SHUTTING_DOWN = "table_shutting_down"
    INTERNAL_ERROR = "internal_error"
    HALTED_FOR_SUPERVISOR = "halted_for_supervisor"  # the halted table takes a PIN or a choice
    HALTED_NO_PIN = "halted_no_pin"  # role: no PIN to sign in with, so no choice but Ctrl-C
    HALTED_SIGN_IN_FIRST = "halted_sign_in_first"
    NO_VOID_HERE = "no_void_here"  # detail: why the halted round cannot be voided
    VOID_NOT_WRITTEN = "void_not_written"  # detail: the journal's trouble
    WRONG_DEALER_PIN = "wrong_dealer_pin"
    # The dealer's sign-in lockout (wrong PINs in a row lock it, as the supervisor's PIN):
    WRONG_DEALER_PIN_LOCKS = "wrong_dealer_pin_locks"  # number: more in a row lock, seconds
    DEALER_PIN_LOCKED_NOW = "dealer_pin_locked_now"  # number: wrong in a row, until, seconds
    DEALER_SIGN_IN_LOCKED = "dealer_sign_in_locked"  # until, seconds: left of the lock
    DEALER_SIGNED_IN_ALREADY = (
        "dealer_signed_in_already"  # player: the dealer's name, detail: staff
    )
    NOBODY_RATED_AT_BOX = "nobody_rated_at_box"  # box
    NO_SUCH_BOX = "no_such_box"  # box, number: the table's boxes
    BAD_PLAYER_CARD = "bad_player_card"
    BOX_SEATED = "box_seated"  # box, detail: the seated player card, player: its player
    CARD_SEATED = "card_seated"  # box: where it sits, detail: the player card
    NAME_SEATED = "name_seated"  # box: where it sits, player: the name
    # The gaming day (controller.table.day): ``action`` is a step's DayAct value ("fill").
    DAY_OPEN_ALREADY = "day_open_already"  # number: the day open
    DAY_NOT_OPEN_FOR = "day_not_open_for"  # action
    DAY_PANEL_RUNNING = "day_panel_running"
    DAY_NO_CHIPS = "day_no_chips"
    DAY_TWO_PEOPLE = "day_two_people"  # action
    DAY_BAD_DENOMINATION = "day_bad_denomination"  # cents: the denomination given
    DAY_CHIPS_TWICE = "day_chips_twice"  # cents: the denomination given twice
    DAY_BAD_COUNT = "day_bad_count"  # number: the count given, high: the most chips
    DAY_BAD_DROP = "day_bad_drop"  # cents: the largest drop
    DAY_NEEDS_SUPERVISOR = "day_needs_supervisor"  # action, key: "TEC" when a technician may
    DAY_NO_DEVICE = "day_no_device"  # device
    DAY_WRONG_DECK = "day_wrong_deck"  # got: the decks the shoe holds, detail: the game's
    DAY_NOT_OPEN = "day_not_open"  # a bet, or the hold of a card before the day, refused
    DAY_DEMO_ONLY = "day_demo_only"
    DAY_ROUND_OPEN = "day_round_open"
    DAY_WITNESS = "day_witness"


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
    role: str = ""  # a role's value ("supervisor")
    key: str = ""  # a panel key's code ("OK_", "B2_") or a key switch position ("SUP")
    held: int = 0  # the wagers a box holds
    until: float | None = None  # wall-clock seconds: a role's PIN locked until then
    got: str = ""  # a value given, as Python writes it (repr)
    name: str = ""  # an input's field
    device: str = ""  # a device's role ("shoe")
    boxes: tuple[int, ...] = ()  # the boxes in use at the table
    seconds: float = 0.0  # a span of time (a PIN's lockout)
    by_staff: bool = False  # a PIN given with a staff number
