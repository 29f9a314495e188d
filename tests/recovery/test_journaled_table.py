"""The journaled table: causes and effects written first, the table rebuilt from the journal."""

from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from controller.game.prompts import Prompt, PromptCode
from controller.game.words import line
from controller.journal.errors import JournalUnavailable, RecoveryMismatch
from controller.journal.journaled import JournaledTable, recover
from controller.journal.store import Journal
from controller.play.autoplay import play_rounds
from controller.play.event_hands import EventHands
from controller.play.scenario_file import ScriptedShoe
from controller.play.scenario_runner import output_cursor, scripted_rounds
from controller.round.inputs import Bet, Decision, KeyedCard
from controller.round.spec import State
from controller.table.app import InputResult
from tests.scenario_file.test_scenarios import EXPECTED

from .sessions import journaled, net, plain, play, rules_of, scenario


class EventTableApp:
    """A bare TableApp behind the EventTable protocol."""

    def __init__(self, sc_name: str) -> None:
        self.app = plain(rules_of(scenario(sc_name)))

    def handle(self, event: object) -> None:
        self.app.handle(event)  # type: ignore[arg-type]

    def answer(self, call: Bet | Decision | KeyedCard) -> InputResult:
        return self.app.answer(call)


SCRIPTED = sorted(n for n in EXPECTED if n != "nz_cut_card_then_shuffle")


@pytest.mark.parametrize("name", SCRIPTED)
def test_every_scenario_gives_the_same_result_through_driver_events(name: str) -> None:
    assert net(play(EventTableApp(name), scenario(name))) == EXPECTED[name]


@pytest.mark.parametrize("name", SCRIPTED)
def test_every_scenario_gives_the_same_result_with_the_journal(name: str, tmp_path: Path) -> None:
    sc = scenario(name)
    table = journaled(rules_of(sc), tmp_path / "j.sqlite3")
    assert net(play(table, sc)) == EXPECTED[name]
    assert table.journal.verify().ok


REBUILT = ["nz_super_bonus", "pa_reader_lies_lockup", "nz_card_out_of_turn_void",
           "nz_unreadable_card_keyed_in"]  # fmt: skip


@pytest.mark.parametrize("name", REBUILT)
def test_a_table_rebuilt_from_its_journal_is_the_table_that_wrote_it(
    name: str, tmp_path: Path
) -> None:
    sc = scenario(name)
    path = tmp_path / "j.sqlite3"
    live = journaled(rules_of(sc), path)
    play(live, sc)
    live.journal.close()
    rebuilt = recover(rules_of(sc), Journal.open(path, table_id="T1"))
    assert rebuilt.recovery is not None
    assert rebuilt.recovery.effects_written == 0
    assert rebuilt.controller.state is live.controller.state
    assert rebuilt.controller.round == live.controller.round
    assert rebuilt.app.outputs == live.app.outputs


def test_every_row_is_written_before_the_dealer_is_shown_it(tmp_path: Path) -> None:
    shown: list[int] = []
    journal = Journal.open(tmp_path / "j.sqlite3", table_id="T1")
    table = JournaledTable.start(
        rules_of(scenario("nz_insurance")),
        journal,
        show=lambda item: shown.append(journal.last_row().seq),  # type: ignore[union-attr]
    )
    play(table, scenario("nz_insurance"))
    # When each output was shown, the journal already held rows for it.
    assert shown
    assert all(seq >= 1 for seq in shown)
    assert journal.last_row().seq >= max(shown)  # type: ignore[union-attr]


def test_a_journal_that_does_not_replay_to_what_it_says_is_refused(tmp_path: Path) -> None:
    sc = scenario("nz_pontoon_paid_at_once")
    path = tmp_path / "j.sqlite3"
    live = journaled(rules_of(sc), path)
    play(live, sc)
    live.journal.close()
    # The same journal replayed under different rules (a 2:1 pontoon) disagrees with its rows.
    other = rules_of(scenario("uk_pontoon_against_pontoon"))
    with pytest.raises(RecoveryMismatch, match="supervisor's verification"):
        recover(other, Journal.open(path, table_id="T1"))


def test_a_fresh_journal_starts_a_fresh_table(tmp_path: Path) -> None:
    table = journaled(rules_of(scenario("nz_insurance")), tmp_path / "j.sqlite3")
    assert table.controller.state is State.BURN
    assert table.recovery is None


