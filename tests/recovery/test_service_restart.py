"""``croupier run`` stopped and started again comes back exactly where it was: the table service
journals everything first and rebuilds the table from its journal."""

import time
from pathlib import Path
from typing import Any

from controller.display.hub import StateHub
from controller.journal.store import Journal
from controller.play.demo import DemoOptions, demo_dealer
from controller.service.service import TableService
from controller.table.config import LoadedTable, table_from_mapping

WAIT_S = 30.0


def loaded(tmp_path: Path) -> LoadedTable:
    return table_from_mapping(
        {
            "table_id": "t-restart",
            "boxes": [1, 2, 3],
            "display": {"port": 0},
            "journal": {"path": str(tmp_path / "journal.sqlite3")},
        },
        "<test>",
        tmp_path,
    )


def wait(service: TableService, check: Any, what: str) -> dict[str, Any]:
    hub = StateHub.attach(service)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        state = hub.state()
        if state and check(state):
            return state
        time.sleep(0.01)
    raise AssertionError(f"the table did not reach: {what}; errors {service.errors}")


def test_a_stopped_table_starts_again_where_it_was_and_plays_on(tmp_path: Path) -> None:
    table = loaded(tmp_path)
    demo = DemoOptions(pace_s=0.0, boxes=(1, 2, 3), seed=5)
    with TableService(table, actors=[demo_dealer(demo)]) as first:
        wait(first, lambda s: s["rounds_completed"] >= 2, "two rounds played")
    assert first.app is not None
    before = (
        first.app.controller.state,
        first.app.controller.round,
        first.app.controller.table.round_number,
        first.app.shoe.last_draw_no,
    )
    assert first.errors == []

    with TableService(table, actors=[demo_dealer(demo)]) as second:
        assert second.journaled.recovery is not None
        assert second.app is not None
        assert any("rebuilt from the table's record" in n for n in second.notices.texts())
        # the rebuilt table is the one that stopped (state, round, shoe position)
        after_start = (
            second.app.controller.state,
            second.app.controller.round,
            second.app.controller.table.round_number,
            second.app.shoe.last_draw_no,
        )
        assert after_start == before
        number = before[2]
        wait(second, lambda s: s["round"] > number + 1, "another round after restart")
    assert second.errors == []
    with Journal.open(table.journal_path, readonly=True, sealed=True) as journal:
        assert journal.verify().ok
        kinds = [r.kind for r in journal.iter_rows(kinds=["recovery", "software"])]
        # the restarted emulated shoe goes on where the journal left it: it tells no card of
        # its last life again (each would be noted "seen before", one note per card dealt)
        (restart,) = [r.seq for r in journal.iter_rows(kinds=["software"])][1:]
        told_again = [
            r.payload["text"]
            for r in journal.iter_rows(kinds=["note"], after_seq=restart)
            if "seen before" in str(r.payload.get("text"))
        ]
    assert kinds == ["software", "software", "recovery"]
    assert told_again == []


def test_a_variant_file_changed_between_starts_is_flagged(tmp_path: Path) -> None:
    variant = tmp_path / "house.toml"
    shipped = Path(__file__).resolve().parents[2] / "config" / "variants" / "nz-pontoon.toml"
    variant.write_text(shipped.read_text())

    def table() -> LoadedTable:
        return table_from_mapping(
            {"table_id": "t-flag", "variant": str(variant), "display": {"port": 0},
             "journal": {"path": str(tmp_path / "journal.sqlite3")}},
            "<test>",
            tmp_path,
        )  # fmt: skip

    with TableService(table()) as first:
        assert first.notices.texts() == []
    variant.write_text(variant.read_text().replace("burn_cards = 1", "burn_cards = 2"))
    with TableService(table()) as second:
        assert any(
            "Since the last start the game's rules file changed" in n
            for n in second.notices.texts()
        )
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        rows = [r.payload for r in journal.iter_rows(kinds=["config"])]
    assert [r["changed"] for r in rows] == [[], ["variant_sha256"]]
    assert rows[0]["variant_sha256"] != rows[1]["variant_sha256"]


def test_a_long_running_table_keeps_only_its_recent_outputs_in_memory(tmp_path: Path) -> None:
    demo = DemoOptions(pace_s=0.0, boxes=(1, 2, 3), seed=9)

    class Small(TableService):
        keep_outputs = 40

    with Small(loaded(tmp_path), actors=[demo_dealer(demo)]) as service:
        state = wait(service, lambda s: s["rounds_completed"] >= 4, "four rounds played")
        assert service.app is not None
        assert len(service.app.outputs) <= 2 * Small.keep_outputs + 100  # + one unit of work
        assert state["prompt"]  # the display still has what it shows
    assert service.errors == []
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        assert len(journal.rows(kinds=["round_end"])) >= 4  # the journal keeps everything
