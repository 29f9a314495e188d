"""A dealer sign-in lockout on the floor (issue 24).

An alert of kind ``dealer_lockout`` (a table whose dealer sign-in locked after too many wrong
staff numbers or PINs in a row: someone may be guessing PINs) may be acknowledged like the
others.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

CHANGES = """
ALTER TABLE croupier.alert_acks DROP CONSTRAINT alert_acks_kind_check;
ALTER TABLE croupier.alert_acks ADD CONSTRAINT alert_acks_kind_check CHECK (
    kind IN (
        'lockup', 'chain', 'journal', 'shipping', 'lag', 'silent', 'identity', 'shoe',
        'dealer_lockout'
    )
);
"""


def upgrade() -> None:
    op.execute(CHANGES)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
