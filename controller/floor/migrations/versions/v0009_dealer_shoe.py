"""Shoe receipts and dealer performance on the floor (issue 24, points 4 and 5).

An alert of kind ``shoe`` (a shoe whose receipt shows a shortfall: cards the declared decks must
still hold that the shoe did not) may be acknowledged like the others. The reports read the
tables' ``shoe_receipt`` rows of a period (an index of their own: a handful a table and shift
among its thousands of rows) and, for each dealer, the rows of the rounds the period's
``round_start`` rows name (through the rounds' index, ``journal_rows_round``): no index is
added on the many ``state`` and ``input`` rows, which every table writes all the time.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

CHANGES = """
ALTER TABLE croupier.alert_acks DROP CONSTRAINT alert_acks_kind_check;
ALTER TABLE croupier.alert_acks ADD CONSTRAINT alert_acks_kind_check CHECK (
    kind IN ('lockup', 'chain', 'journal', 'shipping', 'lag', 'silent', 'identity', 'shoe')
);
CREATE INDEX journal_rows_receipts ON croupier.journal_rows (at)
    WHERE kind = 'shoe_receipt';
"""


def upgrade() -> None:
    op.execute(CHANGES)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
