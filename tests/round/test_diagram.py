"""The committed diagram of the round machine is the one the code generates."""

from pathlib import Path

from controller.round.diagram import document

DOC = Path(__file__).resolve().parents[2] / "docs" / "round-machine.md"


def test_docs_diagram_matches_the_machine() -> None:
    assert DOC.read_text() == document(), (
        "docs/round-machine.md is stale: "
        "run python -m controller.round.diagram > docs/round-machine.md"
    )


def test_diagram_names_every_state_and_the_peek() -> None:
    text = document()
    for state in ("betting", "peek", "rescue", "settling", "hold"):
        assert f'state "{state}"' in text
    assert "peek --> playing: peek" in text
