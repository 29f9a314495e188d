"""The floor report's words: one meaning each, in the CSV, the JSON, the text and the page. The
house's result is the "house win", a hand paid at 1:1 is "even money", every CSV column is
listed in docs/floor.md, and the period reads as days and times, not ISO stamps."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from controller.floor.audit import TableAudit
from controller.floor.chain import ChainBreak
from controller.floor.report import CSV_COLUMNS, FloorReport, assemble, period_words
from controller.floor.report_page import render

DOCS = Path(__file__).resolve().parents[2] / "docs" / "floor.md"
START = datetime(2026, 12, 3, 22, 0, tzinfo=UTC)
END = datetime(2026, 12, 4, 6, 0, tzinfo=UTC)


def _report() -> FloorReport:
    """One round at table t1: ann paid $10 at 1:1, bob's $25 collected; a void at round 2."""
    found: list[list[Any]] = [
        [("t1", 1, "2026-12-03T22:10:30.000Z")],  # round ends
        [("t1", 1, "2026-12-03T22:10:00.000Z")],  # round starts
        [  # ledger: table, round, kind, odds, natural, count, amount, stake
            ("t1", 1, "payout", "1:1", False, 1, 1000, 1000),
            ("t1", 1, "collect", None, False, 1, -2500, 2500),
        ],
        [("t1", 2, "2026-12-03T23:05:07.000Z", "void", "sam", "a card on the floor")],
    ]
    return assemble(START, END, found)


def _documented_columns() -> list[str]:
    """The column names of the CSV table in docs/floor.md, in order."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("CSV columns", 1)[1].split("\n\n", 2)[1]
    names: list[str] = []
    for line in table.splitlines()[2:]:
        first = line.split("|")[1]
        names += re.findall(r"`([a-z_]+)`", first)
    return names


def test_the_csv_has_one_column_per_meaning_and_docs_floor_md_lists_each_of_them() -> None:
    head = next(csv.reader(io.StringIO(_report().csv())))
    assert len(head) == len(set(head))
    assert head == list(CSV_COLUMNS) == _documented_columns()


def test_the_house_win_and_an_even_money_payout_are_told_apart_in_every_format() -> None:
    report = _report()
    line = next(csv.DictReader(io.StringIO(report.csv())))
    assert line["table_id"] == "t1"
    assert line["house_win_cents"] == "1500"
    assert (line["even_money_count"], line["even_money_cents"]) == ("1", "1000")
    assert (line["collect_count"], line["collect_cents"]) == ("1", "-2500")
    table = report.as_json()["tables"][0]
    assert table["house_win_cents"] == 1500
    assert table["settled"]["even_money"] == {"count": 1, "amount_cents": 1000}
    assert "win_cents" not in table
    text = report.text()
    assert "house win" in text.splitlines()[1]
    assert "even money 1 ($10)" in text
    page = render(report)
    heads = re.findall(r"<th>([^<]*)</th>", page)
    assert "house win" in heads
    assert "even money" in heads
    assert "win" not in heads


def test_the_period_and_the_override_times_read_as_days_and_times_in_the_shift_s_zone() -> None:
    assert period_words(START, END) == "Thu 3 Dec 2026 22:00 to Fri 4 Dec 2026 06:00 UTC"
    auckland = ZoneInfo("Pacific/Auckland")
    day = datetime(2026, 12, 4, 14, 0, tzinfo=auckland)
    assert period_words(day, day.replace(hour=22)) == "Fri 4 Dec 2026 14:00 to 22:00 NZDT"
    report = _report()
    assert report.text().splitlines()[0] == (
        "floor report Thu 3 Dec 2026 22:00 to Fri 4 Dec 2026 06:00 UTC"
    )
    assert "override 23:05:07 table t1 round 2: void by sam" in report.text()
    page = render(report)
    period = re.search(r'<p id="period">([^<]*)</p>', page)
    assert period is not None
    assert period.group(1) == "Thu 3 Dec 2026 22:00 to Fri 4 Dec 2026 06:00 UTC"
    assert "2026-12-03T" not in page.split('<div class="plots">')[0]
    assert "<td>23:05:07</td>" in page


def test_the_audit_counts_its_breaks_in_words_one_break_or_two_breaks() -> None:
    one = TableAudit("t1", rows=3, first_seq=1, last_seq=3, breaks=[ChainBreak("t1", 2, "forged")])
    assert one.describe() == "table t1: 1 break in rows 1..3: table t1 row 2: forged"
    one.breaks.append(ChainBreak("t1", 3, "forged"))
    assert one.describe().startswith("table t1: 2 breaks in rows 1..3: ")
