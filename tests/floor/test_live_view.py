"""What the floor page shows of a table, folded from its rows: the round in play as it goes (its
bets, cards by box, the dealer's words) and settled once it is, the last rounds with their times
in the casino's zone, and an alert that carries who acknowledged it."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from controller.floor.live import Ack, ShipperWord, TableView
from controller.floor.rounds import RoundFold, prompt_parts, round_detail, shown_parts
from controller.floor.shipper import Backlog
from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.words import prompt_json, shown
from controller.journal.store import Row
from drivers.tbl21.cards import Card

AUCKLAND = ZoneInfo("Pacific/Auckland")
SHIFT = datetime(2026, 12, 4, 14, 0, tzinfo=AUCKLAND)  # 01:00 UTC
NOW = datetime(2026, 12, 4, 1, 30, tzinfo=UTC)


class Rows:
    """A table's rows, one second apart from 01:10:00 UTC (14:10:00 in Auckland)."""

    def __init__(self) -> None:
        self.seq = 0

    def __call__(self, round_id: int | None, kind: str, payload: dict[str, Any]) -> Row:
        self.seq += 1
        at = datetime(2026, 12, 4, 1, 10, tzinfo=UTC) + timedelta(seconds=self.seq)
        ts = at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return Row(self.seq, ts, "t1", round_id, kind, payload, "", "")


def _in_play(row: Rows, n: int) -> list[Row]:
    """Round ``n`` up to the first player's turn: ann's bet on box 1, three cards."""
    bet = {"box": 1, "player": "ann", "amount_cents": 2000}
    return [
        row(n, "input", {"accepted": True, "action": "bet", "data": bet}),
        row(n, "prompt", {"code": "DEAL", "box": 1, "text": "deal to box 1"}),
        row(n, "round_start", {"round": n}),
        row(n, "device_event", {"type": "CardDrawn", "card": "AS"}),
        row(n, "prompt", {"code": "DEAL", "text": "deal the dealer's first card face up"}),
        row(n, "device_event", {"type": "CardDrawn", "card": "9D"}),
        row(n, "prompt", {"code": "DEAL", "box": 1, "text": "deal to box 1"}),
        row(n, "device_event", {"type": "CardDrawn", "card": "KH"}),
        row(
            n,
            "prompt",
            {"code": "PLAYER_TURN", "box": 1, "text": "box 1 hand 1: AS KH (21) - hit, stand"},
        ),
    ]


def _ledger(
    box: int, player: str, kind: str, cents: int, odds: str | None, why: str
) -> dict[str, Any]:
    return {
        "box": box,
        "hand": 1,
        "player": player,
        "kind": kind,
        "amount_cents": cents,
        "stake_cents": abs(cents),
        "odds": odds,
        "reason": why,
    }


def _settled(row: Rows, n: int) -> list[Row]:
    return [
        row(n, "ledger", _ledger(1, "ann", "payout", 3000, "3:2", "natural paid at once")),
        row(n, "round_end", {"net_cents": 3000}),
    ]


def test_the_round_in_play_shows_its_bets_cards_and_words_then_settles() -> None:
    row = Rows()
    view = TableView("t1", SHIFT)
    for r in _in_play(row, 7):
        view.feed(r)
    live = view.as_json(NOW)["live"]
    assert live["round"] == 7
    assert live["in_play"] is True
    assert live["prompt"] == "box 1 hand 1: AS KH (21) - hit, stand"
    # shown as the dealer's screen says it: the cards as cards, the keys by their names
    assert live["prompt_parts"] == [
        {"text": "Box 1: "},
        {"card": "AS"},
        {"card": "KH"},
        {"text": " 21 - HIT or STAND"},
    ]
    assert live["bets"] == [{"box": 1, "player": "ann", "amount_cents": 2000, "amount": "$20"}]
    assert [(c["card"], c["to"]) for c in live["cards"]] == [
        ("AS", "box 1"),
        ("9D", "dealer"),
        ("KH", "box 1"),
    ]
    assert live["start_time"] == "14:10:03"  # the round_start row, in Auckland
    assert view.as_json(NOW)["recent"] == [
        {
            "round": 7,
            "start": row_ts(3),
            "end": None,
            "net_cents": None,
            "void": False,
            "net": None,
            "start_time": "14:10:03",
            "end_time": None,
            "in_play": True,
        }
    ]
    for r in _settled(row, 7):
        view.feed(r)
    shown = view.as_json(NOW)
    assert shown["live"]["in_play"] is False
    assert shown["live"]["prompt"] == ""
    assert shown["live"]["ledger"][0]["amount"] == "+$30 at 3:2"
    assert shown["recent"][0]["net"] == "$30"
    assert shown["recent"][0]["end_time"] == "14:10:11"
    view.feed(_in_play(row, 8)[0])  # the next round's first bet
    assert view.as_json(NOW)["live"]["round"] == 8
    assert [r["round"] for r in view.as_json(NOW)["recent"]] == [7]


