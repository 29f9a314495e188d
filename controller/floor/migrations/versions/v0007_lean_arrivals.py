"""Rows arrive for less: one pass over a batch, and no notification in the tables' commits
(issue 26, a floor of 1,000 tables).

At 1,000 tables the floor takes about 2,600 batches a second. Two things cost the most there:

- ``NOTIFY`` in the insert trigger (and in every ``report_shipper``): PostgreSQL serialises the
  commits of every transaction that notifies, behind one lock held until its commit record is
  flushed, so the tables' commits no longer share a WAL flush but queue one flush after the
  other (a few milliseconds each on a disk: a few hundred batches a second in all). Rows are no
  longer notified: ``floor serve`` reads the heads (``croupier.tables``, one row a table) four
  times a second and the rows of the tables that moved. ``report_shipper`` notifies only when a
  shipper's status or problem changes (a refusal, a lost connection: the page shows it at once);
  its backlog figures are read once a second.
- the chain check ran nine statements a batch (the login, the groups, the gap, the chain, the
  times, the first row, the last row, the head, its update); now one pass over the batch finds
  the groups, the first break of each kind, the first row's ``prev_hash`` and the last row's
  hash, and the head moves with one ``UPDATE ... WHERE seq = lo - 1 AND hash = first_prev``.
  Only a batch that does not follow on reads the head to say why (the reasons are the same
  words as before).

Nothing else changes: the same refusals, the login bound to its table (``session_user``), rows
never changed, the heads' row-level security.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ARRIVED = r"""
CREATE OR REPLACE FUNCTION croupier.rows_arrived() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    t record;
    h record;
    mine text;
BEGIN
    SELECT l.table_id INTO mine FROM table_logins l WHERE l.login = session_user::text;
    FOR t IN
        SELECT a.table_id, count(*) AS n, min(a.seq) AS lo, max(a.seq) AS hi,
            min(a.seq) FILTER (WHERE a.before IS NOT NULL AND a.prev_hash <> a.before)
                AS unchained,
            min(a.seq) FILTER (WHERE a.at <> a.ts::timestamptz) AS mistimed,
            (array_agg(a.prev_hash ORDER BY a.seq))[1] AS first_prev,
            (array_agg(a.hash ORDER BY a.seq DESC))[1] AS last_hash,
            (array_agg(a.ts ORDER BY a.seq DESC))[1] AS last_ts
        FROM (SELECT r.table_id, r.seq, r.ts, r.at, r.prev_hash, r.hash,
                     lag(r.hash) OVER (PARTITION BY r.table_id ORDER BY r.seq) AS before
              FROM arrived r) a
        GROUP BY a.table_id
    LOOP
        IF mine IS DISTINCT FROM t.table_id THEN
            RAISE EXCEPTION 'croupier: %', croupier.login_refusal(t.table_id)
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF t.n <> t.hi - t.lo + 1 THEN
            RAISE EXCEPTION 'croupier: table %: rows % to % arrive with a gap (% rows)',
                t.table_id, t.lo, t.hi, t.n;
        END IF;
        IF t.unchained IS NOT NULL THEN
            RAISE EXCEPTION 'croupier: table %: row % does not chain to row % (its prev_hash '
                'is not that row''s hash)', t.table_id, t.unchained, t.unchained - 1;
        END IF;
        IF t.mistimed IS NOT NULL THEN
            RAISE EXCEPTION 'croupier: table %: row %''s time does not match its ts',
                t.table_id, t.mistimed;
        END IF;
        -- the batch follows on from the head: move it (the usual case, one statement)
        UPDATE tables SET seq = t.hi, hash = t.last_hash, last_ts = t.last_ts,
            updated_at = clock_timestamp()
            WHERE table_id = t.table_id AND seq = t.lo - 1 AND hash = t.first_prev;
        CONTINUE WHEN FOUND;
        SELECT * INTO h FROM tables WHERE table_id = t.table_id FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO tables (table_id, first_seq, seq, hash, last_ts)
                VALUES (t.table_id, t.lo, t.hi, t.last_hash, t.last_ts);
        ELSIF t.lo <= h.seq THEN
            RAISE EXCEPTION 'croupier: table %: row % is already on the floor with other '
                'contents: another journal ships as table % (the floor holds rows up to %)',
                t.table_id, t.lo, t.table_id, h.seq;
        ELSIF t.lo > h.seq + 1 THEN
            RAISE EXCEPTION 'croupier: table %: rows % to % are missing before row %',
                t.table_id, h.seq + 1, t.lo - 1, t.lo;
        ELSE
            RAISE EXCEPTION 'croupier: table %: row % does not chain to row % on the floor: '
                'another journal ships as table %, or this journal was changed',
                t.table_id, t.lo, h.seq, t.table_id;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
"""

REPORT = r"""
CREATE OR REPLACE FUNCTION croupier.report_shipper(
    p_table text, p_local_seq bigint, p_backlog bigint, p_oldest_s double precision,
    p_status text, p_problem text, p_about jsonb
) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    refusal text := croupier.login_refusal(p_table);
    was record;
    known boolean;
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
    SELECT status, problem INTO was FROM shippers WHERE table_id = p_table;
    known := FOUND;
    INSERT INTO shippers AS s (table_id, reported_at, local_seq, backlog_rows, oldest_age_s,
                               status, problem, about)
        VALUES (p_table, clock_timestamp(), p_local_seq, p_backlog, p_oldest_s, p_status,
                left(p_problem, 500), CASE WHEN length(p_about::text) > 4000 THEN '{}'::jsonb
                                          ELSE p_about END)
    ON CONFLICT (table_id) DO UPDATE SET reported_at = excluded.reported_at,
        local_seq = excluded.local_seq, backlog_rows = excluded.backlog_rows,
        oldest_age_s = excluded.oldest_age_s, status = excluded.status,
        problem = excluded.problem, about = excluded.about;
    IF NOT known OR was.status <> p_status OR was.problem <> left(p_problem, 500) THEN
        PERFORM pg_notify('croupier_status', p_table);  -- what the page shows at once
    END IF;
END $$;
"""


def upgrade() -> None:
    for text in (ARRIVED, REPORT):
        op.execute(text)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
