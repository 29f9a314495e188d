"""The months' partitions are made under a lock no table's login can take.

``ensure_months`` (0002) serialised its callers on ``pg_advisory_xact_lock(hashtext(
'croupier.ensure_months'))``, and an advisory lock may be taken by any login, with any key:
table A's login took that one with ``pg_advisory_lock`` and kept it, and from then on every
``croupier floor migrate`` failed ("canceling statement due to lock timeout") and ``floor serve``
made no month (found retrying issue 21, point 5b, by hand). Now it locks
``croupier.months_lock``, an empty table of the owner's on which nobody else has a privilege, so
that ``LOCK TABLE`` is refused to every other role. A table's login still makes no month, and
a caller still waits at most a second for a lock.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

LOCK = """
CREATE TABLE croupier.months_lock ();
REVOKE ALL ON croupier.months_lock FROM PUBLIC;
"""

MONTHS = r"""
CREATE OR REPLACE FUNCTION croupier.ensure_months(p_from timestamptz, p_to timestamptz)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp SET lock_timeout = '1s'
AS $$
DECLARE
    month timestamptz := date_trunc('month', p_from AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    made integer := 0;
    name text;
BEGIN
    IF p_to < p_from OR p_to - p_from > interval '400 days' THEN
        RAISE EXCEPTION 'croupier: months % to % are not a sensible range', p_from, p_to;
    END IF;
    IF pg_has_role(session_user, 'croupier_table', 'MEMBER') AND session_user::text <> (
            SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'croupier') THEN
        RETURN 0;  -- a table's login: its rows of a missing month go to the default partition
    END IF;
    LOCK TABLE months_lock IN EXCLUSIVE MODE;  -- (the owner's: no table's login may lock it)
    WHILE month <= p_to LOOP
        name := 'journal_rows_' || to_char(month AT TIME ZONE 'UTC', '"y"YYYY"m"MM');
        IF to_regclass('croupier.' || name) IS NULL AND NOT EXISTS (
                SELECT 1 FROM ONLY journal_rows_default
                WHERE at >= month AND at < month + interval '1 month') THEN
            BEGIN
                EXECUTE format(
                    'CREATE TABLE croupier.%I PARTITION OF croupier.journal_rows '
                    'FOR VALUES FROM (%L) TO (%L)',
                    name, month, month + interval '1 month');
                made := made + 1;
            EXCEPTION WHEN lock_not_available THEN
                RAISE NOTICE 'croupier: month % not made: the rows are busy; next time', name;
            END;
        END IF;
        month := month + interval '1 month';
    END LOOP;
    RETURN made;
END $$;
"""


def upgrade() -> None:
    for text in (LOCK, MONTHS):
        op.execute(text)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
