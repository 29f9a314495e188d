"""Every table's identity history on the floor: what software and rules files each start ran
(its config rows, kept like every row), and an alert when a table's software or rules changed
since its last start."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from controller.floor.cluster import Cluster
from controller.floor.live import Ack, TableView
from controller.floor.shipper import Shipper
from controller.service.service import TableService
from tests.floor.conftest import drained, link, table, table_id, wait_until
from tests.floor.test_live_view import NOW, SHIFT, Rows, row_ts

SOFTWARE = {"software": "0.2.0", "software_sha256": "a" * 64, "software_recorded": True}
RULES = {"variant": "nz-pontoon", "variant_sha256": "b" * 64, "strategy_sha256": "c" * 64}


def test_a_start_whose_software_or_rules_changed_raises_an_alert_until_acknowledged() -> None:
    row = Rows()
    view = TableView("t1", SHIFT)
    view.feed(row(None, "config", {**SOFTWARE, **RULES, "table_sha256": "d" * 64, "changed": []}))
    # (these rows are not chained: the chain's alert is left out here)
    assert [a for a in view.alerts(NOW) if a.kind == "identity"] == []
    assert view.as_json(NOW)["identity"]["software_sha256"] == "a" * 64
    upgraded = {**SOFTWARE, "software": "0.3.0", "software_sha256": "e" * 64}
    changed = ["software", "software_sha256", "variant_sha256"]
    view.feed(
        row(None, "config", {**upgraded, **RULES, "variant_sha256": "f" * 64, "changed": changed})
    )
    (alert,) = [a for a in view.alerts(NOW) if a.kind == "identity"]
    assert alert.text == (
        # the rules file in the dealer's words (one wording, controller.table.identity): was
        # "the variant file (its rules)" before the two lists were folded into one
        "changed since its last start: the software, the game's rules file (now croupier 0.3.0)"
    )
    assert alert.since == row_ts(2)  # when the table started on it
    view.acks[alert.key] = Ack("pat", NOW)
    (shown,) = [a for a in view.as_json(NOW)["alerts"] if a["kind"] == "identity"]
    assert shown["acked"]["by"] == "pat"
    assert [i["software"] for i in view.identities] == ["0.2.0", "0.3.0"]


def test_the_floor_keeps_each_start_s_identity_and_an_identity_alert_can_be_acknowledged(
    cluster: Cluster, tmp_path: Path
) -> None:
    tid = table_id("identity")
    loaded = table(tmp_path, tid)
    for _ in range(2):
        with TableService(loaded) as service:
            assert service.software is not None
            software = service.software
    with Shipper(loaded.journal_path, tid, link(cluster, tid)) as shipper:
        wait_until(lambda: drained(shipper, loaded.journal_path), "shipped")
    with psycopg.connect(cluster.conninfo("floor")) as db:
        history = db.execute(
            "SELECT version, software_sha256, recorded, variant, variant_sha256, changed "
            "FROM croupier.identity_history WHERE table_id = %s ORDER BY seq",
            (tid,),
        ).fetchall()
        assert len(history) == 2
        for version, sha, recorded, variant, variant_sha, changed in history:
            assert (version, sha, recorded) == (
                software.version,
                software.sha256,
                software.recorded,
            )
            assert variant == "nz-pontoon"
            assert len(variant_sha) == 64
            assert changed == []
        db.execute(
            "SELECT croupier.ack_alert(%s, 'identity', 'changed since its last start: the "
            "software', '2026-12-04T01:10:02.000Z', 'pat')",
            (tid,),
        )
        with pytest.raises(psycopg.errors.CheckViolation):
            db.execute(
                "SELECT croupier.ack_alert(%s, 'nonsense', 'x', 'y', 'pat')",
                (tid,),
            )
