"""Alerts acknowledged on the floor page, journalled on the floor: who (the name signed in on the
floor page, and the database login the page used), when, and which alert (its table, kind, text
and the time it was raised), in ``croupier.alert_acks``.

The floor role writes these through ``croupier.ack_alert`` only; an acknowledgement is never
changed or removed afterwards, not by the owner either (as a journal row). Each one is NOTIFYed
on ``croupier_acks`` (the table id) so that every floor page shows it at once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE croupier.alert_acks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_id text NOT NULL CHECK (length(table_id) BETWEEN 1 AND 100),
    kind text NOT NULL CHECK (kind IN ('lockup', 'chain', 'journal', 'shipping', 'lag', 'silent')),
    alert text NOT NULL CHECK (length(alert) BETWEEN 1 AND 2000),
    since text NOT NULL CHECK (length(since) BETWEEN 1 AND 40),
    acked_by text NOT NULL CHECK (acked_by ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$'),
    acked_at timestamptz NOT NULL,
    login text NOT NULL
);
CREATE INDEX alert_acks_table ON croupier.alert_acks (table_id, acked_at);
REVOKE ALL ON croupier.alert_acks FROM PUBLIC;
GRANT SELECT ON croupier.alert_acks TO croupier_floor;

CREATE FUNCTION croupier.alert_acks_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'croupier: an acknowledgement is never changed or removed';
END $$;
CREATE TRIGGER alert_acks_kept BEFORE UPDATE OR DELETE ON croupier.alert_acks
    FOR EACH ROW EXECUTE FUNCTION croupier.alert_acks_kept();
CREATE TRIGGER alert_acks_not_truncated BEFORE TRUNCATE ON croupier.alert_acks
    FOR EACH STATEMENT EXECUTE FUNCTION croupier.alert_acks_kept();
"""

FUNCTIONS = r"""
-- An alert acknowledged by p_by (the name signed in on the floor page): recorded with the
-- database's time and the login that called, NOTIFYed to every floor page.
CREATE FUNCTION croupier.ack_alert(
    p_table text, p_kind text, p_alert text, p_since text, p_by text
) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    at_ timestamptz := clock_timestamp();
BEGIN
    INSERT INTO alert_acks (table_id, kind, alert, since, acked_by, acked_at, login)
        VALUES (p_table, p_kind, p_alert, p_since, p_by, at_, session_user);
    PERFORM pg_notify('croupier_acks', p_table);
    RETURN at_;
END $$;
REVOKE ALL ON FUNCTION croupier.ack_alert(text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION croupier.ack_alert(text, text, text, text, text) TO croupier_floor;
"""


def upgrade() -> None:
    for text in (TABLES, FUNCTIONS):
        op.execute(text)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
