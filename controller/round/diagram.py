"""The round machine's diagram, generated from the machine's own spec (GraphMachine, mermaid).

``python -m controller.round.diagram > docs/round-machine.md`` refreshes the document; a test fails
when the committed diagram no longer matches the code.
"""

from __future__ import annotations

from typing import Any

from transitions.extensions import GraphMachine

from controller.round.spec import SPEC, State


class _DiagramModel:
    get_graph: Any


def round_diagram_mermaid() -> str:
    """Mermaid text of every (state, action) -> destination of the round machine."""
    model = _DiagramModel()
    machine = GraphMachine(
        model=model,
        states=[s.value for s in State],
        initial=State.BURN.value,
        auto_transitions=False,
        graph_engine="mermaid",
        title="croupier round machine",
    )
    for (source, action), dests in sorted(SPEC.items()):
        for dest in sorted(set(dests)):
            # Every state can be put on hold and voided; drawing those 30 arrows hides the
            # procedure, so they are stated once in the text instead.
            if action.value in ("hold", "void") and source is not State.HOLD:
                continue
            machine.add_transition(action.value, source.value, dest.value)
    return str(model.get_graph().draw(None))


def document() -> str:
    return (
        "# The round machine\n\n"
        "Generated from `controller/round/` by `python -m controller.round.diagram`; do not edit.\n"
        "Every state also has `hold` (to `hold`) and every state of a dealt round has `void`\n"
        "(to `settling`, supervisor only); those arrows are left out of the picture.\n"
        "The controller's `transitions` machine is built from the same table (`SPEC`), one\n"
        "transition per arrow; an arrow back to its own state is an internal transition\n"
        "(no exit, no entry prompt), except into `playing`, entered again for the next hand.\n\n"
        "```mermaid\n" + round_diagram_mermaid().strip() + "\n```\n" + GUARDS
    )


# Why the offers' checks are not the machine's conditions (issue 23, point 5), said once here.
GUARDS = """
## Guards: the handler decides, the condition accepts

A transition's `conditions` is `_lands_in(dest)`: the action's handler (run in the machine's
`prepare_event`) checks the move, makes it and says where the round goes; the condition accepts
the one transition to that state. The offers' `can` / `why_not` (`controller/round/offers.py`)
are not made the machine's conditions, even for the actions with one destination (`hit`,
`double` and `split` from `playing`, `bet`, `deal`, `insurance` and `surrender` in their
windows), because:

1. `why_not(action)` is asked without the input: it is what lights a key (the box in play, no
   amount, every stake joining). The handler checks the input itself (the box it names, a
   double's amount and who joins it, the player who insures or rescues), and refuses moves
   `can` allowed (a double over the wager, a box not in play). As conditions, the refusal
   would be made in two places: part by the machine, the rest by the handler.
2. A condition answers True or False; a refusal must say why, as a `WhyNot`
   (`ActionRefused.why`, the journal's `why`). A failed condition leaves `trigger` returning
   False, and `perform` would ask `why_not` again to say it: every refusal checked twice, the
   second time with nothing to prove it gives the first one's answer.
3. `transitions` evaluates conditions after `prepare_event` and before `before`: the handler
   would move from `prepare_event` to `before`, and the actions with several destinations
   (`stand`, `ok`, `peek`, `card`) would keep deciding in `prepare_event`, since a
   transition has no dynamic destination. Two ways of running a handler, for one guard.

So the one table stays `SPEC` (states and arrows), the guard of an arrow is its handler's check
(a `Refusal` raised before anything changed, which `perform` turns into `ActionRefused`), and
the condition only accepts the destination the handler chose; `tests/round/test_stateful.py`
checks that a refused action changes nothing.
"""


if __name__ == "__main__":
    print(document(), end="")
