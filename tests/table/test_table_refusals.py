"""The table's own refusals are codes and fields (issue 23), said by controller/game/words.py in
the words the table layer used to write itself, byte for byte: a key the panel has dark, keys
that make no decision, data that makes no input, a decision the role on the key may not take,
a key on the PIN pad before its digits, a bet outside the table's limits, the journal's
trouble, a PIN attempt, a dealer's sign-in (and its lockout after wrong PINs) or a seat
refused, a step of the gaming day refused."""

from __future__ import annotations

import pytest

from controller.game.prompts import money
from controller.game.refusals import Why, WhyNot
from controller.game.rules import load_variant
from controller.game.words import refusal_words
from controller.round.errors import InputError
from controller.round.inputs import parse_input
from controller.round.spec import Action
from controller.table.app import InputResult, TableApp
from controller.table.errors import EntryError
from drivers.tbl21.events import Button, ButtonPressed, DeviceRef, DeviceType

PANEL = DeviceRef(DeviceType.PANEL, "test://panel")

# Each refusal as the table wrote it before it was typed (the f-strings filled in by hand).
BEFORE = [
    (WhyNot(Why.KEY_DECISION_NOT_TAKEN, state="betting"),
     "that decision is not taken while bets are open"),
    (WhyNot(Why.KEY_BOX_NOT_NOW, state="dealer"),
     "a box is chosen only for a decision, not while the dealer draws"),
    (WhyNot(Why.NO_BET_ON_BOX, box=4), "box 4 has no bet this round"),
    (WhyNot(Why.KEY_WAGER_NOT_NOW, state="betting"),
     "a wager is chosen only for a decision, not while bets are open"),
    (WhyNot(Why.KEY_WAGERS_AT_TABLE, number=1), "a box takes at most 1 wager at this table"),
    (WhyNot(Why.KEY_WAGERS_AT_TABLE, number=3), "a box takes at most 3 wagers at this table"),
    (WhyNot(Why.KEY_AMOUNT_NOT_NOW, state="betting"),
     "an amount is keyed only for a decision, not while bets are open"),
    (WhyNot(Why.KEY_DOES_NOTHING, state="dealer"), "that key does nothing while the dealer draws"),
    (WhyNot(Why.ENTRY_NEEDS_BOX, action="insurance"),
     "insurance needs its box: press BOX 1 to BOX 7 first, then the decision (no box is in "
     "play now)"),
    (WhyNot(Why.ENTRY_NEEDS_BOX, action="hit", key="W3_"),
     "hit needs its box: press BOX 1 to BOX 7 first, then the decision (no box is in play "
     "now; the keys before were cleared when WAGER 3 was refused)"),
    (WhyNot(Why.ENTRY_NEEDS_BOX, action="ok", key="OK_"),
     "OK needs its box: press BOX 1 to BOX 7 first, then the decision (no box is in play "
     "now; the keys before were cleared when OK was refused)"),
    (WhyNot(Why.ENTRY_NO_WAGER, box=2, number=3, held=1), "box 2 has no WAGER 3: 1 wager on it"),
    (WhyNot(Why.ENTRY_NO_WAGER, box=2, number=3, held=2), "box 2 has no WAGER 3: 2 wagers on it"),
    (WhyNot(Why.KEY_DECIDES_NOTHING, role="technician", key="HIT"),
     "with the technician key, HIT decides nothing now"),
    (WhyNot(Why.FIRMWARE_NOT_ALLOWED, device="shoe", detail="firmware 9.9 (sha256 ab12)"),
     "the shoe still runs firmware this table does not allow (firmware 9.9 (sha256 ab12)): a "
     "technician installs approved firmware, or adds its hash to devices.firmware_allow and "
     "restarts croupier; only then can the hold be cleared"),
    (WhyNot(Why.NEEDS_SUPERVISOR_KEY), "needs the supervisor key (turn the key switch to SUP)"),
    (WhyNot(Why.ROLE_CLEARS_LOCKUP_ONLY, role="technician", action="clear_lockup"),
     "a technician may clear only a device's hardware lockup; clear lockup needs the "
     "supervisor (key at SUP and the supervisor PIN)"),
    (WhyNot(Why.NO_PIN_SET, role="supervisor"),
     "no supervisor PIN is set for this table: make one with `croupier passwd --pin "
     "supervisor` and put the line it prints under [supervisor] in the table file"),
    (WhyNot(Why.SIGN_IN_FIRST, role="supervisor", key="SUP"),
     "a supervisor signs in first: the staff number then OK, then the PIN then OK on the "
     "panel with the key at SUP, or the staff number and PIN fields on the display"),
    (WhyNot(Why.ENTER_PIN_FIRST, role="technician", key="TEC", until=3600.0),
     "enter the technician PIN: the digits 0-9 then OK on the panel with the key at TEC, or "
     "the PIN field on the display; wrong PINs locked it until 01:00:00 UTC"),
    (WhyNot(Why.PIN_PAD_STAFF_DIGITS),
     "key your staff number first: the digits 0-9, then OK (CANCEL clears)"),
    (WhyNot(Why.PIN_PAD_STAFF_OK),
     "key your staff number digits first, then OK, then your PIN and OK"),
    (WhyNot(Why.PIN_PAD_PIN_DIGITS, role="supervisor"),
     "enter the supervisor PIN first: the digits 0-9, then OK (CANCEL clears)"),
    (WhyNot(Why.PIN_PAD_PIN_OK, role="supervisor"),
     "key in the supervisor PIN digits first, then OK"),
    (WhyNot(Why.BAD_PEEK_RESULT, got="'Q'"), "a peek result is Y, N, U or E, got 'Q'"),
    (WhyNot(Why.FIELD_MISSING, name="box"), "box is missing"),
    (WhyNot(Why.NOT_WHOLE_NUMBER, name="amount_cents", got="'5'"),
     "amount_cents must be a whole number, got '5'"),
    (WhyNot(Why.NOT_A_CARD, action="key_card", got="None"),
     "key in the card as rank and suit, got None"),
    (WhyNot(Why.NOT_A_CARD, action="card", got="'AS'"), "a card event needs a card, got 'AS'"),
    (WhyNot(Why.NOT_A_CARD, action="hold", got="3"), "a hold's card must be a card, got 3"),
    (WhyNot(Why.BOX_NOT_IN_USE, box=9, boxes=(1, 2, 3)),
     "box 9 is not in use at this table (boxes (1, 2, 3))"),
    (WhyNot(Why.BET_OUTSIDE_LIMITS, low=500, high=50000, cents=100),
     f"a bet must be {money(500)} to {money(50000)}, got {money(100)}"),
    (WhyNot(Why.BET_STEPS, cents=250), f"a bet must be in steps of {money(250)}"),
    (WhyNot(Why.BETS_CLOSED), "bets are closed"),
    (WhyNot(Why.JOURNAL_CANNOT_WRITE), "the journal cannot be written"),
    (WhyNot(Why.JOURNAL_CANNOT_WRITE, detail="disk full"), "disk full"),
    (WhyNot(Why.ACCESS_NO_KEY),
     "turn the key switch to SUP (supervisor) or TEC (technician) first"),
    (WhyNot(Why.ACCESS_NOT_NEEDED), "this table takes no PINs: the key switch alone decides"),
    (WhyNot(Why.ACCESS_ALREADY, role="supervisor"), "the supervisor is signed in already"),
    (WhyNot(Why.ACCESS_NEED_STAFF, role="technician"),
     "this table signs each technician in by name: key your staff number, then your PIN"),
    (WhyNot(Why.ACCESS_NO_STAFF, role="technician"),
     "nobody of the technician role is on this table's staff list: sign in with the table's "
     "technician PIN alone, without a staff number"),
    (WhyNot(Why.PIN_LOCKED, role="supervisor", until=3600.0, seconds=59.2, number=3),
     "the supervisor PIN is locked until 01:00:00 UTC (another 1 min) after 3 wrong PINs in a "
     "row"),
    (WhyNot(Why.WRONG_PIN, role="supervisor", number=2, seconds=90),
     "wrong supervisor PIN: 2 more in a row lock the supervisor PIN for 1 min 30 s"),
    (WhyNot(Why.WRONG_PIN, role="supervisor", by_staff=True, number=1, seconds=60),
     "wrong staff number or supervisor PIN: 1 more in a row lock the supervisor PIN for 1 min"),
    (WhyNot(Why.WRONG_PINS_IN_A_ROW, role="technician", number=3),
     "wrong technician PIN (3 in a row)"),
    (WhyNot(Why.PIN_LOCKED_NOW, role="supervisor", until=3600.0, seconds=300, number=3),
     "the supervisor PIN is locked until 01:00:00 UTC (5 min) after 3 wrong PINs in a row"),
    (WhyNot(Why.NO_DEALER_SIGNED_IN), "no dealer is signed in"),
    (WhyNot(Why.NO_DEALERS_ON_STAFF),
     "no dealer is on this table's staff file: add each dealer with `croupier staff add "
     "NUMBER --role dealer --name NAME`"),
    (WhyNot(Why.JOURNAL_UNAVAILABLE), "journal unavailable"),
    (WhyNot(Why.WRONG_DEALER_PIN), "wrong staff number or dealer PIN"),
    (WhyNot(Why.DEALER_SIGNED_IN_ALREADY, player="Bo Chen", detail="2001"),
     "dealer Bo Chen (2001) is signed in already"),
    (WhyNot(Why.NOBODY_RATED_AT_BOX, box=3), "nobody rated sits at box 3"),
    (WhyNot(Why.NO_SUCH_BOX, box=9, number=7), "there is no box 9 at this table (boxes 1 to 7)"),
    (WhyNot(Why.BAD_PLAYER_CARD), "a player card number is 4 to 16 of the digits 0-9"),
    (WhyNot(Why.BOX_SEATED, box=2, detail="123456", player="ann"),
     "player card 123456 (ann) sits at box 2: walk them away first"),
    (WhyNot(Why.CARD_SEATED, box=4, detail="123456"), "player card 123456 sits at box 4 already"),
    (WhyNot(Why.NAME_SEATED, box=5, player="Ann"),
     "Ann is the name of the player at box 5: give this player another name for their bets"),
    # the dealer's sign-in lockout
    (WhyNot(Why.WRONG_DEALER_PIN_LOCKS, number=4, seconds=300),
     "wrong staff number or dealer PIN: 4 more in a row lock dealer sign-in for 5 min"),
    (WhyNot(Why.DEALER_PIN_LOCKED_NOW, number=5, until=3600.0, seconds=300),
     "wrong staff number or dealer PIN (5 in a row): dealer sign-in is locked until 01:00:00 UTC "
     "(5 min)"),
    (WhyNot(Why.DEALER_SIGN_IN_LOCKED, until=3600.0, seconds=89.5),
     "dealer sign-in is locked until 01:00:00 UTC (another 1 min 30 s) after wrong PINs in a row"),
    # the gaming day
    (WhyNot(Why.DAY_OPEN_ALREADY, number=3), "gaming day 3 is open already: close it first"),
    (WhyNot(Why.DAY_NOT_OPEN_FOR, action="fill"),
     "no gaming day is open: open the table before you enter a fill"),
    (WhyNot(Why.DAY_PANEL_RUNNING), "the panel test runs already: press each key still to go"),
    (WhyNot(Why.DAY_NO_CHIPS), "count the chips first: a denomination and how many"),
    (WhyNot(Why.DAY_TWO_PEOPLE, action="credit"),
     "enter a credit needs two people: the supervisor signed in and a second person's staff "
     "number and PIN"),
    (WhyNot(Why.DAY_BAD_DENOMINATION, cents=-500),
     f"{money(-500)} is no chip: a denomination is a whole positive amount"),
    (WhyNot(Why.DAY_CHIPS_TWICE, cents=500),
     "the $5 chips are counted twice: give each denomination once"),
    (WhyNot(Why.DAY_BAD_COUNT, number=-1, high=100_000),
     "-1 is no number of chips: 0 to 100000"),
    (WhyNot(Why.DAY_BAD_DROP, cents=100_000_000), f"a drop is 0 to {money(100_000_000)}"),
    (WhyNot(Why.DAY_NEEDS_SUPERVISOR, action="closing"),
     "only a supervisor signed in may count the closing chips (the key at SUP)"),
    (WhyNot(Why.DAY_NEEDS_SUPERVISOR, action="shoe", key="TEC"),
     "only a supervisor signed in may check the shoe (the key at SUP, or TEC for a device "
     "check)"),
    (WhyNot(Why.DAY_NO_DEVICE, device="peek"),
     "the hole-card reader has not identified itself: connect it, then check it again"),
    (WhyNot(Why.DAY_WRONG_DECK, got="Spanish 48-card decks", detail="52-card decks"),
     "the shoe holds Spanish 48-card decks but the game deals from 52-card decks"),
    (WhyNot(Why.DAY_NOT_OPEN),
     "the gaming day is not open: a supervisor opens the table on the display first"),
    (WhyNot(Why.DAY_DEMO_ONLY),
     "only a demo table opens itself: a supervisor takes the opening's steps"),
    (WhyNot(Why.DAY_ROUND_OPEN),
     "a round is on the table: settle it (or take the bets back) before the closing"),
    (WhyNot(Why.DAY_WITNESS), "wrong staff number or PIN for the second person"),
]  # fmt: skip


