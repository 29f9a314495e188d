"""The table's configuration (``config/table.toml``), validated on load.

One file per table: its id, the variant it deals, the limits, the boxes in use, the three
devices (pyserial URLs, or ``"emulated"`` for an in-process emulated device), where the dealer
display listens, the journal and log paths, and the secrets: the supervisor's and the
technician's PINs and the pit's read-only view token, each stored as a salted scrypt hash (never
as plain text; make one with ``croupier passwd``), with how many wrong PINs in a row lock a role
and for how long (``[access]``, see :mod:`controller.table.access`).

An unknown key, a wrong type or a bad value is refused with the file, the key, the value and
what is allowed (:class:`~controller.game.errors.ConfigError`), like the variant files.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import pwd
import re
import secrets
import stat
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Annotated, Any, Self

import psycopg
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from controller.game.errors import ConfigError
from controller.game.files import read_config_file
from controller.game.prompts import money
from controller.game.rules import CONFIG_DIR, Variant, apply_overrides, load_variant
from controller.game.validation import config_error, shown, text_matching
from controller.table.pepper import Pepper, PepperError, default_pepper_path
from controller.table.private import state_folder

DEFAULT_CONFIG = CONFIG_DIR / "table.toml"
EMULATED = "emulated"
DEFAULT_PORT = 8321

# scrypt cost: 2**14 x 8 x 1 takes about 16 MiB and tens of milliseconds per check.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_HASH_PREFIX = "scrypt"
_PEPPERED_PREFIX = "scrypt+pepper"


# --- secrets ---------------------------------------------------------------------------------


def hash_secret(secret: str, *, salt: bytes | None = None, pepper: Pepper | None = None) -> str:
    """``scrypt$N$r$p$<salt>$<hash>`` (base64) for a password or a view token; with ``pepper``
    (a PIN), ``scrypt+pepper$<pepper id>$N$r$p$<salt>$<hash>`` of the peppered PIN."""
    if not secret:
        raise ValueError("an empty secret cannot be hashed")
    salt = salt if salt is not None else secrets.token_bytes(16)
    keyed = secret.encode("utf-8") if pepper is None else pepper.key(secret)
    digest = hashlib.scrypt(keyed, salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.urlsafe_b64encode
    prefix = _HASH_PREFIX if pepper is None else f"{_PEPPERED_PREFIX}${pepper.id}"
    return f"{prefix}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def hash_pepper_id(text: str) -> str | None:
    """The pepper id a peppered hash names (None: a hash without a pepper)."""
    parts = text.split("$")
    return parts[1] if len(parts) == 7 and parts[0] == _PEPPERED_PREFIX else None


def _parse_hash(text: str) -> tuple[int, int, int, bytes, bytes]:
    parts = text.split("$")
    if len(parts) == 7 and parts[0] == _PEPPERED_PREFIX:
        if not re.fullmatch(r"[0-9a-f]{16}", parts[1]):
            raise ValueError(
                "the hash's pepper id is damaged: make a new one with `croupier passwd`"
            )
        parts = [_HASH_PREFIX, *parts[2:]]
    if len(parts) != 6 or parts[0] != _HASH_PREFIX:
        raise ValueError(
            "must be a salted hash 'scrypt$N$r$p$salt$hash' as printed by `croupier passwd` "
            "(never the plain password or token)"
        )
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt = base64.urlsafe_b64decode(parts[4])
        digest = base64.urlsafe_b64decode(parts[5])
    except ValueError:
        raise ValueError("the hash is damaged: make a new one with `croupier passwd`") from None
    if n < 2**14 or n & (n - 1) or not 1 <= r <= 32 or not 1 <= p <= 16:
        raise ValueError("scrypt cost too low or malformed: make a new one with `croupier passwd`")
    if len(salt) < 16 or len(digest) != 32:
        raise ValueError("salt or hash too short: make a new one with `croupier passwd`")
    return n, r, p, salt, digest


def verify_secret(secret: str, stored: str, pepper: Pepper | None = None) -> bool:
    """Whether ``secret`` matches ``stored`` (constant-time compare). A peppered hash matches
    only with its own pepper."""
    if not secret:
        return False
    named = hash_pepper_id(stored)
    if named is not None and (pepper is None or pepper.id != named):
        return False
    try:
        n, r, p, salt, digest = _parse_hash(stored)
    except ValueError:
        return False
    keyed = secret.encode("utf-8") if named is None or pepper is None else pepper.key(secret)
    # maxmem: scrypt needs 128 * n * r bytes; allow twice that.
    candidate = hashlib.scrypt(
        keyed, salt=salt, n=n, r=r, p=p, dklen=len(digest), maxmem=256 * n * r
    )
    return hmac.compare_digest(candidate, digest)


def _check_hash(value: str | None) -> str | None:
    if value is not None:
        _parse_hash(value)
    return value


check_hash = _check_hash  # (a staff file's PIN hashes are checked as a table file's)


# --- the model -------------------------------------------------------------------------------


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Cents = Annotated[StrictInt, Field(gt=0)]


class Limits(_Section):
    min_cents: Cents = 500
    max_cents: Cents = 50_000
    increment_cents: Cents = 100

    @model_validator(mode="after")
    def _order(self) -> Limits:
        if self.max_cents < self.min_cents:
            raise ValueError(
                f"max_cents {self.max_cents} is below min_cents {self.min_cents}: the maximum "
                "bet must be at least the minimum"
            )
        for name in ("min_cents", "max_cents"):
            if getattr(self, name) % self.increment_cents:
                raise ValueError(
                    f"{name} = {getattr(self, name)} is not a multiple of increment_cents "
                    f"{self.increment_cents}"
                )
        return self


def _device_url(value: str) -> str:
    if value == EMULATED:
        return value
    if value.startswith("/") or ("://" in value and value.split("://", 1)[0].isidentifier()):
        return value
    raise ValueError(
        f"must be {EMULATED!r} (an in-process emulated device) or a pyserial URL: a device path "
        "such as '/dev/ttyUSB0' or '/dev/pts/5', or 'socket://host:port', 'spy://...', "
        "'rfc2217://...'"
    )


class Devices(_Section):
    shoe: str = EMULATED
    peek: str = EMULATED
    panel: str = EMULATED
    baudrate: Annotated[StrictInt, Field(ge=1200, le=921_600)] = 115_200
    # Firmware hashes (the 16 hex digits a device reports in its ident) approved for this
    # table; `croupier run` holds for any other (controller.table.firmware), `croupier doctor`
    # fails on it. Empty: not checked (doctor warns).
    firmware_allow: tuple[
        Annotated[str, text_matching(r"^[0-9A-Fa-f]{16}$", "16 hex digits (0-9, A-F)")], ...
    ] = ()

    _urls = field_validator("shoe", "peek", "panel")(_device_url)

    @property
    def urls(self) -> dict[str, str]:
        return {"shoe": self.shoe, "peek": self.peek, "panel": self.panel}


_HOST_NAME = re.compile(
    r"(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)


class Listen(_Section):
    """Where a page listens: loopback, or another address with TLS (or an explicit, logged
    ``allow_insecure_remote``). The dealer display and the floor page share it."""

    host: str = "127.0.0.1"
    tls_certfile: str | None = None
    tls_keyfile: str | None = None
    # Serve a non-loopback address without TLS anyway (logged as a warning at every start).
    allow_insecure_remote: StrictBool = False
    # Other names this page is opened under (such as "table-1.casino.lan"): a request whose
    # Host (or a socket's Origin) is none of these, the address it listens on or, on loopback,
    # localhost, is refused (a page of another site reaching it through DNS rebinding).
    hosts: tuple[str, ...] = ()

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        if value == "localhost":
            return value
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValueError(
                "must be an IP address such as '127.0.0.1' (this machine only), '::1' or "
                "'0.0.0.0' (every interface), or 'localhost'"
            ) from None
        return value

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if not _HOST_NAME.fullmatch(name):
                raise ValueError(
                    f"{name!r} is not a host name: give names such as 'table-1.casino.lan' "
                    "(letters, digits, '-' and '.'; no scheme, port or wildcard)"
                )
        return tuple(name.lower().rstrip(".") for name in value)

    @property
    def loopback(self) -> bool:
        return self.host == "localhost" or ipaddress.ip_address(self.host).is_loopback

    @property
    def tls(self) -> bool:
        return self.tls_certfile is not None

    @model_validator(mode="after")
    def _remote(self) -> Self:
        if (self.tls_certfile is None) != (self.tls_keyfile is None):
            raise ValueError("tls_certfile and tls_keyfile go together: give both or neither")
        if not self.loopback and not self.tls and not self.allow_insecure_remote:
            raise ValueError(
                f"host {self.host!r} is reachable from other machines: give tls_certfile and "
                "tls_keyfile, or set allow_insecure_remote = true to serve plain HTTP anyway"
            )
        return self


def _account_uid(name: str) -> int | None:
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


DEFAULT_CHIPS = (50, 100, 500, 2_500, 10_000, 50_000, 100_000)
MAX_CHIPS = 12


class Display(Listen):
    port: Annotated[StrictInt, Field(ge=0, le=65_535)] = DEFAULT_PORT  # 0: any free port
    view_token_hash: str | None = None  # the pit's read-only view; `croupier passwd --token`
    last_rounds: Annotated[StrictInt, Field(ge=1, le=100)] = 8
    # the rounds a signed-in supervisor (and the pit) can recall, card by card, from the journal
    recall_rounds: Annotated[StrictInt, Field(ge=1, le=100)] = 10
    # The chip denominations the dealer pays and collects with, in cents (the display breaks
    # each amount into them, largest first): 50c, $1, $5, $25, $100, $500, $1,000.
    chips: tuple[Cents, ...] = DEFAULT_CHIPS
    # The local accounts whose browser is the dealer's screen (the kiosk's), besides the account
    # croupier runs as: a loopback connection of any other account (another user of the table's
    # computer) is not the dealer. Each must be an account on this computer.
    dealer_users: tuple[str, ...] = ()

    _token = field_validator("view_token_hash")(_check_hash)

    @field_validator("dealer_users")
    @classmethod
    def _dealer_users(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if _account_uid(name) is None]
        if unknown:
            raise ValueError(
                f"{unknown} {'is' if len(unknown) == 1 else 'are'} not an account on this "
                "computer: name the local accounts whose browser shows the dealer's screen "
                "(the kiosk's user), such as ['kiosk']"
            )
        return value

    def dealer_uids(self) -> frozenset[int]:
        """The user ids whose loopback connections are the dealer's: croupier's own and
        :attr:`dealer_users`'."""
        named = (_account_uid(name) for name in self.dealer_users)
        return frozenset({os.getuid(), *(uid for uid in named if uid is not None)})

    @field_validator("chips")
    @classmethod
    def _chips(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value:
            raise ValueError("at least one chip denomination, in cents, such as [100, 500, 2500]")
        if len(set(value)) != len(value):
            twice = sorted({c for c in value if value.count(c) > 1})
            raise ValueError(f"{twice} listed twice: each denomination once")
        if len(value) > MAX_CHIPS:
            raise ValueError(f"{len(value)} denominations: at most {MAX_CHIPS}")
        return tuple(sorted(value, reverse=True))


# The demo's PINs, for the roles a demo's table file leaves without one (``croupier run --demo``,
# or the shipped example): every demo prints them, so a live table refuses them.
DEMO_PINS = {"supervisor": "246810", "technician": "135791", "dealer": "112233"}


class _Role(_Section):
    pin_hash: str | None = None  # `croupier passwd --pin ROLE`; none: that role decides nothing

    _hash = field_validator("pin_hash")(_check_hash)


class Supervisor(_Role):
    name: Annotated[str, Field(min_length=1, max_length=40)] = "supervisor"
    password_hash: str | None = None  # replaced by pin_hash: refused with how to migrate

    @field_validator("password_hash")
    @classmethod
    def _migrated(cls, value: str | None) -> str | None:
        if value is not None:
            raise ValueError(
                "no longer used: the supervisor signs in with a PIN at the panel (digits only); "
                "make one with `croupier passwd --pin supervisor` and put the pin_hash line it "
                "prints under [supervisor] in place of password_hash"
            )
        return value


class Technician(_Role):
    name: Annotated[str, Field(min_length=1, max_length=40)] = "technician"


class AccessSettings(_Section):
    max_wrong_pins: Annotated[StrictInt, Field(ge=1, le=20)] = 5  # in a row: the role locks
    lockout_seconds: Annotated[StrictInt, Field(ge=1, le=86_400)] = 300  # for this long
    # the PIN hashes' pepper, kept apart from this file (none: peppers/<table id>.pepper in
    # croupier's state folder); `croupier passwd --pin ROLE --config FILE` makes it
    pepper_path: Annotated[str, Field(min_length=1)] | None = None
    # each dealer, supervisor and technician by name (none: staff/<table id>.staff in
    # croupier's state folder); `croupier staff add --config FILE` makes it
    staff_path: Annotated[str, Field(min_length=1)] | None = None


LogBytes = Annotated[StrictInt, Field(ge=64 * 1024, le=10 * 1024**3)]
LogBackups = Annotated[StrictInt, Field(ge=1, le=1_000)]


class Logs(_Section):
    """Where the logs go, when each is rotated (at ``*_max_bytes``, keeping ``*_backups`` old
    files: at most (backups + 1) x max_bytes each), and how often the same line may repeat."""

    audit: str = "var/log/audit.jsonl"
    debug: str = "var/log/debug.log"
    audit_max_bytes: LogBytes = 20 * 1024 * 1024
    audit_backups: LogBackups = 10
    debug_max_bytes: LogBytes = 10 * 1024 * 1024
    debug_backups: LogBackups = 5
    # the same message of the same logger more than repeat_limit times in repeat_window_s
    # seconds: the rest is one line saying how many times it repeated
    repeat_limit: Annotated[StrictInt, Field(ge=1, le=10_000)] = 10
    repeat_window_s: Annotated[StrictInt, Field(ge=1, le=3_600)] = 10
    # true: the debug log's raw bytes show the cards the shoe reads and the hole-card reader's
    # answers - the hole card before it is turned over. For a bench, never at a live table.
    wire_cards: StrictBool = False


class JournalSettings(_Section):
    path: str = "var/journal.sqlite3"
    retention_days: Annotated[StrictInt, Field(ge=1, le=36_500)] = 90  # older rows may be pruned
    # the table key that seals the journal's rows (controller.journal.seal); by default
    # <journal>.key beside it. Keep it out of the journal's backups and copies
    key_path: Annotated[str, Field(min_length=1)] | None = None


class GamingDaySettings(_Section):
    """The gaming day (controller.table.day): with ``required`` the table deals nothing until a
    supervisor has opened the day on the display (layout, devices, opening chips); without it
    the table deals at once and the day may still be opened and closed."""

    required: StrictBool = False


class Integrity(_Section):
    """The live integrity check (controller.service.integrity): while the table runs, the
    journal's chain is checked again from a read-only connection, and the rules files hashed
    again; a change holds the table for a supervisor."""

    enabled: StrictBool = True
    check_ms: Annotated[StrictInt, Field(ge=100, le=60_000)] = 1_000  # how often
    # older rows checked again at each check, going round the whole chain (0: new rows only)
    sweep_rows: Annotated[StrictInt, Field(ge=0, le=100_000)] = 200


_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,63}$")