def test_the_rounds_shown_are_worked_out_again_only_after_a_row_or_in_another_zone() -> None:
    """The view is shown every second: with no new row its live round and last rounds are the
    ones worked out before (the same objects); a row, or a shift in another zone, works them
    out again."""
    row = Rows()
    view = TableView("t1", SHIFT)
    for r in _in_play(row, 7):
        view.feed(r)
    first = view.as_json(NOW)
    again = view.as_json(NOW + timedelta(seconds=1))
    assert again["live"] is first["live"]
    assert again["recent"] is first["recent"]
    view.feed(_settled(row, 7)[0])
    after = view.as_json(NOW)
    assert after["live"] is not first["live"]
    assert after["live"]["ledger"][0]["amount"] == "+$30 at 3:2"
    view.new_shift(datetime(2026, 12, 4, 1, 0, tzinfo=UTC))  # the same rows, shown in UTC
    utc = view.as_json(NOW)
    assert utc["live"]["start_time"] == "01:10:03"
    assert utc["recent"][0]["start_time"] == "01:10:03"
    # the next round begins and the shift is Auckland's again: the rounds in Auckland's time
    view.feed(row(8, "round_start", {"round": 8}))
    view.new_shift(SHIFT)
    again_here = view.as_json(NOW)["recent"]
    assert [(r["round"], r["start_time"]) for r in again_here] == [(8, "14:10:12"), (7, "14:10:03")]


def test_a_round_shown_as_it_goes_is_not_changed_by_the_rows_after_it() -> None:
    """The live round is folded row by row: each showing is the round as far as it had gone
    then (what was published stays as it was), and the last equals the round read whole."""
    row = Rows()
    rows = [*_in_play(row, 7), row(7, "supervisor", {"action": "void", "by": "pit"})]
    rows += _settled(row, 7)
    fold = RoundFold()
    shown: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for r in rows:
        fold.feed(r)
        got = fold.detail(AUCKLAND)
        shown.append((got, copy.deepcopy(got)))
    for got, then in shown:
        assert got == then
    assert shown[-1][0] == round_detail(rows, AUCKLAND)
    assert [len(g["cards"]) for g, _ in shown] == [0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3]
    assert shown[-1][0]["void"] is True
    assert shown[-1][0]["overrides"][0]["time"] == "14:10:10"


def row_ts(seq: int) -> str:
    return (datetime(2026, 12, 4, 1, 10, tzinfo=UTC) + timedelta(seconds=seq)).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z"
    )


def test_a_lockup_is_known_by_when_the_table_raised_it_and_carries_its_acknowledgement() -> None:
    row = Rows()
    view = TableView("t1", SHIFT)
    view.feed(row(3, "prompt", {"code": "LOCKUP", "text": "shoe jammed: call a technician"}))
    view.feed(row(3, "state", {"dest": "hold"}))
    (alert,) = [a for a in view.alerts(NOW) if a.kind == "lockup"]
    assert (alert.kind, alert.since) == ("lockup", row_ts(1))
    assert alert.acked is None
    later = NOW + timedelta(minutes=5)
    assert [a.since for a in view.alerts(later) if a.kind == "lockup"] == [row_ts(1)]
    view.acks[alert.key] = Ack("pat", NOW)
    (shown,) = [a for a in view.as_json(later)["alerts"] if a["kind"] == "lockup"]
    assert shown["acked"] == {"by": "pat", "at": NOW.isoformat(), "time": "14:30:00"}
    assert shown["since_time"] == "14:10:01"


