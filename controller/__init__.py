"""croupier: the dealer-side controller of a Blackjack or Pontoon table."""

__version__ = "0.2.0"

# the compiled modules, loaded only while their source is the one compiled (controller/compiled.py)
from controller import compiled as _compiled

_compiled.install()
