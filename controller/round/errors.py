"""Errors of the round: an action refused now, and a move outside the spec (a bug)."""

from __future__ import annotations

from controller.game.errors import CroupierError
from controller.game.refusals import WhyNot
from controller.game.words import refusal_words
from controller.round.spec import Action, State


class ActionRefused(CroupierError):
    """An action that is not allowed now. Nothing was changed."""

    def __init__(
        self, action: Action, state: State, reason: str, why: WhyNot | None = None
    ) -> None:
        self.action = action
        self.state = state
        self.reason = reason  # the words the dealer reads (refusal_words(why) when typed)
        self.why = why
        super().__init__(f"{action.value} refused in {state.value}: {reason}")


class SpecViolation(CroupierError):
    """The procedure tried a move the spec does not declare (a bug; the move was undone)."""

    bug = True


class InputError(CroupierError):
    """Data that cannot make an input (a missing field, a wrong type); nothing was changed.
    ``why`` says which, as a value (str() says it: :func:`~controller.game.words.
    refusal_words`)."""

    def __init__(self, why: WhyNot) -> None:
        self.why = why
        super().__init__(why)

    def __str__(self) -> str:
        return refusal_words(self.why)


class Refusal(Exception):
    """A handler's refusal of a move, raised before anything changed; the controller's
    ``perform`` turns it into :class:`ActionRefused` with the state and the action. It carries
    the typed reason (:class:`~controller.game.refusals.WhyNot`), never words: str() says it
    with :func:`~controller.game.words.refusal_words`."""

    def __init__(self, why: WhyNot) -> None:
        self.why = why
        super().__init__(why)

    def __str__(self) -> str:
        return refusal_words(self.why)
