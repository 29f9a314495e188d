"""The par sheet's page (``croupier analyze --out DIR`` writes ``VARIANT.html``): a head with
what the sheet is for, strategy tables with a legend and headings in words, the chart of a rule
row named only where it is not the sheet's own.

The sheet is ``fixtures/uk-pontoon-full.json``: ``croupier analyze uk-pontoon --no-cache --out
DIR``'s ``DIR/uk-pontoon.json`` (the full sheet, with every rule changed alone and the decks
curve, which take too long to compute here); the JSON is the par sheet's contract.
"""

from __future__ import annotations

import copy
import functools
import json
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from controller import __version__
from controller.analysis.report import CODE_WORDS, render_html, strategy_heading, title_fields
from controller.game.rules import load_variant
from controller.play.strategy import strategy_for

FULL = Path(__file__).parent / "fixtures" / "uk-pontoon-full.json"
WHEN = datetime(2026, 5, 4, 10, 30, tzinfo=UTC)


def full_sheet() -> dict[str, Any]:
    sheet: dict[str, Any] = json.loads(FULL.read_text(encoding="utf-8"))
    return sheet


class Page(HTMLParser):
    """The page's tables (each a list of rows of cell texts, header rows first), the heading
    above each table, and every h2/h3 heading."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.captions: list[str] = []
        self.headings: list[str] = []
        self._heading: str | None = None
        self._last_heading = ""
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._in_svg = 0
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self._in_svg += 1
        elif tag in ("h2", "h3"):
            self._heading = ""
        elif tag == "table":
            self.tables.append([])
            self.captions.append(self._last_heading)
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._in_svg -= 1
        elif tag in ("h2", "h3") and self._heading is not None:
            self.headings.append(self._heading)
            self._last_heading, self._heading = self._heading, None
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr":
            self.tables[-1].append(self._row)

    def handle_data(self, data: str) -> None:
        if self._in_svg:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._heading is not None:
            self._heading += data

    def table_under(self, heading: str) -> list[list[str]]:
        return self.tables[self.captions.index(heading)]


def page_of(sheet: dict[str, Any]) -> tuple[str, Page]:
    text = render_html(sheet, load_variant(sheet["variant"]), WHEN)
    return text, Page(text)


@functools.cache
def full_page() -> tuple[str, Page]:
    """The full sheet's page (drawn once: its plots take a second)."""
    return page_of(full_sheet())


def test_the_page_heads_with_the_game_its_rules_hash_the_software_and_the_date() -> None:
    sheet = full_sheet()
    _text, page = full_page()
    fields = dict(row for row in page.tables[0] if len(row) == 2)
    assert fields["Game"] == "British Pontoon (five-card trick) (uk-pontoon)"
    assert fields["Rules hash (SHA-256)"] == sheet["rules_hash"]
    assert len(sheet["rules_hash"]) == 64
    assert fields["Software"] == f"croupier {__version__}, analysis engine 1"
    assert fields["Produced"] == "2026-05-04 10:30 UTC"
    assert "Left out" not in fields  # a full sheet
    assert fields["Rule changes"] == "none: the variant as configured"
    sheet["overrides"] = {"dealer.hits_soft_17": False, "hands.ties": "push"}  # a what-if
    fields = dict(title_fields(sheet, WHEN))
    assert fields["Rule changes"] == (  # in words, with the setting that makes each again
        "dealer stands on soft 17 (dealer.hits_soft_17 = false); ties push (hands.ties = push)"
    )
    assert "Method and approximations" in page.headings


