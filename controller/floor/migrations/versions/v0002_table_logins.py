"""One login per table, bound to its table id in PostgreSQL itself: a table's login inserts its
own table's rows, reports its own shipper and reads its own head, and nothing of another table's.

Before this revision any member of ``croupier_table`` could insert rows and report for any table
id (issue 21: table A's login chained a forged round onto table B). Now:

- ``croupier.table_logins`` (owner only) binds a login role to one table id, and a table id to
  one login (``croupier floor table-login TABLE_ID`` makes or binds one);
- the insert trigger refuses a batch with any row of a table other than the session's login's,
  and a login bound to no table (the shared login of a floor set up before this revision) writes
  nothing until the owner binds it;
- ``report_shipper`` reports only the login's own table;
- ``croupier.tables`` (the heads) has row-level security: a table's login sees its own row only,
  the floor role every row.

- a table's login makes no month partition any more (``ensure_months`` does nothing for it): DDL
  in its own transaction took a lock on ``croupier.journal_rows`` that it could hold open, and
  every other table's inserts waited behind it. The floor role (``floor serve``, hourly) and
  the owner (``floor migrate``) make the months ahead, waiting at most a second for a lock;
  rows of a month nobody made yet land in the default partition, where they stay (read,
  checked and reported the same; that month then stays in the default partition).

``session_user`` is the role that signed in: a ``SECURITY DEFINER`` function runs as the owner
but ``session_user`` stays the login, and only a superuser can change it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

LOGINS = r"""
CREATE TABLE croupier.table_logins (
    login text PRIMARY KEY,
    table_id text NOT NULL UNIQUE CHECK (table_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$'),
    bound_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The table the signed-in login writes (NULL: none).
CREATE FUNCTION croupier.login_table() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
    SELECT table_id FROM croupier.table_logins WHERE login = session_user::text
$$;

-- Why the signed-in login may not write table p_table (NULL: it may).
CREATE FUNCTION croupier.login_refusal(p_table text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    mine text := croupier.login_table();
BEGIN
    IF mine IS NULL THEN
        RETURN format('the login %s writes no table: the floor''s owner binds it to its table '
                      'with `croupier floor table-login %s --login %s`',
                      session_user, p_table, session_user);
    ELSIF mine <> p_table THEN
        RETURN format('the login %s writes table %s only, not table %s', session_user, mine,
                      p_table);
    END IF;
    RETURN NULL;
END $$;
"""

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION croupier.rows_arrived() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    t record;
    h record;
    first_row record;
    last_row record;
    broken bigint;
    refusal text;
BEGIN
    FOR t IN
        SELECT table_id, min(seq) AS lo, max(seq) AS hi, count(*) AS n
        FROM arrived GROUP BY table_id
    LOOP
        refusal := croupier.login_refusal(t.table_id);
        IF refusal IS NOT NULL THEN
            RAISE EXCEPTION 'croupier: %', refusal USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF t.n <> t.hi - t.lo + 1 THEN
            RAISE EXCEPTION 'croupier: table %: rows % to % arrive with a gap (% rows)',
                t.table_id, t.lo, t.hi, t.n;
        END IF;
        SELECT b.seq INTO broken FROM arrived a JOIN arrived b
            ON b.table_id = a.table_id AND b.seq = a.seq + 1
            WHERE a.table_id = t.table_id AND b.prev_hash <> a.hash
            ORDER BY b.seq LIMIT 1;
        IF broken IS NOT NULL THEN
            RAISE EXCEPTION 'croupier: table %: row % does not chain to row % (its prev_hash '
                'is not that row''s hash)', t.table_id, broken, broken - 1;
        END IF;
        SELECT seq INTO broken FROM arrived
            WHERE table_id = t.table_id AND at <> ts::timestamptz LIMIT 1;
        IF broken IS NOT NULL THEN
            RAISE EXCEPTION 'croupier: table %: row %''s time does not match its ts',
                t.table_id, broken;
        END IF;
        SELECT * INTO first_row FROM arrived WHERE table_id = t.table_id AND seq = t.lo;
        SELECT * INTO last_row FROM arrived WHERE table_id = t.table_id AND seq = t.hi;
        SELECT * INTO h FROM tables WHERE table_id = t.table_id FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO tables (table_id, first_seq, seq, hash, last_ts)
                VALUES (t.table_id, t.lo, t.hi, last_row.hash, last_row.ts);
        ELSE
            IF t.lo <= h.seq THEN
                RAISE EXCEPTION 'croupier: table %: row % is already on the floor with other '
                    'contents: another journal ships as table % (the floor holds rows up to %)',
                    t.table_id, t.lo, t.table_id, h.seq;
            ELSIF t.lo > h.seq + 1 THEN
                RAISE EXCEPTION 'croupier: table %: rows % to % are missing before row %',
                    t.table_id, h.seq + 1, t.lo - 1, t.lo;
            ELSIF first_row.prev_hash <> h.hash THEN
                RAISE EXCEPTION 'croupier: table %: row % does not chain to row % on the floor: '
                    'another journal ships as table %, or this journal was changed',
                    t.table_id, t.lo, h.seq, t.table_id;
            END IF;
            UPDATE tables SET seq = t.hi, hash = last_row.hash, last_ts = last_row.ts,
                updated_at = clock_timestamp()
                WHERE table_id = t.table_id;
        END IF;
        PERFORM pg_notify('croupier_rows', t.table_id);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION croupier.report_shipper(
    p_table text, p_local_seq bigint, p_backlog bigint, p_oldest_s double precision,
    p_status text, p_problem text, p_about jsonb
) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    refusal text := croupier.login_refusal(p_table);
BEGIN
    IF refusal IS NOT NULL THEN
        RAISE EXCEPTION 'croupier: %', refusal USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_table !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$' THEN
        RAISE EXCEPTION 'croupier: % is not a table id', p_table;
    END IF;
    IF p_status NOT IN ('connecting', 'connected', 'lost', 'refused') THEN
        RAISE EXCEPTION 'croupier: % is not a shipper status', p_status;
    END IF;
    INSERT INTO shippers AS s (table_id, reported_at, local_seq, backlog_rows, oldest_age_s,
                               status, problem, about)
        VALUES (p_table, clock_timestamp(), p_local_seq, p_backlog, p_oldest_s, p_status,
                left(p_problem, 500), CASE WHEN length(p_about::text) > 4000 THEN '{}'::jsonb
                                          ELSE p_about END)
    ON CONFLICT (table_id) DO UPDATE SET reported_at = excluded.reported_at,
        local_seq = excluded.local_seq, backlog_rows = excluded.backlog_rows,
        oldest_age_s = excluded.oldest_age_s, status = excluded.status,
        problem = excluded.problem, about = excluded.about;
    PERFORM pg_notify('croupier_status', p_table);
END $$;
"""

MONTHS = r"""
CREATE TABLE croupier.journal_rows_default PARTITION OF croupier.journal_rows DEFAULT;

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
    PERFORM pg_advisory_xact_lock(hashtext('croupier.ensure_months'));
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

POLICIES = """
ALTER TABLE croupier.tables ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_head ON croupier.tables FOR SELECT TO croupier_table
    USING (table_id = croupier.login_table());
CREATE POLICY every_head ON croupier.tables FOR SELECT TO croupier_floor USING (true);

REVOKE ALL ON croupier.table_logins FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.login_table() FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.login_refusal(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION croupier.login_table() TO croupier_table;
GRANT EXECUTE ON FUNCTION croupier.ensure_months(timestamptz, timestamptz) TO croupier_floor;
"""


def upgrade() -> None:
    for text in (LOGINS, FUNCTIONS, MONTHS, POLICIES):
        op.execute(text)
    op.execute("SELECT croupier.ensure_months(now(), now() + interval '1 month')")


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
