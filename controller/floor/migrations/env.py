"""Alembic's environment for the floor: the connection comes from
:func:`controller.floor.schema.migrate` (``config.attributes["connection"]``); there is no
SQLAlchemy model, every migration is plain SQL."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, version_table_schema="public", transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
