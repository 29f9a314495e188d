"""The rules a table dealt by, as the floor reads them from the table's ``config`` rows
(controller.floor.table_rules; journal format 15), no PostgreSQL: the rules journalled, a
custom variant file's, are the ones a session is rated and its shoe counted by; rules that fail
the variant's validation, and an older journal's custom variant file, leave the session unrated
with the reason; an older journal of the shipped file is rated by the shipped rules; a session
whose table's rules changed between its rounds is unrated."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from controller.analysis.theo import rate
from controller.floor.advantage import read_table
from controller.floor.ratings import sessions_of
from controller.floor.table_rules import TableRules, Unrated, rules_sha256, table_rules
from controller.game.rules import VARIANTS_DIR, load_variant
from controller.journal.store import Row
from controller.round.inputs import Bet
from controller.round.spec import Action, State
from drivers.tbl21.events import Button
from tests.floor.rated import EDGES, PA, PaTable, config_payload, play_split_round, seat_ann

# a casino's own file of the shipped id: two decks (the decisions' values change with them)
TWO_DECKS = load_variant("pa-blackjack", {"shoe.decks": 2})
SHIPPED_SHA = hashlib.sha256((VARIANTS_DIR / "pa-blackjack.toml").read_bytes()).hexdigest()


def _config(payload: dict[str, Any], seq: int = 2, tid: str = "T1") -> Row:
    return Row(seq, "2026-12-04T18:00:00.000Z", tid, None, "config", payload, "", "")


def test_a_config_row_of_format_15_gives_the_rules_the_table_journalled_not_the_shipped_ones() -> (
    None
):
    found = table_rules(_config({"variant": "pa-blackjack", **config_payload(TWO_DECKS)}))
    assert found.rules == TWO_DECKS
    assert found.rules != PA
    assert found.journalled
    assert found.key == rules_sha256(TWO_DECKS) != rules_sha256(PA)
    assert found.words() == f"pa-blackjack as journalled, rules {found.key[:8]}"


def _rules(**changes: Any) -> dict[str, Any]:
    data = PA.model_dump(mode="json")
    for dotted, value in changes.items():
        section, key = dotted.split("__")
        data[section] = {**data[section], key: value}
    return data


@pytest.mark.parametrize(
    ("rules", "said"),
    [
        (_rules(shoe__decks=99), "shoe.decks = 99"),
        (_rules(dealer__hits_soft_17="sometimes"), "dealer.hits_soft_17"),
        (_rules(payouts__natural="3:0"), "payouts.natural"),
        (_rules(shoe__jokers=2), "jokers"),
        ({**_rules(), "id": "PA BLACKJACK"}, "id"),
        (["not", "rules"], 'the row\'s rules are not a table of rules: ["not", "rules"]'),
        ({**_rules(), "id": "uk-pontoon"}, "are uk-pontoon's, the row names pa-blackjack"),
    ],
)
def test_journalled_rules_that_fail_the_variants_validation_leave_the_play_unrated_with_why(
    rules: object, said: str
) -> None:
    found = table_rules(_config({"variant": "pa-blackjack", "rules": rules}, seq=9))
    assert found.rules is None
    assert found.unrated is Unrated.INVALID
    words = found.words()
    assert words.startswith("the rules table T1 journalled (config row 9) are not valid rules: ")
    assert said in words


def test_an_older_config_row_of_the_shipped_file_gives_the_shipped_rules() -> None:
    found = table_rules(_config({"variant": "pa-blackjack", "variant_sha256": SHIPPED_SHA}))
    assert found.rules == PA
    assert not found.journalled
    assert found.words() == "pa-blackjack as shipped (the file's SHA-256 matches)"


@pytest.mark.parametrize(
    "payload",
    [
        {"variant": "pa-blackjack", "variant_sha256": "ab" * 32},  # the casino's own file
        {"variant": "pa-blackjack"},  # no hash at all
        {"variant": "casino-21", "variant_sha256": SHIPPED_SHA},  # an id of its own
    ],
)
def test_an_older_config_row_of_another_variant_file_is_unrated_its_rules_not_journalled(
    payload: dict[str, Any],
) -> None:
    found = table_rules(_config(payload, seq=4))
    assert found.rules is None
    assert found.unrated is Unrated.NOT_JOURNALLED
    assert found.words() == (
        "its rules are not in the journal (a custom variant file before journal format 15): "
        f"table T1's config row 4 names {payload['variant']} with a variant file that is not "
        "the shipped one"
    )


def test_a_session_is_rated_by_its_tables_journalled_rules_to_the_cent_not_the_shipped_ones(
    tmp_path: Path,
) -> None:
    t = PaTable(tmp_path / "two.sqlite3", "T-two", TWO_DECKS)
    play_split_round(t)
    (play,) = sessions_of(t.journal.rows())
    t.journal.close()
    assert play.rules is not None
    assert play.rules.rules == TWO_DECKS
    (own,) = rate([play], lambda _rules: EDGES)
    shipped = TableRules("T-two", 1, "pa-blackjack", PA, key=rules_sha256(PA))
    (other,) = rate([_with(play, shipped)], lambda _rules: EDGES)
    assert own.cost_cents is not None
    assert other.cost_cents is not None
    assert own.cost_cents != other.cost_cents  # two decks value the decisions otherwise
    assert own.skill_cents == EDGES.optimal * 1000 + own.cost_cents
    assert own.unrated is None
    assert own.shown()["rules"].startswith("pa-blackjack as journalled, rules ")


def _with(play: Any, rules: TableRules) -> Any:
    import dataclasses  # noqa: PLC0415

    return dataclasses.replace(play, rules=rules)


def _stand_round(t: PaTable, cards: tuple[str, str, str, str], dealer_draws: str) -> None:
    """ann bets $10 at box 1 and stands on her two cards; the dealer draws one card."""
    assert t.table.answer(Bet(1, "ann", 1000)).accepted
    t.press(Button.DEAL)
    for text in cards:  # box 1, the dealer's card, box 1, the hole card
        t.card(text)
    t.press(Button.OK)  # no surrender
    t.press(Button.STAND)
    t.press(Button.OK)  # the hole card turned over
    t.card(dealer_draws)
    assert t.table.controller.state is State.SETTLING
    t.press(Button.OK)


def test_a_session_whose_tables_rules_changed_between_its_rounds_is_unrated(
    tmp_path: Path,
) -> None:
    t = PaTable(tmp_path / "changed.sqlite3", "T-changed")
    seat_ann(t, "40001234")
    _stand_round(t, ("9H", "7C", "7H", "9C"), "TH")
    t.journal.append("config", config_payload(TWO_DECKS))  # (as a start with other rules)
    _stand_round(t, ("9S", "7D", "7S", "9D"), "TS")
    (play,) = sessions_of(t.journal.rows())
    t.journal.close()
    assert play.rounds == 2
    assert play.rules is not None
    assert play.rules.unrated is Unrated.CHANGED
    (rating,) = rate([play], lambda _rules: EDGES)
    assert rating.skill_cents is None
    assert rating.unrated == (
        "table T-changed's rules changed during the session (config row "
        f"{play.rules.seq}): its rounds were not all dealt by the same rules"
    )
    assert [d.action for d in play.decisions] == [Action.STAND.value, Action.STAND.value]


def test_a_table_without_a_config_row_read_is_unrated_saying_so(tmp_path: Path) -> None:
    t = PaTable(tmp_path / "none.sqlite3", "T-none")
    play_split_round(t)
    rows = [r for r in t.journal.rows() if r.kind != "config"]
    t.journal.close()
    (play,) = sessions_of(rows)
    (rating,) = rate([play], lambda _rules: EDGES)
    assert rating.book_cents is None
    assert rating.unrated == (
        "the floor holds no config row of table T-none before this play: the rules it dealt "
        "by are not known"
    )


def test_the_counts_divide_by_the_decks_the_table_journalled(tmp_path: Path) -> None:
    t = PaTable(tmp_path / "count.sqlite3", "T-count", TWO_DECKS)
    play_split_round(t)
    rows = t.journal.rows()
    t.journal.close()
    read = read_table("T-count", rows)
    assert read.rules is not None
    assert read.rules.rules == TWO_DECKS
    (first,) = read.rounds
    # the burn card out of two decks, not six: the true count's divisor is the decks left
    assert first.count.left == 2 * 52 - 1
    assert first.rules is read.rules
