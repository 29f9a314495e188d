"""Every refusal of a variant, table, floor, strategy or scenario file names the file, the key,
the value given (as it is written in the file) and what is allowed, in plain words: one bad value
of each kind of mistake the validators can meet (issue 22, item 18: "Input should be a valid
boolean" said nothing of what is allowed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.floor.config import load_floor_config
from controller.game.errors import ConfigError
from controller.game.rules import VARIANTS_DIR, load_variant
from controller.play.strategy import load_strategy
from controller.table.config import hash_secret, load_table_config

PYDANTIC_WORDS = ("Input should", "valid integer", "valid boolean", "String should", "Extra inputs")
RANKS = '"A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"'


def refusal(load: object, path: Path) -> list[str]:
    with pytest.raises(ConfigError) as refused:
        load(path)  # type: ignore[operator]
    assert refused.value.path == str(path)
    assert not [p for p in refused.value.problems if any(w in p for w in PYDANTIC_WORDS)]
    return refused.value.problems


def nz_with(tmp_path: Path, old: str, new: str) -> Path:
    text = (VARIANTS_DIR / "nz-pontoon.toml").read_text()
    assert old in text
    path = tmp_path / "my-variant.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        # a boolean
        ("hits_soft_17 = true", 'hits_soft_17 = "maybe"',
         'dealer.hits_soft_17 = "maybe": must be true or false, without quotes'),
        ("hits_soft_17 = true", "hits_soft_17 = 1",
         "dealer.hits_soft_17 = 1: must be true or false"),
        # a whole number: its type and its bounds
        ("decks = 6", 'decks = "six"',
         'shoe.decks = "six": must be a whole number from 1 to 8, without quotes'),
        ("decks = 6", "decks = 6.0", "shoe.decks = 6.0: must be a whole number from 1 to 8"),
        ("decks = 6", "decks = 9", "shoe.decks = 9: must be a whole number from 1 to 8"),
        # a choice (an enumeration, a literal)
        ('ties = "push"', 'ties = "house"',
         'hands.ties = "house": must be one of "push", "dealer-wins"'),
        ('deck = "48"', "deck = 48", 'shoe.deck = 48: must be one of "52", "48" (text, in quotes)'),
        ('hand = "777-suited"            # same suit, spades included', 'hand = "777"',
         'super_bonus.hand = "777": must be one of "777-suited"'),
        # a key that is missing, a key or a section that is not one
        ("hits_soft_17 = true\n", "", "dealer.hits_soft_17: missing; give true or false"),
        ("hits_soft_17 = true", "hits_soft_17 = true\nhits_soft_71 = true",
         "dealer.hits_soft_71 = true: unknown key (did you mean hits_soft_17?); allowed here: "
         "first_card_face_up, hits_soft_17, peek_up_cards, second_card, stands_on_five_cards"),
        ("[dealer_natural]", "[dealer_natural.extra]\nx = 1\n[dealer_natural]",
         "[dealer_natural.extra]: unknown section; allowed here: against_doubles, against_splits"),
        # text, and text that must match a pattern
        ('name = "New Zealand casino Pontoon"', "name = 5", "name = 5: must be text, in quotes"),
        ('id = "nz-pontoon"', 'id = "NZ Pontoon"',
         "id = \"NZ Pontoon\": must be lower-case letters, digits and '-', beginning with a letter "
         "or a digit"),
        # a list, and what each of its items must be
        ("peek_up_cards = []", 'peek_up_cards = "A"',
         f'dealer.peek_up_cards = "A": must be a list, each one of {RANKS}'),
        ("peek_up_cards = []", 'peek_up_cards = ["X"]',
         f'dealer.peek_up_cards[0] = "X": must be one of {RANKS}'),
        # a value a validator of its own refuses (it says what is allowed itself)
        ('natural = "3:2"', 'natural = "1.5"',
         'payouts.natural = "1.5": must be odds written as text "A:B", such as "3:2"'),
    ],
)  # fmt: skip
def test_a_variant_file_names_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, old: str, new: str, line: str
) -> None:
    path = nz_with(tmp_path, old, new)
    assert line in refusal(load_variant, path)


def test_rules_check_prints_it_with_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = nz_with(tmp_path, "hits_soft_17 = true", 'hits_soft_17 = "maybe"')
    assert main(["rules", "--check", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"croupier rules: {path}: 1 problem:\n"
        '  - dealer.hits_soft_17 = "maybe": must be true or false, without quotes\n'
    )


def write_table(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    path.chmod(0o600)
    return path


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("display = 5",
         "display = 5: must be a table with the keys host, tls_certfile, tls_keyfile, "
         "allow_insecure_remote, hosts, port, view_token_hash, last_rounds, recall_rounds, chips, "
         "dealer_users"),
        ('table_id = "table 1"',
         "table_id = \"table 1\": must be 1 to 32 letters, digits, '_', '.' or '-', beginning with "
         "a letter or a digit"),
        ('[devices]\nfirmware_allow = ["A90D"]',
         'devices.firmware_allow[0] = "A90D": must be 16 hex digits (0-9, A-F)'),
        ('[supervisor]\nname = ""', 'supervisor.name = "": must be text of 1 to 40 characters'),
        ("[display]\nchips = [0]", "display.chips[0] = 0: must be a whole number above 0"),
        ('boxes = "1-7"', 'boxes = "1-7": must be a list, each a whole number from 1 to 7'),
        ('[logs]\nwire_cards = "no"',
         'logs.wire_cards = "no": must be true or false, without quotes'),
    ],
)  # fmt: skip
def test_a_table_file_names_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, text: str, line: str
) -> None:
    assert line in refusal(load_table_config, write_table(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[alerts]\nrecheck_minutes = "soon"',
         'alerts.recheck_minutes = "soon": must be a number from 0.01 to 1440, without quotes'),
        ("[alerts]\nhistory_hours = 500",
         "alerts.history_hours = 500: must be a number from 0.1 to 168"),
        ('[[users]]\nname = "pit boss"\nsecret_hash = "HASH"',
         "users[0].name = \"pit boss\": must be 1 to 40 letters, digits, '_', '.' or '-', "
         "beginning with a letter or a digit"),
        ('[[users]]\nname = "pit"', "users[0].secret_hash: missing; give text, in quotes"),
        ("[server]\nport = 99999", "server.port = 99999: must be a whole number from 0 to 65535"),
    ],
)  # fmt: skip
def test_a_floor_file_names_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, text: str, line: str
) -> None:
    path = tmp_path / "floor.toml"
    text = text.replace("HASH", hash_secret("a floor password"))
    path.write_text(f'[database]\ndsn = "host=db"\n{text}\n')
    assert line in refusal(load_floor_config, path)


def test_a_scenarios_rule_override_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "game.yaml"
    scenario.write_text(
        "spec: 1\nvariant: nz-pontoon\n"
        "rules:\n  dealer.hits_soft_17: 'yes'\n  double.max_cards: 13\n"
        "shoe: [2C, KH, AC, 9D, KS]\n"
        "rounds:\n  - bets: [{box: 1, player: ann, amount: 10}]\n    actions: [{stand: {box: 1}}]\n"
    )
    assert main(["scenario", "run", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert f"{scenario}:3: rules: the rules do not load" in err
    assert 'dealer.hits_soft_17 = "yes" (an override): must be true or false, without quotes' in err
    assert "double.max_cards = 13 (an override): must be a whole number from 0 to 12" in err


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ('variant = "pa-blackjack"', "variant = 7",
         "variant = 7; give one of nz-pontoon, uk-pontoon, pa-blackjack, pontoon-blackjack"),
        ('columns = "dealer-up-card"', 'columns = "up"',
         'columns = "up": must be one of "dealer-up-card", "player-cards"'),
        ('insurance = "never"', "insurance = true",
         'insurance = true; basic strategy never insures: write insurance = "never"'),
    ],
)  # fmt: skip
def test_a_strategy_file_names_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, old: str, new: str, line: str
) -> None:
    text = (VARIANTS_DIR.parent / "strategies" / "pa-blackjack.toml").read_text()
    assert old in text
    path = tmp_path / "my-strategy.toml"
    path.write_text(text.replace(old, new, 1))
    assert line in refusal(load_strategy, path)
