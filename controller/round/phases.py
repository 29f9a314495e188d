"""Where a round is, in the dealer's words: a few words for each state, for the screen's status
line and for the notices a person reads (never the state's identifier). The words themselves are
the one voice's (:data:`controller.game.words.PHASE_WORDS`); here they are keyed by the state."""

from __future__ import annotations

from controller.game.words import PHASE_WORDS
from controller.round.spec import State

PHASES = {state: PHASE_WORDS[state.value] for state in State}
assert set(PHASE_WORDS) == {state.value for state in State}