def test_a_fresh_table_journals_its_opening_prompt_once_before_any_cause(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite3"
    shown: list[object] = []
    table = JournaledTable.start(
        rules_of(scenario("nz_insurance")), Journal.open(path, table_id="T1"), show=shown.append
    )
    first = table.journal.rows()[0]
    # what the dealer was first told, as the bar showed it, before anything was done
    assert (first.kind, first.payload["code"]) == ("prompt", "BURN")
    assert first.payload["shown"] == "Burn 1 card from the new shoe"
    assert shown == [table.app.outputs[0]]
    assert table.app.outputs[0] == table.app.last_prompt()
    table.journal.close()
    # a restart replays the journal (the opening is the first start's, not written again)
    rebuilt = recover(rules_of(scenario("nz_insurance")), Journal.open(path, table_id="T1"))
    assert rebuilt.recovery is not None
    assert rebuilt.recovery.effects_written == 0
    openings = [r for r in rebuilt.journal.rows(kinds=["prompt"]) if r.payload["code"] == "BURN"]
    assert [r.seq for r in openings] == [first.seq]


def test_a_journal_that_cannot_be_written_refuses_bets_and_tells_the_dealer(
    tmp_path: Path,
) -> None:
    shown: list[object] = []
    sc = scenario("nz_insurance")
    table = JournaledTable.start(rules_of(sc), Journal.open(tmp_path / "j.sqlite3", table_id="T1"),
                                 show=shown.append)  # fmt: skip
    assert isinstance(sc.shoe, ScriptedShoe)
    EventHands(table, iter(sc.shoe.cards)).draw()  # the burn card: bets are open
    # The disk fills up: SQLite may not grow the file by one more page.
    journal = table.journal
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")
    full = _fill(journal)
    assert "the disk is full" in str(full)
    before = (table.controller.state, table.controller.round)
    result = table.answer(Bet(1, "ann", 1000))
    assert not result.accepted
    assert "the disk is full" in result.reason
    assert "no round can start until the journal can be written" in result.reason
    assert (table.controller.state, table.controller.round) == before
    prompts = [p for p in shown if isinstance(p, Prompt)]
    assert prompts[-1].code is PromptCode.JOURNAL_UNAVAILABLE
    # Space is freed: the same bet is recorded and taken.
    journal._db.execute(f"PRAGMA max_page_count = {pages * 100}")
    assert table.answer(Bet(1, "ann", 1000)).accepted


def _fill(journal: Journal) -> JournalUnavailable:
    """Fill the journal's last page too: rows ever shorter until not even a short one fits."""
    full: JournalUnavailable | None = None
    for pad in (200, 50, 10, 0):
        for n in range(10_000):
            try:
                journal.append("note", {"device": "test", "text": f"filler {n} " + "x" * pad})
            except JournalUnavailable as refused:
                full = refused
                break
    if full is None:
        raise AssertionError("the journal never filled up")
    return full


def test_the_dealer_is_told_the_round_was_recovered_and_the_journal_says_so(
    tmp_path: Path,
) -> None:
    sc = scenario("nz_insurance")
    path = tmp_path / "j.sqlite3"
    live = journaled(rules_of(sc), path)
    play(live, sc)
    live.journal.close()
    shown: list[object] = []
    journal = Journal.open(path, table_id="T1")
    rebuilt = recover(rules_of(sc), journal, show=shown.append)
    [told] = [p for p in shown if isinstance(p, Prompt)]
    assert told.code is PromptCode.RESUMED
    assert line(told) == (
        "The table restarted: round 2 was rebuilt from the table's record and goes on where it "
        "stopped (bets open)."
    )
    last = journal.last_row()
    assert last is not None
    assert last.kind == "recovery"
    # the row keeps the counts for the log and the history (the dealer is not shown them)
    assert last.payload["text"].startswith("round 2 recovered at betting (")
    assert (last.payload["round"], last.payload["state"]) == (2, "betting")
    # and a second restart replays the first one's journal, recovery row included
    journal.close()
    again = recover(rules_of(sc), Journal.open(path, table_id="T1"))
    assert again.controller.round == rebuilt.controller.round


def test_log_records_of_a_round_carry_the_table_shoe_and_round(tmp_path: Path) -> None:
    sc = scenario("uk_stand_on_14_refused")  # a refused stand logs at INFO
    table = journaled(rules_of(sc), tmp_path / "j.sqlite3")
    structlog.contextvars.clear_contextvars()
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        play(table, sc)
    refused = [e for e in logs if e["event"] == "input refused"]
    assert refused
    assert {(e["table_id"], e["shoe_id"], e["round_id"]) for e in refused} == {
        ("T1", "T1-shoe1", 1)
    }
    structlog.contextvars.clear_contextvars()


def test_each_round_is_marked_once_at_its_start_and_once_at_its_end(tmp_path: Path) -> None:
    sc = scenario("nz_cut_card_then_shuffle")  # two rounds with a shuffle between them
    path = tmp_path / "j.sqlite3"
    table = journaled(rules_of(sc), path)
    assert isinstance(sc.shoe, ScriptedShoe)
    hands = EventHands(table, iter(sc.shoe.cards))
    play_rounds(table.app.controller, hands, scripted_rounds(sc), drain=output_cursor(table.app))
    marks = [(r.kind, r.payload["round"]) for r in table.journal.iter_rows(
        kinds=["round_start", "round_end"])]  # fmt: skip
    assert marks == [("round_start", 1), ("round_end", 1), ("round_start", 2), ("round_end", 2)]