def secret_file_problem(path: Path) -> str | None:
    """Why ``path`` is no place for a secret (missing, not a file, others may read it), or None."""
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_mode & 0o077:
        return (
            f"may be read by others (mode {stat.S_IMODE(info.st_mode):04o}): make it readable "
            f"by croupier alone with `chmod 600 {path}`"
        )
    if info.st_uid != os.geteuid():
        return f"belongs to another user (uid {info.st_uid}): it must be croupier's own file"
    return None


# libpq's keywords whose value is a secret: what it is, and where it goes instead
_DSN_SECRETS = {
    "password": (
        "a password",
        "take it out and name password_env (an environment variable) or password_file (a file "
        "readable by croupier alone) instead",
    ),
    "sslpassword": (
        "the client key's pass phrase (sslpassword)",
        "take it out and give sslkey a key without a pass phrase in a file readable by "
        "croupier alone (mode 600), or sign in with a password from password_env or "
        "password_file instead",
    ),
}
_UNREADABLE_DSN = "(not shown)"


def dsn_problem(dsn: str) -> tuple[str, str] | None:
    """What is wrong with a libpq connection string for croupier (None: nothing) and what to
    do, never quoting any part of it: it may hold a secret."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return (
            "is not a PostgreSQL connection string (it is not repeated here: it may hold a secret)",
            "give 'host=... dbname=... user=...' or 'postgresql://user@host/dbname'",
        )
    for key, (what, instead) in _DSN_SECRETS.items():
        if key in parts:
            return f"holds {what}: croupier never keeps a secret there", instead
    return None


def masked_dsn(dsn: str) -> str:
    """``dsn`` as an error may show it: every secret masked, or nothing when it cannot be
    read."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return _UNREADABLE_DSN
    hidden = {key: "(hidden)" for key in _DSN_SECRETS if key in parts}
    return psycopg.conninfo.make_conninfo(dsn, **hidden) if hidden else dsn


