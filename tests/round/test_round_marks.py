"""The round says when it starts and when it ends (RoundStarted, RoundEnded): nobody has to
work it out from the state changes, and a round ends once."""

from controller.game.rules import load_variant
from controller.round.controller import RoundController, RoundEnded, RoundStarted, StateChanged
from controller.round.spec import Action, State
from drivers.tbl21.cards import Card

NZ = load_variant("nz-pontoon")


def _cards(c: RoundController, *texts: str) -> None:
    for text in texts:
        c.perform(Action.CARD, card=Card.parse(text))


def _marks(c: RoundController) -> list[object]:
    return [o for o in c.drain() if isinstance(o, (RoundStarted, RoundEnded, StateChanged))]


def test_the_deal_starts_the_round_right_after_bets_close() -> None:
    c = RoundController(NZ)
    _cards(c, "2C")  # the burn card
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.drain()
    c.perform(Action.DEAL)
    assert _marks(c) == [
        StateChanged(State.BETTING, State.DEALING, Action.DEAL),
        RoundStarted(1, "nz-pontoon"),
    ]


def test_settling_ends_the_round_once_with_each_players_net_even_after_a_hold() -> None:
    c = RoundController(NZ)
    _cards(c, "2C")
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    _cards(c, "5H", "9C", "4D")  # ann 9, the dealer 9
    c.perform(Action.STAND, box=1)
    c.drain()
    _cards(c, "8S")  # the dealer 17 beats ann's 9
    assert _marks(c) == [
        StateChanged(State.DEALER, State.SETTLING, Action.CARD),
        RoundEnded(1, (("ann", -1000),)),
    ]
    c.perform(Action.HOLD, kind="device_lost", detail="shoe link lost", device="shoe")
    c.perform(Action.RESUME, kind="device_lost", device="shoe")
    assert c.state is State.SETTLING
    assert not [o for o in c.drain() if isinstance(o, (RoundStarted, RoundEnded))]
    c.perform(Action.OK)  # the next round
    c.perform(Action.BET, box=1, player="ann", amount_cents=1000)
    c.perform(Action.DEAL)
    assert RoundStarted(2, "nz-pontoon") in c.drain()
