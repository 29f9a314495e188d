"""The floor file (``croupier floor serve --config floor.toml``), validated on load.

::

    [database]            # the floor role's connection (read only), no password here
    dsn = "host=floor-db dbname=croupier user=pit_view"
    password_env = "CROUPIER_FLOOR_DB_PASSWORD"   # or password_file = "..." (mode 600)

    [server]              # where the floor page listens (loopback unless TLS, as the display)
    host = "127.0.0.1"
    port = 8400

    [access]              # who may sign in: names with salted scrypt hashes
    max_wrong = 5         # wrong passwords in a row lock that name ...
    max_wrong_per_source = 20  # ... and this many from one address (any names) lock it ...
    lockout_seconds = 300 # ... for this long (kept in PostgreSQL: a restart forgets none)
    attempts_log = "var/log/floor-access.jsonl"   # every attempt, one JSON line each
    session_hours = 12

    [[users]]
    name = "pat"
    secret_hash = "scrypt$..."   # `croupier floor passwd pat`
    role = "pit"                 # or "surveillance": also the surveillance page

    [shifts]
    starts = ["06:00", "14:00", "22:00"]
    timezone = "UTC"

    [alerts]
    lag_seconds = 10      # shipping lag: the oldest unshipped row older than this
    silent_seconds = 30   # no word from a table's shipper for this long
    recheck_minutes = 5   # every row checked again this often
    history_hours = 12    # rows read at start

Errors name the file, the key, the value and what is allowed (:class:`ConfigError`).
"""

from __future__ import annotations

import tomllib
from datetime import time
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
)

from controller.floor.shifts import Shifts
from controller.floor.watch import WatchSettings
from controller.game.errors import ConfigError
from controller.game.validation import config_error, text_matching
from controller.table.config import FloorLink, Listen, _check_hash

DEFAULT_PORT = 8400


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Server(Listen):
    port: Annotated[StrictInt, Field(ge=0, le=65_535)] = DEFAULT_PORT  # 0: any free port


class User(_Section):
    name: Annotated[
        str,
        text_matching(
            r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
            "1 to 40 letters, digits, '_', '.' or '-', beginning with a letter or a digit",
        ),
    ]
    secret_hash: str
    # "pit": the floor page and the report; "surveillance": also the surveillance page
    # (advantage play), which a pit user never sees
    role: Literal["pit", "surveillance"] = "pit"

    _hash = field_validator("secret_hash")(_check_hash)


class FloorAccessSettings(_Section):
    max_wrong: Annotated[StrictInt, Field(ge=1, le=20)] = 5
    max_wrong_per_source: Annotated[StrictInt, Field(ge=1, le=1_000)] = 20
    lockout_seconds: Annotated[StrictInt, Field(ge=1, le=86_400)] = 300
    attempts_log: str = "var/log/floor-access.jsonl"
    session_hours: Annotated[StrictInt, Field(ge=1, le=24)] = 12


class ShiftTimes(_Section):
    starts: tuple[str, ...] = ("06:00", "14:00", "22:00")
    timezone: str = "UTC"

    @field_validator("starts")
    @classmethod
    def _starts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("give at least one shift start, such as '06:00'")
        for text in value:
            try:
                time.fromisoformat(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a time of day such as '06:00'") from None
        if len(set(value)) != len(value):
            raise ValueError("a shift start is listed twice")
        return tuple(sorted(value))

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                "is not a time zone name such as 'UTC', 'Pacific/Auckland' or 'America/New_York'"
            ) from None
        return value

    def shifts(self) -> Shifts:
        return Shifts(tuple(time.fromisoformat(t) for t in self.starts), ZoneInfo(self.timezone))


class Alerts(_Section):
    lag_seconds: Annotated[StrictInt, Field(ge=1, le=3_600)] = 10
    silent_seconds: Annotated[StrictInt, Field(ge=5, le=3_600)] = 30
    recheck_minutes: Annotated[float, Field(ge=0.01, le=1_440)] = 5
    history_hours: Annotated[float, Field(ge=0.1, le=168)] = 12

    def watch(self) -> WatchSettings:
        return WatchSettings(
            history_hours=self.history_hours,
            recheck_s=self.recheck_minutes * 60,
            lag_s=self.lag_seconds,
            silent_s=self.silent_seconds,
        )


class Retention(_Section):
    """How long the floor keeps rows: ``croupier floor prune`` drops the months older."""

    years: Annotated[StrictInt, Field(ge=1, le=100)] = 10


class FloorConfig(_Section):
    database: FloorLink
    server: Server = Server()
    access: FloorAccessSettings = FloorAccessSettings()
    users: tuple[User, ...] = ()
    shifts: ShiftTimes = ShiftTimes()
    alerts: Alerts = Alerts()
    retention: Retention = Retention()

    @field_validator("users")
    @classmethod
    def _users(cls, value: tuple[User, ...]) -> tuple[User, ...]:
        names = [u.name for u in value]
        if len(set(names)) != len(names):
            raise ValueError("a user name is listed twice")
        return value


class LoadedFloor:
    def __init__(self, config: FloorConfig, source: str, base: Path) -> None:
        self.config = config
        self.source = source
        self.base = base

    def path(self, relative: str) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.base / p


def floor_from_mapping(data: dict[str, Any], source: str, base: Path) -> LoadedFloor:
    try:
        config = FloorConfig.model_validate(data)
    except ValidationError as exc:
        raise config_error(source, exc, FloorConfig) from None
    if not config.users:
        raise ConfigError(
            source,
            [
                "users: nobody may sign in; add a [[users]] entry with a name and the "
                "secret_hash that `croupier floor passwd NAME` prints"
            ],
        )
    return LoadedFloor(config, source, base)


def load_floor_config(path: str | Path) -> LoadedFloor:
    file = Path(path)
    if not file.exists():
        raise ConfigError(str(file), ["no such file"])
    try:
        data = tomllib.loads(file.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(str(file), [f"not valid TOML: {exc}"]) from None
    return floor_from_mapping(data, str(file), Path.cwd())