class FloorLink(_Section):
    """Where the journal rows go (PostgreSQL) and how to sign in there, without the secret.

    ``dsn`` is a libpq connection string or URI *without* a password; the password comes from
    the environment variable ``password_env`` or from ``password_file`` (readable by croupier
    alone), or libpq finds its own way (a client certificate, ``.pgpass``)."""

    dsn: Annotated[str, Field(min_length=1, max_length=1000)]
    password_env: str | None = None
    password_file: str | None = None
    batch_rows: Annotated[StrictInt, Field(ge=1, le=10_000)] = 500  # rows per INSERT
    poll_ms: Annotated[StrictInt, Field(ge=10, le=5_000)] = 100  # how often the journal is read
    connect_timeout_s: Annotated[StrictInt, Field(ge=1, le=120)] = 5
    statement_timeout_s: Annotated[StrictInt, Field(ge=1, le=600)] = 15

    @model_validator(mode="before")
    @classmethod
    def _hide_secrets(cls, data: Any) -> Any:
        """A secret typed into ``dsn`` by mistake is refused without being echoed: the value
        shown in the error has it masked (or is not shown at all when it cannot be read)."""
        if isinstance(data, dict) and isinstance(data.get("dsn"), str):
            return {**data, "dsn": masked_dsn(data["dsn"])}
        return data

    @field_validator("dsn")
    @classmethod
    def _dsn(cls, value: str) -> str:
        problem = dsn_problem(value)
        if problem is not None:
            raise ValueError("; ".join(problem))
        parts = psycopg.conninfo.conninfo_to_dict(value)
        for key in ("passfile", "servicefile"):
            named = parts.get(key)
            if named:
                found = secret_file_problem(Path(str(named)))
                if found is not None:
                    raise ValueError(f"names {key} {named}, which {found} (it may hold passwords)")
        return value

    @field_validator("password_env")
    @classmethod
    def _env(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(
                "must be the name of an environment variable: capital letters, digits and _ "
                "(for example CROUPIER_FLOOR_PASSWORD)"
            )
        return value

    @field_validator("password_file")
    @classmethod
    def _file(cls, value: str | None) -> str | None:
        if value is not None:
            problem = secret_file_problem(Path(value))
            if problem is not None:
                raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _one_secret(self) -> FloorLink:
        if self.password_env is not None and self.password_file is not None:
            raise ValueError("give password_env or password_file, not both")
        return self

    def password(self) -> str | None:
        """The password now (None: libpq's own ways). Raises ValueError saying what is wrong."""
        if self.password_env is not None:
            found = os.environ.get(self.password_env)
            if not found:
                raise ValueError(
                    f"the environment variable {self.password_env} (floor.password_env) is not "
                    "set: start croupier with the floor password in it"
                )
            return found
        if self.password_file is not None:
            path = Path(self.password_file)
            problem = secret_file_problem(path)
            if problem is not None:
                raise ValueError(f"floor.password_file {path} {problem}")
            text = path.read_text(encoding="utf-8").strip()
            if not text:
                raise ValueError(f"floor.password_file {path} is empty")
            return text
        return None

    def conninfo(self) -> str:
        """The connection string with the password added (never logged or shown)."""
        secret = self.password()
        if secret is None:
            return self.dsn
        return psycopg.conninfo.make_conninfo(self.dsn, password=secret)

    @property
    def where(self) -> str:
        """The server and database for people to read (no secret is ever in ``dsn``)."""
        parts = psycopg.conninfo.conninfo_to_dict(self.dsn)
        host = str(parts.get("host") or "localhost")
        port = parts.get("port")
        db = parts.get("dbname") or parts.get("user") or ""
        user = parts.get("user")
        who = f"{user}@" if user else ""
        return f"postgresql://{who}{host}{':' + str(port) if port else ''}/{db}"


class TrainingSettings(_Section):
    """``[training]``: this table trains and auditions dealers (``croupier train``) and never
    deals live; every attempt goes to its training journal, never to the live journal."""

    journal: Annotated[str, Field(min_length=1)] = "var/training.sqlite3"


class TableConfig(_Section):
    table_id: Annotated[
        str,
        text_matching(
            r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$",
            "1 to 32 letters, digits, '_', '.' or '-', beginning with a letter or a digit",
        ),
    ] = "table-1"
    variant: str = "nz-pontoon"
    boxes: tuple[Annotated[StrictInt, Field(ge=1, le=7)], ...] = (1, 2, 3, 4, 5, 6, 7)
    limits: Limits = Limits()
    devices: Devices = Devices()
    display: Display = Display()
    journal: JournalSettings = JournalSettings()
    supervisor: Supervisor = Supervisor()
    technician: Technician = Technician()
    access: AccessSettings = AccessSettings()
    logs: Logs = Logs()
    integrity: Integrity = Integrity()
    gaming_day: GamingDaySettings = GamingDaySettings()
    floor: FloorLink | None = None  # ship the journal to the floor's PostgreSQL (docs/floor.md)
    training: TrainingSettings | None = None  # a training table (docs/training.md)

    @field_validator("boxes")
    @classmethod
    def _boxes(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value:
            raise ValueError("at least one box must be in use")
        if len(set(value)) != len(value):
            raise ValueError("a box is listed twice")
        return tuple(sorted(value))


class LoadedTable:
    """A validated table configuration with its variant loaded, and paths made absolute.

    ``shipped``: the file is the example shipped with croupier (``config/table.toml``)."""

    def __init__(
        self, config: TableConfig, rules: Variant, source: str, base: Path, *, shipped: bool = False
    ) -> None:
        self.config = config
        self.rules = rules
        self.source = source
        self.base = base
        self.shipped = shipped

    def path(self, relative: str) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.base / p

    @property
    def journal_path(self) -> Path:
        return self.path(self.config.journal.path)

    @property
    def training_journal_path(self) -> Path | None:
        """The training journal of a training table (None: a live table, which cannot train)."""
        training = self.config.training
        return None if training is None else self.path(training.journal)

    @property
    def key_path(self) -> Path | None:
        """The table key's file, when the table file names one (None: beside the journal)."""
        named = self.config.journal.key_path
        return None if named is None else self.path(named)

    @property
    def pepper_path(self) -> Path:
        """Where the PIN hashes' pepper is kept."""
        named = self.config.access.pepper_path
        return default_pepper_path(self.config.table_id) if named is None else self.path(named)

    @property
    def staff_path(self) -> Path:
        """Where the table's staff file is kept (controller.table.staff)."""
        named = self.config.access.staff_path
        if named is None:
            return state_folder() / "staff" / f"{self.config.table_id}.staff"
        return self.path(named)

    def pepper(self) -> Pepper | None:
        """The pepper this table file's PIN hashes were made with (None: none was); refused
        (:class:`ConfigError`) when a hash needs a pepper that is missing or is not its own."""
        wanted = {
            role: hash_pepper_id(section.pin_hash)
            for role, section in _roles(self.config).items()
            if section.pin_hash is not None
        }
        if not any(wanted.values()):
            return None
        path = self.pepper_path
        try:
            pepper = Pepper.load(path)
        except PepperError as exc:
            raise ConfigError(self.source, [str(exc)]) from None
        if pepper is None:
            raise ConfigError(
                self.source,
                [
                    f"the PIN hashes were made with a pepper, and there is none at {path} "
                    "([access] pepper_path): put back the pepper file they were made with, "
                    "or make new PINs with `croupier passwd --pin ROLE --config "
                    f"{self.source}` (which makes a new pepper there)"
                ],
            )
        foreign = [role for role, made in wanted.items() if made not in (None, pepper.id)]
        if foreign:
            raise ConfigError(
                self.source,
                [
                    f"[{role}] pin_hash was made with another pepper than {path}'s: point "
                    "[access] pepper_path at the pepper it was made with, or make a new PIN "
                    f"with `croupier passwd --pin {role} --config {self.source}`"
                    for role in foreign
                ],
            )
        return pepper


def table_from_mapping(
    data: dict[str, Any], source: str, base: Path, *, shipped: bool = False
) -> LoadedTable:
    try:
        config = TableConfig.model_validate(data)
    except ValidationError as exc:
        raise config_error(source, exc, TableConfig) from None
    variant = config.variant
    if "/" in variant or variant.endswith(".toml"):
        candidate = Path(variant)
        variant = str(candidate if candidate.is_absolute() else base / candidate)
    try:
        rules = load_variant(variant)
    except ConfigError as exc:
        raise ConfigError(
            source, [f"variant = {shown(config.variant)}: {p}" for p in exc.problems]
        ) from None
    problems: list[str] = []
    too_high = [b for b in config.boxes if b > rules.table.boxes]
    if too_high:
        problems.append(
            f"boxes = {list(config.boxes)}: {rules.id} has boxes 1-{rules.table.boxes} only"
        )
    step = rules.table.min_increment_cents
    if config.limits.increment_cents % step:
        problems.append(
            f"limits.increment_cents = {config.limits.increment_cents}: must be a multiple of "
            f"{rules.id}'s minimum increment {step} ({money(step)})"
        )
    table = LoadedTable(config, rules, source, base, shipped=shipped)
    trained = table.training_journal_path
    if trained is not None and os.path.abspath(trained) == os.path.abspath(table.journal_path):
        problems.append(
            f"training.journal = {shown(config.training.journal if config.training else '')}: "
            "the live journal's file; a training journal is a file of its own (training is "
            "never recorded in a live journal)"
        )
    if problems:
        raise ConfigError(source, problems)
    return table


def live_table_problem(table: LoadedTable) -> str | None:
    """Why ``table`` may not deal live (None: it may): a training table never does."""
    if table.config.training is None:
        return None
    return (
        "[training]: this is a training table: it never deals live, so no attempt is mixed "
        "with a live table's rounds; train on it with `croupier train --config "
        f"{table.source}`, or deal live with a table file without [training]"
    )


# --- the roles' PINs at a live table and at a demo --------------------------------------------


def _roles(config: TableConfig) -> dict[str, Supervisor | Technician]:
    return {"supervisor": config.supervisor, "technician": config.technician}


def live_pin_problems(table: LoadedTable, staffed: Collection[str] = ()) -> list[str]:
    """Why ``table`` may not deal live for its PINs (empty: it may): each role needs a PIN of
    its own (or people of that role in the staff file: ``staffed``, their roles), since a held
    table (a stray card, a lost device) waits for a supervisor or a technician, and the demo
    PINs every demo prints are no one's own."""
    problems: list[str] = []
    missing = [
        role
        for role, section in _roles(table.config).items()
        if section.pin_hash is None and role not in staffed
    ]
    if missing:
        make = " and ".join(
            f"`croupier passwd --pin {role} --config {table.source}`" for role in missing
        )
        under = " and ".join(f"[{role}]" for role in missing)
        problems.append(
            f"no {' and no '.join(missing)} PIN: a live table needs both, since a table that "
            "holds (a stray card, a lost device) waits for them to release it. Run "
            f"{make}, put the pin_hash line each prints under {under} in {table.source} and "
            f"`chmod 600 {table.source}`; or try the table with --demo, which has demo PINs"
        )
    bare = [
        role
        for role, section in _roles(table.config).items()
        if section.pin_hash is not None and hash_pepper_id(section.pin_hash) is None
    ]
    if bare:
        make = " and ".join(
            f"`croupier passwd --pin {role} --config {table.source}`" for role in bare
        )
        problems.append(
            f"the {' and the '.join(bare)} PIN hash has no pepper: anyone who reads "
            f"{table.source} could try every 6-digit PIN against it offline in about 13 hours "
            f"of one computer (docs/reliability.md, row 7b). Run {make} (they make the "
            f"table's pepper at {table.pepper_path}, kept apart from the table file) and put "
            "the pin_hash line each prints in place of the old one"
        )
    pepper = table.pepper()
    for role, section in _roles(table.config).items():
        if section.pin_hash is not None and verify_secret(
            DEMO_PINS[role], section.pin_hash, pepper
        ):
            problems.append(
                f"[{role}] pin_hash is the demo {role} PIN, which every demo prints: a live "
                f"table needs a PIN of its own (`croupier passwd --pin {role} --config "
                f"{table.source}`)"
            )
    return problems


def with_demo_pins(table: LoadedTable) -> tuple[LoadedTable, dict[str, str]]:
    """``table`` with the demo PIN of each role its file gives none, and those PINs by role
    (for a demo, never a live table: :func:`live_pin_problems` refuses them)."""
    config = table.config
    update: dict[str, Any] = {}
    pins: dict[str, str] = {}
    for role, section in _roles(config).items():
        if section.pin_hash is None:
            pins[role] = DEMO_PINS[role]
            update[role] = section.model_copy(update={"pin_hash": hash_secret(DEMO_PINS[role])})
    if not update:
        return table, pins
    demo = LoadedTable(
        config.model_copy(update=update),
        table.rules,
        table.source,
        table.base,
        shipped=table.shipped,
    )
    return demo, pins


# What makes a table file a secret: anyone who reads it may brute-force these hashes offline.
_SECRETS = (
    (("supervisor", "pin_hash"), "the supervisor's PIN hash"),
    (("technician", "pin_hash"), "the technician's PIN hash"),
    (("display", "view_token_hash"), "the pit's view token hash"),
)


def secrets_held(config: TableConfig) -> list[str]:
    """The secrets a table file holds, in words (empty: none)."""
    return [
        words
        for (section, key), words in _SECRETS
        if getattr(getattr(config, section), key) is not None
    ]


def table_file_problem(file: Path, config: TableConfig) -> str | None:
    """Why ``file`` (holding ``config``) may not be used for its permissions, or None.

    A table file with a secret (:data:`_SECRETS`) is croupier's alone: no group or other bit.
    One without may be read by anyone (the shipped example, the installed defaults), but not
    written by any user: whoever may write it can add a PIN of their own.
    """
    try:
        mode = stat.S_IMODE(file.stat().st_mode)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    held = secrets_held(config)
    if held and mode & 0o077:
        return (
            f"holds {' and '.join(held)} and may be read or written by other users (mode "
            f"{mode:04o}): make it readable by croupier alone with `chmod 600 {file}`"
        )
    if mode & 0o002:
        return (
            f"may be written by any user (mode {mode:04o}): anyone could change the table's "
            f"settings or add a PIN of their own; `chmod 600 {file}` (or at least "
            f"`chmod o-w {file}`)"
        )
    return None


def load_table_config(
    path: str | Path | None = None, overrides: dict[str, Any] | None = None
) -> LoadedTable:
    """Load and validate a table file (default: ``config/table.toml`` of this checkout).

    Relative paths in the file (journal, logs, a variant file) are taken from the file's
    folder, wherever croupier is started; the shipped example's (the default) from the folder
    croupier is started in, since it lives inside the installation. ``overrides``:
    ``{"display.port": 0}`` style replacements (the command line's options). A file holding a
    PIN or view token hash that others may read, or any file others may write, is refused
    (:func:`table_file_problem`).
    """
    file = Path(path) if path is not None else DEFAULT_CONFIG
    raw = read_config_file(file, "table file")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(str(file), [f"not valid TOML: {exc}"]) from None
    if overrides:
        data = apply_overrides(data, overrides, str(file))
    shipped = file.resolve() == DEFAULT_CONFIG.resolve()
    base = Path.cwd() if shipped else Path(os.path.abspath(file.parent))
    table = table_from_mapping(data, str(file), base, shipped=shipped)
    problem = table_file_problem(file, table.config)
    if problem is not None:
        raise ConfigError(str(file), [problem])
    return table
