"""Bounded fuzzing of the variant loader: any mutation of a shipped variant file either loads or
is refused with a ConfigError that names the file; it never crashes and never half-loads."""

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.game.errors import ConfigError
from controller.game.rules import (
    VARIANT_IDS,
    VARIANTS_DIR,
    Variant,
    load_variant,
    variant_from_mapping,
)

ORIGINALS = {v: tomllib.loads((VARIANTS_DIR / f"{v}.toml").read_text()) for v in VARIANT_IDS}

scalars = st.one_of(
    st.integers(-10**6, 10**6), st.booleans(), st.text(max_size=12),
    st.floats(allow_nan=True), st.lists(st.text(max_size=3), max_size=3),
)  # fmt: skip


def outcome(load: Callable[[], Variant]) -> Variant | ConfigError:
    try:
        return load()
    except ConfigError as refused:
        return refused


def paths(data: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for key, value in data.items():
        out.append((*prefix, key))
        if isinstance(value, dict):
            out += paths(value, (*prefix, key))
    return out


def mutate(data: dict[str, Any], path: tuple[str, ...], how: str, value: object) -> dict[str, Any]:
    copy: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    target = copy
    for part in path[:-1]:
        target = target[part]
    if how == "delete":
        del target[path[-1]]
    elif how == "replace":
        target[path[-1]] = value
    else:
        target[path[-1] + "_typo"] = target.get(path[-1])
    return copy


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    variant=st.sampled_from(VARIANT_IDS),
    pick=st.integers(0, 10_000),
    how=st.sampled_from(["delete", "replace", "typo"]),
    value=scalars,
)
def test_a_mutated_variant_loads_or_is_refused_naming_the_file(
    variant: str, pick: int, how: str, value: object
) -> None:
    original = ORIGINALS[variant]
    choices = paths(original)
    path = choices[pick % len(choices)]
    mutated = mutate(original, path, how, value)
    result = outcome(lambda: variant_from_mapping(mutated, f"{variant}.toml"))
    if isinstance(result, ConfigError):
        assert result.problems
        assert str(result).startswith(f"{variant}.toml:")
    else:
        assert isinstance(result, Variant)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_as_a_variant_file_are_refused_or_loaded_never_crash(
    tmp_path_factory: Any, blob: bytes
) -> None:
    path: Path = tmp_path_factory.mktemp("fuzz") / "v.toml"
    path.write_bytes(blob)
    result = outcome(lambda: load_variant(path))
    assert isinstance(result, Variant) or str(path) in str(result)
