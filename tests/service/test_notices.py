"""Notices the dealer must read reach the display's state and stay there until acknowledged."""

from __future__ import annotations

from pathlib import Path

from controller.display.hub import StateHub
from controller.journal.store import Journal
from controller.service.notices import NoticeKind, Notices
from controller.service.service import Acknowledge, TableService
from controller.table.config import LoadedTable, table_from_mapping


def loaded(tmp_path: Path) -> LoadedTable:
    return table_from_mapping(
        {
            "table_id": "t-notice",
            "display": {"port": 0},
            "journal": {"path": str(tmp_path / "journal.sqlite3")},
        },
        "<test>",
        tmp_path,
    )


def test_the_same_open_notice_is_never_shown_twice() -> None:
    notices = Notices()
    first = notices.add(NoticeKind.JOURNAL, "journal unavailable: disk full")
    assert first is not None
    assert notices.add(NoticeKind.JOURNAL, "journal unavailable: disk full") is None
    assert notices.acknowledge(first.id) == first
    assert notices.add(NoticeKind.JOURNAL, "journal unavailable: disk full") is not None


def test_a_recovered_round_is_a_notice_until_the_dealer_acknowledges_it(tmp_path: Path) -> None:
    with TableService(loaded(tmp_path)):
        pass
    service = TableService(loaded(tmp_path))
    hub = StateHub.attach(service)
    service.open()
    try:
        (notice,) = hub.state()["notices"]
        assert notice["kind"] == "recovered"
        assert (
            "was rebuilt from the table's record and goes on where it stopped (" in notice["text"]
        )
        assert "replayed" not in notice["text"]  # the counts are the log's, not the dealer's
        assert notice["todo"]
        refused = service.execute(Acknowledge(notice["id"] + 100))
        assert not refused.accepted
        assert f"no notice {notice['id'] + 100}" in refused.reason
        assert hub.state()["notices"] == [notice]  # a wrong id closes nothing
        assert service.execute(Acknowledge(notice["id"])).accepted
        assert hub.state()["notices"] == []
    finally:
        service.close()
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        rows = [
            (r.payload["event"], r.payload["kind"]) for r in journal.iter_rows(kinds=["notice"])
        ]
    assert rows == [("opened", "recovered"), ("acknowledged", "recovered")]
