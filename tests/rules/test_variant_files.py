"""Variant files: the four shipped ones load, and broken ones are refused with the key named."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.cli.rules import summary
from controller.game.errors import ConfigError
from controller.game.rules import VARIANT_IDS, VARIANTS_DIR, load_variant

NZ_FILE = VARIANTS_DIR / "nz-pontoon.toml"


def write_variant(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.toml"
    path.write_text(text)
    return path


def nz_with(old: str, new: str) -> str:
    text = NZ_FILE.read_text()
    assert old in text, f"{old!r} not in the NZ file"
    return text.replace(old, new, 1)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_every_shipped_variant_loads_and_its_id_matches_its_file(variant_id: str) -> None:
    assert load_variant(variant_id).id == variant_id


def test_the_matrix_of_rules_md_is_what_the_files_say() -> None:
    nz, uk, pa, pb = (load_variant(v) for v in VARIANT_IDS)
    assert (nz.shoe.deck.value, nz.shoe.decks, uk.shoe.decks, pa.shoe.decks, pb.shoe.decks) == (
        "48", 6, 8, 6, 6,
    )  # fmt: skip
    assert [v.dealer.hits_soft_17 for v in (nz, uk, pa, pb)] == [True, True, False, True]
    assert [v.hands.ties.value for v in (nz, uk, pa, pb)] == [
        "push", "dealer-wins", "push", "dealer-wins",
    ]  # fmt: skip
    assert [v.split.max_hands for v in (nz, uk, pa, pb)] == [3, 3, 4, 4]
    assert [v.surrender.settles.value for v in (nz, pa)] == [
        "dealer-hand-complete",
        "natural-known",
    ]
    assert [v.hands.stand_minimum for v in (nz, uk, pa, pb)] == [0, 15, 0, 15]
    assert (nz.table.wagers_per_box, uk.table.wagers_per_box) == (3, 1)
    assert nz.double.rescue
    assert [v.double.rescue for v in (uk, pa, pb)] == [False, False, False]


def test_an_unknown_key_is_refused_naming_file_key_and_allowed_keys(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with("hits_soft_17 = true", "hits_soft_71 = true"))
    with pytest.raises(ConfigError) as err:
        load_variant(path)
    text = str(err.value)
    assert str(path) in text
    assert "dealer.hits_soft_71 = true: unknown key (did you mean hits_soft_17?)" in text
    assert "hits_soft_17" in text  # the allowed keys are listed
    assert "dealer.hits_soft_17: missing; give true or false" in text


def test_a_wrong_type_is_refused_with_the_value(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with("decks = 6", 'decks = "six"'))
    with pytest.raises(
        ConfigError, match=r'shoe\.decks = "six": must be a whole number from 1 to 8'
    ):
        load_variant(path)


def test_a_string_where_a_boolean_belongs_is_not_coerced(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with("rescue = true", 'rescue = "yes"'))
    with pytest.raises(ConfigError, match=r'double\.rescue = "yes": must be true or false'):
        load_variant(path)


def test_a_value_outside_its_choices_lists_them(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with('ties = "push"', 'ties = "house"'))
    with pytest.raises(ConfigError, match=r'hands\.ties = "house": must be one of "push", "deal'):
        load_variant(path)


def test_bad_odds_are_refused(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with('natural = "3:2"', 'natural = "1.5"'))
    with pytest.raises(ConfigError, match=r'payouts\.natural = "1.5": must be odds written as'):
        load_variant(path)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('up_cards = ["A", "K", "Q", "J"]', 'up_cards = ["A", "T"]',
         "Spanish 48-card deck has no tens"),
        ("peek_up_cards = []", 'peek_up_cards = ["A"]', "needs a hole card"),
        ("cut_card_reserve_per_deck = 12", "cut_card_reserve_per_deck = 48",
         "leaves no cards to play"),
        ("{ min_cents = 2500, amount_cents = 500000 }",
         "{ min_cents = 2000, amount_cents = 500000 }", "overlaps the band before it"),
        ("[double]                       # rule 12\nallowed = true",
         "[double]\nallowed = false", "double.rescue = true needs double.allowed = true"),
    ],
)  # fmt: skip
def test_an_impossible_combination_is_refused_with_why(
    tmp_path: Path, old: str, new: str, says: str
) -> None:
    path = write_variant(tmp_path, nz_with(old, new))
    with pytest.raises(ConfigError, match=says):
        load_variant(path)


def test_invalid_toml_is_refused_with_the_parser_message(tmp_path: Path) -> None:
    path = write_variant(tmp_path, "id = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_variant(path)


def test_an_unknown_variant_id_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="the variants: nz-pontoon, uk-pontoon"):
        load_variant("vegas-strip")


def test_a_path_to_no_file_is_told_apart_from_an_unknown_variant_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rules --check missing.toml`` said "no such variant file": a path that names no file,
    and a name that is no variant's id, are two mistakes, each said as it is."""
    monkeypatch.chdir(tmp_path)
    known = "nz-pontoon, uk-pontoon, pa-blackjack, pontoon-blackjack"
    assert main(["rules", "--check", "missing.toml"]) == 1
    assert capsys.readouterr().err == (
        "croupier rules: missing.toml: 1 problem:\n"
        f"  - no variant file at {tmp_path}/missing.toml; a shipped variant is named by its id "
        f"alone: {known}\n"
    )
    assert main(["rules", "--check", "variants/nz-pontoon.toml"]) == 1
    assert "the shipped nz-pontoon is named by its id alone: nz-pontoon" in capsys.readouterr().err
    assert main(["rules", "pa-blackjak"]) == 1
    assert capsys.readouterr().err == (
        "croupier rules: pa-blackjak: 1 problem:\n"
        "  - no variant has the id 'pa-blackjak' (did you mean pa-blackjack?), and there is no "
        f"file 'pa-blackjak' in {tmp_path}; the variants: {known}; a variant file of your own: "
        "give its path\n"
    )


