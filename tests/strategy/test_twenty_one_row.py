"""Row 21 of a chart (issue 28): only where a 21 plays on (``hands.twenty_one_ends_hand =
false``), refused where it ends the hand, and played from the chart (a 21 without a row
stands); the published online Pontoon chart is shipped with its three- and four-card soft 21
doubles."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.errors import ConfigError
from controller.game.rules import load_variant
from controller.play.strategy import STRATEGIES_DIR, load_strategy, strategy_for
from controller.round.spec import Action
from drivers.tbl21.cards import parse_cards
from tests.strategy.test_pontoon_derivation import PUBLISHED_HARD, PUBLISHED_SOFT

ONLINE = STRATEGIES_DIR / "pontoon-blackjack-online.toml"
PLAYS_ON = {"hands.twenty_one_ends_hand": False, "double.max_total_after_two": 21}


def with_row_21(tmp_path: Path, variant_id: str, section: str, row: str) -> Path:
    text = (STRATEGIES_DIR / f"{variant_id}.toml").read_text()
    marker = f"[{section}]"
    assert marker in text
    head, tail = text.split(marker, 1)
    first, rest = tail.split("\n", 1)
    path = tmp_path / f"{variant_id}-21.toml"
    path.write_text(f'{head}{marker}{first}\n21 = "{row}"\n{rest}')
    return path


def test_a_row_for_21_where_a_21_ends_the_hand_is_refused_saying_why(tmp_path: Path) -> None:
    path = with_row_21(tmp_path, "pontoon-blackjack", "soft", "S  Dh Dh S")
    with pytest.raises(ConfigError) as err:
        load_strategy(path)
    text = str(err.value)
    assert str(path) in text
    assert "[soft] 21: a 21 ends the hand in pontoon-blackjack (hands.twenty_one_ends_hand" in text
    assert "so it has no play: remove the row" in text
    up = with_row_21(tmp_path, "pa-blackjack", "hard", " ".join(["S"] * 10))
    with pytest.raises(ConfigError, match=r"\[hard\] 21: a 21 ends the hand in pa-blackjack"):
        load_strategy(up)


def test_a_row_for_21_is_taken_where_a_21_plays_on_and_its_codes_are_checked(
    tmp_path: Path,
) -> None:
    rules = load_variant("pontoon-blackjack", PLAYS_ON)
    strategy = load_strategy(with_row_21(tmp_path, "pontoon-blackjack", "soft", "S H Dh S"), rules)
    assert strategy.tables["soft"]["21"] == ("S", "H", "Dh", "S")
    with pytest.raises(ConfigError, match=r"\[soft\] 21, column 3: 'P' is not a code allowed here"):
        load_strategy(with_row_21(tmp_path, "pontoon-blackjack", "soft", "S P Dh S"), rules)
    with pytest.raises(ConfigError, match=r"\[pairs\] 21: unknown row"):
        load_strategy(with_row_21(tmp_path, "pontoon-blackjack", "pairs", "S"), rules)


def test_a_21_is_played_from_row_21_and_stands_without_one() -> None:
    rules = load_variant("pontoon-blackjack", PLAYS_ON)
    online = strategy_for(rules)
    shipped = load_strategy("pontoon-blackjack", rules)  # no row 21
    three, four = parse_cards("AH 3D 7C"), parse_cards("AH 3D 2C 5S")
    hard = parse_cards("TH 4D 7C")
    for cards, doubled, play in (
        (three, False, Action.DOUBLE),
        (three, True, Action.STAND),  # Ds: a doubled three-card soft 21 stands
        (four, False, Action.DOUBLE),
        (four, True, Action.HIT),  # Dh: a doubled four-card soft 21 draws to the trick
        (hard, False, Action.STAND),
    ):
        got = online.decide(rules, cards, None, can_double=not doubled, can_split=False)
        assert got is play, (cards, doubled)
        assert shipped.decide(rules, cards, None, can_double=True, can_split=False) is (
            Action.STAND
        )
    ends = load_variant("pontoon-blackjack")  # where a 21 ends the hand no chart is asked
    assert load_strategy("pontoon-blackjack").decide(
        ends, three, None, can_double=True, can_split=False
    ) is (Action.STAND)


def test_the_online_chart_is_picked_where_a_21_plays_on_and_is_the_published_chart() -> None:
    assert Path(strategy_for(load_variant("pontoon-blackjack", PLAYS_ON)).path) == ONLINE
    assert Path(strategy_for(load_variant("pontoon-blackjack")).path).name == (
        "pontoon-blackjack.toml"
    )
    chart = load_strategy(ONLINE, load_variant("pontoon-blackjack", PLAYS_ON))
    for kind, published in (("hard", PUBLISHED_HARD), ("soft", PUBLISHED_SOFT)):
        for total, row in published.items():
            for ncards, play in zip((2, 3, 4), row.split(), strict=True):
                if play == "-" or (kind == "soft" and total == 21 and ncards == 2):
                    continue  # no such hand (a two-card soft 21 is a pontoon)
                assert chart.cell(kind, str(total), ncards, "")[0] == play, (kind, total, ncards)
