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
        "```mermaid\n" + round_diagram_mermaid().strip() + "\n```\n"
    )


if __name__ == "__main__":
    print(document(), end="")
