"""Strategy files: the shipped ones load, and broken ones are refused naming what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.errors import ConfigError
from controller.game.rules import VARIANT_IDS, load_variant
from controller.play.strategy import STRATEGIES_DIR, load_strategy, strategy_for


def written(tmp_path: Path, variant_id: str, old: str, new: str) -> Path:
    text = (STRATEGIES_DIR / f"{variant_id}.toml").read_text()
    assert old in text, f"{old!r} not in the {variant_id} strategy"
    path = tmp_path / f"{variant_id}-broken.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as err:
        load_strategy(path)
    text = str(err.value)
    assert str(path) in text  # every refusal names the file
    return text


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_every_shipped_strategy_loads_for_its_variant(variant_id: str) -> None:
    strategy = load_strategy(variant_id)
    assert strategy.variant == variant_id
    assert strategy.sources  # each names its public source
    assert strategy.insure() is False


@pytest.mark.parametrize("path", sorted(STRATEGIES_DIR.glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_strategy_names_its_source_in_the_comments_too(path: Path) -> None:
    text = path.read_text()
    assert "# Source:" in text
    assert "http" in text


def test_the_columns_follow_whether_the_player_sees_a_dealer_card() -> None:
    for variant_id in VARIANT_IDS:
        face_up = load_variant(variant_id).dealer.first_card_face_up
        assert load_strategy(variant_id).by_up_card is face_up


def test_an_unknown_code_is_refused_naming_section_row_column_and_the_codes_allowed(
    tmp_path: Path,
) -> None:
    path = written(
        tmp_path, "pa-blackjack", '11 =      "Dh Dh', '11 =      "Dx Dh'
    )  # fmt: skip
    text = refusal(path)
    assert "[hard] 11, column 2: 'Dx' is not a code allowed here" in text
    assert "allowed: H, S, Dh, Ds, Rh, Rs" in text


def test_a_split_code_outside_the_pairs_table_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", '16 =      "S  S', '16 =      "P  S')
    assert "[hard] 16, column 2: 'P' is not a code allowed here" in refusal(path)


def test_a_missing_up_card_is_refused_naming_the_columns(tmp_path: Path) -> None:
    path = written(
        tmp_path, "pa-blackjack", '"S  S  S  S  S  H  H  Rh Rh Rh"', '"S  S  S  S  S  H  H  Rh Rh"'
    )
    text = refusal(path)
    assert "[hard] 16" in text
    assert "9 codes for 10 columns (2 3 4 5 6 7 8 9 T A)" in text


def test_a_missing_row_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", '99 =       "P  P  P  P  P  S  P  P  S  S"\n', "")
    assert "[pairs]: missing row(s) 99" in refusal(path)


def test_an_unknown_row_is_refused_with_the_rows_allowed(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", "TT =", "JJ =")
    text = refusal(path)
    assert "[pairs] JJ: unknown row; allowed rows: AA, 22" in text


def test_an_unknown_key_is_refused_with_the_keys_allowed(tmp_path: Path) -> None:
    path = written(
        tmp_path, "pa-blackjack", 'insurance = "never"', 'insurance = "never"\nsurender = 1'
    )
    text = refusal(path)
    assert "surender = 1: unknown key" in text
    assert "allowed here: variant, name, sources, assumes, columns, insurance" in text


def test_insurance_other_than_never_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "nz-pontoon", 'insurance = "never"', 'insurance = "always"')
    assert 'insurance = "always"; basic strategy never insures' in refusal(path)


def test_a_strategy_for_a_variant_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", 'variant = "pa-blackjack"', 'variant = "nj-blackjack"')
    text = refusal(path)
    assert 'variant = "nj-blackjack": no such variant' in text
    assert "pa-blackjack" in text  # the known variants are listed


def test_surrender_where_the_variant_has_none_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "uk-pontoon", '16 =            "S  S', '16 =            "Rh S')
    assert "'Rh' is not a code allowed here" in refusal(path)  # no R codes for pontoon


def test_surrender_against_an_up_card_it_is_not_offered_against_is_refused(tmp_path: Path) -> None:
    path = written(
        tmp_path, "nz-pontoon", '16 =      "S  S  S  S  S  H', '16 =      "S  S  S  S  S  Rh'
    )
    text = refusal(path)
    assert "[hard] 16, column 7: 'Rh' surrenders, but nz-pontoon offers no surrender against 7" in (
        text
    )


def test_surrender_on_more_than_two_cards_is_refused(tmp_path: Path) -> None:
    path = written(
        tmp_path, "nz-pontoon", '15 =      "H  S  S  S  S  H  H  H  H  H"',
        '15 =      "H  S  S  S  S  H  H  H  H  Rh"',
    )  # fmt: skip
    assert "[hard-from-4-cards] 15, column A: 'Rh' is not a code allowed here" in refusal(path)


def test_standing_below_the_stand_minimum_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "uk-pontoon", '14 =            "H  H', '14 =            "S  H')
    text = refusal(path)
    assert "[hard] 14, column 2: 'S' may stand on 14" in text
    assert "only on 15 or more or with five cards" in text


def test_double_else_stand_below_the_stand_minimum_is_refused(tmp_path: Path) -> None:
    path = written(
        tmp_path,
        "pontoon-blackjack",
        '13 =            "H  Dh Dh S"',
        '13 =            "H  Ds Dh S"',
    )
    assert "[soft] 13, column 3: 'Ds' may stand on 13" in refusal(path)


def test_five_cards_may_stand_on_any_total() -> None:
    text = (STRATEGIES_DIR / "uk-pontoon.toml").read_text()
    assert '4  =            "H  H  H  S"' in text  # hard 4 column 5+: S is fine
    load_strategy("uk-pontoon")


def test_a_rescue_table_is_required_where_the_variant_has_rescue(tmp_path: Path) -> None:
    text = (STRATEGIES_DIR / "nz-pontoon.toml").read_text()
    path = tmp_path / "no-rescue.toml"
    path.write_text(text[: text.index("[rescue]")])
    assert "[rescue]: required section is missing" in refusal(path)


def test_a_rescue_table_where_the_variant_has_none_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", "[pairs]", '[rescue]\n4 = "R"\n\n[pairs]')
    assert "[rescue]: unknown section (pa-blackjack has no double-down rescue)" in refusal(path)


def test_up_card_columns_for_a_face_down_dealer_are_refused(tmp_path: Path) -> None:
    path = written(tmp_path, "uk-pontoon", 'columns = "player-cards"', 'columns = "dealer-up-card"')
    text = refusal(path)
    assert "uk-pontoon deals the dealer's first card face down" in text
    assert 'columns = "player-cards"' in text


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = written(tmp_path, "pa-blackjack", 'insurance = "never"', 'insurance = "sometimes"')
    path.write_text(path.read_text().replace('TT =       "S', 'TT =       "X', 1))
    assert "2 problems" in refusal(path)


def test_a_file_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("variant = \n")
    assert "not valid TOML" in refusal(path)


def test_a_strategy_checked_against_overridden_rules_uses_them(tmp_path: Path) -> None:
    # With a stand minimum of 15 set on PA, its chart's stands on 12-14 become impossible.
    rules = load_variant("pa-blackjack", {"hands.stand_minimum": 15})
    with pytest.raises(ConfigError) as err:
        load_strategy("pa-blackjack", rules)
    assert "[hard] 12, column 4: 'S' may stand on 12" in str(err.value)


def test_the_strategy_for_the_rules_follows_the_dealers_soft_17_rule() -> None:
    s17 = strategy_for(load_variant("pa-blackjack"))
    h17 = strategy_for(load_variant("pa-blackjack", {"dealer.hits_soft_17": True}))
    assert Path(s17.path).name == "pa-blackjack.toml"
    assert Path(h17.path).name == "pa-blackjack-h17.toml"
    assert h17.assumes == {"dealer.hits_soft_17": True}


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_the_strategy_for_each_shipped_variant_is_its_own_file(variant_id: str) -> None:
    assert Path(strategy_for(load_variant(variant_id)).path).name == f"{variant_id}.toml"


def test_a_strategy_made_for_other_rules_is_refused_naming_the_setting() -> None:
    with pytest.raises(ConfigError) as err:
        load_strategy("pa-blackjack-h17")  # the shipped pa-blackjack stands on soft 17
    assert "assumes.dealer.hits_soft_17 = True, but the rules of pa-blackjack have False" in str(
        err.value
    )


def test_an_assumption_about_a_setting_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    path = written(
        tmp_path, "pa-blackjack", '"dealer.hits_soft_17" = false', '"dealer.hits_soft_71" = false'
    )
    assert "assumes.dealer.hits_soft_71: no such variant setting" in refusal(path)


def test_no_strategy_fits_rules_no_file_was_made_for() -> None:
    rules = load_variant("pa-blackjack", {"dealer.hits_soft_17": True})
    rules = rules.model_copy(update={"id": "pa-blackjack-s6"})
    with pytest.raises(ConfigError) as err:
        strategy_for(rules)
    assert "no strategy fits the rules of pa-blackjack-s6" in str(err.value)
