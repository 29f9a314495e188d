"""One error base per package, all under CroupierError, which the command line says without a
traceback (``controller.cli.main``; issue 23)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import controller
from controller.game.errors import CroupierError

# Exceptions that never leave their module: control flow inside a loop, not errors.
INTERNAL = {"controller.play.kernel.ShoeEnded", "controller.round.controller._Refusal"}


def _error_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(controller.__path__, "controller."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("controller."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [cls for name, cls in sorted(found.items()) if name not in INTERNAL]


def test_every_error_the_controller_raises_on_purpose_is_a_croupier_error() -> None:
    errors = _error_classes()
    assert len(errors) > 20  # (the walk found them)
    assert [
        f"{e.__module__}.{e.__qualname__}" for e in errors if not issubclass(e, CroupierError)
    ] == []
