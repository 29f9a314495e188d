"""croupier: the dealer-side controller of a Blackjack or Pontoon table."""

__version__ = "0.2.0"