def test_every_strategy_table_has_a_heading_in_words_and_the_legend_explains_its_codes() -> None:
    text, page = full_page()
    assert "[hard]" not in text
    assert "[pairs]" not in text
    for heading in ("Hard totals", "Soft totals (an ace counted as 11)", "Pairs"):
        table = page.table_under(heading)
        assert table[0] == ["", "cards in the player's hand"] or heading == "Pairs"
    assert page.table_under("Hard totals")[1] == ["total", "2", "3", "4", "5+"]
    assert page.table_under("Pairs")[0] == ["pair", "two cards"]
    legend = page.table_under("Strategy")
    assert legend[0] == ["code", "the player's play"]
    used = {
        c
        for rows in full_sheet()["strategy_tables"].values()
        for v in rows.values()
        for c in v.split()
    }
    assert {row[0] for row in legend[1:]} == used == {"H", "S", "Dh", "Ds", "P"}
    assert all(row[1] == CODE_WORDS[row[0]] for row in legend[1:])


def test_a_rescue_chart_by_dealer_card_has_every_section_named_in_words() -> None:
    sheet = full_sheet()
    nz = strategy_for(load_variant("nz-pontoon"))
    sheet["strategy_tables"] = {
        k: {r: " ".join(c) for r, c in v.items()} for k, v in nz.tables.items()
    }
    _text, page = page_of(sheet)
    names = list(sheet["strategy_tables"])
    assert "hard-from-3-cards" in names
    assert "rescue" in names
    for name in names:
        heading = strategy_heading(name)
        assert "-" not in heading.split(",")[0]
        assert "[" not in heading
        table = page.table_under(heading)
        assert table[0] == ["", "the dealer's first card"]
        assert table[1][1:] == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "A"]  # whole ranks
    assert strategy_heading("soft-from-5-cards").startswith("Soft totals, hands of 5 or more cards")
    legend = dict(page.table_under("Strategy")[1:])
    assert legend["R"].startswith("rescue")
    assert "rescue table: keep the doubled hand" in legend["S"]


def test_the_chart_of_a_rule_row_is_named_only_where_it_is_not_the_sheets_own() -> None:
    sheet = full_sheet()
    text, page = full_page()
    own = sheet["strategy"]
    assert own == "uk-pontoon.toml (validated for these rules)"
    assert all(row["strategy"] == own for row in sheet["contributions"])
    assert text.count(own) == 3  # the head, the rule rows' note, the strategy (it was 18)
    rules_table = page.table_under("Each rule changed alone")
    assert rules_table[0] == ["rule changed alone", "house edge", "change"]
    assert len(rules_table) == 1 + len(sheet["contributions"])

    other = copy.deepcopy(sheet)
    other["contributions"][0]["strategy"] = "uk-pontoon-h17.toml (validated for these rules)"
    _text, page = page_of(other)
    rules_table = page.table_under("Each rule changed alone")
    assert rules_table[0] == ["rule changed alone", "house edge", "change", "chart played"]
    assert rules_table[1][3] == "uk-pontoon-h17.toml (validated for these rules)"
    assert {row[3] for row in rules_table[2:]} == {""}


def test_a_quick_sheet_says_what_it_left_out() -> None:
    sheet = full_sheet()
    sheet["contributions"], sheet["edge_by_decks"] = [], []  # what --quick leaves out
    text, page = page_of(sheet)
    fields = dict(row for row in page.tables[0] if len(row) == 2)
    assert "quick sheet" in fields["Left out"]
    assert text.count("Left out of this quick sheet (croupier analyze --quick).") == 2
    assert text.count("<svg") == 1  # the outcome distribution only


def test_a_hand_paid_at_one_to_one_is_even_money_as_on_the_floor_s_report() -> None:
    _text, page = full_page()
    [table] = [t for t in page.tables if t and t[0][:1] == ["paid as"]]
    paid_as = [row[0] for row in table[1:]]
    assert "even money" in paid_as
    assert "win" not in paid_as


def test_a_ten_is_shown_whole_in_the_dealer_table_and_the_pairs() -> None:
    _text, page = full_page()
    dealer = page.table_under("The dealer's final hand per first card")
    assert "10" in [row[0] for row in dealer]
    assert "T" not in [row[0] for row in dealer]
    pairs = page.table_under("Pairs")
    assert "10-10" in [row[0] for row in pairs]