def test_a_round_s_settlements_read_as_money_to_the_player_with_the_odds_paid() -> None:
    row = Rows()
    rows = [
        *_in_play(row, 4),
        row(4, "ledger", _ledger(2, "bob", "collect", -700, None, "bust with 24")),
        *_settled(row, 4),
    ]
    detail = round_detail(rows, AUCKLAND)
    assert [(e["where"], e["amount"], e["reason"]) for e in detail["ledger"]] == [
        ("box 2", "-$7", "bust with 24"),
        ("box 1", "+$30 at 3:2", "natural paid at once"),
    ]
    assert (detail["start_time"], detail["end_time"]) == ("14:10:03", "14:10:12")
    assert detail["in_play"] is False


def test_one_row_behind_is_a_row_and_more_are_rows() -> None:
    oldest = "2026-12-04T01:10:00.000Z"
    behind = Backlog(11, 10, oldest, datetime(2026, 12, 4, 1, 10, 35, tzinfo=UTC).timestamp())
    assert behind.describe() == "1 row behind, oldest 35 s"
    assert replace(behind, shipped_seq=9).describe() == "2 rows behind, oldest 35 s"


def test_a_prompt_names_the_hand_only_where_the_box_was_split_and_keeps_other_words() -> None:
    assert prompt_parts("box 2 hand 2: 8H 3C (11) - hit, stand, double", split={2}) == [
        {"text": "Box 2, hand 2: "},
        {"card": "8H"},
        {"card": "3C"},
        {"text": " 11 - HIT, STAND or DOUBLE"},
    ]
    assert prompt_parts("surrender offered against QD") == [
        {"text": "Surrender offered against "},
        {"card": "QD"},
    ]
    assert prompt_parts("Round 5: take the bets, then press DEAL.") == [
        {"text": "Round 5: take the bets, then press DEAL."}
    ]


def test_a_prompt_that_records_the_bars_words_is_shown_in_those_words() -> None:
    # a prompt row from journal format 8 on: the dealer's bar is recorded beside the line
    turn = Prompt(PromptCode.PLAYER_TURN, Say.TURN, box=2, hand=1, player="bo", count=1,
                  cards=(Card.parse("8C"), Card.parse("8D")), total=16,
                  options=("hit", "stand", "double", "split"))  # fmt: skip
    row = Rows()
    view = TableView("t1", SHIFT)
    for r in _in_play(row, 7)[:-1]:
        view.feed(r)
    view.feed(row(7, "prompt", prompt_json(turn)))
    live = view.as_json(NOW)["live"]
    assert live["prompt"] == "Box 2: 8C8D 16 - HIT, STAND, DOUBLE or SPLIT" == shown(turn)
    assert live["prompt_parts"] == [
        {"text": "Box 2: "},
        {"card": "8C"},
        {"card": "8D"},
        {"text": " 16 - HIT, STAND, DOUBLE or SPLIT"},
    ]
    assert shown_parts("Offer insurance and surrender against AH, then press OK") == [
        {"text": "Offer insurance and surrender against "},
        {"card": "AH"},
        {"text": ", then press OK"},
    ]


def test_a_table_stopped_cleanly_is_stopped_not_silent_and_a_start_makes_silence_count_again() -> (
    None
):
    row = Rows()
    view = TableView("t1", SHIFT)
    for r in _in_play(row, 1) + _settled(row, 1):
        view.feed(r)
    view.feed(row(1, "stop", {"reason": "signal"}))
    reported = datetime(2026, 12, 4, 1, 11, tzinfo=UTC)
    view.shipper = ShipperWord(reported, view.last_seq, 0, 0.0, "connected", "", {})
    an_hour_later = reported + timedelta(hours=1)
    assert _silent(view, an_hour_later) == []
    assert view.as_json(an_hour_later)["stopped"] is True
    view.feed(row(None, "software", {"version": "0.2.0"}))  # it started again, then went quiet
    assert _silent(view, an_hour_later) == ["silent"]
    assert view.as_json(an_hour_later)["stopped"] is False


def _silent(view: TableView, now: datetime) -> list[str]:
    """The silence alerts (these made-up rows carry no hashes, so the chain alerts are left out)."""
    return [a.kind for a in view.alerts(now) if a.kind == "silent"]
