"""Where a round is, in the dealer's words: a few words for each state, for the screen's status
line and for the notices a person reads (never the state's identifier)."""

from __future__ import annotations

from controller.round.spec import State

PHASES = {
    State.SHUFFLE: "new shoe needed",
    State.BURN: "burning the new shoe",
    State.BETTING: "bets open",
    State.DEALING: "dealing",
    State.OFFERS: "insurance and surrender",
    State.INSURANCE: "insurance",
    State.SURRENDER: "surrender",
    State.PEEK: "checking the hole card",
    State.PLAYING: "players' turns",
    State.CARD_DUE: "a card is due",
    State.RESCUE: "rescue offer",
    State.REVEAL: "turning the hole card",
    State.DEALER: "dealer's turn",
    State.SETTLING: "paying out",
    State.HOLD: "on hold",
}
assert set(PHASES) == set(State)
