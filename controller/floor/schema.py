"""The floor's database: versioned migrations (alembic, plain SQL) and the roles they grant.

Roles (group roles, made by the first migration; login roles are made members of them):

- ``croupier_table``: INSERT on the journal rows and nothing else on them (no SELECT, UPDATE,
  DELETE or TRUNCATE); it reads only the heads (``croupier.tables``: last seq and hash per table,
  to resume) and may call ``ensure_months`` and ``report_shipper``. Since 0002 each table has a
  login of its own bound to its table id (``croupier.table_logins``, :mod:`.logins`): it inserts,
  reports and reads the head of that table only, and a login bound to no table writes nothing;
- ``croupier_floor``: SELECT on the rows, heads and shippers; the sign-in lockouts and the
  acknowledgement of an alert through functions of their own (0003, 0005); every table's
  identity history (a view of the config rows, 0006); nothing else;
- the owner (a login role with CREATEROLE that owns the database) runs the migrations.

The migrations live in ``migrations/versions`` beside this file. ``migrate`` runs them to the
newest with the owner's connection string; ``revision`` says where a database stands.
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from controller.floor.errors import FloorError

TABLE_ROLE = "croupier_table"
FLOOR_ROLE = "croupier_floor"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
NOTIFY_ROWS = "croupier_rows"  # payload: the table id whose rows arrived
NOTIFY_STATUS = "croupier_status"  # payload: the table id whose shipper reported
NOTIFY_ACKS = "croupier_acks"  # payload: the table id one of whose alerts was acknowledged


def _alembic_config(connection: object) -> object:
    from alembic.config import Config  # noqa: PLC0415 - only migrating needs alembic

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(owner_conninfo: str, target: str = "head") -> str:
    """Bring the floor's database to ``target`` (the newest by default); returns the revision."""
    import sqlalchemy  # noqa: PLC0415
    from alembic import command  # noqa: PLC0415

    engine = sqlalchemy.create_engine(
        "postgresql+psycopg://",
        creator=lambda: psycopg.connect(owner_conninfo),
        poolclass=sqlalchemy.pool.NullPool,
    )
    try:
        with engine.begin() as connection:
            command.upgrade(_alembic_config(connection), target)  # type: ignore[arg-type]
    except sqlalchemy.exc.OperationalError as exc:
        raise FloorError(f"cannot migrate the floor's database: {exc.orig}") from None
    except sqlalchemy.exc.ProgrammingError as exc:
        raise FloorError(
            f"the migration was refused: {exc.orig} (run it with the owner's connection: the "
            "role that owns the database and may create roles)"
        ) from None
    finally:
        engine.dispose()
    with psycopg.connect(owner_conninfo, autocommit=True) as db:  # the months ahead, every run
        db.execute("SELECT croupier.ensure_months(now(), now() + interval '1 month')")
    found = revision(owner_conninfo)
    assert found is not None
    return found


def newest_revision() -> str:
    from alembic.script import ScriptDirectory  # noqa: PLC0415

    config = _alembic_config(None)
    head = ScriptDirectory.from_config(config).get_current_head()  # type: ignore[arg-type]
    assert head is not None
    return head


def revision(conninfo: str) -> str | None:
    """The database's migration revision (None: never migrated)."""
    with psycopg.connect(conninfo) as db:
        found = db.execute("SELECT to_regclass('public.alembic_version')").fetchone()
        if found is None or found[0] is None:
            return None
        row = db.execute("SELECT version_num FROM public.alembic_version").fetchone()
        return None if row is None else str(row[0])
