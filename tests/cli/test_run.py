"""``croupier run``: rounds dealt through emulated devices by basic-strategy players."""

import pytest

from controller.cli import main


@pytest.mark.parametrize("variant", ["nz-pontoon", "uk-pontoon", "pa-blackjack",
                                     "pontoon-blackjack"])  # fmt: skip
def test_run_deals_rounds_to_the_end_for_every_variant(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--variant", variant, "--rounds", "3", "--boxes", "3", "--pace", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("ROUND_OVER") == 3
    totals = out.split("net for the players: ")[1]
    assert {part.split()[0] for part in totals.strip().split(", ")} == {"ann", "bob", "cat"}


def test_run_refuses_a_bad_option_with_what_is_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--boxes", "9"]) == 2
    assert "--boxes must be 1-7, got 9" in capsys.readouterr().err
    assert main(["run", "--wager", "2.555"]) == 2
    assert "at most 2 decimals" in capsys.readouterr().err
