"""The round's procedure as data: its states, its actions and which action may lead where.

:data:`SPEC` maps (state, action) to the states the action may lead to; everything else is
refused. The round controller's machine is built from it, the diagram is drawn from it and a
test walks every state x action pair.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    SHUFFLE = "shuffle"  # the shoe must be shuffled / a new shoe loaded
    BURN = "burn"  # burn cards of a new shoe expected
    BETTING = "betting"
    DEALING = "dealing"  # the initial deal
    OFFERS = "offers"  # NZ: one window for insurance and surrender
    INSURANCE = "insurance"  # hole-card games: the insurance window
    SURRENDER = "surrender"  # PA: the late-surrender window
    PEEK = "peek"  # waiting for the hole-card reader
    PLAYING = "playing"  # a hand waits for its decision
    CARD_DUE = "card_due"  # a card is owed to a player hand
    RESCUE = "rescue"  # NZ: the rescue window after a doubled card
    REVEAL = "reveal"  # the dealer turns the hole card over
    DEALER = "dealer"  # the dealer draws
    SETTLING = "settling"  # final payments shown; OK ends the round
    HOLD = "hold"  # interrupted: device lost, irregularity, lockup


class Action(StrEnum):
    SHUFFLE = "shuffle"
    BET = "bet"
    DEAL = "deal"  # no more bets
    CARD = "card"  # a card came out of the shoe
    PEEK = "peek"  # the hole-card reader answered
    INSURANCE = "insurance"
    SURRENDER = "surrender"
    OK = "ok"  # close a window / acknowledge / reveal
    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    RESCUE = "rescue"
    UNDO = "undo"
    HOLD = "hold"  # a device was lost or a lockup fault was raised
    RESUME = "resume"  # a hold reason cleared
    ASSIGN_CARD = "assign_card"  # supervisor: the unexpected card belongs to the hand in play
    BURN_CARD = "burn_card"  # supervisor: burn the unexpected card
    KEY_CARD = "key_card"  # dealer keys in a card the shoe could not read
    CONFIRM_CARD = "confirm_card"  # supervisor confirms the keyed card
    CLEAR_LOCKUP = "clear_lockup"  # supervisor
    VOID = "void"  # supervisor voids the round


S, A = State, Action
IN_ROUND = (
    S.DEALING,
    S.OFFERS,
    S.INSURANCE,
    S.SURRENDER,
    S.PEEK,
    S.PLAYING,
    S.CARD_DUE,
    S.RESCUE,
    S.REVEAL,
    S.DEALER,
)
AFTER_DEAL = (*IN_ROUND[1:], S.SETTLING)
PLAY_ON = (S.PLAYING, S.CARD_DUE, S.RESCUE, S.REVEAL, S.DEALER, S.SETTLING)

# (state, action) -> the states the action may lead to. Everything else is refused.
SPEC: dict[tuple[State, Action], tuple[State, ...]] = {
    (S.SHUFFLE, A.SHUFFLE): (S.BURN, S.BETTING),
    (S.BURN, A.CARD): (S.BURN, S.BETTING),
    (S.BETTING, A.BET): (S.BETTING,),
    (S.BETTING, A.UNDO): (S.BETTING,),
    (S.BETTING, A.DEAL): (S.DEALING,),
    (S.BETTING, A.SHUFFLE): (S.BURN, S.BETTING),
    (S.DEALING, A.CARD): (S.DEALING, *AFTER_DEAL),
    (S.OFFERS, A.INSURANCE): (S.OFFERS,),
    (S.OFFERS, A.SURRENDER): (S.OFFERS,),
    (S.OFFERS, A.UNDO): (S.OFFERS,),
    (S.OFFERS, A.OK): PLAY_ON,
    (S.INSURANCE, A.INSURANCE): (S.INSURANCE,),
    (S.INSURANCE, A.UNDO): (S.INSURANCE,),
    (S.INSURANCE, A.OK): (S.SURRENDER, S.PEEK, *PLAY_ON),
    (S.SURRENDER, A.SURRENDER): (S.SURRENDER,),
    (S.SURRENDER, A.UNDO): (S.SURRENDER,),
    (S.SURRENDER, A.OK): (S.PEEK, *PLAY_ON),
    (S.PEEK, A.PEEK): (S.PEEK, *PLAY_ON),
    (S.PLAYING, A.HIT): (S.CARD_DUE,),
    (S.PLAYING, A.DOUBLE): (S.CARD_DUE,),
    (S.PLAYING, A.SPLIT): (S.CARD_DUE,),
    (S.PLAYING, A.STAND): PLAY_ON,
    (S.CARD_DUE, A.CARD): PLAY_ON,
    (S.CARD_DUE, A.UNDO): (S.PLAYING,),
    (S.RESCUE, A.RESCUE): PLAY_ON,
    (S.RESCUE, A.OK): PLAY_ON,
    (S.REVEAL, A.OK): (S.DEALER, S.SETTLING, S.HOLD),
    (S.DEALER, A.CARD): (S.DEALER, S.SETTLING),
    (S.SETTLING, A.OK): (S.BETTING, S.SHUFFLE),
    (S.HOLD, A.HOLD): (S.HOLD,),
    (S.HOLD, A.RESUME): (S.HOLD, *State),
    (S.HOLD, A.CARD): (S.HOLD,),
    (S.HOLD, A.ASSIGN_CARD): (S.HOLD, *State),
    (S.HOLD, A.BURN_CARD): (S.HOLD, *State),
    (S.HOLD, A.KEY_CARD): (S.HOLD,),
    (S.HOLD, A.CONFIRM_CARD): (S.HOLD, *State),
    (S.HOLD, A.CLEAR_LOCKUP): (S.HOLD, *State),
    (S.HOLD, A.VOID): (S.SETTLING,),
}
for _s in State:
    if _s is not S.HOLD:
        SPEC[_s, A.HOLD] = (S.HOLD,)
        # A card nobody asked for is an irregularity: hold and ask the supervisor.
        SPEC.setdefault((_s, A.CARD), (S.HOLD,))
        if S.HOLD not in SPEC[_s, A.CARD]:
            SPEC[_s, A.CARD] = (*SPEC[_s, A.CARD], S.HOLD)
for _s in IN_ROUND:
    SPEC[_s, A.VOID] = (S.SETTLING,)


SUPERVISOR_ACTIONS = frozenset({A.ASSIGN_CARD, A.BURN_CARD, A.CONFIRM_CARD, A.CLEAR_LOCKUP, A.VOID})
# The supervisor's decisions by the names the scenario files, the display and the panel's help
# use (and in this order where they are listed).
DECISIONS: dict[str, Action] = {
    "assign": A.ASSIGN_CARD,
    "burn": A.BURN_CARD,
    "void": A.VOID,
    "confirm": A.CONFIRM_CARD,
    "clear_lockup": A.CLEAR_LOCKUP,
}
DECISION_NAMES = {action: name for name, action in DECISIONS.items()}
assert set(DECISIONS.values()) == SUPERVISOR_ACTIONS
