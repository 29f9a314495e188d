"""``croupier history``: rounds recalled from a journal, in text and as JSON."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.game.prompts import Prompt, PromptCode, Say
from controller.game.settlement import EntryKind, LedgerEntry
from controller.journal.rows import entry_for
from controller.journal.store import Journal
from controller.play.demo import DemoOptions, demo_dealer
from controller.round.controller import StateChanged, SupervisorAction
from controller.round.phases import PHASES
from controller.round.spec import Action, State
from controller.service.service import TableService
from controller.table.config import table_from_mapping
from drivers.tbl21.cards import Card
from drivers.tbl21.events import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceRef,
    DeviceType,
    PeekOutcome,
    PeekResult,
)
from tests.journal.conftest import FakeClock

SHOE = DeviceRef(DeviceType.SHOE, "sim://shoe")
PEEK = DeviceRef(DeviceType.PEEK, "sim://peek")
PANEL = DeviceRef(DeviceType.PANEL, "sim://panel")


def drawn(card: str, draw_no: int) -> CardDrawn:
    return CardDrawn(
        device=SHOE,
        at=float(draw_no),
        seq=draw_no,
        card=Card.parse(card),
        draw_no=draw_no,
        remaining=300 - draw_no,
        quality=99,
    )


def inputs(
    action: str,
    data: dict[str, Any],
    *,
    keys: list[str],
    by: str | None = None,
    accepted: bool = True,
    reason: str = "",
) -> tuple[str, dict[str, Any]]:
    return "input", {
        "action": action,
        "data": data,
        "accepted": accepted,
        "reason": reason,
        "keys": keys,
        "by": by,
    }


def write_two_rounds(journal: Journal) -> None:
    """Round 1: ann wins a natural. Round 2: bo busts, a supervisor voids a hand of cy."""
    journal.append("software", {"version": "0.1.0"})
    r1: list[tuple[str, dict[str, Any]]] = [
        ("round_start", {"round": 1, "variant": "nz-pontoon"}),
        inputs("bet", {"box": 1, "player": "ann", "amount_cents": 1000}, keys=[]),
        inputs("deal", {}, keys=["DEA"]),
        entry_for(StateChanged(State.BETTING, State.DEALING, Action.DEAL)),
        entry_for(drawn("AS", 1)),
        inputs("card", {"card": "AS"}, keys=[]),
        entry_for(drawn("9C", 2)),
        entry_for(drawn("KH", 3)),
        entry_for(
            Prompt(
                PromptCode.PAY,
                Say.MONEY,
                detail="pontoon",
                box=1,
                hand=1,
                player="ann",
                amount_cents=1500,
                odds=Fraction(3, 2),
            )
        ),
        entry_for(
            LedgerEntry(1, "ann", 1, EntryKind.PAYOUT, 1500, 1000, Fraction(3, 2), "pontoon")
        ),
        ("round_end", {"round": 1, "net_cents": 1500}),
    ]
    journal.append_many(r1, round_id=1)
    journal.append("note", {"device": "shoe", "text": "between rounds"})
    r2: list[tuple[str, dict[str, Any]]] = [
        ("round_start", {"round": 2, "variant": "nz-pontoon"}),
        inputs("bet", {"box": 2, "player": "bo", "amount_cents": 500}, keys=[]),
        entry_for(drawn("TD", 4)),
        entry_for(
            PeekResult(device=PEEK, at=5.0, seq=1, outcome=PeekOutcome.NO_BLACKJACK, quality=90)
        ),
        inputs("double", {"box": 2}, keys=["B2_", "DBL"], accepted=False, reason="not now"),
        inputs("hit", {"box": 2}, keys=["B2_", "HIT"]),
        # the dealer presses CALL: no decision, a call for a supervisor
        ("input", {"action": None, "data": {}, "accepted": True, "keys": ["CAL"], "by": None}),
        entry_for(drawn("QS", 5)),
        inputs("key_card", {"card": "7H"}, keys=["D7_", "OK_"]),
        entry_for(SupervisorAction(Action.VOID, "S. Smith", "void box 3")),
        inputs("void", {"box": 3}, keys=[], by="S. Smith"),
        entry_for(LedgerEntry(2, "bo", 1, EntryKind.COLLECT, -500, 500, None, "bust")),
        ("round_end", {"round": 2, "net_cents": -500}),
    ]
    journal.append_many(r2, round_id=2)


@pytest.fixture
def two_rounds(journal: Journal, clock: FakeClock) -> Path:
    write_two_rounds(journal)
    return journal.path


def history(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["history", "--journal", str(path), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_lists_each_round_with_cards_decisions_prompts_ledger_overrides_and_net(
    two_rounds: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = history(two_rounds, capsys, "--json")
    assert status == 0
    rounds = json.loads(out)
    assert [r["round"] for r in rounds] == [1, 2]
    first, second = rounds
    assert first["cards"] == ["AS", "9C", "KH"]
    assert [d["action"] for d in first["decisions"]] == ["bet", "deal"]
    assert first["decisions"][0] == {
        "action": "bet",
        "data": {"box": 1, "player": "ann", "amount_cents": 1000},
        "keys": [],
        "by": None,
    }
    assert first["prompts"] == [
        {
            "code": "PAY",
            "box": 1,
            "hand": 1,
            "player": "ann",
            "amount_cents": 1500,
            "odds": "3:2",
            "text": "pay box 1 hand 1 (ann) $15 at 3:2: pontoon",
        },
    ]
    assert first["ledger"] == [
        {
            "box": 1,
            "player": "ann",
            "hand": 1,
            "kind": "payout",
            "amount_cents": 1500,
            "stake_cents": 1000,
            "odds": "3:2",
            "reason": "pontoon",
        },
    ]
    assert first["overrides"] == []
    assert first["net_cents"] == 1500
    assert first["variant"] == "nz-pontoon"
    assert first["complete"] is True

    assert second["cards"] == ["TD", "QS", "7H"]  # the keyed-in card in its place
    assert [d["action"] for d in second["decisions"]] == ["bet", "hit", "key_card", "void"]
    assert second["decisions"][-1]["by"] == "S. Smith"
    assert second["overrides"] == [{"action": "void", "by": "S. Smith", "detail": "void box 3"}]
    assert [e["amount_cents"] for e in second["ledger"]] == [-500]
    assert second["net_cents"] == -500
    assert [s["kind"] for s in second["steps"]][:2] == ["round_start", "input"]


def test_text_is_headed_as_a_recall_and_shows_the_steps_in_order(
    two_rounds: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = history(two_rounds, capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("RECALL of table T1 from journal ")
    assert "hash chain verified" in lines[0]
    assert "not live play" in lines[0]
    text = "\n".join(lines)
    order = [
        "== Round 1 (nz-pontoon)",
        "decision  BET box=1 player=ann amount=$10",
        "decision  DEAL [DEAL]",
        "card      AS (draw 1, shoe)",
        "card      KH (draw 3, shoe)",
        "prompt    PAY: pay box 1 hand 1 (ann) $15 at 3:2: pontoon",
        "ledger    box 1 ann hand 1 payout +$15 at 3:2 (stake $10; pontoon)",
        "net to players: +$15",
        "== Round 2 (nz-pontoon)",
        "peek      outcome N (peek)",
        "refused   double box=2 [BOX 2, DOUBLE]: not now",
        "decision  HIT box=2 [BOX 2, HIT]",
        "called    the dealer pressed CALL: a supervisor is called",
        "decision  KEY_CARD card=7H [7, OK]",
        "OVERRIDE  void by S. Smith: void box 3",
        "decision  VOID box=3 by S. Smith",
        "ledger    box 2 bo hand 1 collect -$5 (stake $5; bust)",
        "cards: TD QS 7H",
        "net to players: -$5",
    ]
    positions = [text.find(part) for part in order]
    assert -1 not in positions, [p for p, at in zip(order, positions, strict=True) if at == -1]
    assert positions == sorted(positions)
    assert "between rounds" not in text  # rows outside any round are not part of a recall
    assert "card      AS" in text
    assert "decision  CARD" not in text  # the shoe's own input is shown once, as the card
    assert "NONE" not in text  # a CALL is said in words, not as an action that is none


def test_a_prompt_that_records_the_bars_words_is_recalled_in_those_words(
    journal: Journal, capsys: pytest.CaptureFixture[str]
) -> None:
    turn = Prompt(PromptCode.PLAYER_TURN, Say.TURN, box=2, hand=1, player="bo", count=1,
                  cards=(Card.parse("8C"), Card.parse("8D")), total=16,
                  options=("hit", "stand", "double", "split"))  # fmt: skip
    journal.append("software", {"version": "0.1.0"})
    rows = [("round_start", {"round": 1, "variant": "nz-pontoon"}), entry_for(turn)]
    journal.append_many([*rows, ("round_end", {"round": 1, "net_cents": 0})], round_id=1)
    status, out, _ = history(journal.path, capsys)
    assert status == 0
    # what the dealer's bar showed (journal format 8 on), not the prompt's one-line form
    assert "prompt    PLAYER_TURN: Box 2: 8C8D 16 - HIT, STAND, DOUBLE or SPLIT" in out
    assert "hit, stand, double, split" not in out


def test_last_n_shows_the_newest_rounds(
    two_rounds: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = history(two_rounds, capsys, "--last", "1", "--json")
    assert [r["round"] for r in json.loads(out)] == [2]


def test_the_default_is_the_last_ten_rounds(
    journal: Journal, capsys: pytest.CaptureFixture[str]
) -> None:
    for n in range(1, 13):
        journal.append_many(
            [
                ("round_start", {"round": n, "variant": "uk"}),
                ("round_end", {"round": n, "net_cents": 0}),
            ],
            round_id=n,
        )
    _, out, _ = history(journal.path, capsys, "--json")
    assert [r["round"] for r in json.loads(out)] == list(range(3, 13))


def test_round_id_picks_one_round(two_rounds: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = history(two_rounds, capsys, "--round", "1")
    assert status == 0
    assert "== Round 1" in out
    assert "== Round 2" not in out


def test_an_unknown_round_exits_1_and_says_so(
    two_rounds: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = history(two_rounds, capsys, "--round", "9")
    assert status == 1
    assert "round 9 is not in" in err


def test_an_unfinished_round_shows_the_ledger_so_far(
    journal: Journal, capsys: pytest.CaptureFixture[str]
) -> None:
    journal.append_many(
        [
            ("round_start", {"round": 3, "variant": "nz-pontoon"}),
            entry_for(LedgerEntry(1, "ann", 1, EntryKind.COLLECT, -200, 200, None, "bust")),
        ],
        round_id=3,
    )
    _, out, _ = history(journal.path, capsys, "--json")
    (only,) = json.loads(out)
    assert only["complete"] is False
    assert only["net_cents"] == -200
    _, text, _ = history(journal.path, capsys)
    assert "not finished" in text
    assert "net to players so far: -$2" in text


def test_a_journal_that_does_not_verify_is_recalled_with_a_warning(
    two_rounds: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.journal.test_tamper import tamper  # noqa: PLC0415

    tamper(two_rounds, ("UPDATE journal SET payload = '{}' WHERE seq = 3", ()))
    status, out, err = history(two_rounds, capsys)
    assert status == 0
    assert "HASH CHAIN BROKEN" in out.splitlines()[0]
    assert "WARNING the journal does not verify (row 3: edited" in err


def test_no_journal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = history(tmp_path / "none.sqlite3", capsys)
    assert status == 2
    assert "there is no journal at" in err


@pytest.mark.parametrize("bad", ["0", "-1", "ten"])
def test_last_must_be_a_positive_number(
    two_rounds: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["history", "--journal", str(two_rounds), "--last", bad])
    assert exited.value.code == 2
    assert "not a whole number of rounds of 1 or more" in capsys.readouterr().err


def test_inputs_from_the_display_take_their_data_and_who_from_the_call_row(
    journal: Journal, capsys: pytest.CaptureFixture[str]
) -> None:
    journal.append_many(
        [
            (
                "call",
                {"method": "place_bet", "args": {"box": 2, "player": "bo", "amount_cents": 2500}},
            ),
            inputs("bet", {}, keys=[]),
            ("round_start", {"round": 5, "variant": "uk-pontoon"}),
            ("round_start", {"round": 5, "variant": "marked again"}),
            entry_for(ButtonPressed(device=PANEL, at=1.0, seq=1, button=Button.OK, held_ms=0)),
            ("call", {"method": "supervisor", "action": "void", "args": {"by": "S. Smith"}}),
            inputs("void", {}, keys=[]),
        ],
        round_id=5,
    )
    _, out, _ = history(journal.path, capsys, "--json")
    (only,) = json.loads(out)
    assert only["decisions"] == [
        {
            "action": "bet",
            "data": {"box": 2, "player": "bo", "amount_cents": 2500},
            "keys": [],
            "by": None,
        },
        {"action": "void", "data": {}, "keys": [], "by": "S. Smith"},
    ]
    assert only["variant"] == "uk-pontoon"
    assert only["started"] == only["steps"][0]["ts"]
    _, text, _ = history(journal.path, capsys)
    assert "decision  BET box=2 player=bo amount=$25" in text
    assert "decision  VOID by S. Smith" in text
    assert "OK_" not in text  # a bare button press is no step of its own
    assert text.count("start     round 5") == 1


# --- a real table's journal: heartbeats, recovery, a clean stop ------------------------------


def _played_twice(tmp_path: Path) -> Path:
    """A table that played a round, was stopped, started again (rebuilt from its journal) and
    stopped again: what ``croupier run`` leaves behind."""
    table = table_from_mapping(
        {
            "table_id": "t-history",
            "boxes": [1, 2],
            "display": {"port": 0},
            "journal": {"path": str(tmp_path / "journal.sqlite3")},
        },
        "<test>",
        tmp_path,
    )
    demo = DemoOptions(pace_s=0.0, boxes=(1, 2), seed=5)
    for _ in range(2):
        with TableService(table, actors=[demo_dealer(demo)]) as service:
            deadline = time.monotonic() + 30
            while service.rounds_completed < 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert service.rounds_completed >= 1
            time.sleep(1.2)  # long enough for the devices' status reports (every 0.5 s)
    return table.journal_path


def test_history_hides_heartbeats_unless_all_and_shows_recovery_and_clean_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _played_twice(tmp_path)
    with Journal.open(path, readonly=True) as journal:
        rows = journal.rows()
    assert any(r.kind == "device_event" and r.payload["type"] == "DeviceStatus" for r in rows)
    stops = [r for r in rows if r.kind == "stop"]
    assert [s.payload["reason"] for s in stops] == ["the table was stopped"] * 2
    recovery = next(r for r in rows if r.kind == "recovery")
    capsys.readouterr()  # (the tables' own log lines)

    assert main(["history", "--journal", str(path), "--last", "100"]) == 0
    quiet = capsys.readouterr().out
    assert main(["history", "--journal", str(path), "--last", "100", "--all"]) == 0
    everything = capsys.readouterr().out

    assert "DeviceStatus" not in quiet
    assert "ButtonReleased" not in quiet
    assert "device    DeviceStatus (shoe)" in everything
    assert "note      panel: ButtonReleased" in everything
    assert f"RECOVERED {recovery.payload['text']}" in quiet
    assert quiet.count("STOPPED   the table was stopped (round ") == 2
    for stop in stops:  # where the round was, in words (not the state's id)
        where = PHASES[State(stop.payload["state"])]
        assert f"(round {stop.payload['round']}: {where})" in quiet
    assert len(quiet.splitlines()) < len(everything.splitlines())
