"""The floor page's sign-in lockouts in PostgreSQL, per name and per source address, so that a
restart of ``croupier floor serve`` (or a second one) forgets none of them (issue 21, point 12).

- a name: ``max_wrong`` wrong passwords in a row lock it for ``lockout_seconds`` (a right one
  starts the count again);
- a source address: ``max_wrong_per_source`` wrong passwords within ``lockout_seconds``, for
  any names, lock every sign-in from it for ``lockout_seconds`` (a right one does not help).

The floor role writes these through three functions only (``signin_locked``, ``signin_wrong``,
``signin_good``), and nothing else anywhere. The times are the database's own clock.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE croupier.signin_failures (
    kind text NOT NULL CHECK (kind IN ('name', 'source')),
    key text NOT NULL CHECK (length(key) <= 100),
    wrong integer NOT NULL CHECK (wrong >= 0),
    first_wrong_at timestamptz NOT NULL,
    locked_until timestamptz,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX signin_failures_updated ON croupier.signin_failures (updated_at);
REVOKE ALL ON croupier.signin_failures FROM PUBLIC;
"""

FUNCTIONS = r"""
-- Seconds the name and the source are still locked for (0: not locked).
CREATE FUNCTION croupier.signin_locked(
    p_name text, p_source text, OUT name_s double precision, OUT source_s double precision
) LANGUAGE sql STABLE SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
    SELECT
        coalesce((SELECT greatest(0, extract(epoch FROM locked_until - clock_timestamp()))
                  FROM signin_failures WHERE kind = 'name' AND key = p_name), 0)::float8,
        coalesce((SELECT greatest(0, extract(epoch FROM locked_until - clock_timestamp()))
                  FROM signin_failures WHERE kind = 'source' AND key = p_source), 0)::float8
$$;

-- A wrong password for p_name from p_source: counted for both; either locked at its limit.
CREATE FUNCTION croupier.signin_wrong(
    p_name text, p_source text, p_max_name integer, p_max_source integer,
    p_lockout_s integer, OUT name_locked boolean, OUT source_locked boolean
) LANGUAGE plpgsql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
DECLARE
    now_ timestamptz := clock_timestamp();
    lockout interval;
    f record;
BEGIN
    IF p_max_name NOT BETWEEN 1 AND 1000 OR p_max_source NOT BETWEEN 1 AND 10000
            OR p_lockout_s NOT BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'croupier: sign-in limits % % % are not sensible', p_max_name,
            p_max_source, p_lockout_s;
    END IF;
    lockout := make_interval(secs => p_lockout_s);
    -- nothing is kept longer than a day past its last wrong password and its lock
    DELETE FROM signin_failures WHERE updated_at < now_ - interval '1 day'
        AND (locked_until IS NULL OR locked_until < now_);

    -- the name: wrong passwords in a row
    INSERT INTO signin_failures AS s (kind, key, wrong, first_wrong_at, updated_at)
        VALUES ('name', left(p_name, 100), 1, now_, now_)
    ON CONFLICT (kind, key) DO UPDATE SET wrong = s.wrong + 1, updated_at = now_
    RETURNING * INTO f;
    name_locked := f.wrong >= p_max_name;
    IF name_locked THEN
        UPDATE signin_failures SET wrong = 0, locked_until = now_ + lockout
            WHERE kind = 'name' AND key = f.key;
    END IF;

    -- the source: wrong passwords within the lockout's length, whatever the names
    INSERT INTO signin_failures AS s (kind, key, wrong, first_wrong_at, updated_at)
        VALUES ('source', left(p_source, 100), 1, now_, now_)
    ON CONFLICT (kind, key) DO UPDATE SET
        wrong = CASE WHEN s.first_wrong_at < now_ - lockout THEN 1 ELSE s.wrong + 1 END,
        first_wrong_at = CASE WHEN s.first_wrong_at < now_ - lockout THEN now_
                              ELSE s.first_wrong_at END,
        updated_at = now_
    RETURNING * INTO f;
    source_locked := f.wrong >= p_max_source;
    IF source_locked THEN
        UPDATE signin_failures SET wrong = 0, first_wrong_at = now_,
            locked_until = now_ + lockout
            WHERE kind = 'source' AND key = f.key;
    END IF;
END $$;

-- A right password for p_name: its count of wrong ones in a row starts again.
CREATE FUNCTION croupier.signin_good(p_name text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = croupier, pg_temp AS $$
    DELETE FROM signin_failures WHERE kind = 'name' AND key = p_name
        AND (locked_until IS NULL OR locked_until <= clock_timestamp())
$$;
"""

GRANTS = """
REVOKE ALL ON FUNCTION croupier.signin_locked(text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.signin_wrong(text, text, integer, integer, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION croupier.signin_good(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION croupier.signin_locked(text, text) TO croupier_floor;
GRANT EXECUTE ON FUNCTION croupier.signin_wrong(text, text, integer, integer, integer)
    TO croupier_floor;
GRANT EXECUTE ON FUNCTION croupier.signin_good(text) TO croupier_floor;
"""


def upgrade() -> None:
    for text in (TABLES, FUNCTIONS, GRANTS):
        op.execute(text)


def downgrade() -> None:
    raise NotImplementedError("the floor's record is never migrated downwards")
