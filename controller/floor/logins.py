"""A table's own login to the floor: a PostgreSQL login role, a member of ``croupier_table``,
bound in ``croupier.table_logins`` to the one table id it may write (migration 0002).

:func:`table_login` (``croupier floor table-login TABLE_ID``) runs as the floor's owner: it
makes the login with a generated password, or binds an existing member of ``croupier_table``
(a floor's logins from before 0002), and moves the table's binding to it."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import psycopg
from psycopg import sql

from controller.floor.errors import FloorError
from controller.floor.schema import TABLE_ROLE

TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
LOGIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$")


def login_name(table_id: str) -> str:
    """The login a table gets when none is named: ``table_<table id>``."""
    return f"table_{table_id}"


@dataclass(frozen=True, slots=True)
class TableLogin:
    table_id: str
    login: str
    password: str | None  # None: an existing login, its password unchanged
    made: bool  # a new login role
    was: str | None  # the login that wrote this table before (now none)


def table_login(
    owner_conninfo: str,
    table_id: str,
    *,
    login: str | None = None,
    password: str | None = None,
    new_password: bool = False,
) -> TableLogin:
    """Make (or bind) ``table_id``'s login as the floor's owner; returns who and the password
    when one was set (generated unless ``password`` is given)."""
    if not TABLE_ID.match(table_id):
        raise FloorError(
            f"{table_id!r} is not a table id: 1-32 letters, digits, _ . or -, starting with a "
            "letter or digit (the table file's table_id)"
        )
    name = login or login_name(table_id)
    if not LOGIN_NAME.match(name):
        raise FloorError(
            f"{name!r} is not a login name: 1-63 letters, digits, _ . or -, not starting "
            "with . or -"
        )
    try:
        with psycopg.connect(owner_conninfo, connect_timeout=10) as db:
            return _bind(db, table_id, name, password, new_password)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise FloorError(
            f"the floor's database refused: {exc.diag.message_primary or exc} (run it with the "
            "owner's connection: the role that owns the database and may create roles)"
        ) from None
    except psycopg.errors.UndefinedTable:
        raise FloorError(
            "the floor's schema is older than this croupier: run `croupier floor migrate` first"
        ) from None
    except psycopg.OperationalError as exc:
        raise FloorError(f"cannot reach the floor's database: {exc}".strip()) from None


def _bind(
    db: psycopg.Connection[tuple[object, ...]],
    table_id: str,
    name: str,
    password: str | None,
    new_password: bool,
) -> TableLogin:
    role = db.execute(
        "SELECT rolcanlogin, pg_has_role(oid, %s, 'MEMBER'), rolsuper FROM pg_roles "
        "WHERE rolname = %s",
        (TABLE_ROLE, name),
    ).fetchone()
    made = role is None
    if role is not None:
        can_login, member, superuser = (bool(v) for v in role)
        if superuser or not can_login:
            raise FloorError(
                f"the role {name} is {'a superuser' if superuser else 'not a login'}: a table's "
                "login is an ordinary login role; name another with --login"
            )
        if not member:
            raise FloorError(
                f"the role {name} is not a member of {TABLE_ROLE}: it is not a table's login; "
                "name another with --login"
            )
    secret = password
    if made or new_password:
        secret = secret or secrets.token_urlsafe(24)
    if made:
        db.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
                sql.Identifier(name), sql.Literal(secret), sql.Identifier(TABLE_ROLE)
            )
        )
    elif secret is not None:
        db.execute(
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(name), sql.Literal(secret))
        )
    before = db.execute(
        "SELECT login FROM croupier.table_logins WHERE table_id = %s AND login <> %s",
        (table_id, name),
    ).fetchone()
    db.execute(
        "DELETE FROM croupier.table_logins WHERE login = %s OR table_id = %s", (name, table_id)
    )
    db.execute(
        "INSERT INTO croupier.table_logins (login, table_id) VALUES (%s, %s)", (name, table_id)
    )
    db.commit()
    return TableLogin(table_id, name, secret, made, None if before is None else str(before[0]))
