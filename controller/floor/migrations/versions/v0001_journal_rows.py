"""The floor's first schema: the journal rows by month, the tables' heads, the shippers' word,
and the roles (tables insert, the floor reads, the owner migrates).

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ROLES = """
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'croupier_table') THEN
        CREATE ROLE croupier_table NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'croupier_floor') THEN
        CREATE ROLE croupier_floor NOLOGIN;
    END IF;
END $$
"""

TABLES = """
CREATE SCHEMA croupier;
REVOKE ALL ON SCHEMA croupier FROM PUBLIC;

-- Every table's journal rows, exactly as the table's SQLite journal holds them (ts and payload
-- are the hashed texts), by month of the row's time (at = ts as a timestamp).
CREATE TABLE croupier.journal_rows (
    table_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq > 0),
    ts text NOT NULL,
    at timestamptz NOT NULL,
    round_id bigint,
    kind text NOT NULL,
    payload text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq, at)
) PARTITION BY RANGE (at);
CREATE INDEX journal_rows_round ON croupier.journal_rows (table_id, round_id)
    WHERE round_id IS NOT NULL;
CREATE INDEX journal_rows_report ON croupier.journal_rows (at)
    WHERE kind IN ('ledger', 'round_start', 'round_end', 'supervisor');

-- One row per table: the last row the floor holds (seq and hash), kept by the insert trigger.
CREATE TABLE croupier.tables (
    table_id text PRIMARY KEY,
    first_seq bigint NOT NULL,
    seq bigint NOT NULL,
    hash text NOT NULL,
    last_ts text NOT NULL,
    first_received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- What each table's shipper last said: its backlog, its status, what the table is.
CREATE TABLE croupier.shippers (
    table_id text PRIMARY KEY,
    reported_at timestamptz NOT NULL,
    local_seq bigint NOT NULL,
    backlog_rows bigint NOT NULL,
    oldest_age_s double precision NOT NULL,
    status text NOT NULL,
    problem text NOT NULL DEFAULT '',
    about jsonb NOT NULL DEFAULT '{}'
);
"""

FUNCTIONS = r"""
-- The month partitions a table's rows need (called by the shippers before a batch).
CREATE FUNCTION croupier.ensure_months(p_from timestamptz, p_to timestamptz) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    month timestamptz := date_trunc('month', p_from AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    made integer := 0;
    name text;
BEGIN
    IF p_to < p_from OR p_to - p_from > interval '400 days' THEN
        RAISE EXCEPTION 'croupier: months % to % are not a sensible range', p_from, p_to;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('croupier.ensure_months'));
    WHILE month <= p_to LOOP
        name := 'journal_rows_' || to_char(month AT TIME ZONE 'UTC', '"y"YYYY"m"MM');
        IF to_regclass('croupier.' || name) IS NULL THEN
            EXECUTE format(
                'CREATE TABLE croupier.%I PARTITION OF croupier.journal_rows '
                'FOR VALUES FROM (%L) TO (%L)',
                name, month, month + interval '1 month');
            made := made + 1;
        END IF;
        month := month + interval '1 month';
    END LOOP;
    RETURN made;
END $$;

-- Rows arrive: each table's rows must follow on from the last row the floor holds, without a
-- gap and chained by prev_hash; anything else is refused whole (nothing is ever rewritten).
-- Rows sent again after a lost reply are skipped by ON CONFLICT before they get here.
CREATE FUNCTION croupier.rows_arrived() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    t record;
    h record;
    first_row record;
    last_row record;
    broken bigint;
BEGIN
    FOR t IN
        SELECT table_id, min(seq) AS lo, max(seq) AS hi, count(*) AS n
        FROM arrived GROUP BY table_id
    LOOP
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

CREATE TRIGGER journal_rows_arrived AFTER INSERT ON croupier.journal_rows
    REFERENCING NEW TABLE AS arrived FOR EACH STATEMENT EXECUTE FUNCTION croupier.rows_arrived();

-- Rows are never changed or removed, not even by the owner (old months are archived and their
-- partitions detached by the owner: docs/floor.md).
CREATE FUNCTION croupier.refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'croupier: the floor''s journal rows are never changed: % refused', TG_OP;
END $$;
CREATE TRIGGER journal_rows_no_change BEFORE UPDATE OR DELETE ON croupier.journal_rows
    FOR EACH ROW EXECUTE FUNCTION croupier.refuse_change();
CREATE TRIGGER journal_rows_no_truncate BEFORE TRUNCATE ON croupier.journal_rows
    FOR EACH STATEMENT EXECUTE FUNCTION croupier.refuse_change();

-- A shipper's word: how far behind it is, and why it does not ship when it does not.
CREATE FUNCTION croupier.report_shipper(
    p_table text, p_local_seq bigint, p_backlog bigint, p_oldest_s double precision,
    p_status text, p_problem text, p_about jsonb
) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
BEGIN
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

GRANTS = """
GRANT USAGE ON SCHEMA croupier TO croupier_table, croupier_floor;
GRANT SELECT ON public.alembic_version TO croupier_table, croupier_floor;
GRANT INSERT ON croupier.journal_rows TO croupier_table;
GRANT SELECT ON croupier.tables TO croupier_table;
GRANT SELECT ON croupier.journal_rows, croupier.tables, croupier.shippers TO croupier_floor;
REVOKE ALL ON FUNCTION croupier.ensure_months(timestamptz, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.rows_arrived() FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.report_shipper(text, bigint, bigint, double precision, text,
                                               text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION croupier.ensure_months(timestamptz, timestamptz) TO croupier_table;
GRANT EXECUTE ON FUNCTION croupier.report_shipper(text, bigint, bigint, double precision, text,
                                                  text, jsonb) TO croupier_table;
"""


def upgrade() -> None:
    for text in (ROLES, TABLES, FUNCTIONS, GRANTS):
        op.execute(text)
    op.execute("SELECT croupier.ensure_months(now(), now() + interval '1 month')")


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
