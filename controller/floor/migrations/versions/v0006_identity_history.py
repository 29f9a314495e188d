"""Every table's identity history: what software and rules files each start ran, and an alert
kind for a change of either.

``croupier.identity_history`` is a view of the ``config`` rows every start journals (the
version, the SHA-256 of the software's files as one hash, of the variant file, its strategy and
the table file, what changed since the start before): the rows themselves are the record, kept
like every other row, so the history is as old as the floor's retention. The floor role reads
it. An alert of kind ``identity`` (a table whose software or rules changed) may be
acknowledged like the others.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

CHANGES = """
ALTER TABLE croupier.alert_acks DROP CONSTRAINT alert_acks_kind_check;
ALTER TABLE croupier.alert_acks ADD CONSTRAINT alert_acks_kind_check CHECK (
    kind IN ('lockup', 'chain', 'journal', 'shipping', 'lag', 'silent', 'identity')
);

CREATE VIEW croupier.identity_history AS
SELECT
    table_id,
    seq,
    at,
    payload::jsonb ->> 'software' AS version,
    payload::jsonb ->> 'software_sha256' AS software_sha256,
    (payload::jsonb ->> 'software_recorded')::boolean AS recorded,
    payload::jsonb ->> 'variant' AS variant,
    payload::jsonb ->> 'variant_sha256' AS variant_sha256,
    payload::jsonb ->> 'strategy_sha256' AS strategy_sha256,
    payload::jsonb ->> 'table_sha256' AS table_sha256,
    COALESCE(payload::jsonb -> 'changed', '[]'::jsonb) AS changed
FROM croupier.journal_rows
WHERE kind = 'config';
REVOKE ALL ON croupier.identity_history FROM PUBLIC;
GRANT SELECT ON croupier.identity_history TO croupier_floor;
"""


def upgrade() -> None:
    op.execute(CHANGES)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
