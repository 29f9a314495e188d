"""The rules each table dealt by, found quickly: an index on the tables' ``config`` rows.

The floor rates a session, and works out the remaining shoe's edge, with the rules its table
journalled on the latest ``config`` row at or before the session's rows (journal format 15:
``controller.floor.table_rules``). That row may be long before the period read (a table started
days ago), so the ratings' and the surveillance page's queries ask, per table, for its latest
``config`` row before the period: this index (a table's config rows by seq, a handful a table
among its millions of rows) finds it without reading the table's other rows. The floor page's
watcher asks each table's latest config row (its variant) the same way.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

CHANGES = """
CREATE INDEX journal_rows_config ON croupier.journal_rows (table_id, seq) WHERE kind = 'config';
"""


def upgrade() -> None:
    op.execute(CHANGES)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
