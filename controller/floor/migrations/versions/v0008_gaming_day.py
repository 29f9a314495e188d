"""The gaming days (issue 25, point 4): each table's opened and closed days, reconciled.

A table's ``day`` rows (controller.table.day: the opening's steps, fills, credits, the drop, the
closing) reach the floor as every row does; this adds what reads them:

- an index on them (a table's day rows by seq), and
- ``croupier.gaming_days``: one row per closed gaming day of a table: when it opened and closed,
  who closed it, the opening and closing chips, the fills, the credits, the drop (NULL: left
  open), the table's win as the table worked it out at its closing (closing - opening + credits
  - fills + drop; NULL while the drop is open) and the house win of the rounds' ledger between
  the opening and the closing (minus the ledger rows' ``amount_cents``), worked out here from the
  ledger rows themselves. ``floor report`` shows both and their difference. Money in cents.

The floor's role reads the view; nothing is written through it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

DAYS = r"""
CREATE INDEX journal_rows_days ON croupier.journal_rows (table_id, seq) WHERE kind = 'day';

CREATE VIEW croupier.gaming_days AS
WITH days AS (
    SELECT table_id, seq, ts, at, payload::jsonb AS p
    FROM croupier.journal_rows WHERE kind = 'day'
), closed AS (
    SELECT c.table_id, c.seq AS closed_seq, c.ts AS closed_ts, c.at AS closed_at,
           (c.p ->> 'day')::integer AS day, c.p ->> 'by' AS closed_by,
           (c.p ->> 'cents')::bigint AS closing_cents, (c.p ->> 'win_cents')::bigint AS win_cents,
           (SELECT max(o.seq) FROM days o
            WHERE o.table_id = c.table_id AND o.seq < c.seq AND o.p ->> 'event' = 'open')
               AS open_seq
    FROM days c
    WHERE c.p ->> 'event' = 'closed'
)
SELECT cl.table_id, cl.day, o.ts AS opened_ts, cl.closed_ts, cl.closed_at, cl.closed_by,
       (o.p ->> 'cents')::bigint AS opening_cents,
       coalesce((SELECT sum((f.p ->> 'cents')::bigint) FROM days f
                 WHERE f.table_id = cl.table_id AND f.seq > cl.open_seq AND f.seq < cl.closed_seq
                   AND f.p ->> 'event' = 'fill'), 0) AS fills_cents,
       coalesce((SELECT sum((f.p ->> 'cents')::bigint) FROM days f
                 WHERE f.table_id = cl.table_id AND f.seq > cl.open_seq AND f.seq < cl.closed_seq
                   AND f.p ->> 'event' = 'credit'), 0) AS credits_cents,
       (SELECT (d.p ->> 'cents')::bigint FROM days d
        WHERE d.table_id = cl.table_id AND d.seq > cl.open_seq AND d.seq < cl.closed_seq
          AND d.p ->> 'event' = 'drop'
        ORDER BY d.seq DESC LIMIT 1) AS drop_cents,
       cl.closing_cents, cl.win_cents,
       -coalesce((SELECT sum((l.payload::jsonb ->> 'amount_cents')::bigint)
                  FROM croupier.journal_rows l
                  WHERE l.table_id = cl.table_id AND l.kind = 'ledger'
                    AND l.seq > cl.open_seq AND l.seq < cl.closed_seq), 0)
           AS ledger_house_win_cents
FROM closed cl JOIN days o ON o.table_id = cl.table_id AND o.seq = cl.open_seq;

GRANT SELECT ON croupier.gaming_days TO croupier_floor;
"""


def upgrade() -> None:
    op.execute(DAYS)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