def test_overrides_replace_a_parameter_and_are_validated() -> None:
    assert load_variant("pa-blackjack", {"dealer.hits_soft_17": True}).dealer.hits_soft_17
    with pytest.raises(ConfigError, match=r"shoe\.decks = 0"):
        load_variant("pa-blackjack", {"shoe.decks": 0})


def test_rules_command_prints_a_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "nz-pontoon"]) == 0
    out = capsys.readouterr().out
    assert "New Zealand casino Pontoon" in out
    assert "7-7-7 all spades" in out
    assert "Rescue" in out


def test_rules_without_a_variant_lists_the_variants_instead_of_printing_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for variant_id in VARIANT_IDS:
        assert f"  {variant_id} " in out
    assert "Pontoon Blackjack" in out
    assert "croupier rules ID" in out
    assert "Super Bonus" not in out  # no variant's rules are printed


def test_rules_summary_says_who_counts_aces_1_and_when_a_surrender_settles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "nz-pontoon"]) == 0
    out = capsys.readouterr().out
    assert "initial aces count 1 for the players who double" in out
    assert "forfeited at the completion of the dealer's hand" in out


def test_rules_summary_says_which_totals_double_and_that_a_21_plays_on() -> None:
    rules = load_variant(
        "pontoon-blackjack",
        {"double.on_totals": [9, 10, 11], "hands.twenty_one_ends_hand": False},
    )
    text = summary(rules)
    assert "; only on a total of 9, 10 or 11" in text
    assert "Player 21:   does not end the hand (not a natural): it may be hit or doubled" in text
    plain = summary(load_variant("pontoon-blackjack"))
    assert "only on a total" not in plain
    assert "does not end the hand" not in plain


def test_rules_check_accepts_a_good_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--check", str(NZ_FILE)]) == 0
    assert "valid variant 'nz-pontoon'" in capsys.readouterr().out


def test_rules_check_refuses_a_broken_file_naming_the_key(tmp_path: Path) -> None:
    path = write_variant(tmp_path, nz_with("burn_cards = 1", "burn_cards = -1"))
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "rules", "--check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "shoe.burn_cards = -1" in proc.stderr
    assert str(path) in proc.stderr


def test_shipped_files_parse_as_plain_toml() -> None:
    for variant_id in VARIANT_IDS:
        data = tomllib.loads((VARIANTS_DIR / f"{variant_id}.toml").read_text())
        assert data["id"] == variant_id