@pytest.mark.parametrize(("why", "words"), BEFORE, ids=[w.code.value for w, _ in BEFORE])
def test_a_table_refusal_reads_as_the_table_wrote_it(why: WhyNot, words: str) -> None:
    assert refusal_words(why) == words


def test_data_that_makes_no_input_is_refused_with_a_code_and_its_field() -> None:
    with pytest.raises(InputError) as missing:
        parse_input(Action.BET, {"player": "ann", "amount_cents": 500})
    assert missing.value.why == WhyNot(Why.FIELD_MISSING, name="box")
    assert str(missing.value) == "box is missing"
    with pytest.raises(InputError) as kind:
        parse_input(Action.HOLD, {"kind": "tea_break"})
    assert kind.value.why == WhyNot(Why.BAD_HOLD_KIND, got="'tea_break'")
    assert str(kind.value).startswith("hold kind must be one of device_lost, ")
    assert str(kind.value).endswith(", got 'tea_break'")


def test_a_dark_key_and_keys_that_make_no_decision_answer_with_a_code() -> None:
    app = TableApp(load_variant("pa-blackjack"))
    app.handle(ButtonPressed(device=PANEL, at=0.0, seq=1, button=Button("B3_"), held_ms=0))
    (dark,) = [o for o in app.outputs if isinstance(o, InputResult)]
    assert dark.why == WhyNot(Why.KEY_BOX_NOT_NOW, state="burn")
    assert dark.reason == "a box is chosen only for a decision, not while burn cards are due"
    with pytest.raises(EntryError) as no_box:
        app.entry.input_for(Action.HIT, app.controller)
    assert no_box.value.why == WhyNot(Why.ENTRY_NEEDS_BOX, action="hit")
